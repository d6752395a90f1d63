"""The attachment operations of docs/contract.md §4 / §5 / §8, one function per operationId
(toolsets `memo_attachments` and `todo_attachments`: the same flows in two namespaces). The
multipart relay upload and the raw byte reads are HTTP-only routes in mesq/http/attachments.py;
they use the same domain functions. `list_memo_resources` lists a memo's attachments, so it
lives with the memo reads (attachments never reads memos)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import PayloadTooLarge, ServiceUnavailable, ValidationError
from ..kernel.ports.storage import StoreUnavailable
from . import reads, uploads
from .paths import MEMO, TODO, Namespace


def create_memo_upload_session(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return uploads.create_session(call, args["displayName"], args["mimeType"], args["size"])


def complete_memo_upload_session(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return uploads.complete_session(call, args["uploadId"], args["path"])


def cancel_memo_upload_session(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return uploads.cancel_session(call, args["uploadId"], args["path"])


def _upload_base64(call: Call, args: dict[str, Any], kind: Namespace, session_operation: str) -> dict[str, Any]:
    encoded = args["content"]
    if len(encoded) * 3 // 4 - encoded[-2:].count("=") > uploads.MAX_FILE_BYTES:
        raise PayloadTooLarge(
            "the file is over %(max_file_bytes)s bytes (100 MiB); nothing was stored. Large files: "
            "%(session_operation)s, then PUT the bytes to its uploadUrl",
            max_file_bytes=uploads.MAX_FILE_BYTES,
            session_operation=session_operation,
        )
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("content: not valid base64 (standard alphabet, with padding)") from None
    return uploads.store_bytes(call, data, args["displayName"], args["mimeType"], kind, size_field="content")


def _read_base64(call: Call, args: dict[str, Any], kind: Namespace) -> dict[str, Any]:
    record, data = reads.read_capped(call, args["path"], call.services.deployment.mcp_read_cap_bytes, kind)
    return {
        "path": record["path"],
        "displayName": record["displayName"],
        "mimeType": record["mimeType"],
        "fileSize": len(data),
        "encoding": "base64",
        "content": base64.b64encode(data).decode("ascii"),
    }


def _metadata(call: Call, args: dict[str, Any], kind: Namespace) -> dict[str, Any]:
    try:
        stored = reads.stat(call, args["path"], kind)
    except StoreUnavailable:
        raise ServiceUnavailable("attachment storage is unavailable; retry in a moment") from None
    record, info = stored.record, stored.info
    return {
        "resource": uploads.public_resource(call, record),
        "createdAt": record["createdAt"],
        "storage": {"size": info.size, "contentType": info.content_type, "modifiedAt": info.modified_at},
    }


def upload_memo_resource(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _upload_base64(call, args, MEMO, "create_memo_upload_session")


def read_memo_resource(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _read_base64(call, args, MEMO)


def get_memo_resource_metadata(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _metadata(call, args, MEMO)


# -- todo attachments: the same flows in the todo namespace ------------------------------------


def create_todo_upload_session(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return uploads.create_session(call, args["displayName"], args["mimeType"], args["size"], TODO)


def complete_todo_upload_session(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return uploads.complete_session(call, args["uploadId"], args["path"], TODO)


def cancel_todo_upload_session(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return uploads.cancel_session(call, args["uploadId"], args["path"], TODO)


def upload_todo_attachment(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _upload_base64(
        call, args, TODO, "the REST upload session (POST /api/toolkit/todo/attachments/upload-session)"
    )


def read_todo_attachment(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _read_base64(call, args, TODO)


def get_todo_attachment_metadata(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _metadata(call, args, TODO)


OPERATIONS = {
    fn.__name__: fn
    for fn in (
        create_memo_upload_session, complete_memo_upload_session, cancel_memo_upload_session,
        upload_memo_resource, read_memo_resource, get_memo_resource_metadata,
        create_todo_upload_session, complete_todo_upload_session, cancel_todo_upload_session,
        upload_todo_attachment, read_todo_attachment, get_todo_attachment_metadata,
    )
}  # fmt: skip

__all__ = ["OPERATIONS"]
