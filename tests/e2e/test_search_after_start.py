"""Search right after `mesq serve` starts, as an agent meets it (issue 27): a `run_code` script
that writes and searches as soon as the server answers succeeds within its default budget (no
index is built inside the call: if the new account's index is not ready, the answer says so and a
later search is complete); after a restart the first AI
search answers within 3 s; and the idle server stays under 250 MB of RSS after 30 searches.
Through the official mcp client, against real servers on loopback. The figures it prints are the
ones docs/search.md quotes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import LiveServer, run_cli, start_server, stop_server

FIRST_SEARCH_S = 3.0
IDLE_RSS_MB = 250
#: run_code's default wall time (docs/MCP/code-mode.md): the script must finish well inside it.
DEFAULT_TIMEOUT_MS = 10_000
NOTES = [
    "周末去山里徒步，看到了很多野花 #outdoors",
    "Renewed the car insurance, the premium went up again #money",
    "读完了《三体》第二部，黑暗森林的设定很震撼 #reading",
]
QUERIES = ["hiking in the mountains", "汽车保险", "science fiction novel", "爬山", "bills and payments"]


def account(data_dir: Path) -> str:
    """A user and a token made with the CLI before the server starts, so nothing delays the first call."""
    made = run_cli("user", "create", "early", "--password-stdin", "--data-dir", str(data_dir), stdin="correct horse\n")
    assert made.returncode == 0, made.stderr
    token = run_cli("token", "create", "early", "--name", "t", "--scopes", "memo:read,memo:write", "--data-dir",
                    str(data_dir))  # fmt: skip
    assert token.returncode == 0, token.stderr
    return token.stdout.strip().splitlines()[-1]


def rss_mb(server: LiveServer) -> float:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(kib) / 1024


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    data: dict[str, Any] = result.structured_content["data"]  # type: ignore[index]
    return data


def connected(server: LiveServer, token: str) -> Any:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    return http, Client(streamable_http_client(f"{server.base_url}/mcp", http_client=http))


async def complete_search(server: LiveServer, token: str) -> dict[str, Any]:
    """The first complete answer to the script's search: the build the write queued ends within seconds."""
    http, client = connected(server, token)
    async with http, client:
        deadline = time.monotonic() + 60
        while True:
            found = await call(client, "search_ai_memos", {"query": "去爬山", "limit": 3})
            if not found["degraded"] or time.monotonic() > deadline:
                return found
            await anyio.sleep(0.5)


def test_search_right_after_start_restart_and_idle_memory(tmp_path: Path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    token = account(data_dir)
    script = (
        "const made = [];"
        f"for (const content of {json.dumps(NOTES, ensure_ascii=False)})"
        " made.push((await mesq.create_memo({content})).data.memo.id);"
        "const found = await mesq.search_ai_memos({query: '去爬山', limit: 3});"
        "return {made, found: found.data}"
    )  # fmt: skip

    started = time.monotonic()
    server = start_server(data_dir)
    ready = time.monotonic() - started
    try:

        async def first_script() -> tuple[dict[str, Any], float]:
            http, client = connected(server, token)
            async with http, client:
                sent = time.monotonic() - started
                data = await call(client, "run_code", {"code": script})
                return data, sent

        data, sent = anyio.run(first_script)
        print(f"\nlistening {ready:.2f} s after the process started; script sent at {sent:.2f} s; ran {data['ms']} ms")
        assert "budget" not in data and "thrown" not in data, data
        assert data["ms"] < DEFAULT_TIMEOUT_MS
        found, hike = data["result"]["found"], data["result"]["made"][0]
        if found["degraded"]:  # the new account's index was still being built: it says so, never builds in the call
            assert "being built" in found["reason"], found
            found = anyio.run(complete_search, server, token)
        # 去爬山 -> the hike, by meaning, first in the answer. Of three notes, a paraphrase that
        # shares one character with its note is confident only up to the floor's side (~0.15
        # against FLOOR 0.2, docs/search.md): the answer may hold it as the first of the closest
        # matches; the other two notes stand far below it either way.
        answer = found["items"] + found["closestMatches"]
        assert answer[0]["id"] == hike, found
        assert all(other["score"] * 100 < answer[0]["score"] for other in answer[1:]), found
    finally:
        stop_server(server)

    server = start_server(data_dir)  # a restart: the index is on disk, the model is not loaded
    try:

        async def after_restart() -> tuple[float, float]:
            http, client = connected(server, token)
            async with http, client:
                clock = time.monotonic()
                first = await call(client, "search_ai_memos", {"query": "mountain walk", "limit": 3})
                first_s = time.monotonic() - clock
                # An answer, confident or "less related" (right after a restart the CC-CEDICT gloss
                # may still be loading: the query then goes without it rather than wait).
                assert not first["degraded"] and first["items"] + first["closestMatches"], first
                for i in range(30):
                    answer = await call(client, "search_ai_memos", {"query": QUERIES[i % len(QUERIES)], "limit": 5})
                    assert not answer["degraded"], answer
            return first_s, rss_mb(server)

        first_s, rss = anyio.run(after_restart)
        print(f"first AI search after a restart {first_s:.2f} s; RSS after 30 searches {rss:.0f} MB")
        assert first_s < FIRST_SEARCH_S
        assert rss < IDLE_RSS_MB
    finally:
        stop_server(server)
