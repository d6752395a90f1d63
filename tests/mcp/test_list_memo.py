"""A repeated `tools/list` is answered from the endpoint's memory (mesq/mcp/list_memo.py): the
same bytes the SDK gives, with the request's own id, never across visibilities, eras, headers or
rate limits, and never for a batch."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.kernel.errors import RateLimited
from mesq.mcp.endpoint import McpEndpoint
from mesq.mcp.list_memo import CAPACITY
from mesq.wiring.services import Services

from .conftest import Mcp


def _endpoints(client: TestClient) -> list[McpEndpoint]:
    found: list[McpEndpoint] = []

    def walk(app: Any, depth: int = 0) -> None:
        if isinstance(app, McpEndpoint) and all(app is not seen for seen in found):
            found.append(app)
        if depth > 12:
            return
        for attribute in ("app", "routes", "endpoint"):
            child = getattr(app, attribute, None)
            for item in child if isinstance(child, list) else [child] if child is not None else []:
                walk(item, depth + 1)

    walk(client.app)
    return found


@pytest.fixture
def served(mcp_http: TestClient) -> Iterator[Callable[[], int]]:
    """How many answers every /mcp endpoint has given from memory, and a clean memory per test."""
    endpoints = _endpoints(mcp_http)
    assert endpoints, "no McpEndpoint found under the app"
    for endpoint in endpoints:
        endpoint.list_memo._answers.clear()
    before = sum(endpoint.list_memo.served for endpoint in endpoints)
    yield lambda: sum(endpoint.list_memo.served for endpoint in endpoints) - before


def _raw(mcp: Mcp, request_id: Any, **headers: str) -> tuple[int, bytes, dict[str, str]]:
    body = mcp.body("tools/list", None)
    body["id"] = request_id
    response = mcp.client.post(mcp.path, headers={**mcp.http_headers("tools/list", None), **headers}, json=body)
    return response.status_code, response.content, dict(response.headers)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_repeated_list_is_the_sdks_bytes_with_its_own_id(
    mcp: Callable[..., Mcp], served: Callable[[], int], era: str
) -> None:
    client = mcp(scopes="memo:read,memo:write,todo:read", era=era)
    status, first, first_headers = _raw(client, 7)
    assert status == 200 and served() == 0
    status, second, second_headers = _raw(client, 8)
    assert status == 200 and served() == 1
    # Byte for byte the SDK's answer, except the id.
    assert second == first.replace(b'"id":7,', b'"id":8,', 1)
    assert json.loads(second)["id"] == 8
    assert second_headers["content-length"] == str(len(second))
    assert second_headers["cache-control"] == first_headers["cache-control"] == "private, no-store"
    assert second_headers["content-type"] == first_headers["content-type"]
    status, third, _ = _raw(client, 7)
    assert (status, third, served()) == (200, first, 2)
    # A string id is its own kind of request: the SDK answers the first, the memory the next.
    _, named, _ = _raw(client, "seven")
    _, named_again, _ = _raw(client, "seven")
    assert named == named_again == first.replace(b'"id":7,', b'"id":"seven",', 1) and served() == 3


def test_other_scopes_urls_and_headers_are_answered_by_the_sdk(
    mcp: Callable[..., Mcp], served: Callable[[], int]
) -> None:
    full = mcp(scopes="memo:read,memo:write,todo:read")
    _, listed, _ = _raw(full, 1)
    names = {tool["name"] for tool in json.loads(listed)["result"]["tools"]}
    reader = mcp(scopes="memo:read")
    _, read_only, _ = _raw(reader, 1)
    narrowed = mcp(scopes="memo:read,memo:write,todo:read", path="/mcp/x/todo")
    _, todo_only, _ = _raw(narrowed, 1)
    _, filtered, _ = _raw(full, 1, **{"X-MCP-Tools": "get_memo"})
    assert served() == 0  # four kinds of request, four SDK answers
    read_names = {tool["name"] for tool in json.loads(read_only)["result"]["tools"]}
    todo_names = {tool["name"] for tool in json.loads(todo_only)["result"]["tools"]}
    assert "create_memo" in names and "create_memo" not in read_names and read_names < names
    assert todo_names and all("memo" not in name or "todo" in name for name in todo_names)
    assert [tool["name"] for tool in json.loads(filtered)["result"]["tools"]] == ["get_memo"]
    # Another token with the same scopes sees the same catalog: answered from memory.
    _, again, _ = _raw(mcp(scopes="memo:read,memo:write,todo:read"), 1)
    assert again == listed and served() == 1


def test_a_list_with_a_cursor_or_a_strange_id_is_never_remembered(
    mcp: Callable[..., Mcp], served: Callable[[], int]
) -> None:
    client = mcp()
    for _ in range(2):
        body = client.body("tools/list", {"cursor": "abc"})
        response = client.client.post(client.path, headers=client.http_headers("tools/list", None), json=body)
        assert "invalid cursor" in response.json()["error"]["message"]
    for odd_id in (True, 1.5, None, {"a": 1}, "列表", "tab\tid"):
        for _ in range(2):
            _raw(client, odd_id)
    assert served() == 0


def test_a_rate_limited_list_gets_its_limit_not_the_memory(
    mcp_services: Services, mcp: Callable[..., Mcp], served: Callable[[], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = mcp()
    _, first, _ = _raw(client, 1)
    endpoint = _endpoints(client.client)[0]

    async def over_limit(self: McpEndpoint, *args: Any, **kwargs: Any) -> dict[str, RateLimited]:
        return {"connection": RateLimited("too many requests", retry_after_seconds=9)}  # tools/list's bucket

    monkeypatch.setattr(type(endpoint), "_rate_limit", over_limit)
    _, limited, headers = _raw(client, 1)
    assert served() == 0 and limited != first
    assert "error" in json.loads(limited) and headers.get("retry-after")


def test_a_batch_is_answered_message_by_message_by_the_sdk(mcp: Callable[..., Mcp], served: Callable[[], int]) -> None:
    client = mcp(era="legacy")
    _raw(client, 1)
    batch = [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in (2, 3)]
    headers = {**client.http_headers("tools/list", None), "Mcp-Protocol-Version": "2025-03-26"}
    response = client.client.post(client.path, headers=headers, json=batch)
    assert response.status_code == 200 and [answer["id"] for answer in response.json()] == [2, 3]
    assert served() == 0


def test_the_memory_is_bounded(mcp: Callable[..., Mcp], served: Callable[[], int]) -> None:
    client = mcp()
    for n in range(CAPACITY + 5):  # a distinct Accept-Language each: a distinct key each
        _raw(client, 1, **{"Accept-Language": f"x-{n}"})
    assert served() == 0
    assert all(len(endpoint.list_memo._answers) <= CAPACITY for endpoint in _endpoints(client.client))
    assert any(len(endpoint.list_memo._answers) == CAPACITY for endpoint in _endpoints(client.client))
