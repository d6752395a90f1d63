"""The done rule over REST: a space marks at most one done column; a task completed for good moves
to its top (complete_todo_task and both batches alike); without one it stays in place, done."""

from __future__ import annotations

import pytest


@pytest.fixture
def me(rest, todo_account):
    return rest(todo_account)


def _columns(me, space_id):
    return [c for c in me.ok("list_todo_spaces")["columns"] if c["spaceId"] == space_id]


def _order(me, column_id):
    tasks = me.ok("list_todos", includeInbox=False)["tasks"]
    return [t["title"] for t in tasks if t["columnId"] == column_id]


def test_without_a_done_column_a_completed_task_stays_in_place(me):
    todo, _doing, done = me.ok("list_todo_spaces")["columns"]
    assert not done["done"]  # the default "Done" column is not marked until the user marks it
    task = me.ok("create_todo_task", title="stay", columnId=todo["id"])["task"]
    finished = me.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert finished["done"] and finished["columnId"] == todo["id"]


def test_marking_a_done_column_unmarks_the_previous_one(me):
    listed = me.ok("list_todo_spaces")
    _todo, doing, done = listed["columns"]
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], done=True)
    assert [c["done"] for c in _columns(me, listed["defaultSpaceId"])] == [False, False, True]
    me.ok("update_todo_column", columnId=doing["id"], expectedRevision=doing["revision"], done=True)
    marked = _columns(me, listed["defaultSpaceId"])
    assert [c["done"] for c in marked] == [False, True, False]
    assert marked[2]["revision"] == done["revision"] + 2  # marked, then unmarked: each a revision


def test_a_completed_task_moves_to_the_top_of_the_done_column(me):
    listed = me.ok("list_todo_spaces")
    todo, _doing, done = listed["columns"]
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], done=True)
    me.ok("create_todo_task", title="old", columnId=done["id"])
    task = me.ok("create_todo_task", title="ship", columnId=todo["id"])["task"]
    finished = me.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert finished["done"] and finished["columnId"] == done["id"]
    assert _order(me, done["id"]) == ["ship", "old"]
    reopened = me.ok("reopen_todo_task", id=task["id"], expectedRevision=finished["revision"])["task"]
    assert not reopened["done"] and reopened["columnId"] == done["id"]  # reopening leaves it there


def test_batches_follow_the_same_rule_and_other_spaces_are_untouched(me):
    listed = me.ok("list_todo_spaces")
    todo, _doing, done = listed["columns"]
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], done=True)
    work = me.ok("create_todo_space", name="Work", columns=["A", "B"])
    a = work["columns"][0]
    one = me.ok("create_todo_task", title="one", columnId=todo["id"])["task"]
    two = me.ok("create_todo_task", title="two", columnId=todo["id"])["task"]
    elsewhere = me.ok("create_todo_task", title="elsewhere", columnId=a["id"])["task"]
    items = [{"id": t["id"], "expectedRevision": t["revision"]} for t in (one, two, elsewhere)]
    results = me.ok("batch_complete_todo_tasks", items=items)["tasks"]
    assert [t["columnId"] for t in results] == [done["id"], done["id"], a["id"]]
    three = me.ok("create_todo_task", title="three", columnId=todo["id"])["task"]
    updated = me.ok("batch_update_todo_tasks", updates=[{"id": three["id"], "expectedRevision": 1, "done": True}])
    assert updated["tasks"][0]["columnId"] == done["id"] and updated["tasks"][0]["done"]


def test_an_archived_done_column_counts_as_none(me):
    todo, _doing, done = me.ok("list_todo_spaces")["columns"]
    marked = me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], done=True)["column"]
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=marked["revision"], archived=True)
    task = me.ok("create_todo_task", title="t", columnId=todo["id"])["task"]
    assert me.ok("complete_todo_task", id=task["id"], expectedRevision=1)["task"]["columnId"] == todo["id"]
