"""The SDK session manager is started once per event loop and kept (mcp/running_manager.py):
requests on one loop share it, another loop gets its own, and one whose start failed is replaced
by the next request instead of failing every request after it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from mesq.mcp.running_manager import ManagerStopped, RunningManagers


def _counting(server: Server[Any]) -> tuple[RunningManagers, list[StreamableHTTPSessionManager]]:
    built: list[StreamableHTTPSessionManager] = []

    def build() -> StreamableHTTPSessionManager:
        built.append(StreamableHTTPSessionManager(app=server, json_response=True, stateless=True))
        return built[-1]

    return RunningManagers(build), built


def test_requests_on_one_loop_share_one_running_manager_and_another_loop_gets_its_own() -> None:
    managers, built = _counting(Server("t"))

    async def requests() -> set[int]:
        found = await asyncio.gather(*(managers.manager() for _ in range(10)))
        found.append(await managers.manager())
        assert all(manager._task_group is not None for manager in found)  # run() is entered
        return {id(manager) for manager in found}

    assert len(asyncio.run(requests())) == 1
    assert len(built) == 1
    assert len(asyncio.run(requests())) == 1
    assert len(built) == 2  # the second loop's own manager
    assert built[0]._task_group is None  # the first loop's end stopped its manager


def test_a_manager_whose_start_failed_is_replaced_by_the_next_request() -> None:
    starts: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        starts.append("start")
        if len(starts) == 1:
            raise OSError("the first start fails")
        yield {}

    managers, built = _counting(Server("t", lifespan=lifespan))

    async def requests() -> StreamableHTTPSessionManager:
        with pytest.raises(ManagerStopped):
            await managers.manager()
        return await managers.manager()

    manager = asyncio.run(requests())
    assert manager is built[1] and len(built) == 2 and starts == ["start", "start"]


def test_the_endpoint_serves_both_eras_with_one_running_manager(monkeypatch, mcp_services, shared_user):
    from starlette.testclient import TestClient

    from mesq.auth.tokens import create_token
    from mesq.mcp import endpoint
    from mesq.runtime.server import create_local_app

    from .conftest import ERAS, Mcp

    started: list[StreamableHTTPSessionManager] = []

    class Counted(StreamableHTTPSessionManager):
        def run(self) -> Any:
            started.append(self)
            return super().run()

    monkeypatch.setattr(endpoint, "StreamableHTTPSessionManager", Counted)
    token, _ = create_token(mcp_services.items, shared_user["id"], name="manager", scopes="memo:read,memo:write")
    with TestClient(create_local_app(mcp_services), raise_server_exceptions=False) as client:
        for era in ERAS:
            wire = Mcp(client=client, token=token, era=era)
            wire.connect()
            memo = wire.ok("create_memo", {"content": f"one manager {era}"})["memo"]
            assert wire.ok("get_memo", {"id": memo["id"]})["memo"]["content"] == f"one manager {era}"
    assert len(started) == 1


def test_the_managers_of_closed_loops_are_let_go() -> None:
    """A process that runs loop after loop (a script calling `asyncio.run` per call) keeps only
    the live loop's manager: before, each closed loop and its manager stayed, 50 after 50 runs."""
    managers, built = _counting(Server("t"))

    async def request() -> None:
        await managers.manager()

    for _ in range(50):
        asyncio.run(request())
    assert len(built) == 50 and len(managers._running) == 1
