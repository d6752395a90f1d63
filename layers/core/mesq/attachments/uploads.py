"""Uploads: relay (bytes through MeSQ) and upload sessions (bytes straight to object storage).

Every path ends in `register` (store.py): an attachment exists for MeSQ only once its record and
its bytes are counted in the quota, in one transaction. Bytes written before a failed
registration are deleted again, so a refused upload leaves nothing behind.

Direct sessions: the client PUTs to a presigned URL whose signature covers Content-Type and
Content-Length; the object lands under the staging prefix. Completion checks the stored object's
size and type (a backend that does not enforce signatures is caught here), copies it to the
attachment path inside the store and registers it; cancel and the expiry sweep delete it.
"""

from __future__ import annotations

import mimetypes
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.answer_urls import answer_base
from ..kernel.context import Call
from ..kernel.errors import NotFound, PayloadTooLarge, ValidationError
from ..kernel.i18n import N_, Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import BlobNotFound, BlobSource, BlobStore, ConditionFailed, ItemStore, PresignUnsupported
from ..kernel.timestamps import format_timestamp, now_timestamp
from ..store.paging import walk
from . import store
from .paths import (
    MEMO,
    Namespace,
    attachment_path,
    kind_of,
    mcp_uri,
    namespace_of,
    new_attachment_id,
    own_attachment_id,
    read_url,
    staging_path,
)

MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_DISPLAY_NAME = 255
#: type/subtype with optional parameters, printable ASCII: what S3 stores and signs unchanged.
#: Parameters may not end in a space: the blob stores refuse outer whitespace in a Content-Type.
_TOKEN = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
_MIME = re.compile(rf"{_TOKEN}/{_TOKEN}(;([ -~]{{0,119}}[!-~])?)?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Invisible characters that change the direction text is shown in (Unicode bidi controls:
#: ALM, LRM/RLM, the embeddings and overrides, the isolates) and the BOM: "invoice\u202egpj.exe"
#: reads as "invoiceexe.jpg". A file name never needs them: a right-to-left name shows right to
#: left from its own letters.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")

logger = Logger(child=True)


#: What is wrong with an empty file or a file name left out, the same words on every route (the
#: session's `size`, the JSON and MCP upload's `content`, the relay's `file`; the schemas' own
#: `x-error-message` for `minimum` / `minLength` say them too): "<field>: <problem>".
EMPTY_FILE = N_("the file is empty; choose a file that has content")
NAME_MISSING = N_("missing; give the file a name")


def _problem(field: str, problem: str) -> ValidationError:
    return ValidationError("%(field)s: %(problem)s", field=field, problem=Text(problem))


def check_display_name(value: str, field: str = "displayName") -> str:
    name = value.strip() if isinstance(value, str) else ""
    if not name:
        raise _problem(field, NAME_MISSING)
    if len(name) > MAX_DISPLAY_NAME:
        raise ValidationError(
            "%(field)s: %(count)s characters is too long; shorten the file name to at most %(maximum)s",
            field=field,
            count=len(name),
            maximum=MAX_DISPLAY_NAME,
        )
    if _CONTROL.search(name):
        raise ValidationError(
            "%(field)s: has a control character (a line break, a tab or another invisible "
            "character); rename the file without it",
            field=field,
        )
    bidi = _BIDI.search(name)
    if bidi:
        raise ValidationError(
            "%(field)s: the name holds an invisible text-direction character (%(character)s), which can make a "
            "file name read as another one (a program as a picture); remove it",
            field=field,
            character="U+" + format(ord(bidi.group()), "04X"),
        )
    return name


def clean_display_name(name: str, fallback: str) -> str:
    """A name from someone else's file (an import) made one `check_display_name` takes: control
    and text-direction characters dropped, at most MAX_DISPLAY_NAME characters (the extension
    kept), `fallback` when nothing is left."""
    kept = "".join(ch for ch in name if ch >= " " and ch != "\x7f" and ch not in BIDI_CONTROLS)
    cleaned = kept.strip() or fallback
    if len(cleaned) > MAX_DISPLAY_NAME:
        stem, dot, ext = cleaned.rpartition(".")
        cleaned = (
            (stem[: MAX_DISPLAY_NAME - len(ext) - 1] + dot + ext)
            if dot and len(ext) < 16
            else cleaned[:MAX_DISPLAY_NAME]
        )
    return cleaned


def check_mime_type(value: str, field: str = "mimeType") -> str:
    if not isinstance(value, str) or not _MIME.fullmatch(value):
        meant = _type_of_extension(value)
        if meant is not None:  # a Shortcut's "File Extension" (jpg, HEIC) where the type goes
            raise ValidationError(
                "%(field)s: %(value)s is a file extension, not a media type; send %(meant)s",
                field=field,
                value=quoted(value),
                meant=meant,
            )
        raise ValidationError(
            "%(field)s: %(value)s is not a media type like image/jpeg", field=field, value=quoted(value)
        )
    return value


def _type_of_extension(value: object) -> str | None:
    """The media type a bare file extension (`jpg`, `.HEIC`) stands for, if the value is one."""
    extension = value.strip().lstrip(".") if isinstance(value, str) else ""
    if not (extension.isascii() and extension.isalnum() and len(extension) <= 10):
        return None
    return mimetypes.guess_type(f"file.{extension}", strict=False)[0]


def too_large(field: str, size: int | None = None) -> PayloadTooLarge:
    """The refusal of a file over the limit (its size when known), on every route."""
    if size is None:
        return PayloadTooLarge(
            "%(field)s: the file is over the limit of 100 MiB (%(max_file_bytes)s bytes) per file and was not "
            "stored; choose a smaller file",
            field=field,
            max_file_bytes=MAX_FILE_BYTES,
        )
    return PayloadTooLarge(
        "%(field)s: the file is %(shown)s (%(size)s bytes), over the limit of 100 MiB (%(max_file_bytes)s bytes) "
        "per file; choose a smaller file",
        field=field,
        shown=store.mebibytes(size),
        size=size,
        max_file_bytes=MAX_FILE_BYTES,
    )


def check_size(size: int, field: str = "size") -> None:
    if size <= 0:
        raise _problem(field, EMPTY_FILE)
    if size > MAX_FILE_BYTES:
        raise too_large(field, size)


def public_resource(call: Call, record: dict[str, Any]) -> dict[str, Any]:
    """What uploads return: the fields `create_memo.resources` (or a todo's `attachments`)
    takes, plus where to read it (the path says which namespace), absolute by the request's base
    URL when no public URL is configured (kernel/answer_urls.py)."""
    return resource_of(record, answer_base(call))


def bound_resource(call: Call, record: dict[str, Any]) -> dict[str, Any]:
    """The resource as a memo or a todo stores it: its `url` absolute only under a configured
    public URL, never by the name one request came by (answers add it: kernel/answer_urls.py)."""
    return resource_of(record, call.services.deployment.public_url)


def resource_of(record: dict[str, Any], base: str | None) -> dict[str, Any]:
    kind = namespace_of(record["path"]) or MEMO
    return {
        "path": record["path"],
        "displayName": record["displayName"],
        "fileSize": record["fileSize"],
        "mimeType": record["mimeType"],
        "type": record["type"],
        "url": read_url(record["path"], base, kind),
        "mcp_uri": mcp_uri(record["path"], kind),
    }


def _record(
    user_id: str, attachment_id: str, name: str, mime: str, size: int, source: str, kind: Namespace
) -> dict[str, Any]:
    return {
        "id": attachment_id,
        "path": attachment_path(user_id, attachment_id, kind),
        "displayName": name,
        "fileSize": size,
        "mimeType": mime,
        "type": kind_of(mime),
        "createdAt": now_timestamp(),
        "source": source,
    }


def _quota_precheck(call: Call, size: int) -> None:
    used, _count = store.read_usage(call.services.items, call.principal.user_id)
    store.check_quota(used, size, call.services.deployment.attachment_quota_bytes)


def store_bytes(
    call: Call, data: bytes, display_name: str, mime_type: str, kind: Namespace = MEMO, size_field: str = "file"
) -> dict[str, Any]:
    """Inline upload: write the bytes, then register them; nothing stays behind on failure."""
    return store_file(call, data, len(data), display_name, mime_type, kind, size_field)


def store_file(
    call: Call,
    data: BlobSource,
    size: int,
    display_name: str,
    mime_type: str,
    kind: Namespace = MEMO,
    size_field: str = "file",
) -> dict[str, Any]:
    """Write `size` bytes (or a file of that size, copied to the blob store in chunks), then
    register them; nothing stays behind on failure. `size_field` is the argument an empty or
    too large file is refused by (the relay's `file`, the JSON upload's `content`)."""
    name, mime = check_display_name(display_name), check_mime_type(mime_type)
    check_size(size, size_field)
    _quota_precheck(call, size)
    user_id = call.principal.user_id
    record = _record(user_id, new_attachment_id(), name, mime, size, call.channel, kind)
    blobs = call.services.blobs
    blobs.put(record["path"], data, mime, {"owner": user_id})
    try:
        store.register(call.services.items, user_id, record, call.services.deployment.attachment_quota_bytes, kind=kind)
    except BaseException:
        blobs.delete(record["path"])
        raise
    return public_resource(call, record)


# -- sessions ----------------------------------------------------------------------------------


def _relay_answer(call: Call, kind: Namespace) -> dict[str, Any]:
    return {
        "transport": "relay",
        "uploadEndpoint": f"{answer_base(call)}{kind.relay_route}",
        "maxBytes": MAX_FILE_BYTES,
    }


def create_session(call: Call, display_name: str, mime_type: str, size: int, kind: Namespace = MEMO) -> dict[str, Any]:
    name, mime = check_display_name(display_name), check_mime_type(mime_type)
    check_size(size)
    _quota_precheck(call, size)
    blobs, deployment = call.services.blobs, call.services.deployment
    if blobs.transport != "direct":
        return _relay_answer(call, kind)
    user_id = call.principal.user_id
    upload_id = secrets.token_urlsafe(16)
    attachment_id = new_attachment_id()
    seconds = deployment.upload_session_seconds
    expires_epoch = int(time.time()) + seconds
    expires_at = format_timestamp(datetime.fromtimestamp(expires_epoch, UTC))
    try:
        url = blobs.presign_put(staging_path(user_id, upload_id), mime, size, seconds)
    except PresignUnsupported:
        return _relay_answer(call, kind)  # never a direct session the store cannot serve
    session = {
        "uploadId": upload_id,
        "attachmentId": attachment_id,
        "path": attachment_path(user_id, attachment_id, kind),
        "displayName": name,
        "mimeType": mime,
        "size": size,
        "expiresAt": expires_at,
        "createdAt": now_timestamp(),
    }
    store.put_session(call.services.items, store.session_item(user_id, session, expires_epoch))
    return {
        "transport": "direct",
        "uploadId": upload_id,
        "path": session["path"],
        "uploadUrl": url,
        "method": "PUT",
        "contentType": mime,
        "size": size,
        "expiresAt": expires_at,
        "maxBytes": MAX_FILE_BYTES,
    }


def _open_session(call: Call, upload_id: str, path: str, kind: Namespace) -> dict[str, Any]:
    own_attachment_id(path, call.principal.user_id, kind=kind)
    session = store.read_session(call.services.items, call.principal.user_id, upload_id)
    if session is None:
        raise NotFound(
            "no open upload session %(upload_id)s: it was completed, cancelled or has expired",
            upload_id=quoted(upload_id),
        )
    if session["path"] != path:
        raise ValidationError("%(field)s: not the path of this upload session", field="path")
    return session


def _discard(call: Call, session: dict[str, Any]) -> None:
    user_id = call.principal.user_id
    call.services.blobs.delete(staging_path(user_id, session["uploadId"]))
    store.delete_session(call.services.items, user_id, session["uploadId"])


def complete_session(call: Call, upload_id: str, path: str, kind: Namespace = MEMO) -> dict[str, Any]:
    user_id = call.principal.user_id
    items, blobs = call.services.items, call.services.blobs
    attachment_id = own_attachment_id(path, user_id, kind=kind)
    done = store.read_attachment(items, user_id, attachment_id, kind)
    if done is not None and done.get("uploadId") == upload_id:
        return public_resource(call, done)  # completed before (a retried PUT): same answer
    session = _open_session(call, upload_id, path, kind)
    if session["expiresAt"] <= now_timestamp():
        _discard(call, session)
        raise NotFound("upload session %(upload_id)s has expired; start a new one", upload_id=quoted(upload_id))
    staged = staging_path(user_id, upload_id)
    info = blobs.head(staged)
    if info is None:
        raise ValidationError("nothing was uploaded to uploadUrl yet: PUT the file there, then complete")
    if info.size != session["size"] or info.content_type != session["mimeType"]:
        blobs.delete(staged)  # the session stays open: PUT the right file again
        raise ValidationError(
            "the uploaded object has %(size)s bytes of type %(content_type)s, but this session expects "
            "%(expected_size)s "
            "bytes of type %(mimeType)s; it was removed, PUT the file again",
            size=info.size,
            content_type=quoted(info.content_type),
            expected_size=session["size"],
            mimeType=quoted(session["mimeType"]),
        )
    record = _record(user_id, attachment_id, session["displayName"], session["mimeType"], info.size, call.channel, kind)
    record["uploadId"] = upload_id
    try:
        blobs.copy(staged, path, {"owner": user_id})
    except BlobNotFound:
        raise ValidationError("the uploaded object disappeared (the session expired?); start a new session") from None
    try:
        store.register(
            items,
            user_id,
            record,
            call.services.deployment.attachment_quota_bytes,
            [store.consume_session(user_id, upload_id)],
            kind,
        )
    except ConditionFailed:
        # A concurrent completion of the same session won: answer what it registered.
        blobs.delete(staged)
        done = store.read_attachment(items, user_id, attachment_id, kind)
        if done is None or done.get("uploadId") != upload_id:
            blobs.delete(path)
            raise NotFound(
                "upload session %(upload_id)s was cancelled meanwhile", upload_id=quoted(upload_id)
            ) from None
        return public_resource(call, done)
    except PayloadTooLarge:
        blobs.delete(path)
        _discard(call, session)
        raise
    blobs.delete(staged)
    return public_resource(call, record)


def cancel_session(call: Call, upload_id: str, path: str, kind: Namespace = MEMO) -> dict[str, Any]:
    session = _open_session(call, upload_id, path, kind)
    _discard(call, session)
    return {"uploadId": upload_id, "path": path, "cancelled": True}


def sweep_expired_sessions(
    items: ItemStore, blobs: BlobStore, *, now: Callable[[], str] = now_timestamp, batch: int = 500
) -> int:
    """Delete the staged object and the record of every expired upload session; the count.

    Run by the scheduler (Lambda) and by `mesq serve` in the background; the bucket's lifecycle
    rule on the staging prefix catches anything a missed sweep leaves. The index partition is
    global: an entry is deleted by its own key (the item read, never a key computed from its
    attributes), and an entry that is not an upload session (written there by an old import,
    see `mesq repair-imports`) is logged and passed, the walk going on after it, so no entry
    can make the sweep read the same page forever."""
    swept = 0
    for entry in walk(items, store.SESSION_INDEX_PARTITION, index="gsi2", end=now(), limit=None):
        session = store.session_of(entry)
        if session is None:
            logger.warning("skipped a malformed upload-session index entry", extra={"sk": str(entry.get("sk"))[:80]})
            continue
        user_id, upload_id = session
        blobs.delete(staging_path(user_id, upload_id))
        items.delete((str(entry["pk"]), str(entry["sk"])))
        swept += 1
        if swept % batch == 0:
            logger.info("upload-session sweep in progress", extra={"swept": swept})
    return swept
