"""Tool results in the unified envelope (docs/contract.md §2, §3).

Success: `structuredContent = {"data", "traceId", "correlationId"?}`, and on a write also
`changeIds`, `runId`, `sessionId` (what it recorded in the change history); failure: `isError: true`,
`structuredContent = {"error": {"code", "message", ...}, "traceId", "recoverData"?}`.
`content[0].text` always carries the same JSON for clients that drop structured content.
Failures are tool results, never JSON-RPC errors, so the agent sees them and can correct itself,
and nothing but a `MesqError`'s own client-safe message ever reaches the wire.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from aws_lambda_powertools import Logger

from ..application.validation import conforms, validator_for
from ..kernel.errors import Internal, MesqError

logger = Logger(child=True)


def _text(envelope: dict[str, Any]) -> str:
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


def success_envelope(
    data: dict[str, Any], trace_id: str, correlation_id: str | None, written: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`{data, traceId}`; a write's also carries what it recorded (`written`: `Recorded.summary()`:
    `changeIds`, `runId`, `sessionId`), beside `data` as on REST."""
    envelope: dict[str, Any] = {"data": data, "traceId": trace_id, **(written or {})}
    if correlation_id is not None:
        envelope["correlationId"] = correlation_id
    return envelope


def tool_result(
    envelope: dict[str, Any], *, is_error: bool, meta: dict[str, Any] | None = None
) -> types.CallToolResult:
    """`meta`: the result's `_meta` (not for the model: an MCP Apps view reads it), else none."""
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=_text(envelope))]
    if meta is None:  # no `_meta` key at all (the wire of every other result stays as it was)
        return types.CallToolResult(content=content, structured_content=envelope, is_error=is_error)
    return types.CallToolResult(content=content, structured_content=envelope, is_error=is_error, _meta=meta)


def error_result(error: MesqError, trace_id: str) -> types.CallToolResult:
    return tool_result(error.envelope(trace_id), is_error=True)


def internal_envelope(exc: BaseException, trace_id: str, tool: str | None) -> dict[str, Any]:
    """An unexpected fault: logged with its traceback, answered without its text."""
    logger.exception("mcp tool failed", extra={"traceId": trace_id, "tool": tool, "error_type": type(exc).__name__})
    return Internal.for_trace(trace_id).envelope(trace_id)


def checked_envelope(
    envelope: dict[str, Any], output_schema: dict[str, Any], trace_id: str, tool: str
) -> dict[str, Any]:
    """The envelope, after proving it matches the schema the tool declares.

    Strict clients reject a result that does not match; a mismatch is a server bug, so it is
    logged in full and answered as INTERNAL (an envelope that is itself valid) instead."""
    if not conforms(output_schema, envelope):
        from jsonschema.exceptions import best_match

        problem = best_match(validator_for(output_schema).iter_errors(envelope))
        logger.error(
            "mcp result does not match the tool's output schema",
            extra={"traceId": trace_id, "tool": tool, "problem": problem.message if problem else "?"},
        )
        return Internal.for_trace(trace_id).envelope(trace_id)
    return envelope


def checked_result(
    envelope: dict[str, Any], output_schema: dict[str, Any], trace_id: str, tool: str
) -> types.CallToolResult:
    """`checked_envelope` as a tool result (a Code Mode call uses the envelope itself)."""
    checked = checked_envelope(envelope, output_schema, trace_id, tool)
    return tool_result(checked, is_error="error" in checked)
