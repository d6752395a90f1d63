"""Todo attachments end to end against a real `mesq serve` (SQLite + local files): upload
(base64 tool, REST relay, REST upload session) -> bind to a task and an inbox item -> read back
through `read_todo_attachment` and `resources/read` with the official MCP client (which validates
every tool result against its outputSchema) and through the REST GET/HEAD; another account's path
never reads, on any of those routes; a memo path never binds to a todo."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_mcp_client import connect

from .conftest import RELAY as MEMO_RELAY
from .conftest import TODO_ATTACHMENTS, TODO_READ, TODO_RELAY

BODY = "清单 scan ✓".encode() * 40
SCOPES = "todo:read,todo:write,memo:read,memo:write"
FIELDS = ("path", "displayName", "fileSize", "mimeType", "type")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path / "todo-attachments")
    yield live
    stop_server(live)


def _binding(resource: dict[str, object]) -> dict[str, object]:
    return {name: resource[name] for name in FIELDS}


def test_todo_attachment_round_trip(server):
    alice, mallory = server.account("alice", SCOPES), server.account("mallory", SCOPES)
    with httpx.Client(base_url=server.base_url, headers=alice.headers, timeout=30) as http:
        relayed = http.post(TODO_RELAY, files={"file": ("scan.pdf", BODY, "application/pdf")})
        assert relayed.status_code == 201, relayed.text
        resource = relayed.json()["data"]
        assert resource["path"].startswith(f"users/{alice.user_id}/todo/")
        assert resource["mcp_uri"].startswith("todo://attachment/users%2F")
        assert resource["url"].endswith(f"{TODO_READ}?path=" + resource["mcp_uri"].removeprefix("todo://attachment/"))
        session = http.post(
            f"{TODO_ATTACHMENTS}/upload-session", json={"displayName": "b.txt", "mimeType": "text/plain", "size": 3}
        )
        assert session.status_code == 201 and session.json()["data"]["uploadEndpoint"].endswith(TODO_RELAY)

        task = http.post("/api/toolkit/todo/tasks", json={"title": "file taxes", "attachments": [_binding(resource)]})
        assert task.status_code == 201, task.text
        stored = task.json()["data"]["task"]["attachments"]
        assert stored == [{**_binding(resource), "url": resource["url"], "mcp_uri": resource["mcp_uri"]}]
        item = http.post("/api/toolkit/todo/inbox", json={"title": "scan", "attachments": [_binding(resource)]})
        assert item.status_code == 201 and item.json()["data"]["item"]["attachments"] == stored
        got = http.get("/api/toolkit/todo/tasks/" + task.json()["data"]["task"]["id"])
        assert got.status_code == 200 and got.json()["data"]["task"]["attachments"] == stored

        read = http.get(TODO_READ, params={"path": resource["path"]})
        assert read.status_code == 200 and read.content == BODY
        assert read.headers["content-type"] == "application/pdf"
        head = http.head(TODO_READ, params={"path": resource["path"]})
        assert head.status_code == 200 and head.headers["content-length"] == str(len(BODY))
        content = http.get(f"{TODO_ATTACHMENTS}/content", params={"path": resource["path"]})
        assert base64.b64decode(content.json()["data"]["content"]) == BODY

        # A memo attachment is not a todo attachment (and the memo read refuses the todo path).
        memo_file = http.post(MEMO_RELAY, files={"file": ("m.txt", b"memo", "text/plain")}).json()["data"]
        refused = http.post("/api/toolkit/todo/tasks", json={"title": "x", "attachments": [_binding(memo_file)]})
        assert refused.status_code == 400 and "not a todo attachment path" in refused.text
        assert http.get("/api/toolkit/memo/resources/read", params={"path": resource["path"]}).status_code == 400

    with httpx.Client(base_url=server.base_url, headers=mallory.headers, timeout=30) as http:
        for response in (
            http.get(TODO_READ, params={"path": resource["path"]}),
            http.head(TODO_READ, params={"path": resource["path"]}),
            http.get(f"{TODO_ATTACHMENTS}/content", params={"path": resource["path"]}),
            http.get(f"{TODO_ATTACHMENTS}/metadata", params={"path": resource["path"]}),
            http.post("/api/toolkit/todo/tasks", json={"title": "steal", "attachments": [_binding(resource)]}),
        ):
            assert response.status_code in (400, 403), response.text
            assert BODY not in response.content and b"scan.pdf" not in response.content

    async def over_mcp() -> None:
        async with connect(server.base_url, alice.token, "auto") as client:
            uploaded = await client.call_tool(
                "upload_todo_attachment",
                {"displayName": "note.txt", "mimeType": "text/plain", "content": base64.b64encode(b"hi").decode()},
            )
            assert not uploaded.is_error, uploaded
            small = uploaded.structured_content["data"]
            assert small["path"].startswith(f"users/{alice.user_id}/todo/")
            bound = await client.call_tool("create_todo_task", {"title": "mcp", "attachments": [_binding(small)]})
            assert not bound.is_error, bound
            result = await client.call_tool("read_todo_attachment", {"path": resource["path"]})
            assert not result.is_error, result
            assert base64.b64decode(result.structured_content["data"]["content"]) == BODY
            meta = await client.call_tool("get_todo_attachment_metadata", {"path": small["path"]})
            assert meta.structured_content["data"]["storage"]["size"] == 2
            contents = (await client.read_resource(resource["mcp_uri"])).contents
            assert len(contents) == 1 and base64.b64decode(contents[0].blob) == BODY  # type: ignore[union-attr]
            assert contents[0].mime_type == "application/pdf"

        async with connect(server.base_url, mallory.token, "auto") as client:
            denied = await client.call_tool("read_todo_attachment", {"path": resource["path"]})
            assert denied.is_error and "another account" in str(denied.content)
            with pytest.raises(MCPError, match="another account"):
                await client.read_resource(resource["mcp_uri"])

    anyio.run(over_mcp)
