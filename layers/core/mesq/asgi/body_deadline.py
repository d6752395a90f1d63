"""`mesq serve`'s request-body deadline: a client that sends headers and then stalls (or
trickles) cannot hold a route open (docs/decisions.md "Slow clients, anonymous limits and DNS
rebinding").

Wrapping `receive` covers every route (REST, OAuth, pages, MCP) at once. The body must keep up
with `body_min_rate_bytes` per second after a grace of `body_timeout_seconds`: the first byte
within the grace, and after `n` bytes the next within `grace + n / rate` of the start. Past the
deadline the app is cancelled and the client gets 408 `REQUEST_TIMEOUT` (and the connection is
closed: the rest of the body is never read). A client that disconnects mid-body cancels the
app too: nobody is left to answer. Either way the log gets one line, not a traceback.

Only the local app mounts it: on Lambda, API Gateway hands over a complete body, so there is
nothing to wait for.
"""

from __future__ import annotations

import time
from typing import Literal

import anyio
from aws_lambda_powertools import Logger
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..kernel.errors import RequestTimeout
from ..wiring.config import Settings
from .envelope import failure
from .log_paths import loggable_path
from .trace import trace_id_of

#: Set in the request's `scope["state"]` once this middleware has logged the request (an aborted or
#: late body): that line is the request's one log line, so the access log leaves it out.
BODY_LOGGED = "mesq.body_logged"

logger = Logger(child=True)
Abort = Literal["timeout", "disconnect"]


def _expects_body(headers: Headers) -> bool:
    length = headers.get("content-length")
    return "transfer-encoding" in headers or (length is not None and length.strip() not in ("", "0"))


class BodyDeadlineMiddleware:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.grace = float(settings.body_timeout_seconds)
        self.rate = float(settings.body_min_rate_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope) if scope["type"] == "http" else None
        if headers is None or not _expects_body(headers):
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        received = 0
        complete = False
        aborted: Abort | None = None
        responded = False

        async def guarded_receive() -> Message:
            nonlocal received, complete, aborted
            if complete:  # afterwards receive() only reports a disconnect: no deadline
                return await receive()
            deadline = started + self.grace + received / self.rate
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                message = await receive()
                if message["type"] != "http.disconnect":
                    received += len(message.get("body", b""))
                    complete = not message.get("more_body", False)
                    return message
                aborted = "disconnect"
            aborted = aborted or "timeout"
            cancel.cancel()
            await anyio.lowlevel.checkpoint()  # raises the cancellation into the app
            raise AssertionError("unreachable: the app's scope is cancelled")

        async def tracked_send(message: Message) -> None:
            nonlocal responded
            responded = responded or message["type"] == "http.response.start"
            await send(message)

        with anyio.CancelScope() as cancel:
            await self.app(scope, guarded_receive, tracked_send)
        if aborted is None:
            return
        trace_id = trace_id_of(Request(scope))
        what = "request body timed out" if aborted == "timeout" else "client aborted the request body"
        seconds = time.monotonic() - started
        declared = headers.get("content-length", "?")
        # One line, readable without a JSON log handler too (`mesq serve` logs plain text).
        scope.setdefault("state", {})[BODY_LOGGED] = True
        logger.warning(
            f"{what}: {scope['method']} {loggable_path(scope['path'])} after {seconds:.1f} s, "
            f"{received} of {declared} bytes "
            f"(traceId {trace_id})",
            extra={"traceId": trace_id, "receivedBytes": received},
        )
        if aborted == "timeout" and not responded:
            error = RequestTimeout(
                "the request body did not arrive in time (first byte within %(grace)s s, then at least %(rate)s "
                "bytes per second)",
                grace=format(self.grace, "g"),
                rate=format(self.rate, "g"),
            )
            await failure(error, trace_id, {"Connection": "close"})(scope, receive, send)
