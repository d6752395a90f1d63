"""The official `mcp` client against a real `mesq serve` over HTTP with a PAT, in its default
(2026-07-28, `server/discover`) mode and in legacy (`initialize`) mode: connect, list exactly the
tools the scopes allow, call every memo tool. The client validates every `structuredContent`
against the tool's outputSchema itself (`ClientSession.validate_tool_result`), so a result that
does not match its declared schema fails these tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mesq import __version__
from tests.conftest import LiveServer, start_server, stop_server
from tests.mcp.test_protocol import ALL_MEMO_TOOLS, MEMO_TOOLSET_ALL, MEMO_TOOLSET_READ, READ_TOOLS

MODES = ("auto", "legacy")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real `mesq serve` for the module (each start pays the SDK import)."""
    server = start_server(tmp_path_factory.mktemp("mcp-e2e") / "data")
    yield server
    stop_server(server)


EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


@asynccontextmanager
async def connect(base_url: str, token: str, mode: str, path: str = "/mcp") -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        transport = streamable_http_client(f"{base_url}{path}", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


class Calls:
    """Every call goes through the official client's own output validation."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.called: set[str] = set()

    async def __call__(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments or {})
        assert not result.is_error, result
        # The client raised already if structuredContent had not matched; check the text copy too.
        assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
        self.called.add(name)
        data: dict[str, Any] = result.structured_content["data"]
        return data


async def every_memo_tool(call: Calls) -> None:
    first = (await call("create_memo", {"content": "E2E #work/meetings", "idempotencyKey": "e2e-1"}))["memo"]
    assert first["contentSource"] == "mcp"
    second = (await call("create_memo", {"content": "Pinned #reading", "pinned": True}))["memo"]
    listed = await call("list_memos", {"includeContext": True})
    assert listed["page"]["totalCount"] == 2 and listed["filters"]["pinned"] == 1
    assert (await call("search_memos", {"query": "e2e"}))["timelineItems"][0]["id"] == first["id"]
    assert (await call("batch_get_memos", {"ids": [first["id"], "gone"]}))["missingIds"] == ["gone"]
    assert {t["path"] for t in (await call("list_tags"))["tags"]} == {"work", "reading"}
    assert (await call("select_memos_for_insight", {"memoIds": [first["id"]]}))["scope"]["mode"] == "ids"
    assert (await call("get_memo", {"id": first["id"]}))["memo"]["revision"] == 1
    await call("update_memo", {"id": first["id"], "expectedRevision": 1, "pinned": True})
    assert (await call("rename_memo_tag", {"from": "reading", "to": "books"}))["updatedMemos"] == 1
    current = (await call("get_memo", {"id": second["id"]}))["memo"]
    trashed = (await call("delete_memo", {"id": second["id"], "expectedRevision": current["revision"]}))["memo"]
    restored = await call("restore_memo", {"id": second["id"], "expectedRevision": trashed["revision"]})
    assert restored["memo"]["status"] == "NORMAL"


@pytest.mark.parametrize("mode", MODES)
def test_official_client_end_to_end(live_server, mode):
    writer = live_server.account(f"writer{mode}", scopes="memo:read,memo:write")
    reader = live_server.token(writer.username, "memo:read", "ro")

    async def scenario() -> None:
        async with connect(live_server.base_url, reader, mode) as client:
            assert client.protocol_version == EXPECTED_VERSION[mode]
            info = client.server_info
            assert info is not None and (info.name, info.title, info.version) == ("mesq", "MeSQ", __version__)
            assert [t.name for t in (await client.list_tools()).tools] == READ_TOOLS
            with pytest.raises(MCPError) as unknown:  # a protocol error, not a tool result
                await client.call_tool("drop_database", {})
            assert unknown.value.error.code == -32602
        # A tool only missing scopes hide: HTTP 403 insufficient_scope (the step-up challenge).
        with pytest.raises(BaseException) as denied:
            async with connect(live_server.base_url, reader, mode) as client:
                await client.call_tool("create_memo", {"content": "nope"})
        assert any(isinstance(leaf, MCPError) for leaf in _leaves(denied.value)), denied.value

        async with connect(live_server.base_url, writer.token, mode) as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == ALL_MEMO_TOOLS
            assert all(t.output_schema and t.annotations for t in tools)
            calls = Calls(client)
            await every_memo_tool(calls)
            assert calls.called == set(MEMO_TOOLSET_ALL)  # attachment tools: tests/attachments/test_e2e.py
            conflict = await client.call_tool("update_memo", {"id": "zzz", "expectedRevision": 1, "pinned": True})
            assert conflict.is_error and conflict.structured_content["error"]["code"] == "NOT_FOUND"
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["organize_recent_notes"]
            prompt = await client.get_prompt("organize_recent_notes", {"days": "1"})
            assert "E2E #work/meetings" in prompt.messages[0].content.text  # type: ignore[union-attr]

        async with connect(live_server.base_url, writer.token, mode, path="/mcp/x/memo/readonly") as client:
            assert [t.name for t in (await client.list_tools()).tools] == MEMO_TOOLSET_READ

    anyio.run(scenario)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "create_memo", "arguments": {}}}
    response = httpx.post(
        f"{live_server.base_url}/mcp",
        json=call,
        headers={"Authorization": f"Bearer {reader}", "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 403
    assert response.headers["www-authenticate"].startswith('Bearer error="insufficient_scope", scope="memo:write"')


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


@pytest.mark.parametrize("mode", MODES)
def test_bad_credentials_fail_to_connect(live_server, mode):
    async def scenario() -> None:
        with pytest.raises(BaseException) as failure:  # the client wraps it in task groups
            async with connect(live_server.base_url, "mesq_pat_not-a-real-token", mode):
                pass
        assert any(isinstance(leaf, MCPError) for leaf in _leaves(failure.value)), failure.value

    anyio.run(scenario)
    response = httpx.post(f"{live_server.base_url}/mcp", json={}, headers={"Authorization": "Bearer mesq_pat_x"})
    assert response.status_code == 401 and 'error="invalid_token"' in response.headers["www-authenticate"]
