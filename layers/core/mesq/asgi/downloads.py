"""The headers of an attachment download, for the REST route and the browser pages alike:
user-supplied bytes served from MeSQ's own origin must never render or run there."""

from __future__ import annotations

from urllib.parse import quote

from .envelope import NO_STORE


def content_disposition(display_name: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name in RFC 5987 form."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in display_name)
    return f"attachment; filename=\"{fallback or 'attachment'}\"; filename*=UTF-8''{quote(display_name, safe='')}"


def download_headers(display_name: str, content_type: str, size: int) -> dict[str, str]:
    return {
        **NO_STORE,
        "Content-Type": content_type,
        "Content-Length": str(size),
        "Content-Disposition": content_disposition(display_name),
        "X-Content-Type-Options": "nosniff",
        # User-supplied bytes on the API's origin: never let a browser run them.
        "Content-Security-Policy": "default-src 'none'; sandbox",
    }
