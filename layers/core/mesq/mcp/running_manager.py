"""The SDK's `StreamableHTTPSessionManager`, started once per event loop and kept running.

A manager's `run()` (the server's lifespan and a task group) is single-use and meant to span an
application's life; a manager built and run for every request cost ~45 µs of CPU, about 3 % of
a warm `tools/call`. Mangum gives no lifespan (`lifespan="off"`) and `mesq serve` builds its
parts in stages (asgi/staged.py), so the first request on an event loop starts the manager, in a
task of its own that holds `run()` open; the loop's end cancels it (`asyncio.run` cancels what
is left, and Mangum keeps one loop for the container's life). Requests are served by the running
manager: stateless, JSON answers, one message each, as before.

A manager whose task ended (its task group failed) is logged and replaced on the next request.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

logger = logging.getLogger(__name__)


class ManagerStopped(RuntimeError):
    """The manager's task ended before it was ready (its start failed); the request that waited
    for it fails, and the next one starts a new manager."""


class _Running:
    """One manager and the task that holds its `run()` open."""

    def __init__(self, manager: StreamableHTTPSessionManager, loop: asyncio.AbstractEventLoop) -> None:
        self.manager = manager
        self._ready = asyncio.Event()
        # An empty context: the first request's context variables (its trace id) are not the manager's.
        self._task = loop.create_task(self._hold(), name="mesq-mcp-manager", context=contextvars.Context())

    @property
    def ended(self) -> bool:
        return self._task.done()

    async def _hold(self) -> None:
        try:
            async with self.manager.run():
                self._ready.set()
                await asyncio.Event().wait()  # until the loop's end cancels the task
        except Exception:
            logger.exception("the MCP session manager stopped; the next request starts a new one")
        finally:
            self._ready.set()

    async def started(self) -> StreamableHTTPSessionManager:
        await self._ready.wait()
        if self._task.done():
            raise ManagerStopped("the MCP session manager stopped")
        return self.manager


class RunningManagers:
    """The running manager of each event loop, built by `build` on the loop's first request. A
    loop's entry goes when a new loop comes after it has closed (its task holds the loop, so a
    weak key would never let it go): a process that runs loop after loop keeps only live ones."""

    def __init__(self, build: Callable[[], StreamableHTTPSessionManager]) -> None:
        self._build = build
        self._running: dict[asyncio.AbstractEventLoop, _Running] = {}

    async def manager(self) -> StreamableHTTPSessionManager:
        loop = asyncio.get_running_loop()
        running = self._running.get(loop)
        if running is None or running.ended:
            for closed in [other for other in self._running if other.is_closed()]:
                del self._running[closed]
            running = self._running[loop] = _Running(self._build(), loop)
        return await running.started()
