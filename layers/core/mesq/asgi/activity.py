"""Whether `mesq serve` is quiet: the requests in flight and when the last one ended. The search
warm-up (search/warm_up.py) waits for a quiet moment, so it never competes with the first
requests a client sends right after the start."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Receive, Scope, Send


class Activity:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._in_flight = 0
        self._last = time.monotonic()  # the start counts as activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self._in_flight += 1  # the event loop's thread only; other threads just read
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight -= 1
            self._last = time.monotonic()

    def quiet_for(self, seconds: float) -> bool:
        """No request in flight, and none ended within `seconds` (nor the start)."""
        return self._in_flight == 0 and time.monotonic() - self._last >= seconds
