"""`tools/call` -> the operation, in-process (no HTTP round trip), so REST and MCP cannot drift.

Order: visibility (the same filter as `tools/list`) -> argument validation against the tool's
input schema -> the operation (`invocation.invoke_sync`, in a worker thread) -> envelope (a write's
with what it recorded: `changeIds`, `runId`, `sessionId`) checked against the tool's output
schema. An unknown or hidden tool is a protocol error (-32602, like an unknown prompt); every
failure of a call that ran becomes a tool error in the error envelope.
A tool hidden only by missing scopes never gets here: the endpoint answers it with the 403
step-up challenge before the SDK reads the message.

`run_tool` is the part after the visibility check, synchronous: Code Mode (code/) calls it for
every `mesq.<tool>(...)` of a script, so a script's calls take exactly this path. `run_tool_async`
is the same for run_code itself, which waits on its sandbox process on the event loop.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import mcp_types as types
from aws_lambda_powertools import Logger
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from ..application.invocation import invoke_async, invoke_sync
from ..application.ratelimit import Bucket, RateLimiter
from ..kernel.concurrency import run_sync
from ..kernel.context import Principal
from ..kernel.errors import Forbidden, MesqError, NotFound
from ..kernel.hints import closest
from ..kernel.messages import quoted
from ..kernel.recorded import Recorded
from .catalog import Catalog, CatalogTool
from .limits import rate_bucket
from .mcp_apps import account_meta, shows_moments
from .request_state import RequestState
from .result import checked_envelope, error_result, internal_envelope, success_envelope, tool_result
from .visibility import Visibility

logger = Logger(child=True)


def not_callable(error: MesqError) -> MCPError:
    """-32602 for a tools/call this connection cannot make; `data.code` is the MeSQ error code."""
    return MCPError(code=INVALID_PARAMS, message=error.message, data={"code": error.code})


def unknown_tool(name: str, names: Collection[str] = ()) -> NotFound:
    """No such tool; the nearest name this connection can call, when one is close."""
    near = closest(name, names)
    hint = f"did you mean {near!r}? " if near else ""
    return NotFound(f"no tool named {quoted(name)}; {hint}call tools/list for the tools of this connection")


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
    noted: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One call of a visible tool -> its checked envelope (`{data}` or `{error}`). `principal`
    replaces the connection's (run_code's calls carry the run's id on it). `noted`: what the
    operation read that the caller may reuse (`Call.noted`)."""
    function = tool.connection_function(catalog, state) if tool.connection_function else tool.function
    recorded = Recorded()
    try:
        data = invoke_sync(
            tool.operation,
            dict(arguments) if arguments else {},
            principal=principal or state.principal,
            services=state.services,
            trace_id=state.trace_id,
            channel="mcp",
            function=function,
            limiter=limiter,
            counted=counted,
            recorded=recorded,
            language=state.language,
            base_url=state.base_url,
            noted=noted,
        )
    except Exception as exc:
        return _failed(exc, state, tool)
    return _succeeded(data, state, tool, recorded.summary() if tool.is_write else None)


async def run_tool_async(
    catalog: Catalog, state: RequestState, tool: CatalogTool, arguments: dict[str, Any] | None
) -> dict[str, Any]:
    """`run_tool` for a tool that awaits (`CatalogTool.connection_coroutine`: run_code), on the loop."""
    assert tool.connection_coroutine is not None
    try:
        data = await invoke_async(
            tool.operation,
            dict(arguments) if arguments else {},
            principal=state.principal,
            services=state.services,
            trace_id=state.trace_id,
            channel="mcp",
            function=tool.connection_coroutine(catalog, state),
            base_url=state.base_url,
        )
    except Exception as exc:
        return _failed(exc, state, tool)
    return await run_sync(_succeeded, data, state, tool)  # the output check walks the whole result


def _succeeded(
    data: Any, state: RequestState, tool: CatalogTool, written: dict[str, Any] | None = None
) -> dict[str, Any]:
    trace_id = state.trace_id
    if not isinstance(data, dict):
        return _failed(TypeError(f"operation {tool.name} returned {type(data).__name__}, not an object"), state, tool)
    envelope = success_envelope(data, trace_id, state.correlation_id, written)
    return checked_envelope(envelope, tool.result_schema, trace_id, tool.name)


def _failed(exc: Exception, state: RequestState, tool: CatalogTool) -> dict[str, Any]:
    if isinstance(exc, MesqError):
        return checked_envelope(exc.envelope(state.trace_id), tool.result_schema, state.trace_id, tool.name)
    return internal_envelope(exc, state.trace_id, tool.name)  # every other fault: its text never leaks


async def call_tool(
    catalog: Catalog, state: RequestState, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    limited = state.rate_limited.get(rate_bucket("tools/call", name))
    if limited is not None:  # a tool error the model reads: RATE_LIMITED with retryAfterSeconds
        return error_result(limited, state.trace_id)
    tool = catalog.get(name)
    if tool is None:
        raise not_callable(unknown_tool(name, state.visibility.visible))
    hidden = hidden_tool(state.visibility, tool)
    if hidden is not None:
        raise not_callable(hidden)
    # Not counted here: the endpoint counted the message in its bucket before the SDK read it.
    meta: dict[str, Any] | None = None
    if tool.connection_coroutine is not None:
        envelope = await run_tool_async(catalog, state, tool, arguments)
    elif shows_moments(name):
        envelope, meta = await run_sync(_run_with_account, catalog, state, tool, arguments)
    else:
        envelope = await run_sync(run_tool, catalog, state, tool, arguments)
    return tool_result(envelope, is_error="error" in envelope, meta=meta)


def _run_with_account(
    catalog: Catalog, state: RequestState, tool: CatalogTool, arguments: dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """`run_tool`, then (on success, in the same worker) the account's zone and chosen language for
    the tool's MCP Apps view (mcp_apps.ZONED_VIEWS), which shows moments in that zone and words in
    that language. A failed read costs only that: the result stands, and the view uses the host's
    zone and language. The settings item is not read again when the operation read it itself
    (list_todos' board structure holds it: `Call.noted`); the profile, where the language is, is
    read once."""
    noted: dict[str, Any] = {}
    envelope = run_tool(catalog, state, tool, arguments, noted=noted)
    if "error" in envelope:
        return envelope, None
    try:
        return envelope, account_meta(state.services.items, state.principal.user_id, noted)
    except Exception:
        logger.exception(
            "mcp result: the account's zone and language could not be read", extra={"traceId": state.trace_id}
        )
        return envelope, None
