"""The served surface, byte for byte: the REST OpenAPI document (`/api/openapi.json`), `tools/list`
(with `resources/list` and `prompts/list` on `/mcp`) on every toolset URL in both protocol eras, and
the route table of each of the four apps. A change that should not change behaviour (moving modules,
renaming them) must leave these files untouched; a change that means to alter the surface rewrites
them with `MESQ_WRITE_SNAPSHOTS=1 pytest tests/architecture/test_surface_snapshot.py` and the diff
shows the reviewer exactly what clients will see."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.testclient import TestClient

from mesq.auth.scopes import ALL_SCOPES
from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.toolsets import TOOLSET_ALIASES, TOOLSETS
from mesq.runtime.app_factories import create_api_app, create_local_app, create_mcp_app, create_oauth_app
from mesq.wiring.services import Services, build_services
from tests.mcp.conftest import ERAS, Mcp
from tests.settings import inprocess_settings

SNAPSHOTS = Path(__file__).parent / "snapshots"
WRITE = os.environ.get("MESQ_WRITE_SNAPSHOTS") == "1"
#: Every URL that selects tools: the whole catalog, each group and alias alone, one combination,
#: each of them read-only too.
TOOLSET_PATHS = tuple(
    path
    for base in ("/mcp", *(f"/mcp/x/{name}" for name in (*TOOLSETS, *TOOLSET_ALIASES, "memo,todo,history")))
    for path in (base, f"{base}/readonly")
)
APPS = {"api": create_api_app, "mcp": create_mcp_app, "oauth": create_oauth_app, "local": create_local_app}


@pytest.fixture(scope="module")
def surface_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    built = build_services(inprocess_settings(data_dir=tmp_path_factory.mktemp("surface") / "data"))
    yield built
    built.items.close()


@pytest.fixture(scope="module")
def surface_client(surface_services: Services) -> Iterator[TestClient]:
    with TestClient(create_local_app(surface_services), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def every_scope_tokens(surface_services: Services) -> dict[str, str]:
    """A user per URL, every scope: one user's 26 connections in a minute would meet the rate limit."""
    tokens = {}
    for number, path in enumerate(TOOLSET_PATHS):
        user = create_user(surface_services.items, f"surface{number}", "correct horse battery")
        tokens[path], _ = create_token(surface_services.items, user["id"], name="surface", scopes=",".join(ALL_SCOPES))
    return tokens


def _check(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if WRITE:
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{name} differs from the served surface"


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def test_the_openapi_document_is_unchanged(surface_client: TestClient) -> None:
    response = surface_client.get("/api/openapi.json")
    assert response.status_code == 200
    path = SNAPSHOTS / "openapi.json"
    if WRITE:
        path.write_bytes(response.content)
    assert path.read_bytes() == response.content, "the served OpenAPI document differs from openapi.json"


def _digest(tool: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(tool, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("era", ERAS)
def test_every_toolset_url_lists_the_same_tools(
    surface_client: TestClient, every_scope_tokens: dict[str, str], era: str
) -> None:
    """Each URL's answers with every tool replaced by the digest of its JSON (key order kept); the
    distinct tools written once, under their digests, so the file stays readable and small."""
    listed: dict[str, Any] = {}
    tools: dict[str, Any] = {}
    for path in TOOLSET_PATHS:
        client = Mcp(client=surface_client, token=every_scope_tokens[path], era=era, path=path)
        client.connect()
        answer = client.result("tools/list")
        tools |= {_digest(tool): tool for tool in answer["tools"]}
        listed[path] = {"tools/list": {**answer, "tools": [_digest(tool) for tool in answer["tools"]]}}
        if path == "/mcp":
            listed[path] |= {method: client.result(method) for method in ("resources/list", "prompts/list")}
    _check(f"mcp_{era}.json", _pretty({"urls": listed, "tools": dict(sorted(tools.items()))}))


def _route_rows(routes: list[BaseRoute], prefix: str = "") -> Iterator[list[Any]]:
    for route in routes:
        if isinstance(route, Mount):
            yield ["mount", prefix + route.path, None, route.name]
            yield from _route_rows(list(route.routes), prefix + route.path)
        elif isinstance(route, Route):
            yield ["route", prefix + route.path, sorted(route.methods or ()), route.name]
        elif isinstance(route, WebSocketRoute):
            yield ["websocket", prefix + route.path, None, route.name]
        else:
            yield [type(route).__name__, prefix + getattr(route, "path", ""), None, getattr(route, "name", None)]


def test_the_route_tables_are_unchanged(surface_services: Services) -> None:
    tables: dict[str, list[list[Any]]] = {}
    for name, factory in APPS.items():
        app: Starlette = factory(surface_services)
        tables[name] = list(_route_rows(list(app.routes)))
    lines = [f"{app} {json.dumps(row, ensure_ascii=False)}" for app, rows in tables.items() for row in rows]
    _check("routes.txt", "\n".join(lines) + "\n")
