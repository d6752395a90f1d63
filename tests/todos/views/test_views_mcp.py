"""list_todos, query_todos and get_todo_task through the real local app (MCP JSON-RPC and REST)
on the SQLite store: data made with the todo write tools, every result checked against the tool's
declared outputSchema the way a strict client does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.todos.views.budget import RESPONSE_BUDGET_CHARACTERS, json_size
from tests.conftest import Account
from tests.mcp.conftest import Mcp, check_text_copy, validate_output

TODO = "todo:read,todo:write"


class Todo:
    """An MCP connection that validates every result against the tool's outputSchema."""

    def __init__(self, client: TestClient, account: Account) -> None:
        self.mcp = Mcp(client=client, token=account.token)
        self.tools = {tool["name"]: tool for tool in self.mcp.tools()}

    def _result(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.mcp.call(name, arguments)
        envelope = check_text_copy(result)
        validate_output(self.tools[name], envelope)
        return result

    def ok(self, name: str, /, **arguments: Any) -> dict[str, Any]:
        result = self._result(name, arguments)
        assert result.get("isError") is not True, result
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def fails(self, name: str, /, **arguments: Any) -> dict[str, Any]:
        result = self._result(name, arguments)
        assert result.get("isError") is True, result
        error: dict[str, Any] = result["structuredContent"]["error"]
        return error


@pytest.fixture
def todo(client: TestClient, make_account: Callable[..., Account]) -> Todo:
    return Todo(client, make_account(scopes=TODO))


def build_board(todo: Todo) -> dict[str, Any]:
    """Two spaces, columns (one archived), tasks with subtasks, inbox items with subtasks."""
    work = todo.ok("create_todo_space", name="Work", slug="work", columns=["Backlog", "Doing", "Old"])
    backlog, doing, old = (c["id"] for c in work["columns"])
    tasks: list[str] = []
    subtasks: dict[str, list[str]] = {}
    for column, count in ((backlog, 4), (doing, 3)):
        for number in range(count):
            task = todo.ok(
                "create_todo_task",
                columnId=column,
                title=f"task {column[:4]} {number}",
                notes=f"notes {number}",
                tags=["work"],
            )["task"]
            tasks.append(task["id"])
            subtasks[task["id"]] = [
                todo.ok("create_todo_subtask", taskId=task["id"], title=f"sub {n}")["subtask"]["id"]
                for n in range(number % 3)
            ]
    archived_task = todo.ok("create_todo_task", columnId=old, title="in an archived column")["task"]
    todo.ok("update_todo_column", columnId=old, expectedRevision=work["columns"][2]["revision"], archived=True)
    default_task = todo.ok("create_todo_task", title="in the default space")["task"]
    inbox: list[str] = []
    inbox_subtasks: dict[str, list[str]] = {}
    for number in range(3):
        item = todo.ok(
            "create_todo_inbox_item", title=f"inbox {number}", subtasks=[{"title": f"isub {n}"} for n in range(number)]
        )["item"]
        inbox.append(item["id"])
        inbox_subtasks[item["id"]] = [s["id"] for s in item["subtasks"]]
    extra = todo.ok("create_todo_inbox_subtask", parentItemId=inbox[0], parentRevision=1, title="added")
    inbox_subtasks[inbox[0]].append(extra["subtask"]["id"])
    return {
        "work": work["space"],
        "tasks": tasks,
        "subtasks": subtasks,
        "archived": archived_task["id"],
        "default_task": default_task["id"],
        "inbox": inbox,
        "inbox_subtasks": inbox_subtasks,
    }


def test_list_pages_until_has_more_false_give_every_record_once(todo: Todo) -> None:
    board = build_board(todo)
    seen_parents: list[str] = []
    seen_subtasks: list[str] = []
    seen_inbox_subtasks: list[str] = []
    offset, totals = 0, set()
    while True:
        page = todo.ok("list_todos", limit=2, offset=offset)
        assert page["returnedCount"] <= 2 and json_size(page) <= RESPONSE_BUDGET_CHARACTERS
        totals.add(page["totalCount"])
        seen_parents += [t["id"] for t in page["tasks"]] + [i["id"] for i in page["inboxItems"]]
        seen_subtasks += [s["id"] for s in page["subtasks"]]
        seen_inbox_subtasks += [s["id"] for s in page["inboxSubtasks"]]
        assert not any("notes" in t for t in page["tasks"])  # omitted by default
        if not page["page"]["hasMore"]:
            break
        offset = page["page"]["nextOffset"]
    # Board order: default space first (created first), then Work's Backlog and Doing; then inbox.
    expected_parents = [board["default_task"], *board["tasks"], *board["inbox"]]
    assert seen_parents == expected_parents and totals == {len(expected_parents)}
    assert board["archived"] not in seen_parents
    assert seen_subtasks == [s for t in board["tasks"] for s in board["subtasks"][t]]
    assert seen_inbox_subtasks == [s for i in board["inbox"] for s in board["inbox_subtasks"][i]]

    # The graph projection: every collection paged at a common step, each record once.
    graph_ids: dict[str, list[str]] = {}
    offset = 0
    while True:
        page = todo.ok("list_todos", projection="graph", maxItems=3, limit=50, offset=offset)
        assert page["step"] <= 3  # maxItems wins over limit
        for name in ("tasks", "subtasks", "inboxItems", "inboxSubtasks", "spaces", "columns"):
            graph_ids.setdefault(name, []).extend(r["id"] for r in page[name])
        if not page["page"]["hasMore"]:
            break
        offset = page["page"]["nextOffset"]
    assert graph_ids["tasks"] == [board["default_task"], *board["tasks"]]
    assert graph_ids["subtasks"] == seen_subtasks and graph_ids["inboxSubtasks"] == seen_inbox_subtasks
    assert len(graph_ids["spaces"]) == 2 and len(graph_ids["columns"]) == 3 + 2  # default 3, Work 2 open

    # One space only, by slug; the inbox can be left out; out-of-range pages keep totals.
    only_work = todo.ok("list_todos", spaceSlug="work", includeInbox=False)
    assert [t["id"] for t in only_work["tasks"]] == board["tasks"] and only_work["inboxItems"] == []
    beyond = todo.ok("list_todos", offset=500)
    assert beyond["totalCount"] == len(expected_parents) and beyond["returnedCount"] == 0
    assert todo.fails("list_todos", spaceId="nope")["code"] == "NOT_FOUND"
    assert todo.fails("list_todos", spaceId=board["work"]["id"], spaceSlug="default")["code"] == "VALIDATION_ERROR"


def test_a_30000_character_note_pages_in_details_and_fails_only_lists_with_notes(todo: Todo) -> None:
    task = todo.ok("create_todo_task", title="huge", notes="长" * 30_000)["task"]
    todo.ok("create_todo_task", title="small")
    first = todo.ok("get_todo_task", id=task["id"])
    assert first["notesTruncated"] is True and first["task"]["notes"] == "长" * first["notesNextOffset"]
    rest = todo.ok("get_todo_task", id=task["id"], notesOffset=first["notesNextOffset"])
    assert "notesTruncated" not in rest and first["task"]["notes"] + rest["task"]["notes"] == "长" * 30_000
    # A subtask's own long note is the weight of its parent's answer: that one is too large (the
    # subtask reads on its own, paged).
    sub = todo.ok("create_todo_subtask", taskId=task["id"], title="heavy", notes="长" * 30_000)["subtask"]
    error = todo.fails("get_todo_task", id=task["id"])
    assert error["code"] == "RESPONSE_TOO_LARGE"
    assert error["details"]["sizeCharacters"] > RESPONSE_BUDGET_CHARACTERS
    assert "no tasks" in error["message"] and "read each subtask with get_todo_task" in error["message"]
    assert todo.ok("get_todo_task", id=sub["id"])["notesTruncated"] is True
    listed = todo.ok("list_todos", includeNotes=False)
    assert [t["title"] for t in listed["tasks"]] == ["huge", "small"]
    noted = todo.fails("list_todos", includeNotes=True)
    assert noted["code"] == "RESPONSE_TOO_LARGE"
    assert noted["details"]["hints"]["includeNotes"] is False
    found = todo.ok("query_todos", query="huge", includeNotes=True)
    assert found["items"][0]["notesTruncated"] is True and len(found["items"][0]["notes"]) == 2000


def test_task_details_full_notes_all_subtasks_and_optional_context(todo: Todo) -> None:
    task = todo.ok("create_todo_task", title="plan", notes="n" * 3000, timezone="Asia/Shanghai", tags=["home"])["task"]
    first = todo.ok("create_todo_subtask", taskId=task["id"], title="one")["subtask"]
    todo.ok("create_todo_subtask", taskId=task["id"], title="two")
    todo.ok("complete_todo_subtask", id=first["id"], expectedRevision=first["revision"])
    details = todo.ok("get_todo_task", id=task["id"])
    assert details["task"]["notes"] == "n" * 3000
    assert [s["title"] for s in details["subtasks"]] == ["one", "two"] and details["subtasks"][0]["done"] is True
    assert details["timezone"] == "Asia/Shanghai"
    assert not {"board", "inbox", "tagSuggestions"} & set(details)
    todo.ok("create_todo_inbox_item", title="captured")
    context = todo.ok("get_todo_task", id=task["id"], includeContext=True)
    assert context["board"]["space"]["id"] == task["spaceId"]
    assert [c["name"] for c in context["board"]["columns"]] == ["To do", "Doing", "Done"]
    assert [i["title"] for i in context["inbox"]["items"]] == ["captured"] and context["inbox"]["totalCount"] == 1
    assert [t["name"] for t in context["tagSuggestions"]] == ["home"]
    # A subtask can be read by its own id; a trashed task is NOT_FOUND here.
    assert todo.ok("get_todo_task", id=first["id"])["task"]["parentId"] == task["id"]
    plain = todo.ok("create_todo_task", title="no zone")["task"]
    assert todo.ok("get_todo_task", id=plain["id"])["timezone"] == "UTC"
    todo.ok("delete_todo_task", id=plain["id"], expectedRevision=plain["revision"])
    assert todo.fails("get_todo_task", id=plain["id"])["code"] == "NOT_FOUND"
    assert todo.fails("get_todo_task", id="missing")["code"] == "NOT_FOUND"


def test_query_todos_over_storage_with_the_seed_example(todo: Todo) -> None:
    sh = "Asia/Shanghai"
    make = lambda **a: todo.ok("create_todo_task", **a)["task"]  # noqa: E731
    monday = make(title="mon", priority="high", due={"type": "date", "date": "2026-10-05"}, timezone=sh)
    make(title="next mon", priority="high", due={"type": "date", "date": "2026-10-12"}, timezone=sh)
    make(title="low", priority="low", due={"type": "date", "date": "2026-10-06"}, timezone=sh)
    friday = make(title="fri", priority="high", due={"type": "datetime", "at": "2026-10-09T18:00:00+08:00"})
    sub = todo.ok(
        "create_todo_subtask",
        taskId=monday["id"],
        title="sub",
        priority="high",
        due={"type": "date", "date": "2026-10-07"},
        timezone=sh,
    )["subtask"]
    found = todo.ok(
        "query_todos",
        priority="high",
        status="open",
        dueAfter="2026-10-05T00:00:00+08:00",
        dueBefore="2026-10-12T00:00:00+08:00",
    )
    assert sorted(i["id"] for i in found["items"]) == sorted([monday["id"], friday["id"], sub["id"]])
    assert found["page"]["totalCount"] == 3
    by_id = {i["id"]: i for i in found["items"]}
    assert by_id[friday["id"]]["due"] == {"type": "datetime", "at": "2026-10-09T18:00:00+08:00"}
    assert by_id[sub["id"]]["kind"] == "subtask" and by_id[sub["id"]]["parentId"] == monday["id"]
    assert (
        todo.fails("query_todos", dueAfter="2026-10-12T00:00:00Z", dueBefore="2026-10-05T00:00:00Z")["code"]
        == "VALIDATION_ERROR"
    )
    assert todo.fails("query_todos", spaceSlug="nowhere")["code"] == "NOT_FOUND"
    assert len(todo.ok("query_todos", spaceSlug="default", status="all")["items"]) == 5


def test_rest_routes_share_the_contract(client: TestClient, make_account: Callable[..., Account]) -> None:
    account = make_account(scopes=TODO)
    headers = account.headers
    made = client.post("/api/toolkit/todo/tasks", headers=headers, json={"title": "rest", "tags": ["a", "b"]})
    assert made.status_code == 201, made.text
    task_id = made.json()["data"]["task"]["id"]
    listed = client.get("/api/toolkit/todo", params={"limit": 1, "projection": "plain"}, headers=headers)
    assert listed.status_code == 200 and listed.json()["data"]["tasks"][0]["id"] == task_id
    queried = client.get("/api/toolkit/todo/query", params={"tags": "a,b", "status": "all"}, headers=headers)
    assert [i["id"] for i in queried.json()["data"]["items"]] == [task_id]
    assert client.get(f"/api/toolkit/todo/tasks/{task_id}", headers=headers).json()["data"]["task"]["id"] == task_id
    bad = client.get("/api/toolkit/todo/query", params={"dueAfter": "yesterday"}, headers=headers)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"
    memo_only = make_account(scopes="memo:read")
    assert client.get("/api/toolkit/todo", headers=memo_only.headers).status_code == 403


def test_organize_today_todos_reads_todays_open_tasks(todo: Todo) -> None:
    from datetime import UTC, datetime

    today = datetime.now(UTC).date().isoformat()
    due = todo.ok("create_todo_task", title="due today", due={"type": "date", "date": today})["task"]
    todo.ok("create_todo_task", title="due far away", due={"type": "date", "date": "2099-01-01"})
    todo.ok("create_todo_task", title="no due")
    result = todo.mcp.result("prompts/get", {"name": "organize_today_todos", "arguments": {"timeZone": "UTC"}})
    text = result["messages"][0]["content"]["text"]
    assert due["id"] in text and "due far away" not in text and "no due" not in text
    assert "Only suggest" in text
