"""The official `mcp` client over streamable HTTP with a bearer token, and a call that must succeed:
what the end-to-end tests that drive a real `mesq serve` as an agent share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def connect(base_url: str, token: str, timeout: float = 60) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=timeout) as http,
        Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client,
    ):
        yield client


async def ok(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's `data`; a tool error fails the test."""
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result
    assert result.structured_content is not None
    data: dict[str, Any] = result.structured_content["data"]
    return data
