"""Rate limits through the official `mcp` client (issue 29, point 1): against a real `mesq serve`
with the normal profile, a limited `tools/call` is a tool result whose text says RATE_LIMITED and
the seconds to wait, and a limited `tools/list` raises an MCPError whose data holds
retryAfterSeconds: both readable by the agent, in both eras."""

from __future__ import annotations

import json
from collections.abc import Iterator

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from mesq.application.ratelimit import PROFILES, wait_words
from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_mcp_client import MODES, connect

NORMAL = PROFILES["normal"]


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("mcp-limits") / "data", {"MCP_RATE_LIMIT_PROFILE": "normal"})
    yield server
    stop_server(server)


@pytest.mark.parametrize("mode", MODES)
def test_the_official_client_reads_rate_limits(limited_server, mode):
    account = limited_server.account(f"limits{mode}", scopes="memo:read")

    async def scenario() -> None:
        async with connect(limited_server.base_url, account.token, mode) as client:
            # Bounded: two windows' worth, in case a minute boundary resets the counter once.
            for _ in range(2 * NORMAL["tool_call"] + 10):
                result = await client.call_tool("list_tags", {})
                if result.is_error:
                    break
            assert result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            error = json.loads(text)["error"]
            assert "RATE_LIMITED" in text and error["code"] == "RATE_LIMITED"
            wait = error["retryAfterSeconds"]
            assert 1 <= wait <= 60 and f"retry after {wait_words(wait)}" in text

            for _ in range(2 * NORMAL["connection"] + 10):
                try:
                    await client.list_tools(cache_mode="bypass")  # the client caches lists (ttlMs)
                except MCPError as raised:
                    failure = raised
                    break
            else:
                raise AssertionError("tools/list was never limited")
            data = failure.error.data
            assert isinstance(data, dict) and data["code"] == "RATE_LIMITED"
            assert 1 <= data["retryAfterSeconds"] <= 60

    anyio.run(scenario)


def test_a_limited_tools_list_carries_retry_after_over_http(limited_server):
    """The same limit as an HTTP client sees it: beside the JSON-RPC error, `Retry-After` (the
    header clients read before any body) with the body's `retryAfterSeconds`."""
    account = limited_server.account("limitsheader", scopes="memo:read")
    headers = {"Authorization": f"Bearer {account.token}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for _ in range(2 * NORMAL["connection"] + 10):
        answer = httpx.post(f"{limited_server.base_url}/mcp", json=body, headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
        if "error" in answer.json():
            break
        assert "retry-after" not in answer.headers
    else:
        raise AssertionError("tools/list was never limited")
    error = answer.json()["error"]
    assert error["data"]["code"] == "RATE_LIMITED"
    assert answer.headers["retry-after"] == str(error["data"]["retryAfterSeconds"])
