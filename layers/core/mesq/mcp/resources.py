"""Resources (docs/contract.md §2): the attachment URI templates.

`memo://resource/{encodedPath}` and `todo://attachment/{encodedPath}` are the `mcp_uri` values
uploads return. `resources/read` of an attachment (memo:read / todo:read) returns its bytes as a base64 blob up to
the MCP read cap (the stored size is checked first, then the read itself is bounded); larger
files, missing ones and other users' paths are JSON-RPC errors whose message says what to do
(over the cap: the authenticated REST read URL). Every client-side failure, a missing attachment
included, is -32602 with `data.uri` and `data.code` (SEP-2164 retired -32002), so the 2026-07-28
wire answers each with HTTP 400; a read without the scope it needs never gets here (the endpoint
answers the 403 step-up challenge, see `required_scopes`). The endpoint counts a
resources/read in the attachment-read rate bucket, but one of the caller's own images in the
page-image bucket (a view's thumbnail), before any store read (`own_attachment`, `attachment_kind`,
endpoint._rate_limit). A memo URI never reads a todo path and the
other way round (the namespace is checked with the path).
"""

from __future__ import annotations

import base64
from typing import Literal
from urllib.parse import unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from ..attachments import store
from ..attachments.paths import MEMO, TODO, Namespace, kind_of, own_attachment_id
from ..attachments.reads import read_capped
from ..auth.scopes import missing_scopes
from ..kernel.concurrency import run_sync
from ..kernel.context import Call
from ..kernel.errors import Forbidden, MesqError, NotFound, ServiceUnavailable
from ..kernel.messages import quoted
from ..kernel.ports.storage import ItemStore
from .request_state import RequestState
from .visibility import Visibility

MEMO_RESOURCE_TEMPLATE = "memo://resource/{encodedPath}"
TODO_ATTACHMENT_TEMPLATE = "todo://attachment/{encodedPath}"

TEMPLATES: tuple[types.ResourceTemplate, ...] = (
    types.ResourceTemplate(
        name="memo_resource",
        title="Memo attachment",
        uri_template=MEMO_RESOURCE_TEMPLATE,
        description=(
            "A memo attachment by its URL-encoded storage path (the mcp_uri an upload returns). Needs memo:read."
        ),
    ),
    types.ResourceTemplate(
        name="todo_attachment",
        title="Todo attachment",
        uri_template=TODO_ATTACHMENT_TEMPLATE,
        description=(
            "A todo attachment by its URL-encoded storage path (the mcp_uri an upload returns). Needs todo:read."
        ),
    ),
)

MEMO_PREFIX = MEMO.mcp_uri_prefix
TODO_PREFIX = TODO.mcp_uri_prefix


def visible_templates(visibility: Visibility) -> list[types.ResourceTemplate]:
    """The templates of the attachments this connection reads: on a URL narrowed to groups that
    never read memo attachments (/mcp/x/todo), not the memo one (`Visibility.attachment_reason`)."""
    return [
        template
        for template, kind in zip(TEMPLATES, (MEMO, TODO), strict=True)
        if visibility.attachment_reason("", kind.read_scope) is None
    ]


def _namespace(uri: str) -> Namespace | None:
    if uri.endswith("/"):
        return None
    return next((kind for kind in (MEMO, TODO) if uri.startswith(kind.mcp_uri_prefix)), None)


def required_scopes(uri: str) -> tuple[str, ...] | None:
    """The scopes a read of `uri` needs, for URIs a read can serve (None for the rest)."""
    kind = _namespace(uri)
    return (kind.read_scope,) if kind is not None else None


def own_attachment(uri: str, user_id: str) -> tuple[Namespace, str] | None:
    """The namespace and id of the attachment `uri` names when it is a well-formed attachment URI
    of `user_id`; None for anything else (another user's path, a malformed one, an unknown
    scheme): the shape decides, no store read. Only such a URI can name one of the caller's
    images (what the endpoint counts in `page_image`)."""
    kind = _namespace(uri)
    if kind is None:
        return None
    try:
        return kind, own_attachment_id(unquote(uri.removeprefix(kind.mcp_uri_prefix)), user_id, kind=kind)
    except MesqError:
        return None


#: What an attachment's record says about a read of it: an image (`page_image`), a file that is
#: none (`attachment_read`), or nothing registered there (yet: a direct upload session hands out
#: its path before completion).
AttachmentKind = Literal["image", "file", "missing"]


def attachment_kind(items: ItemStore, user_id: str, attachment: tuple[Namespace, str]) -> AttachmentKind:
    """What `attachment` (from `own_attachment`) is: one item read. An image is what the MCP Apps
    memo view reads to draw a thumbnail (views/memo.js), one read per image of the memo."""
    kind, attachment_id = attachment
    record = store.read_attachment(items, user_id, attachment_id, kind)
    if record is None:
        return "missing"
    # the web's download route reads it the same way (web/memos/uploads.py)
    return "image" if kind_of(str(record.get("mimeType", ""))) == "image" else "file"


def _rpc_error(error: MesqError, uri: str) -> MCPError:
    data = {"code": error.code, "uri": uri}
    if isinstance(error, ServiceUnavailable):
        return MCPError(code=INTERNAL_ERROR, message=error.message, data=data)
    return MCPError(code=INVALID_PARAMS, message=error.message, data=data)


async def _read_attachment(uri: str, kind: Namespace, state: RequestState) -> types.ReadResourceResult:
    outside = state.visibility.attachment_reason(f"reading {kind.noun}s", kind.read_scope)
    if outside is not None:
        raise _rpc_error(Forbidden(outside), uri)
    if missing_scopes(state.principal.scopes, (kind.read_scope,)):
        raise _rpc_error(Forbidden(f"reading {kind.noun}s needs the {kind.read_scope} scope"), uri)
    path = unquote(uri.removeprefix(kind.mcp_uri_prefix))
    call = Call(
        principal=state.principal,
        services=state.services,
        trace_id=state.trace_id,
        channel="mcp",
        base_url=state.base_url,
    )
    try:
        record, data = await run_sync(read_capped, call, path, state.services.settings.mcp_read_cap_bytes, kind)
    except MesqError as error:
        raise _rpc_error(error, uri) from None
    return types.ReadResourceResult(
        contents=[
            types.BlobResourceContents(
                uri=uri, mime_type=record["mimeType"], blob=base64.b64encode(data).decode("ascii")
            )
        ]
    )


async def read_resource(uri: str, state: RequestState) -> types.ReadResourceResult:
    kind = _namespace(uri)
    if kind is None:
        raise _rpc_error(
            NotFound(
                f"unknown resource {quoted(uri)}; readable URIs follow {MEMO_RESOURCE_TEMPLATE} or "
                f"{TODO_ATTACHMENT_TEMPLATE}"
            ),
            uri,
        )
    return await _read_attachment(uri, kind, state)
