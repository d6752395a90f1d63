"""What a download of a stored object says about itself, the same from every place that serves one.

`content_disposition` is the `Content-Disposition` of every attachment download (REST read, the
memo page's download, and a presigned GET straight from S3): `attachment`, an ASCII fallback
name and the exact name in RFC 5987 form.

`inline_safe_type` is the `Content-Type` a download may carry where MeSQ cannot add
`X-Content-Type-Options: nosniff` and a sandboxing CSP (a presigned S3 GET answers from the
bucket's origin with only the headers the URL asks for): the stored type when a browser can only
decode it as an image, audio or video, else `application/octet-stream`. HTML, SVG, XML,
JavaScript, PDF, plain text (which old browsers sniff as HTML) and anything unknown are never
named there, so an uploaded page or script cannot run on the bucket's origin.
"""

from __future__ import annotations

from urllib.parse import quote

#: Types a browser only decodes as media (no script, no markup, no sniffing into HTML).
INLINE_SAFE_TYPES = frozenset(
    {
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/avif",
        "image/bmp",
        "image/heic",
        "image/heif",
        "image/tiff",
        "image/x-icon",
        "image/vnd.microsoft.icon",
        "audio/mpeg",
        "audio/mp4",
        "audio/aac",
        "audio/ogg",
        "audio/opus",
        "audio/wav",
        "audio/x-wav",
        "audio/webm",
        "audio/flac",
        "video/mp4",
        "video/webm",
        "video/ogg",
        "video/quicktime",
        "image/apng",
        "image/jxl",
    }
)
#: Other names clients give those types (a declared `image/jpg` is a JPEG photo): said as the type.
TYPE_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png"}
OPAQUE_TYPE = "application/octet-stream"


def content_disposition(display_name: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name in RFC 5987 form."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in display_name)
    return f"attachment; filename=\"{fallback or 'attachment'}\"; filename*=UTF-8''{quote(display_name, safe='')}"


def inline_safe_type(content_type: str) -> str:
    """`content_type` without parameters (an alias as its type) if it is in INLINE_SAFE_TYPES, else
    OPAQUE_TYPE."""
    bare = content_type.split(";", 1)[0].strip().lower() if isinstance(content_type, str) else ""
    bare = TYPE_ALIASES.get(bare, bare)
    return bare if bare in INLINE_SAFE_TYPES else OPAQUE_TYPE


__all__ = ["INLINE_SAFE_TYPES", "OPAQUE_TYPE", "content_disposition", "inline_safe_type"]
