"""An app that answers part of its routes while the rest is still being built: `mesq serve`'s
MCP endpoint answers as soon as the server listens, and REST, CalDAV, OAuth and the pages (about
600 modules, ~0.4 s) are built on a thread once the first request is served (or a quiet moment).

A request the first part serves (a full match of one of its routes) goes there; any other request
builds the whole app at once (or waits for the thread building it) and goes to it. The whole app
holds the first part's routes too, so once it is built every request goes to it alone, and no
request is answered differently from the whole app: the first part is the same routes behind the
same middleware, and it is only asked for paths where the whole app has no other route.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence

from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send


class StagedApp:
    def __init__(self, first: ASGIApp, first_routes: Sequence[BaseRoute], build_whole: Callable[[], ASGIApp]) -> None:
        self._first = first
        self._first_routes = tuple(first_routes)
        self._build_whole = build_whole
        self._whole: ASGIApp | None = None
        self._lock = threading.Lock()

    def build(self) -> None:
        """Build the whole app (once; any thread). A failure propagates to every caller: a request
        for the rest answers 500 and the thread that builds it after the start logs it."""
        with self._lock:
            if self._whole is None:
                self._whole = self._build_whole()

    @property
    def built(self) -> bool:
        return self._whole is not None

    def _first_serves(self, scope: Scope) -> bool:
        if scope["type"] == "lifespan":
            return True  # neither part has a lifespan of its own
        return scope["type"] == "http" and any(route.matches(scope)[0] == Match.FULL for route in self._first_routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        whole = self._whole
        if whole is None:
            if self._first_serves(scope):
                await self._first(scope, receive, send)
                return
            await asyncio.to_thread(self.build)  # off the event loop: the first part keeps answering
            whole = self._whole
            assert whole is not None
        await whole(scope, receive, send)
