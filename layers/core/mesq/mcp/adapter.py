"""`tools/call` -> the operation, in-process (no HTTP round trip), so REST and MCP cannot drift.

Order: visibility (the same filter as `tools/list`) -> argument validation against the tool's
input schema -> the operation (`operations.invoke_sync`, in a worker thread) -> envelope checked
against the tool's output schema. An unknown or hidden tool is a protocol error (-32602, like an
unknown prompt); every failure of a call that ran becomes a tool error in the error envelope.
A tool hidden only by missing scopes never gets here: the endpoint answers it with the 403
step-up challenge before the SDK reads the message.

`run_tool` is the part after the visibility check, synchronous: Code Mode (code/) calls it for
every `mesq.<tool>(...)` of a script, so a script's calls take exactly this path.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from ..concurrency import run_sync
from ..context import Principal
from ..errors import Forbidden, MesqError, NotFound
from ..operations import invoke_sync
from ..ratelimit import Bucket, RateLimiter
from .catalog import Catalog, CatalogTool
from .result import checked_envelope, internal_envelope, success_envelope, tool_result
from .state import RequestState
from .visibility import Visibility


def not_callable(error: MesqError) -> MCPError:
    """-32602 for a tools/call this connection cannot make; `data.code` is the MeSQ error code."""
    return MCPError(code=INVALID_PARAMS, message=error.message, data={"code": error.code})


def unknown_tool(name: str) -> NotFound:
    return NotFound(f"no tool named {name!r}; call tools/list for the tools of this connection")


def hidden_tool(visibility: Visibility, tool: CatalogTool) -> Forbidden | None:
    """Why this connection may not call `tool` (the words tools/list's filter uses), or None."""
    reason = visibility.hidden_reason(tool)
    return Forbidden(reason) if reason is not None else None


def run_tool(
    catalog: Catalog,
    state: RequestState,
    tool: CatalogTool,
    arguments: dict[str, Any] | None,
    *,
    limiter: RateLimiter | None = None,
    counted: Collection[Bucket] = (),
    principal: Principal | None = None,
) -> dict[str, Any]:
    """One call of a visible tool -> its checked envelope (`{data}` or `{error}`). `principal`
    replaces the connection's (run_code's calls carry the run's id on it)."""
    trace_id = state.trace_id
    function = tool.connection_function(catalog, state) if tool.connection_function else tool.function
    try:
        data = invoke_sync(
            tool.operation,
            dict(arguments) if arguments else {},
            principal=principal or state.principal,
            services=state.services,
            trace_id=trace_id,
            channel="mcp",
            function=function,
            limiter=limiter,
            counted=counted,
        )
        if not isinstance(data, dict):
            raise TypeError(f"operation {tool.name} returned {type(data).__name__}, not an object")
        envelope = success_envelope(data, trace_id, state.correlation_id)
    except MesqError as error:
        envelope = error.envelope(trace_id)
    except Exception as exc:  # every other fault is internal: its text never leaks
        return internal_envelope(exc, trace_id, tool.name)
    return checked_envelope(envelope, tool.result_schema, trace_id, tool.name)


async def call_tool(
    catalog: Catalog, state: RequestState, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    tool = catalog.get(name)
    if tool is None:
        raise not_callable(unknown_tool(name))
    hidden = hidden_tool(state.visibility, tool)
    if hidden is not None:
        raise not_callable(hidden)
    # Not counted here: the endpoint counted the message in its bucket before the SDK read it.
    envelope = await run_sync(run_tool, catalog, state, tool, arguments)
    return tool_result(envelope, is_error="error" in envelope)
