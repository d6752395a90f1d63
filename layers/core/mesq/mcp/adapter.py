"""`tools/call` -> the operation, in-process (no HTTP round trip), so REST and MCP cannot drift.

Order: visibility (the same filter as `tools/list`) -> argument validation against the tool's
input schema -> the operation in a worker thread (`operations.invoke`) -> envelope checked
against the tool's output schema. An unknown or hidden tool is a protocol error (-32602, like an
unknown prompt); every failure of a call that ran becomes a tool error in the error envelope.
A tool hidden only by missing scopes never gets here: the endpoint answers it with the 403
step-up challenge before the SDK reads the message.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from ..errors import Forbidden, MesqError, NotFound
from ..operations import invoke
from .catalog import Catalog
from .result import checked_result, internal_result, success_envelope
from .state import RequestState


def not_callable(error: MesqError) -> MCPError:
    """-32602 for a tools/call this connection cannot make; `data.code` is the MeSQ error code."""
    return MCPError(code=INVALID_PARAMS, message=error.message, data={"code": error.code})


async def call_tool(
    catalog: Catalog, state: RequestState, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    trace_id = state.trace_id
    tool = catalog.get(name)
    if tool is None:
        raise not_callable(NotFound(f"no tool named {name!r}; call tools/list for the tools of this connection"))
    reason = state.visibility.hidden_reason(tool)
    if reason is not None:
        raise not_callable(Forbidden(reason))
    try:
        args = dict(arguments) if arguments else {}
        # Not counted here: the endpoint counted the message in its bucket before the SDK read it.
        data = await invoke(
            tool.operation,
            args,
            principal=state.principal,
            services=state.services,
            trace_id=trace_id,
            channel="mcp",
            function=tool.function,
        )
        if not isinstance(data, dict):
            raise TypeError(f"operation {name} returned {type(data).__name__}, not an object")
        envelope = success_envelope(data, trace_id, state.correlation_id)
    except MesqError as error:
        return checked_result(error.envelope(trace_id), tool.result_schema, trace_id, name)
    except Exception as exc:  # every other fault is internal: its text never leaks
        return internal_result(exc, trace_id, name)
    return checked_result(envelope, tool.result_schema, trace_id, name)
