"""The headers of an attachment download, for the REST route and the browser pages alike:
user-supplied bytes served from MeSQ's own origin must never render or run there."""

from __future__ import annotations

from ..store.blob_downloads import content_disposition
from .envelope import NO_STORE


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
