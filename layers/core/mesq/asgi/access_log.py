"""The access log of `mesq serve`: one line per request, written when the response is complete.

Fields: method, path, status, duration in milliseconds and the trace id the app put in
`X-Trace-Id`. Only the path is logged (a secret in it redacted: `log_paths.py`), never the query
string: OAuth redirects and some clients
carry codes, states or tokens there. `plain` is for a person watching a terminal, `json` one
object per line for a log collector. A request whose body was aborted or arrived too late is
logged once, by the body deadline (body_deadline.py, with method, path, bytes and trace id),
not a second time here.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .body_deadline import BODY_LOGGED
from .log_paths import loggable_path
from .trace import TRACE_HEADER

LogFormat = Literal["plain", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("plain", "json")


def _stdout(line: str) -> None:
    print(line, file=sys.stdout, flush=True)


def format_line(log_format: LogFormat, method: str, path: str, status: int, duration_ms: float, trace_id: str) -> str:
    if log_format == "json":
        record = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "method": method,
            "path": path,
            "status": status,
            "durationMs": round(duration_ms, 1),
            "traceId": trace_id,
        }
        return json.dumps(record, ensure_ascii=False)
    return f"{method} {path} {status} {duration_ms:.1f}ms trace={trace_id or '-'}"


class AccessLogMiddleware:
    def __init__(self, app: ASGIApp, log_format: LogFormat = "plain", emit: Callable[[str], None] = _stdout) -> None:
        self.app = app
        self.log_format = log_format
        self.emit = emit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the server answers when the app fails before starting a response
        trace_id = ""

        async def observe(message: Message) -> None:
            nonlocal status, trace_id
            if message["type"] == "http.response.start":
                status = int(message["status"])
                for name, value in message.get("headers", []):
                    if name.lower() == TRACE_HEADER:
                        trace_id = value.decode("latin-1")
            await send(message)

        try:
            await self.app(scope, receive, observe)
        finally:
            duration_ms = (time.perf_counter() - started) * 1000
            path = loggable_path(scope.get("path", "") or "/")
            if not scope.get("state", {}).get(BODY_LOGGED):
                self.emit(format_line(self.log_format, scope["method"], path, status, duration_ms, trace_id))
