"""Resources (product §2): the attachment URI templates.

`memo://resource/{encodedPath}` and `todo://attachment/{encodedPath}` are the `mcp_uri` values
uploads return. Reading them (bytes as a base64 blob up to the MCP read cap) arrives with the
attachments work; until then `resources/read` answers a clear JSON-RPC error (INVALID_PARAMS,
saying reads are not available yet), never a silent empty result.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

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

_PREFIXES = ("memo://resource/", "todo://attachment/")


def read_resource(uri: str) -> types.ReadResourceResult:
    if not uri.startswith(_PREFIXES) or uri.endswith("/"):
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"unknown resource {uri!r}; readable URIs follow {MEMO_RESOURCE_TEMPLATE} or "
            f"{TODO_ATTACHMENT_TEMPLATE}",
        )
    raise MCPError(
        code=INVALID_PARAMS,
        message=(
            f"cannot read {uri!r}: attachment reads through resources/read are not available on "
            "this server yet (attachment support is not deployed); nothing was read"
        ),
    )
