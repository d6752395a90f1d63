"""Every response carries a trace id: `X-Trace-Id` on the wire (also on health, the OpenAPI
document and answers the MCP SDK writes itself) and `traceId` in every envelope. The middleware
mints it once per request into the ASGI scope's state, where handlers read it, and makes it the
Powertools correlation id of every log line the request writes (`correlation_id` = `traceId`)."""

from __future__ import annotations

import secrets

from aws_lambda_powertools import Logger
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TRACE_HEADER = b"x-trace-id"

logger = Logger(child=True)


def new_trace_id() -> str:
    return secrets.token_hex(16)


def trace_id_of(request: Request) -> str:
    trace_id: str | None = getattr(request.state, "trace_id", None)
    if trace_id is None:  # outside the middleware (a handler mounted elsewhere)
        trace_id = request.state.trace_id = new_trace_id()
    return trace_id


def correlate_logs(trace_id: str) -> None:
    """Tag this request's log lines with its trace id. The key lives in a context variable (one
    per request task, copied into the worker threads by `run_sync`), so concurrent requests of
    `mesq serve` never see each other's. Without a parent Logger (an app mounted in a test)
    there is no structured output to tag."""
    if logger.registered_handler is not None:
        logger.thread_safe_append_keys(correlation_id=trace_id)


class TraceIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        trace_id = new_trace_id()
        scope.setdefault("state", {})["trace_id"] = trace_id
        correlate_logs(trace_id)

        async def send_with_trace(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != TRACE_HEADER]
                message = {**message, "headers": [*headers, (TRACE_HEADER, trace_id.encode())]}
            await send(message)

        await self.app(scope, receive, send_with_trace)
