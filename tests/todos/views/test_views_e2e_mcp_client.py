"""The issue's end-to-end check: the official `mcp` client against a real `mesq serve` over HTTP
with a PAT. Create a space, columns, tasks with subtasks, inbox items with inbox subtasks; list
them with paging until hasMore=false and get every record exactly once (plain and graph); a
30,000-character note makes a list with notes stop before it while includeNotes=false
lists still work; a 50,000-character note written through REST reads back whole through
get_todo_task's pages (notesOffset / notesNextOffset). The client validates every
structuredContent against the tool's outputSchema itself, so a result off its declared schema
fails here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.client import Client

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_mcp_client import Calls, connect


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("todo-e2e") / "data")
    yield server
    stop_server(server)


async def _fails(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert result.is_error, result
    envelope: dict[str, Any] = result.structured_content  # type: ignore[assignment]
    assert json.loads(result.content[0].text) == envelope  # type: ignore[union-attr]
    return envelope["error"]  # type: ignore[no-any-return]


async def _build(call: Calls) -> dict[str, list[str]]:
    made = await call("create_todo_space", {"name": "E2E", "slug": "e2e", "columns": ["Now"]})
    second = await call("create_todo_column", {"spaceSlug": "e2e", "name": "Later"})
    columns = [made["columns"][0]["id"], second["column"]["id"]]
    tasks, subtasks, inbox, inbox_subtasks = [], [], [], []
    for index in range(7):
        task = (await call("create_todo_task", {"columnId": columns[index % 2], "title": f"task {index}"}))["task"]
        tasks.append(task)
        for number in range(index % 3):
            sub = await call("create_todo_subtask", {"taskId": task["id"], "title": f"sub {index}.{number}"})
            subtasks.append(sub["subtask"]["id"])
    for index in range(4):
        item = (await call("create_todo_inbox_item", {"title": f"inbox {index}"}))["item"]
        revision = item["revision"]
        for number in range(index):
            written = await call(
                "create_todo_inbox_subtask",
                {"parentItemId": item["id"], "parentRevision": revision, "title": f"isub {number}"},
            )
            revision = written["item"]["revision"]
            inbox_subtasks.append(written["subtask"]["id"])
        inbox.append(item["id"])
    # Board order: column Now (tasks 0, 2, 4, 6), then Later (1, 3, 5); then the inbox.
    ordered = [t["id"] for t in tasks[0::2]] + [t["id"] for t in tasks[1::2]]
    return {"parents": ordered + inbox, "tasks": ordered, "subtasks": subtasks, "inboxSubtasks": inbox_subtasks}


async def _pages(call: Calls, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    pages, offset = [], 0
    while True:
        page = await call("list_todos", {**arguments, "offset": offset})
        pages.append(page)
        if not page["page"]["hasMore"]:
            return pages
        offset = page["page"]["nextOffset"]


async def _read_notes(call: Calls, task_id: str) -> str:
    """A task's notes through get_todo_task, page after page; each page within the budget."""
    pages, offset = [], 0
    while True:
        page = await call("get_todo_task", {"id": task_id, "notesOffset": offset})
        assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":"))) <= 25_000
        pages.append(page["task"]["notes"])
        if not page.get("notesTruncated"):
            return "".join(pages)
        offset = page["notesNextOffset"]


def test_a_50000_character_note_written_through_rest_reads_back_whole_through_mcp(live_server: LiveServer) -> None:
    account = live_server.account("longnote", scopes="todo:read,todo:write")
    notes = "".join(f'第{number:05d}行 line "quoted"\n' for number in range(2_500))[:49_993] + "THE END"
    assert len(notes) == 50_000
    made = httpx.post(
        f"{live_server.base_url}/api/toolkit/todo/tasks",
        headers={"Authorization": f"Bearer {account.token}"},
        json={"title": "long", "notes": notes},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    task_id = made.json()["data"]["task"]["id"]
    rest = httpx.get(
        f"{live_server.base_url}/api/toolkit/todo/tasks/{task_id}",
        headers={"Authorization": f"Bearer {account.token}"},
        timeout=30,
    )
    assert rest.status_code == 200 and rest.json()["data"]["notesTruncated"] is True

    async def scenario() -> None:
        async with connect(live_server.base_url, account.token, "auto") as client:
            call = Calls(client)
            assert await _read_notes(call, task_id) == notes
            limited = await call("get_todo_task", {"id": task_id, "notesOffset": 49_990, "notesLimit": 5})
            assert limited["task"]["notes"] == notes[49_990:49_995] and limited["notesNextOffset"] == 49_995

    anyio.run(scenario)


def test_official_client_lists_every_record_once_and_reports_oversize(live_server: LiveServer) -> None:
    account = live_server.account("todoe2e", scopes="todo:read,todo:write")

    async def scenario() -> None:
        async with connect(live_server.base_url, account.token, "auto") as client:
            call = Calls(client)
            built = await _build(call)

            plain = await _pages(call, {"spaceSlug": "e2e", "limit": 3})
            parents = [r["id"] for p in plain for r in (*p["tasks"], *p["inboxItems"])]
            assert parents == built["parents"]  # every parent exactly once, in board order
            assert {p["totalCount"] for p in plain} == {len(built["parents"])}
            subtasks = [s["id"] for p in plain for s in p["subtasks"]]
            assert sorted(subtasks) == sorted(built["subtasks"]) and len(set(subtasks)) == len(subtasks)
            inbox_subtasks = [s["id"] for p in plain for s in p["inboxSubtasks"]]
            assert inbox_subtasks == built["inboxSubtasks"]

            graph = await _pages(call, {"spaceSlug": "e2e", "projection": "graph", "limit": 2})
            for name, expected in (("tasks", built["tasks"]), ("inboxSubtasks", built["inboxSubtasks"])):
                assert [r["id"] for p in graph for r in p[name]] == expected
            assert sorted(r["id"] for p in graph for r in p["subtasks"]) == sorted(built["subtasks"])

            huge = await call("create_todo_task", {"spaceSlug": "e2e", "title": "huge", "notes": "长" * 30_000})
            assert await _read_notes(call, huge["task"]["id"]) == "长" * 30_000
            listed = await _pages(call, {"includeNotes": False, "limit": 5})
            titles = [t["title"] for p in listed for t in p["tasks"]]
            assert "huge" in titles and all("notes" not in t for p in listed for t in p["tasks"])
            # With notes, pages stop before the huge task; on its own page it is RESPONSE_TOO_LARGE.
            board = await _pages(call, {"spaceSlug": "e2e", "includeInbox": False})
            at = [t["id"] for p in board for t in p["tasks"]].index(huge["task"]["id"])
            before = await call("list_todos", {"includeNotes": True, "spaceSlug": "e2e"})
            assert before["returnedCount"] == at and before["page"]["nextOffset"] == at
            noted = await _fails(client, "list_todos", {"includeNotes": True, "spaceSlug": "e2e", "offset": at})
            assert noted["code"] == "RESPONSE_TOO_LARGE" and noted["details"]["hints"]["includeNotes"] is False

            found = await call("query_todos", {"query": "HUGE", "includeNotes": True})
            assert found["items"][0]["notesTruncated"] is True

    anyio.run(scenario)
