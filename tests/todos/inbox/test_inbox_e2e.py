"""The inbox through the official `mcp` client against a real `mesq serve`: capture items with
inbox subtasks, page through them until hasMore=false seeing every item exactly once, a
30,000-character note failing the detail call with RESPONSE_TOO_LARGE while includeNotes=false
lists still work, and a move to the board. The client validates every successful
structuredContent against the tool's outputSchema itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_mcp_client import connect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("inbox-e2e") / "data")
    yield live
    stop_server(live)


async def ok(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    data: dict[str, Any] = result.structured_content["data"]  # type: ignore[index]
    return data


def test_inbox_over_the_official_client(server):
    account = server.account("inboxe2e", scopes="todo:read,todo:write")

    async def scenario() -> None:
        async with connect(server.base_url, account.token, "auto") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"list_todo_inbox_items", "move_todo_inbox_item_to_board", "set_todo_inbox_subtask_done"} <= names
            created = []
            for n in range(5):
                item = (await ok(client, "create_todo_inbox_item", {
                    "title": f"idea {n}", "notes": "x" * 8_000,
                    "subtasks": [{"title": f"step {n}.{k}"} for k in range(3)],
                }))["item"]  # fmt: skip
                created.append(item)
            first = created[0]
            sub = first["subtasks"][0]
            done = await ok(client, "set_todo_inbox_subtask_done", {
                "parentItemId": first["id"], "subtaskId": sub["id"], "parentRevision": 1, "isDone": True,
            })  # fmt: skip
            assert done["subtask"]["isDone"] is True and done["item"]["revision"] == 2
            big = (await ok(client, "create_todo_inbox_item", {"title": "essay", "notes": "y" * 30_000}))["item"]

            seen: list[str] = []
            arguments: dict[str, Any] = {"includeNotes": False, "limit": 2}
            while True:
                page = await ok(client, "list_todo_inbox_items", arguments)
                seen += [i["id"] for i in page["items"]]
                assert page["page"]["totalCount"] == 6
                if not page["page"]["hasMore"]:
                    break
                arguments["offset"] = page["page"]["nextOffset"]
            assert seen == [i["id"] for i in created] + [big["id"]]

            # The long note reads back in pages (notesOffset / notesNextOffset).
            pages, offset = [], 0
            while True:
                read = await ok(client, "get_todo_inbox_item", {"id": big["id"], "notesOffset": offset})
                pages.append(read["item"]["notes"])
                if not read.get("notesTruncated"):
                    break
                offset = read["notesNextOffset"]
            assert "".join(pages) == "y" * 30_000 and len(pages) == 2
            detail = await ok(client, "get_todo_inbox_item", {"id": first["id"]})
            assert len(detail["item"]["notes"]) == 8_000 and detail["item"]["subtasks"][0]["isDone"] is True

            moved = await ok(client, "move_todo_inbox_item_to_board", {"id": first["id"], "expectedRevision": 2})
            assert [s["done"] for s in moved["subtasks"]] == [True, False, False]
            remaining = await ok(client, "list_todo_inbox_items", {"limit": 200})
            assert first["id"] not in [i["id"] for i in remaining["items"]]

    anyio.run(scenario)
