"""Reading attachments: who may read which path, and reads bounded by a cap.

A path is readable only by its owner and only while it is a registered attachment whose object
exists: another user's path is FORBIDDEN, an unregistered or deleted one NOT_FOUND, and neither
ever reaches the bytes. Capped reads (MCP base64, resources/read) check the stored size first and
then count bytes while reading, so a wrong size record or a changed object can never turn into an
unbounded download.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..context import Call
from ..errors import NotFound, ResponseTooLarge, ServiceUnavailable
from ..store.ports import BlobInfo, BlobNotFound, BlobTooLarge, StoreUnavailable
from . import store
from .paths import own_attachment_id, read_url


@dataclass(frozen=True)
class Stored:
    record: dict[str, Any]
    info: BlobInfo


def registered(call: Call, path: str) -> dict[str, Any]:
    """The caller's attachment record for `path`; no storage access."""
    attachment_id = own_attachment_id(path, call.principal.user_id)
    record = store.read_attachment(call.services.items, call.principal.user_id, attachment_id)
    if record is None:
        raise NotFound(f"no attachment at {path!r}")
    return record


def stat(call: Call, path: str) -> Stored:
    """Record + storage metadata (a HEAD: no body is read). StoreUnavailable passes through."""
    record = registered(call, path)
    info = call.services.blobs.head(path)
    if info is None:
        raise NotFound(f"the file of attachment {path!r} is missing from storage")
    return Stored(record, info)


def _too_large(call: Call, path: str, size: int | None, cap: int) -> ResponseTooLarge:
    what = f"{size} bytes" if size is not None else "more bytes"
    return ResponseTooLarge(
        f"attachment {path!r} has {what}, over the MCP read cap of {cap} bytes; download it with an "
        f"authenticated GET of {read_url(path, call.services.settings.public_url)}"
    )


def read_capped(call: Call, path: str, cap: int) -> tuple[dict[str, Any], bytes]:
    record = registered(call, path)
    if int(record["fileSize"]) > cap:
        raise _too_large(call, path, int(record["fileSize"]), cap)
    try:
        data = call.services.blobs.get(path, max_bytes=cap)
    except BlobNotFound:
        raise NotFound(f"the file of attachment {path!r} is missing from storage") from None
    except BlobTooLarge:
        raise _too_large(call, path, None, cap) from None
    except StoreUnavailable:
        raise ServiceUnavailable("attachment storage is unavailable; retry in a moment") from None
    return record, data
