"""Board operations over REST: tasks and subtasks (success, validation, NOT_FOUND, REVISION_CONFLICT with
recoverData, destination rules, idempotency, trash and restore)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def me(rest, todo_account):
    return rest(todo_account)


@pytest.fixture
def board(me):
    return me.ok("list_todo_spaces")


def codes(result: tuple[int, dict[str, Any]]) -> tuple[int, str]:
    return result[0], result[1]["error"]["code"]


def test_create_task_fields_and_defaults(me, board):
    due = {"type": "datetime", "at": "2026-10-07T09:00:00+08:00"}
    data = me.ok(
        "create_todo_task",
        title="  Write report  ",
        notes="**md**",
        priority="high",
        tags=["work", "q4", "work"],
        due=due,
        timezone="Asia/Shanghai",
    )
    task = data["task"]
    assert task["title"] == "Write report" and task["notes"] == "**md**" and task["priority"] == "high"
    assert task["tags"] == ["work", "q4"] and task["due"] == due and task["timezone"] == "Asia/Shanghai"
    assert task["spaceId"] == board["defaultSpaceId"] and task["columnId"] == board["columns"][0]["id"]
    assert task["parentId"] is None and task["done"] is False and task["completedAt"] is None
    assert task["recurrence"] is None and task["reminders"] == [] and task["attachments"] == []
    assert task["revision"] == 1 and task["deletedAt"] is None
    date_due = me.ok("create_todo_task", title="d", due={"type": "date", "date": "2026-02-28"})["task"]
    assert date_due["due"] == {"type": "date", "date": "2026-02-28"} and date_due["priority"] == "none"
    tags = {t["name"]: t["count"] for t in me.ok("list_todo_tags")["tags"]}
    assert tags == {"work": 1, "q4": 1}


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"title": ""}, "title"),
        ({"title": "   "}, "title"),
        ({"title": "x" * 501}, "500"),
        ({"title": "t", "notes": "n" * 50_001}, "50,000"),
        ({"title": "t", "priority": "asap"}, "priority"),
        ({"title": "t", "tags": ["has space"]}, "tags"),
        ({"title": "t", "tags": [f"t{i}" for i in range(21)]}, "tags"),
        ({"title": "t", "due": {"type": "date", "date": "2026-02-30"}}, "calendar date"),
        ({"title": "t", "due": {"type": "datetime", "at": "2026-10-07T09:00:00"}}, "due"),
        ({"title": "t", "due": {"type": "date", "date": "2026-02-01", "at": "x"}}, "due"),
        ({"title": "t", "timezone": "Mars/Olympus"}, "IANA"),
        ({"title": "t", "bogus": 1}, "bogus"),
    ],
)
def test_create_task_validation(me, board, fields, needle):
    status, envelope = me.fails("create_todo_task", **fields)
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR")
    assert needle in envelope["error"]["message"]


def test_create_task_destination_rules(me, board):
    work = me.ok("create_todo_space", name="Work", slug="work", columns=["A", "B"])
    col_b = work["columns"][1]
    by_slug = me.ok("create_todo_task", title="t", spaceSlug="work")["task"]
    assert by_slug["spaceId"] == work["space"]["id"] and by_slug["columnId"] == work["columns"][0]["id"]
    by_column = me.ok("create_todo_task", title="t", columnId=col_b["id"])["task"]
    assert by_column["spaceId"] == work["space"]["id"] and by_column["columnId"] == col_b["id"]
    agreeing = me.ok("create_todo_task", title="t", spaceSlug="work", spaceId=work["space"]["id"], columnId=col_b["id"])
    assert agreeing["task"]["columnId"] == col_b["id"]
    assert codes(me.fails("create_todo_task", title="t", spaceSlug="nope")) == (404, "NOT_FOUND")
    assert codes(me.fails("create_todo_task", title="t", spaceId="nope")) == (404, "NOT_FOUND")
    assert codes(me.fails("create_todo_task", title="t", columnId="nope")) == (404, "NOT_FOUND")
    status, envelope = me.fails("create_todo_task", title="t", spaceSlug="default", columnId=col_b["id"])
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR") and "another space" in envelope["error"][
        "message"
    ]
    assert codes(me.fails("create_todo_task", title="t", spaceId=board["defaultSpaceId"], spaceSlug="work")) == (
        400,
        "VALIDATION_ERROR",
    )


def test_create_task_idempotency(me, board):
    first = me.ok("create_todo_task", title="once", idempotencyKey="task-1")
    assert me.ok("create_todo_task", title="once", idempotencyKey="task-1") == first
    assert codes(me.fails("create_todo_task", title="twice", idempotencyKey="task-1")) == (409, "IDEMPOTENCY_CONFLICT")
    other_key = me.ok("create_todo_task", title="once", idempotencyKey="task-2")
    assert other_key["task"]["id"] != first["task"]["id"]


def test_positions_follow_index(me, board):
    a = me.ok("create_todo_task", title="a")["task"]
    b = me.ok("create_todo_task", title="b")["task"]
    top = me.ok("create_todo_task", title="top", index=0)["task"]
    middle = me.ok("create_todo_task", title="middle", index=2)["task"]
    order = sorted([a, b, top, middle], key=lambda t: (t["position"], t["id"]))
    assert [t["title"] for t in order] == ["top", "a", "middle", "b"]


def test_update_task_and_conflict(me, board):
    task = me.ok("create_todo_task", title="t", tags=["x"], due={"type": "date", "date": "2026-01-01"})["task"]
    updated = me.ok(
        "update_todo_task", id=task["id"], expectedRevision=1, title="t2", tags=["y"], due=None, timezone="UTC"
    )["task"]
    assert (updated["title"], updated["tags"], updated["due"], updated["timezone"]) == ("t2", ["y"], None, "UTC")
    assert updated["revision"] == 2 and updated["updatedAt"] >= task["updatedAt"]
    status, envelope = me.fails("update_todo_task", id=task["id"], expectedRevision=1, title="stale")
    assert (status, envelope["error"]["code"], envelope["recoverData"]) == (409, "REVISION_CONFLICT", {"task": updated})
    assert codes(me.fails("update_todo_task", id="missing", expectedRevision=1, title="x")) == (404, "NOT_FOUND")
    assert codes(me.fails("update_todo_task", id=task["id"], expectedRevision=2)) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("update_todo_task", id=task["id"], expectedRevision=2, title="x" * 501)) == (
        400,
        "VALIDATION_ERROR",
    )
    sub = me.ok("create_todo_subtask", taskId=task["id"], title="s")["subtask"]
    status, envelope = me.fails("update_todo_task", id=sub["id"], expectedRevision=1, title="x")
    assert status == 400 and "subtask" in envelope["error"]["message"]


def test_move_task_between_columns_and_spaces_with_subtasks(me, board):
    todo, doing, _done = board["columns"]
    task = me.ok("create_todo_task", title="t")["task"]
    sub = me.ok("create_todo_subtask", taskId=task["id"], title="s")["subtask"]
    moved = me.ok("move_todo_task", id=task["id"], expectedRevision=1, columnId=doing["id"])
    assert moved["task"]["columnId"] == doing["id"] and moved["task"]["revision"] == 2
    assert [s["id"] for s in moved["subtasks"]] == [sub["id"]] and moved["subtasks"][0]["revision"] == 1
    work = me.ok("create_todo_space", name="Work", slug="work", columns=["W1", "W2"])
    across = me.ok("move_todo_task", id=task["id"], expectedRevision=2, spaceSlug="work")
    assert across["task"]["spaceId"] == work["space"]["id"] and across["task"]["columnId"] == work["columns"][0]["id"]
    assert across["subtasks"][0]["spaceId"] == work["space"]["id"] and across["subtasks"][0]["revision"] == 2
    # the subtask's own record moved too (its revision was bumped in the same transaction)
    status, envelope = me.fails("update_todo_subtask", id=sub["id"], expectedRevision=1, title="x")
    assert status == 409 and envelope["recoverData"]["subtask"]["spaceId"] == work["space"]["id"]
    reordered = me.ok("move_todo_task", id=task["id"], expectedRevision=3, index=0)
    assert reordered["task"]["columnId"] == work["columns"][0]["id"]
    assert codes(me.fails("move_todo_task", id=task["id"], expectedRevision=4)) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("move_todo_task", id=task["id"], expectedRevision=4, columnId="nope")) == (404, "NOT_FOUND")
    assert codes(
        me.fails("move_todo_task", id=task["id"], expectedRevision=4, spaceSlug="work", columnId=todo["id"])
    ) == (
        400,
        "VALIDATION_ERROR",
    )
    status, envelope = me.fails("move_todo_task", id=task["id"], expectedRevision=1, columnId=todo["id"])
    assert status == 409 and envelope["recoverData"]["task"]["revision"] == 4


def test_complete_reopen_do_not_touch_subtasks(me, board):
    task = me.ok("create_todo_task", title="t")["task"]
    sub = me.ok("create_todo_subtask", taskId=task["id"], title="s")["subtask"]
    done = me.ok("complete_todo_task", id=task["id"], expectedRevision=1)["task"]
    assert done["done"] and done["completedAt"] and done["revision"] == 2
    assert me.ok("complete_todo_task", id=task["id"], expectedRevision=2)["task"] == done  # no-op
    again = me.ok("update_todo_subtask", id=sub["id"], expectedRevision=1, title="still open")["subtask"]
    assert again["done"] is False
    reopened = me.ok("reopen_todo_task", id=task["id"], expectedRevision=2)["task"]
    assert reopened["done"] is False and reopened["completedAt"] is None and reopened["revision"] == 3
    assert codes(me.fails("complete_todo_task", id=task["id"], expectedRevision=2)) == (409, "REVISION_CONFLICT")
    assert codes(me.fails("reopen_todo_task", id="missing", expectedRevision=1)) == (404, "NOT_FOUND")


def test_delete_restore_task_and_trash(me, board):
    task = me.ok("create_todo_task", title="t")["task"]
    sub = me.ok("create_todo_subtask", taskId=task["id"], title="s")["subtask"]
    trashed = me.ok("delete_todo_task", id=task["id"], expectedRevision=1)["task"]
    assert trashed["deletedAt"] and trashed["revision"] == 2
    assert me.ok("delete_todo_task", id=task["id"], expectedRevision=2)["task"] == trashed  # already trashed
    assert codes(me.fails("update_todo_task", id=task["id"], expectedRevision=2, title="x")) == (
        409,
        "CONFLICT",
    )
    assert codes(me.fails("create_todo_subtask", taskId=task["id"], title="x")) == (409, "CONFLICT")
    status, envelope = me.fails("update_todo_subtask", id=sub["id"], expectedRevision=1, title="x")
    assert status == 409 and "restore the task first" in envelope["error"]["message"]
    trash = me.ok("list_todo_trash")
    assert [(e["kind"], e["id"]) for e in trash["items"]] == [("task", task["id"])]
    assert codes(me.fails("delete_todo_task", id=task["id"], expectedRevision=1)) == (409, "REVISION_CONFLICT")
    restored = me.ok("restore_todo_task", id=task["id"], expectedRevision=2)
    assert restored["task"]["deletedAt"] is None and restored["task"]["revision"] == 3
    assert [s["id"] for s in restored["subtasks"]] == [sub["id"]]
    assert codes(me.fails("restore_todo_task", id=task["id"], expectedRevision=3)) == (409, "CONFLICT")
    assert me.ok("list_todo_trash")["items"] == []


def test_restore_into_archived_column_goes_to_first_open_column(me, board):
    todo, doing, _done = board["columns"]
    task = me.ok("create_todo_task", title="t", columnId=todo["id"])["task"]
    me.ok("delete_todo_task", id=task["id"], expectedRevision=1)
    me.ok("update_todo_column", columnId=todo["id"], expectedRevision=1, archived=True)
    restored = me.ok("restore_todo_item", id=task["id"], expectedRevision=2)["task"]
    assert restored["columnId"] == doing["id"]


def test_duplicate_task_with_subtasks(me, board):
    done = board["columns"][-1]  # no done column: the completed original stays where it is
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], done=False)
    task = me.ok("create_todo_task", title="t", tags=["a"], notes="n", priority="low")["task"]
    after = me.ok("create_todo_task", title="after")["task"]
    s1 = me.ok("create_todo_subtask", taskId=task["id"], title="s1")["subtask"]
    s2 = me.ok("create_todo_subtask", taskId=task["id"], title="s2")["subtask"]
    me.ok("complete_todo_subtask", id=s1["id"], expectedRevision=1)
    me.ok("complete_todo_task", id=task["id"], expectedRevision=1)
    copy = me.ok("duplicate_todo_task", id=task["id"], idempotencyKey="dup-1")
    assert me.ok("duplicate_todo_task", id=task["id"], idempotencyKey="dup-1") == copy
    new = copy["task"]
    assert new["id"] != task["id"] and (new["title"], new["notes"], new["tags"], new["priority"]) == (
        "t",
        "n",
        ["a"],
        "low",
    )
    assert new["done"] is False and new["revision"] == 1 and new["columnId"] == task["columnId"]
    assert task["position"] < new["position"] < after["position"]
    assert [s["title"] for s in copy["subtasks"]] == ["s1", "s2"]
    assert all(s["parentId"] == new["id"] and not s["done"] for s in copy["subtasks"])
    assert {s["id"] for s in copy["subtasks"]}.isdisjoint({s1["id"], s2["id"]})
    renamed = me.ok("duplicate_todo_task", id=task["id"], title="copy")["task"]
    assert renamed["title"] == "copy"
    assert codes(me.fails("duplicate_todo_task", id="missing")) == (404, "NOT_FOUND")
    assert codes(me.fails("duplicate_todo_task", id=task["id"], title="other", idempotencyKey="dup-1")) == (
        409,
        "IDEMPOTENCY_CONFLICT",
    )


def test_subtask_lifecycle(me, board):
    task = me.ok("create_todo_task", title="t")["task"]
    a = me.ok("create_todo_subtask", taskId=task["id"], title="a", priority="urgent", tags=["s"])["subtask"]
    b = me.ok("create_todo_subtask", taskId=task["id"], title="b")["subtask"]
    c = me.ok("create_todo_subtask", taskId=task["id"], title="c", index=0, idempotencyKey="sub-c")["subtask"]
    assert me.ok("create_todo_subtask", taskId=task["id"], title="c", index=0, idempotencyKey="sub-c")["subtask"] == c
    assert a["parentId"] == task["id"] and a["columnId"] is None and a["spaceId"] == task["spaceId"]
    assert sorted([a, b, c], key=lambda s: s["position"]) == [c, a, b]
    updated = me.ok("update_todo_subtask", id=a["id"], expectedRevision=1, notes="more", due=None)["subtask"]
    assert updated["notes"] == "more" and updated["revision"] == 2
    done = me.ok("complete_todo_subtask", id=a["id"], expectedRevision=2)["subtask"]
    assert done["done"] and done["completedAt"]
    assert me.ok("reopen_todo_subtask", id=a["id"], expectedRevision=3)["subtask"]["done"] is False
    status, envelope = me.fails("complete_todo_subtask", id=a["id"], expectedRevision=1)
    assert status == 409 and envelope["recoverData"]["subtask"]["revision"] == 4
    assert codes(me.fails("update_todo_subtask", id=task["id"], expectedRevision=1, title="x")) == (
        400,
        "VALIDATION_ERROR",
    )
    assert codes(me.fails("create_todo_subtask", taskId=a["id"], title="nested")) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("create_todo_subtask", taskId="missing", title="x")) == (404, "NOT_FOUND")
    trashed = me.ok("delete_todo_subtask", id=b["id"], expectedRevision=1)["subtask"]
    assert trashed["deletedAt"]
    trash = me.ok("list_todo_trash")["items"]
    assert [(e["kind"], e["id"], e["parentId"]) for e in trash] == [("subtask", b["id"], task["id"])]
    restored = me.ok("restore_todo_item", id=b["id"], kind="subtask", expectedRevision=2)
    assert restored == {
        "subtask": {**trashed, "deletedAt": None, "revision": 3, "updatedAt": restored["subtask"]["updatedAt"]}
    }
    assert codes(me.fails("restore_todo_item", id=b["id"], kind="task", expectedRevision=3)) == (404, "NOT_FOUND")


def test_reorder_subtasks(me, board):
    task = me.ok("create_todo_task", title="t")["task"]
    subs = [me.ok("create_todo_subtask", taskId=task["id"], title=n)["subtask"] for n in "abc"]
    ids = [s["id"] for s in subs]
    result = me.ok("reorder_todo_subtasks", taskId=task["id"], subtaskIds=ids[::-1], expectedRevisions=[1, 1, 1])
    assert [s["title"] for s in result["subtasks"]] == ["c", "b", "a"]
    assert [s["title"] for s in sorted(result["subtasks"], key=lambda s: s["position"])] == ["c", "b", "a"]
    status, envelope = me.fails("reorder_todo_subtasks", taskId=task["id"], subtaskIds=ids, expectedRevisions=[1, 1, 1])
    assert status == 409 and [s["title"] for s in envelope["recoverData"]["subtasks"]] == ["c", "b", "a"]
    assert codes(me.fails("reorder_todo_subtasks", taskId=task["id"], subtaskIds=ids[:2])) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("reorder_todo_subtasks", taskId=task["id"], subtaskIds=[*ids, "zzz"])) == (404, "NOT_FOUND")
    assert codes(me.fails("reorder_todo_subtasks", taskId=task["id"], subtaskIds=[ids[0], ids[0], ids[1]])) == (
        400,
        "VALIDATION_ERROR",
    )
    assert codes(me.fails("reorder_todo_subtasks", taskId=task["id"], subtaskIds=ids, expectedRevisions=[2])) == (
        400,
        "VALIDATION_ERROR",
    )


def test_subtask_limit(me, board, todo_call, todo_account):
    task = todo_call(todo_account, "create_todo_task", title="t")["task"]
    for i in range(50):
        todo_call(todo_account, "create_todo_subtask", taskId=task["id"], title=f"s{i}")
    status, envelope = me.fails("create_todo_subtask", taskId=task["id"], title="one too many")
    assert status == 400 and "50" in envelope["error"]["message"]
    # the task with 50 subtasks still moves across spaces in one transaction
    work = me.ok("create_todo_space", name="Work")
    moved = me.ok("move_todo_task", id=task["id"], expectedRevision=1, spaceId=work["space"]["id"])
    assert len(moved["subtasks"]) == 50 and {s["spaceId"] for s in moved["subtasks"]} == {work["space"]["id"]}
