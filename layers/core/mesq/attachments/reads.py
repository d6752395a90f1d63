"""Reading attachments: who may read which path, and reads bounded by a cap.

A path is readable only by its owner and only while it is a registered attachment whose object
exists: another user's path is FORBIDDEN, an unregistered or deleted one NOT_FOUND, and neither
ever reaches the bytes. Capped reads (MCP base64, resources/read) check the stored size first and
then count bytes while reading, so a wrong size record or a changed object can never turn into an
unbounded download.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..kernel.answer_urls import answer_base
from ..kernel.context import Call
from ..kernel.errors import MesqError, NotFound, ResponseTooLarge, ServiceUnavailable, ValidationError
from ..kernel.messages import quoted
from ..kernel.ports.storage import BlobInfo, BlobNotFound, BlobTooLarge, StoreUnavailable
from . import store
from .paths import MEMO, Namespace, own_attachment_id, read_url
from .uploads import bound_resource


@dataclass(frozen=True)
class Stored:
    record: dict[str, Any]
    info: BlobInfo


def registered(call: Call, path: str, kind: Namespace = MEMO) -> dict[str, Any]:
    """The caller's `kind` attachment record for `path`; no storage access."""
    attachment_id = own_attachment_id(path, call.principal.user_id, kind=kind)
    record = store.read_attachment(call.services.items, call.principal.user_id, attachment_id, kind)
    if record is None:
        raise NotFound("no attachment at %(path)s", path=quoted(path))
    return record


def stat(call: Call, path: str, kind: Namespace = MEMO) -> Stored:
    """Record + storage metadata (a HEAD: no body is read). StoreUnavailable passes through."""
    record = registered(call, path, kind)
    info = call.services.blobs.head(path)
    if info is None:
        raise NotFound("the file of attachment %(path)s is missing from storage", path=quoted(path))
    return Stored(record, info)


def _too_large(call: Call, path: str, size: int | None, cap: int, kind: Namespace) -> ResponseTooLarge:
    what = f"{size} bytes" if size is not None else "more bytes"
    return ResponseTooLarge(
        "attachment %(path)s has %(what)s, over the MCP read cap of %(cap)s bytes; download it with an authenticated "
        "GET of %(read_url)s",
        path=quoted(path),
        what=what,
        cap=cap,
        read_url=read_url(path, answer_base(call), kind),
    )


def read_capped(call: Call, path: str, cap: int, kind: Namespace = MEMO) -> tuple[dict[str, Any], bytes]:
    record = registered(call, path, kind)
    if int(record["fileSize"]) > cap:
        raise _too_large(call, path, int(record["fileSize"]), cap, kind)
    try:
        data = call.services.blobs.get(path, max_bytes=cap)
    except BlobNotFound:
        raise NotFound("the file of attachment %(path)s is missing from storage", path=quoted(path)) from None
    except BlobTooLarge:
        raise _too_large(call, path, None, cap, kind) from None
    except StoreUnavailable:
        raise ServiceUnavailable("attachment storage is unavailable; retry in a moment") from None
    return record, data


def _registered_entry(call: Call, path: Any, kind: Namespace, where: str) -> dict[str, Any]:
    try:
        return registered(call, path, kind)
    except MesqError as error:  # malformed, another user's, or not registered
        raise ValidationError(
            "%(where)s: %(problem)s; upload it first",
            where=where,
            problem=error.message.removeprefix("path: "),
        ) from None


def discarded_meanwhile(path: str, where: str) -> ValidationError:
    """The refusal of a write whose attachment was discarded (Settings -> Attachments) between
    its registration check and its commit (`store.unlinked`): what a write naming an attachment
    that is not registered hears, so a client handles both alike."""
    gone = NotFound("no attachment at %(path)s", path=quoted(path))
    return ValidationError("%(where)s: %(problem)s; upload it first", where=where, problem=gone.text)


def checked_resources(
    call: Call, resources: Iterable[dict[str, Any]], kind: Namespace = MEMO, field: str = "resources"
) -> list[dict[str, Any]]:
    """The registration check memos run on the `resources` of a write: each must name a
    registered attachment of this user (an upload or a completed upload session) by `path`, with
    the size it was registered with. What is stored is rebuilt from the registered record (name,
    MIME type, kind, url and mcp_uri as the upload answered them; the client's are not kept), a
    repeated path once. VALIDATION_ERROR otherwise."""
    return registered_entries(call, resources, kind, field)


def registered_entries(
    call: Call, entries: Iterable[dict[str, Any]], kind: Namespace, field: str
) -> list[dict[str, Any]]:
    """The check todos run on `attachments`: each entry names a registered `kind` attachment of
    this user by `path`; what is bound is the registered record as uploads return it (name,
    size, type, url, mcp_uri come from the upload, not from the client; a `fileSize` that is
    given must match). Repeated paths are bound once. VALIDATION_ERROR otherwise."""
    bound: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        record = _registered_entry(call, entry.get("path"), kind, f"{field}[{index}].path")
        if "fileSize" in entry and entry["fileSize"] != record["fileSize"]:
            raise ValidationError(
                "%(field)s[%(index)s].fileSize: the attachment has %(fileSize)s bytes",
                field=field,
                index=index,
                fileSize=record["fileSize"],
            )
        bound.setdefault(record["path"], bound_resource(call, record))
    return list(bound.values())
