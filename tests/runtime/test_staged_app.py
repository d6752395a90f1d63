"""`mesq serve`'s app in two steps (asgi/staged.py): the MCP endpoint answers before the rest of
the app is built, a request for the rest builds it at once, and the whole app is the one
`create_local_app` builds (the same routes, in the same order, behind the same middleware)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Match
from starlette.testclient import TestClient

from mesq.asgi.staged import StagedApp
from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.runtime.app_factories import create_local_app, create_staged_local_app
from mesq.wiring.services import Services, build_services
from tests.conftest import free_port
from tests.settings import inprocess_settings

MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def _route_table(routes: list[BaseRoute]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [
        (type(route).__name__, getattr(route, "path", ""), tuple(sorted(getattr(route, "methods", None) or ())))
        for route in routes
    ]


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return build_services(inprocess_settings(data_dir=tmp_path))


def _token(services: Services) -> str:
    user = create_user(services.items, "ada", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="t", scopes="memo:read")
    return token


def test_the_whole_app_is_create_local_apps(services: Services) -> None:
    staged = create_staged_local_app(services)
    staged.build()
    whole = staged._whole
    assert isinstance(whole, Starlette)
    expected = create_local_app(services)
    assert _route_table(whole.routes) == _route_table(expected.routes)
    assert [m.cls for m in whole.user_middleware] == [m.cls for m in expected.user_middleware]


def test_the_mcp_routes_come_first_and_shadow_no_other_route(services: Services) -> None:
    """The MCP routes lead the table (an agent's call is matched first), which is safe only while
    no other route's path is one they match (each path tried with its parameters filled in)."""
    whole = create_local_app(services)
    mcp = create_staged_local_app(services)._first_routes
    assert [getattr(route, "path", "") for route in whole.routes[: len(mcp)]] == [route.path for route in mcp]
    shadowed = []
    for route in whole.routes[len(mcp) :]:
        path = re.sub(r"\{[^}]+\}", "x", getattr(route, "path", ""))
        for method in sorted(getattr(route, "methods", None) or {"GET"}):
            scope = {"type": "http", "path": path, "method": method, "root_path": ""}
            if any(mcp_route.matches(scope)[0] != Match.NONE for mcp_route in mcp):
                shadowed.append((method, path))
    assert shadowed == []


def test_mcp_answers_before_the_rest_is_built_and_a_request_for_the_rest_builds_it(services: Services) -> None:
    token = _token(services)
    staged = create_staged_local_app(services)
    with TestClient(staged, base_url="http://127.0.0.1") as client:
        answer = client.post("/mcp", json=PING, headers={**MCP_HEADERS, "authorization": f"Bearer {token}"})
        assert answer.status_code == 200 and answer.json()["result"] == {}
        assert not staged.built  # MCP alone: nothing else was built for it
        health = client.get("/healthz")
        assert health.status_code == 200
        assert staged.built
        assert (
            client.post("/mcp", json=PING, headers={**MCP_HEADERS, "authorization": f"Bearer {token}"}).json()["result"]
            == {}
        )


def test_an_unknown_path_under_mcp_waits_for_the_whole_app(services: Services) -> None:
    staged = create_staged_local_app(services)
    with TestClient(staged, base_url="http://127.0.0.1") as client:
        missing = client.get("/mcp/x/no-such-toolset-and-more/deeper")
        assert staged.built
    expected = TestClient(create_local_app(services), base_url="http://127.0.0.1").get(
        "/mcp/x/no-such-toolset-and-more/deeper"
    )
    assert missing.status_code == expected.status_code
    assert missing.json()["error"]["code"] == expected.json()["error"]["code"]


def test_concurrent_requests_for_the_rest_build_it_once() -> None:
    builds: list[int] = []
    gate = threading.Event()

    async def whole(scope, receive, send):  # type: ignore[no-untyped-def]
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def build() -> Starlette:
        builds.append(1)
        gate.wait(5)
        return whole  # type: ignore[return-value]

    staged = StagedApp(whole, [], build)
    results: list[int] = []

    def ask() -> None:
        results.append(TestClient(staged).get("/anything").status_code)

    askers = [threading.Thread(target=ask) for _ in range(4)]
    for asker in askers:
        asker.start()
    gate.set()
    for asker in askers:
        asker.join(10)
    assert results == [204] * 4 and builds == [1]


def test_mesq_serve_answers_mcp_first_and_then_the_rest(tmp_path: Path) -> None:
    """A real server: its first request is an MCP call (nothing else asked before it), then the
    REST API and a page answer (built on the start's thread, or at once for the request)."""
    data_dir = tmp_path / "data"
    services = build_services(inprocess_settings(data_dir=data_dir))
    token = _token(services)
    services.items.close()
    port = free_port()
    argv = [sys.executable, "-m", "mesq.runtime.cli", "serve", "--data-dir", str(data_dir), "--port", str(port)]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "listening on" in line:
                break
        base = f"http://127.0.0.1:{port}"
        headers = {**MCP_HEADERS, "authorization": f"Bearer {token}"}
        assert httpx.post(f"{base}/mcp", json=PING, headers=headers, timeout=30).json()["result"] == {}
        listed = httpx.get(f"{base}/api/toolkit/memo", headers={"authorization": f"Bearer {token}"}, timeout=30)
        assert listed.status_code == 200 and "data" in listed.json()
        assert httpx.get(f"{base}/login", timeout=30).status_code == 200
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(15)
