"""MCP wire helpers: raw JSON-RPC over the real local app (`create_local_app`), in both eras.

`modern` speaks 2026-07-28 (per-request `_meta` envelope + `Mcp-Protocol-Version`, `Mcp-Method`
and `Mcp-Name` headers, exactly as the official client stamps them); `legacy` speaks the
handshake era (`Mcp-Protocol-Version: 2025-11-25` after `initialize`, no envelope).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ERAS = ("modern", "legacy")
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
CLIENT_INFO = {"name": "mesq-tests", "version": "1"}


@dataclass
class Mcp:
    client: TestClient
    token: str | None
    era: str = "modern"
    path: str = "/mcp"
    headers: dict[str, str] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def http_headers(self, method: str, params: dict[str, Any] | None) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.era == "modern":
            headers["Mcp-Protocol-Version"] = MODERN
            headers["Mcp-Method"] = method
            if method in NAME_BEARING and params:
                headers["Mcp-Name"] = str(params[NAME_BEARING[method]])
        elif method != "initialize":
            headers["Mcp-Protocol-Version"] = LEGACY
        return {**headers, **self.headers}

    def body(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        params = dict(params or {})
        if self.era == "modern":
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
            }
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params:
            body["params"] = params
        return body

    def post(self, method: str, params: dict[str, Any] | None = None, **headers: str) -> httpx.Response:
        all_headers = {**self.http_headers(method, params), **headers}
        return self.client.post(self.path, headers=all_headers, json=self.body(method, params))

    def notify(self, method: str) -> httpx.Response:
        body = self.body(method, None)
        del body["id"]
        return self.client.post(self.path, headers=self.http_headers(method, None), json=body)

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.post(method, params)
        assert response.status_code == 200, response.text
        payload = response.json()
        assert "error" not in payload, payload
        result: dict[str, Any] = payload["result"]
        return result

    def error(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        payload = self.post(method, params).json()
        assert "error" in payload, payload
        error: dict[str, Any] = payload["error"]
        return error

    def connect(self) -> dict[str, Any]:
        if self.era == "modern":
            return self.result("server/discover")
        return self.result(
            "initialize",
            {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO},
        )

    def tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = self.result("tools/list")["tools"]
        return tools

    def names(self) -> list[str]:
        return [tool["name"] for tool in self.tools()]

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.result("tools/call", params)

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """A successful call's `data` (after checking the envelope and the text copy)."""
        result = self.call(name, arguments)
        assert result.get("isError") is not True, result
        envelope = check_text_copy(result)
        data: dict[str, Any] = envelope["data"]
        return data

    def fails(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """A failed call's envelope (isError, error object, traceId)."""
        result = self.call(name, arguments)
        assert result.get("isError") is True, result
        envelope = check_text_copy(result)
        assert set(envelope["error"]) >= {"code", "message"} and envelope["traceId"]
        return envelope


def check_text_copy(result: dict[str, Any]) -> dict[str, Any]:
    import json

    envelope: dict[str, Any] = result["structuredContent"]
    assert result["content"][0]["type"] == "text"
    assert json.loads(result["content"][0]["text"]) == envelope
    return envelope


def validate_output(tool: dict[str, Any], structured: dict[str, Any]) -> None:
    """What a strict client does with structuredContent: validate it against outputSchema."""
    schema = tool["outputSchema"]
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(structured), key=str)
    assert not errors, f"{tool['name']}: {errors[0].message} at {list(errors[0].absolute_path)}"


@pytest.fixture(scope="module")
def mcp_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """One store per test module: creating a user costs an argon2 hash (~0.5 s here), so tests
    share a module user and isolate by token (cheap) unless they ask for a fresh user."""
    built = build_services(inprocess_settings(data_dir=tmp_path_factory.mktemp("mcp") / "data"))
    yield built
    built.items.close()


@pytest.fixture(scope="module")
def mcp_http(mcp_services: Services) -> Iterator[TestClient]:
    with TestClient(create_local_app(mcp_services), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def shared_user(mcp_services: Services) -> dict[str, Any]:
    user: dict[str, Any] = create_user(mcp_services.items, f"mcp{next(_USERS)}", "correct horse battery")
    return user


_USERS = itertools.count(1)


@pytest.fixture
def fresh_user(mcp_services: Services) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        user: dict[str, Any] = create_user(mcp_services.items, f"mcp{next(_USERS)}", "correct horse battery")
        return user

    return make


@pytest.fixture
def mcp(mcp_http: TestClient, mcp_services: Services, shared_user: dict[str, Any]) -> Callable[..., Mcp]:
    """`mcp(scopes=..., era=..., path=..., headers=..., user=...)` -> a wire client with a new PAT
    (default: of the module's shared user)."""

    def make(
        scopes: str = "memo:read,memo:write",
        era: str = "modern",
        path: str = "/mcp",
        headers: dict[str, str] | None = None,
        user: dict[str, Any] | None = None,
    ) -> Mcp:
        owner = user or shared_user
        token, _ = create_token(mcp_services.items, owner["id"], name="mcp-test", scopes=scopes)
        return Mcp(client=mcp_http, token=token, era=era, path=path, headers=dict(headers or {}))

    return make
