"""Board operations over REST: tags (rename/merge/delete across records), trash paging, restore_todo_item and
the all-or-nothing batches."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mesq.mcp.service import default_catalog
from mesq.todos import state as todo_state


@pytest.fixture
def me(rest, todo_account):
    return rest(todo_account)


def codes(result: tuple[int, dict[str, Any]]) -> tuple[int, str]:
    return result[0], result[1]["error"]["code"]


def tag_counts(me) -> dict[str, int]:
    return {t["name"]: t["count"] for t in me.ok("list_todo_tags")["tags"]}


def test_create_and_recolour_tag(me):
    tag = me.ok("create_todo_tag", name="home", color="#3366ff", idempotencyKey="tag-1")["tag"]
    assert (tag["name"], tag["color"], tag["revision"]) == ("home", "#3366ff", 1)
    assert me.ok("create_todo_tag", name="home", color="#3366ff", idempotencyKey="tag-1")["tag"] == tag
    assert codes(me.fails("create_todo_tag", name="home")) == (409, "CONFLICT")
    assert codes(me.fails("create_todo_tag", name="bad name")) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("create_todo_tag", name="x", color="blue")) == (400, "VALIDATION_ERROR")
    recoloured = me.ok("update_todo_tag", name="home", expectedRevision=1, color=None)["tag"]
    assert recoloured["color"] is None and recoloured["revision"] == 2
    status, envelope = me.fails("update_todo_tag", name="home", expectedRevision=1, color="#000000")
    assert (status, envelope["recoverData"]) == (409, {"tag": recoloured})
    assert codes(me.fails("update_todo_tag", name="nope", expectedRevision=1, color=None)) == (404, "NOT_FOUND")
    assert codes(me.fails("update_todo_tag", name="home", expectedRevision=2)) == (400, "VALIDATION_ERROR")
    assert tag_counts(me) == {"home": 0}


def test_rename_tag_updates_every_record_including_trash_and_merges(me, todo_call, todo_account, services):
    tasks = [
        todo_call(todo_account, "create_todo_task", title=f"t{i}", tags=["old", "keep"])["task"] for i in range(30)
    ]
    sub = todo_call(todo_account, "create_todo_subtask", taskId=tasks[0]["id"], title="s", tags=["old"])["subtask"]
    todo_call(todo_account, "delete_todo_task", id=tasks[1]["id"], expectedRevision=1)
    me.ok("create_todo_tag", name="new")
    old = next(t for t in me.ok("list_todo_tags")["tags"] if t["name"] == "old")
    data = me.ok("update_todo_tag", name="old", expectedRevision=old["revision"], newName="new")
    assert data["updatedRecords"] == 31 and "skippedIds" not in data
    assert data["tag"]["name"] == "new"
    counts = tag_counts(me)
    assert "old" not in counts and counts["new"] == 30 and counts["keep"] == 29  # new: 29 live roots + the subtask
    state = todo_state.load_state(services.items, todo_account.user_id)
    assert state.tasks[tasks[1]["id"]]["tags"] == ["new", "keep"]  # the trashed task too
    assert state.tasks[sub["id"]]["tags"] == ["new"] and state.tasks[sub["id"]]["revision"] == 2
    # a rename into a fresh name moves the registry record and keeps its colour
    me.ok("update_todo_tag", name="keep", expectedRevision=1, color="#112233")
    moved = me.ok("update_todo_tag", name="keep", expectedRevision=2, newName="kept")
    assert moved["tag"]["color"] == "#112233" and moved["updatedRecords"] == 30
    assert codes(me.fails("update_todo_tag", name="kept", expectedRevision=3, newName="kept")) == (
        400,
        "VALIDATION_ERROR",
    )


def test_delete_tag_removes_it_everywhere(me, todo_call, todo_account):
    a = todo_call(todo_account, "create_todo_task", title="a", tags=["gone", "x"])["task"]
    todo_call(todo_account, "create_todo_task", title="b", tags=["gone"])
    assert codes(me.fails("delete_todo_tag", name="gone", expectedRevision=9)) == (409, "REVISION_CONFLICT")
    data = me.ok("delete_todo_tag", name="gone", expectedRevision=1)
    assert data["updatedRecords"] == 2 and data["tag"]["name"] == "gone"
    assert tag_counts(me) == {"x": 1}
    status, envelope = me.fails("update_todo_task", id=a["id"], expectedRevision=1, title="z")
    assert status == 409 and envelope["recoverData"]["task"]["tags"] == ["x"]
    assert codes(me.fails("delete_todo_tag", name="gone", expectedRevision=1)) == (404, "NOT_FOUND")


def test_trash_paging_and_restore_item(me, todo_call, todo_account):
    made = [todo_call(todo_account, "create_todo_task", title=f"t{i}")["task"] for i in range(5)]
    for task in made:
        todo_call(todo_account, "delete_todo_task", id=task["id"], expectedRevision=1)
    seen: list[str] = []
    offset = 0
    while True:
        page = me.ok("list_todo_trash", limit=2, offset=offset)
        assert page["page"]["totalCount"] == 5 and len(page["items"]) <= 2
        seen += [e["id"] for e in page["items"]]
        if not page["page"]["hasMore"]:
            break
        offset = page["page"]["nextOffset"]
    assert seen == [t["id"] for t in reversed(made)]  # newest deleted first
    empty = me.ok("list_todo_trash", offset=50)
    assert empty["items"] == [] and empty["page"]["totalCount"] == 5 and empty["page"]["hasMore"] is False
    restored = me.ok("restore_todo_item", id=made[0]["id"], expectedRevision=2)
    assert set(restored) == {"task"} and restored["task"]["deletedAt"] is None
    status, envelope = me.fails("restore_todo_item", id=made[1]["id"], expectedRevision=1)
    assert status == 409 and envelope["recoverData"]["task"]["revision"] == 2
    assert codes(me.fails("restore_todo_item", id="nope", expectedRevision=1)) == (404, "NOT_FOUND")
    assert codes(me.fails("restore_todo_item", id=made[0]["id"], expectedRevision=3)) == (409, "CONFLICT")


def test_batch_update_all_or_nothing(me, todo_call, todo_account, services):
    tasks = [todo_call(todo_account, "create_todo_task", title=f"t{i}")["task"] for i in range(3)]
    sub = todo_call(todo_account, "create_todo_subtask", taskId=tasks[0]["id"], title="s")["subtask"]
    data = me.ok(
        "batch_update_todo_tasks",
        updates=[
            {"id": tasks[0]["id"], "expectedRevision": 1, "title": "T0", "tags": ["batch"]},
            {"id": tasks[1]["id"], "expectedRevision": 1, "done": True, "priority": "high"},
            {"id": sub["id"], "expectedRevision": 1, "done": True},
        ],
    )
    t0, t1, s = data["tasks"]
    assert t0["title"] == "T0" and t0["tags"] == ["batch"] and t0["revision"] == 2
    assert t1["done"] and t1["completedAt"] and t1["priority"] == "high" and t1["revision"] == 2
    assert s["done"] and s["revision"] == 2
    assert tag_counts(me) == {"batch": 1}
    before = todo_state.load_state(services.items, todo_account.user_id).tasks
    # one stale revision: nothing at all is written, recoverData names the stale record
    status, envelope = me.fails(
        "batch_update_todo_tasks",
        updates=[
            {"id": tasks[2]["id"], "expectedRevision": 1, "title": "would change"},
            {"id": tasks[0]["id"], "expectedRevision": 1, "title": "stale"},
        ],
    )
    assert (status, envelope["error"]["code"]) == (409, "REVISION_CONFLICT")
    assert [t["id"] for t in envelope["recoverData"]["tasks"]] == [tasks[0]["id"]]
    # one invalid field or unknown id: nothing written either
    assert codes(
        me.fails(
            "batch_update_todo_tasks",
            updates=[
                {"id": tasks[2]["id"], "expectedRevision": 1, "title": "would change"},
                {"id": tasks[1]["id"], "expectedRevision": 2, "timezone": "Not/AZone"},
            ],
        )
    ) == (400, "VALIDATION_ERROR")
    assert codes(
        me.fails(
            "batch_update_todo_tasks",
            updates=[
                {"id": tasks[2]["id"], "expectedRevision": 1, "title": "x"},
                {"id": "nope", "expectedRevision": 1},
            ],
        )
    ) == (404, "NOT_FOUND")
    assert codes(
        me.fails(
            "batch_update_todo_tasks",
            updates=[{"id": tasks[2]["id"], "expectedRevision": 1}, {"id": tasks[2]["id"], "expectedRevision": 1}],
        )
    ) == (400, "VALIDATION_ERROR")
    assert todo_state.load_state(services.items, todo_account.user_id).tasks == before
    too_many = [{"id": f"id{i}", "expectedRevision": 1} for i in range(51)]
    assert codes(me.fails("batch_update_todo_tasks", updates=too_many)) == (400, "VALIDATION_ERROR")


def test_batch_complete_all_or_nothing(me, todo_call, todo_account, services):
    tasks = [todo_call(todo_account, "create_todo_task", title=f"t{i}")["task"] for i in range(3)]
    todo_call(todo_account, "complete_todo_task", id=tasks[2]["id"], expectedRevision=1)
    data = me.ok(
        "batch_complete_todo_tasks",
        items=[{"id": tasks[0]["id"], "expectedRevision": 1}, {"id": tasks[2]["id"], "expectedRevision": 2}],
    )
    assert [t["done"] for t in data["tasks"]] == [True, True] and [t["revision"] for t in data["tasks"]] == [2, 2]
    before = todo_state.load_state(services.items, todo_account.user_id).tasks
    status, envelope = me.fails(
        "batch_complete_todo_tasks",
        items=[{"id": tasks[1]["id"], "expectedRevision": 1}, {"id": tasks[0]["id"], "expectedRevision": 1}],
    )
    assert status == 409 and envelope["recoverData"]["tasks"][0]["id"] == tasks[0]["id"]
    assert todo_state.load_state(services.items, todo_account.user_id).tasks == before
    assert codes(me.fails("batch_complete_todo_tasks", items=[])) == (400, "VALIDATION_ERROR")
    too_many = [{"id": f"id{i}", "expectedRevision": 1} for i in range(101)]
    assert codes(me.fails("batch_complete_todo_tasks", items=too_many)) == (400, "VALIDATION_ERROR")


def test_batch_with_an_inbox_item_names_the_inbox_tool(me, todo_call, todo_account, services):
    # A model takes an inbox item for a task: the refusal names the tool that takes it.
    task = todo_call(todo_account, "create_todo_task", title="t")["task"]
    item = me.ok("create_todo_inbox_item", title="captured")["item"]
    before = todo_state.load_state(services.items, todo_account.user_id)
    status, envelope = me.fails(
        "batch_update_todo_tasks",
        updates=[
            {"id": task["id"], "expectedRevision": 1, "title": "would change"},
            {"id": item["id"], "expectedRevision": 1, "title": "x"},
        ],
    )
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR")
    message = envelope["error"]["message"]
    assert f"{item['id']!r} is an inbox item; use update_todo_inbox_item" in message and "not found" not in message
    status, envelope = me.fails("batch_complete_todo_tasks", items=[{"id": item["id"], "expectedRevision": 1}])
    assert "is an inbox item; use complete_todo_inbox_item" in envelope["error"]["message"]
    after = todo_state.load_state(services.items, todo_account.user_id)
    assert (after.tasks, after.inbox) == (before.tasks, before.inbox)
    # an id that is neither stays NOT_FOUND
    assert codes(me.fails("batch_update_todo_tasks", updates=[{"id": "nope", "expectedRevision": 1}])) == (
        404,
        "NOT_FOUND",
    )


@pytest.mark.parametrize(
    ("tool", "arguments", "inbox_tool"),
    [
        ("get_todo_task", {}, "get_todo_inbox_item"),
        ("update_todo_task", {"expectedRevision": 1, "title": "x"}, "update_todo_inbox_item"),
        ("complete_todo_task", {"expectedRevision": 1}, "complete_todo_inbox_item"),
        ("delete_todo_task", {"expectedRevision": 1}, "delete_todo_inbox_item"),
        ("move_todo_task", {"expectedRevision": 1, "index": 0}, "move_todo_inbox_item_to_board"),
        ("clear_todo_reminders", {"expectedRevision": 1}, "the *_todo_inbox_item tools"),
    ],
)
def test_a_single_task_tool_names_the_inbox_tool_for_an_inbox_id(me, tool, arguments, inbox_tool):
    # As the batch tools do (issue 42 §7): the refusal names the tool that takes the inbox item.
    item = me.ok("create_todo_inbox_item", title="captured")["item"]
    status, envelope = me.fails(tool, id=item["id"], **arguments)
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR")
    assert f"{item['id']!r} is an inbox item; use {inbox_tool}" in envelope["error"]["message"]
    assert me.ok("get_todo_inbox_item", id=item["id"])["item"]["revision"] == 1  # nothing written


def test_a_memo_id_sent_to_a_task_tool_says_it_is_a_memo(rest, make_account):
    account = make_account(scopes="todo:read,todo:write,memo:read,memo:write")
    me = rest(account)
    memo = me.ok("create_memo", content="a memo, not a task")["memo"]
    for tool, arguments in (("get_todo_task", {}), ("update_todo_task", {"expectedRevision": 1, "title": "x"})):
        status, envelope = me.fails(tool, id=memo["id"], **arguments)
        assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR"), tool
        message = envelope["error"]["message"]
        assert f"{memo['id']!r} is a memo, not a todo task" in message and "list_todo_trash" not in message
    status, envelope = me.fails("get_todo_task", id="nope")  # an id that is nothing: NOT_FOUND, the trash named
    assert (status, envelope["error"]["code"]) == (404, "NOT_FOUND")
    assert "list_todo_trash" in envelope["error"]["message"]


def test_trash_lists_and_restores_inbox_items(me, tools_by_name):
    item = me.ok("create_todo_inbox_item", title="captured", tags=["inboxed"])["item"]
    deleted = me.ok("delete_todo_inbox_item", id=item["id"], expectedRevision=item["revision"])
    revision = next(iter(deleted.values()))["revision"]
    entries = me.ok("list_todo_trash")["items"]
    assert [(e["kind"], e["id"], e["spaceId"]) for e in entries] == [("inboxItem", item["id"], None)]
    status, envelope = me.fails("restore_todo_item", id=item["id"], expectedRevision=revision + 5)
    assert status == 409 and envelope["recoverData"]["inboxItem"]["id"] == item["id"]
    restored = me.ok("restore_todo_item", id=item["id"], kind="inboxItem", expectedRevision=revision)
    assert set(restored) == {"inboxItem"} and restored["inboxItem"]["deletedAt"] is None
    assert restored["inboxItem"]["revision"] == revision + 1 and restored["inboxItem"]["subtasks"] == []
    validator = Draft202012Validator(tools_by_name["restore_todo_item"].output_schema)
    assert validator.is_valid({"data": restored, "traceId": "t"})
    assert validator.is_valid({"error": envelope["error"], "traceId": "t", "recoverData": envelope["recoverData"]})
    assert me.ok("list_todo_trash")["items"] == []


@pytest.fixture
def tools_by_name():
    return default_catalog().tools
