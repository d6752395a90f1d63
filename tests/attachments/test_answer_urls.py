"""Without a public URL, every URL an answer hands a client is absolute, by the name the request
came on (docs/decisions.md "URLs in answers"): a real `mesq serve` (no --public-url), reached as
127.0.0.1 and as localhost, over REST and the official MCP client, memo and todo attachments;
stored records keep the bare route, so the same memo answers with either name."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_mcp_client import connect

from .conftest import MEMO, READ, RELAY, RESOURCES, SESSION, TODO_ATTACHMENTS, TODO_READ, TODO_RELAY

SCOPES = "memo:read,memo:write,todo:read,todo:write"
BODY = b"0123456789" * 20  # over the 64-byte MCP read cap below
FIELDS = ("path", "displayName", "fileSize", "mimeType", "type")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path / "answer-urls", {"MESQ_MCP_READ_CAP_BYTES": "64"})
    yield live
    stop_server(live)


def _other_name(base_url: str) -> str:
    """The same server by its other loopback name (127.0.0.1 <-> localhost)."""
    parts = urlsplit(base_url)
    other = "localhost" if parts.hostname == "127.0.0.1" else "127.0.0.1"
    return f"{parts.scheme}://{other}:{parts.port}"


def _binding(resource: dict[str, Any]) -> dict[str, Any]:
    return {name: resource[name] for name in FIELDS}


def _urls(value: Any) -> list[str]:
    """Every `url` / `uploadEndpoint` value anywhere in an answer."""
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k in ("url", "uploadEndpoint") and isinstance(v, str)]
        return found + [u for v in value.values() for u in _urls(v)]
    if isinstance(value, list):
        return [u for v in value for u in _urls(v)]
    return []


def _all_under(base: str, answer: Any) -> None:
    urls = _urls(answer)
    assert urls, answer
    assert all(url.startswith(f"{base}/api/toolkit/") for url in urls), (base, urls)


def test_rest_answers_are_absolute_by_the_requests_name(server):
    alice = server.account("alice", SCOPES)
    for base in (server.base_url, _other_name(server.base_url)):
        with httpx.Client(base_url=base, headers=alice.headers, timeout=30) as http:
            relayed = http.post(RELAY, files={"file": ("a.txt", BODY, "text/plain")})
            assert relayed.status_code == 201, relayed.text
            resource = relayed.json()["data"]
            assert resource["url"] == f"{base}{READ}?path={resource['path'].replace('/', '%2F')}"
            # The URL works as it is, with the same credential (no base URL to guess).
            assert httpx.get(resource["url"], headers=alice.headers, timeout=30).content == BODY

            session = http.post(SESSION, json={"displayName": "b.txt", "mimeType": "text/plain", "size": 3})
            assert session.status_code == 201 and session.json()["data"]["uploadEndpoint"] == f"{base}{RELAY}"
            posted = httpx.post(session.json()["data"]["uploadEndpoint"], headers=alice.headers, timeout=30,
                                files={"file": ("b.txt", b"abc", "text/plain")})  # fmt: skip
            assert posted.status_code == 201, posted.text
            _all_under(base, posted.json()["data"])

            memo = http.post(MEMO, json={"content": "with a file", "resources": [_binding(resource)]})
            assert memo.status_code == 201, memo.text
            _all_under(base, memo.json()["data"])
            _all_under(base, http.get(f"{MEMO}/{memo.json()['data']['memo']['id']}").json()["data"])
            _all_under(base, http.get(RESOURCES).json()["data"])
            _all_under(base, http.get(MEMO).json()["data"])

            over = http.get(f"{RESOURCES}/content", params={"path": resource["path"]})
            assert over.status_code == 400 and over.json()["error"]["code"] == "RESPONSE_TOO_LARGE", over.text
            assert f"{base}{READ}?path=" in over.json()["error"]["message"]

            todo_file = http.post(TODO_RELAY, files={"file": ("scan.pdf", BODY, "application/pdf")})
            assert todo_file.status_code == 201, todo_file.text
            assert todo_file.json()["data"]["url"].startswith(f"{base}{TODO_READ}?path=")
            todo_session = http.post(
                f"{TODO_ATTACHMENTS}/upload-session", json={"displayName": "c.txt", "mimeType": "text/plain", "size": 3}
            )
            assert todo_session.json()["data"]["uploadEndpoint"] == f"{base}{TODO_RELAY}"
            task = http.post("/api/toolkit/todo/tasks",
                             json={"title": "taxes", "attachments": [_binding(todo_file.json()["data"])]})  # fmt: skip
            assert task.status_code == 201, task.text
            _all_under(base, task.json()["data"])
            _all_under(base, http.get(f"/api/toolkit/todo/tasks/{task.json()['data']['task']['id']}").json()["data"])


def test_mcp_answers_are_absolute(server):
    alice = server.account("alice", SCOPES)
    base = server.base_url

    async def over_mcp() -> None:
        async with connect(base, alice.token, "auto") as client:

            async def data(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result
                answer: dict[str, Any] = result.structured_content["data"]
                return answer

            content = base64.b64encode(BODY).decode()
            uploaded = await data("upload_memo_resource",
                                  {"displayName": "a.txt", "mimeType": "text/plain", "content": content})  # fmt: skip
            assert uploaded["url"].startswith(f"{base}{READ}?path=")
            memo = await data("create_memo", {"content": "mcp file", "resources": [_binding(uploaded)]})
            _all_under(base, memo)
            _all_under(base, await data("get_memo", {"id": memo["memo"]["id"]}))
            session = await data("create_memo_upload_session",
                                 {"displayName": "b.txt", "mimeType": "text/plain", "size": 3})  # fmt: skip
            assert session["uploadEndpoint"] == f"{base}{RELAY}"
            capped = await client.call_tool("read_memo_resource", {"path": uploaded["path"]})
            assert capped.is_error and f"{base}{READ}?path=" in str(capped.content), capped

            pdf = {"displayName": "scan.pdf", "mimeType": "application/pdf", "content": content}
            todo_file = await data("upload_todo_attachment", pdf)
            assert todo_file["url"].startswith(f"{base}{TODO_READ}?path=")
            task = await data("create_todo_task", {"title": "mcp", "attachments": [_binding(todo_file)]})
            _all_under(base, task)
            _all_under(base, await data("get_todo_task", {"id": task["task"]["id"]}))
            with pytest.raises(MCPError, match="over the MCP read cap") as refused:
                await client.read_resource(todo_file["mcp_uri"])
            assert f"{base}{TODO_READ}?path=" in str(refused.value)

    anyio.run(over_mcp)
