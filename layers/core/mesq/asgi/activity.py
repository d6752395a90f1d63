"""When `mesq serve` may warm up: once its first request has been served, or after a quiet moment
(no request in flight, none ended lately) when nobody asks. The search warm-up
(search/warm_up.py) waits for that, so it never delays the start or the first answer.

A health probe (`/healthz`) counts as served but is no activity to give way to: it costs well
under a millisecond, and a script or orchestrator that polls it every 50 ms while it waits for
`ready` kept the server from ever being quiet. Each step of the warm-up then waited its longest,
and `ready` came after 13 s instead of 3.5 s (bench/ready.py, 100,000 memos)."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Receive, Scope, Send

#: Paths whose requests are probes, not work: served, but never what the warm-up waits out.
PROBES = frozenset({"/healthz"})


class Activity:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._in_flight = 0
        self._served = 0
        self._last = time.monotonic()  # the start counts as activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path") in PROBES:
            try:
                await self.app(scope, receive, send)
            finally:
                self._served += 1
            return
        self._in_flight += 1  # the event loop's thread only; other threads just read
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight -= 1
            self._served += 1
            self._last = time.monotonic()

    def settled(self, seconds: float) -> bool:
        """A request has been served, or none is in flight and none ended within `seconds` (nor
        the start)."""
        return bool(self._served) or self.quiet(seconds)

    def quiet(self, seconds: float) -> bool:
        """No request is in flight and none ended within `seconds` (nor the start): the warm-up
        gives way to requests, and to the one a client sends right after an answer."""
        return self._in_flight == 0 and time.monotonic() - self._last >= seconds
