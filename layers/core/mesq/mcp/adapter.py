"""`tools/call` -> the operation, in-process (no HTTP round trip), so REST and MCP cannot drift.

Order: visibility (the same filter as `tools/list`) -> argument validation against the tool's
input schema -> the operation in a worker thread (stores are synchronous) -> envelope checked
against the tool's output schema. Every failure becomes a tool error in the error envelope.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from ..concurrency import run_sync
from ..context import Call
from ..errors import Forbidden, MesqError, NotFound
from ..validation import validate_arguments
from .catalog import Catalog
from .result import checked_result, error_result, internal_result, success_envelope
from .state import RequestState


async def call_tool(
    catalog: Catalog, state: RequestState, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    trace_id = state.trace_id
    tool = catalog.get(name)
    try:
        if tool is None:
            raise NotFound(f"no tool named {name!r}; call tools/list for the tools of this connection")
        reason = state.visibility.hidden_reason(tool)
        if reason is not None:
            raise Forbidden(reason)
        args = validate_arguments(tool.operation, arguments or {})
        call = Call(principal=state.principal, services=state.services, trace_id=trace_id, channel="mcp")
        data = await run_sync(tool.function, call, args)
        if not isinstance(data, dict):
            raise TypeError(f"operation {name} returned {type(data).__name__}, not an object")
        envelope = success_envelope(data, trace_id, state.correlation_id)
    except MesqError as error:
        if tool is None:
            return error_result(error, trace_id)
        return checked_result(error.envelope(trace_id), tool.output_schema, trace_id, name)
    except Exception as exc:  # every other fault is internal: its text never leaks
        return internal_result(exc, trace_id, name)
    return checked_result(envelope, tool.output_schema, trace_id, name)
