"""Every response carries a trace id: `X-Trace-Id` on the wire (also on health, the OpenAPI
document and answers the MCP SDK writes itself) and `traceId` in every envelope. The middleware
mints it once per request into the ASGI scope's state, where handlers read it."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TRACE_HEADER = b"x-trace-id"


def new_trace_id() -> str:
    return secrets.token_hex(16)


def trace_id_of(request: Request) -> str:
    trace_id: str | None = getattr(request.state, "trace_id", None)
    if trace_id is None:  # outside the middleware (a handler mounted elsewhere)
        trace_id = request.state.trace_id = new_trace_id()
    return trace_id


class TraceIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        trace_id = new_trace_id()
        scope.setdefault("state", {})["trace_id"] = trace_id

        async def send_with_trace(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != TRACE_HEADER]
                message = {**message, "headers": [*headers, (TRACE_HEADER, trace_id.encode())]}
            await send(message)

        await self.app(scope, receive, send_with_trace)
