"""The done rule over REST: a space marks at most one done column (a new board's last column is
one); a task completed for good moves to its top (complete_todo_task and both batches alike);
without one it stays in place, done. From the board's side: a task moved into the done column is
completed, one moved out of it reopens, a recurring one dropped there moves on to its next
occurrence and stays where it was. A new board is named in the person's language."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from mesq.auth.users import set_setting
from mesq.wiring.services import Services
from tests.conftest import Account


@pytest.fixture
def me(rest, todo_account):
    return rest(todo_account)


def _columns(me, space_id):
    return [c for c in me.ok("list_todo_spaces")["columns"] if c["spaceId"] == space_id]


def _order(me, column_id):
    tasks = me.ok("list_todos", includeInbox=False)["tasks"]
    return [t["title"] for t in tasks if t["columnId"] == column_id]


def test_a_new_boards_last_column_is_its_done_column(me):
    listed = me.ok("list_todo_spaces")
    assert [c["name"] for c in listed["columns"]] == ["To do", "Doing", "Done"]  # English: no language asked
    assert [c["done"] for c in listed["columns"]] == [False, False, True]
    made = me.ok("create_todo_space", name="Work")  # a space without columns: a new board too
    assert [(c["name"], c["done"]) for c in made["columns"]] == [("To do", False), ("Doing", False), ("Done", True)]
    given = me.ok("create_todo_space", name="Own", columns=["A", "B"])  # the person's own columns: none marked
    assert [c["done"] for c in given["columns"]] == [False, False]


def test_without_a_done_column_a_completed_task_stays_in_place(me):
    todo, _doing, done = me.ok("list_todo_spaces")["columns"]
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], done=False)
    task = me.ok("create_todo_task", title="stay", columnId=todo["id"])["task"]
    finished = me.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert finished["done"] and finished["columnId"] == todo["id"]


def test_marking_a_done_column_unmarks_the_previous_one(me):
    listed = me.ok("list_todo_spaces")
    _todo, doing, done = listed["columns"]
    assert [c["done"] for c in _columns(me, listed["defaultSpaceId"])] == [False, False, True]
    me.ok("update_todo_column", columnId=doing["id"], expectedRevision=doing["revision"], done=True)
    marked = _columns(me, listed["defaultSpaceId"])
    assert [c["done"] for c in marked] == [False, True, False]
    assert marked[2]["revision"] == done["revision"] + 1  # unmarked: a revision


def test_a_completed_task_moves_to_the_top_of_the_done_column(me):
    listed = me.ok("list_todo_spaces")
    todo, _doing, done = listed["columns"]
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
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=done["revision"], archived=True)
    task = me.ok("create_todo_task", title="t", columnId=todo["id"])["task"]
    assert me.ok("complete_todo_task", id=task["id"], expectedRevision=1)["task"]["columnId"] == todo["id"]


def test_a_task_moved_into_the_done_column_is_completed_and_one_moved_out_reopens(me):
    todo, doing, done = me.ok("list_todo_spaces")["columns"]
    task = me.ok("create_todo_task", title="ship", columnId=todo["id"])["task"]
    moved = me.ok("move_todo_task", id=task["id"], expectedRevision=task["revision"], columnId=done["id"])["task"]
    assert moved["done"] and moved["completedAt"] and moved["columnId"] == done["id"]
    assert moved["revision"] == task["revision"] + 1  # one write, one revision
    again = me.ok("move_todo_task", id=task["id"], expectedRevision=moved["revision"], index=0)["task"]
    assert again["done"] and again["completedAt"] == moved["completedAt"]  # a move within Done changes nothing
    back = me.ok("move_todo_task", id=task["id"], expectedRevision=again["revision"], columnId=doing["id"])["task"]
    assert not back["done"] and back["completedAt"] is None and back["columnId"] == doing["id"]
    # Between two other columns nothing changes; a done task in a space without a done column neither.
    done_elsewhere = me.ok("complete_todo_task", id=task["id"], expectedRevision=back["revision"])["task"]
    assert done_elsewhere["columnId"] == done["id"]  # completed elsewhere: it moves there
    listed = next(c for c in me.ok("list_todo_spaces")["columns"] if c["id"] == done["id"])
    me.ok("update_todo_column", columnId=done["id"], expectedRevision=listed["revision"], done=False)
    kept = me.ok("move_todo_task", id=task["id"], expectedRevision=done_elsewhere["revision"], columnId=todo["id"])
    assert kept["task"]["done"]  # no done column any more: moving is only moving


def test_a_recurring_task_dropped_on_done_moves_on_to_its_next_occurrence_and_stays(me):
    todo, _doing, done = me.ok("list_todo_spaces")["columns"]
    weekly = me.ok("create_todo_task", title="weekly", columnId=todo["id"], recurrence="FREQ=WEEKLY",
                   due={"type": "date", "date": "2037-12-07"})["task"]  # fmt: skip
    moved = me.ok("move_todo_task", id=weekly["id"], expectedRevision=weekly["revision"], columnId=done["id"])["task"]
    assert not moved["done"] and moved["columnId"] == todo["id"]
    assert moved["due"] == {"type": "date", "date": "2037-12-14"}


@pytest.mark.parametrize(
    ("header", "setting", "names"),
    [
        ("zh-CN,zh;q=0.9", "", ["默认", "待办", "进行中", "已完成"]),
        ("en-US,en;q=0.9", "", ["Default", "To do", "Doing", "Done"]),
        ("en-US,en;q=0.9", "zh", ["默认", "待办", "进行中", "已完成"]),  # the person's own choice wins
        (None, "", ["Default", "To do", "Doing", "Done"]),
    ],
)
def test_a_new_board_is_named_in_the_persons_language(
    client: TestClient, services: Services, make_account: Callable[..., Account],
    header: str | None, setting: str, names: list[str],
) -> None:  # fmt: skip
    account = make_account(scopes="todo:read,todo:write")
    if setting:
        set_setting(services.items, account.user_id, "language", setting)
    headers = {**account.headers, **({"Accept-Language": header} if header else {})}
    listed = client.get("/api/toolkit/todo/spaces", headers=headers).json()["data"]
    space = listed["spaces"][0]
    columns = [c for c in listed["columns"] if c["spaceId"] == space["id"]]
    assert [space["name"], *(c["name"] for c in columns)] == names
    assert [c["done"] for c in columns] == [False, False, True]
    # A task moved to the last column (已完成 / Done) is completed.
    task = client.post("/api/toolkit/todo/tasks", headers=headers, json={"title": "t"}).json()["data"]["task"]
    moved = client.post(f"/api/toolkit/todo/tasks/{task['id']}/move", headers=headers,
                        json={"expectedRevision": task["revision"], "columnId": columns[-1]["id"]})  # fmt: skip
    assert moved.json()["data"]["task"]["done"] is True
    # The board, once made, keeps its names whatever the next request asks for.
    other = {**account.headers, "Accept-Language": "en" if names[0] == "默认" else "zh"}
    again = client.get("/api/toolkit/todo/spaces", headers=other).json()["data"]["spaces"][0]
    assert again["name"] == names[0]


@pytest.mark.parametrize(
    ("first_write", "header", "names"),
    [
        ({"title": "买牛奶"}, None, ["默认", "待办", "进行中", "已完成"]),  # an agent's first task, no header
        ({"title": "Buy milk 买"}, None, ["Default", "To do", "Doing", "Done"]),  # mostly English
        ({"title": "2026 🎉"}, None, ["Default", "To do", "Doing", "Done"]),  # says nothing: English
        ({"title": "买牛奶"}, "en-US,en;q=0.9", ["Default", "To do", "Doing", "Done"]),  # the header wins
    ],
)
def test_with_nothing_else_to_go_by_a_new_board_is_named_in_the_language_of_the_first_write(
    client: TestClient, make_account: Callable[..., Account], first_write: dict[str, str], header: str | None,
    names: list[str],
) -> None:  # fmt: skip
    """An account made on the command line, used first by an agent that sends no Accept-Language."""
    account = make_account(scopes="todo:read,todo:write")
    headers = {**account.headers, **({"Accept-Language": header} if header else {})}
    created = client.post("/api/toolkit/todo/tasks", headers=headers, json=first_write)
    assert created.status_code == 201, created.text
    listed = client.get("/api/toolkit/todo/spaces", headers=account.headers).json()["data"]
    space = listed["spaces"][0]
    assert [space["name"], *(c["name"] for c in listed["columns"] if c["spaceId"] == space["id"])] == names


def test_a_new_space_named_in_chinese_gets_chinese_columns(
    client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account(scopes="todo:read,todo:write")
    created = client.post("/api/toolkit/todo/spaces", headers=account.headers, json={"name": "工作"})
    assert created.status_code == 201, created.text
    listed = client.get("/api/toolkit/todo/spaces", headers=account.headers).json()["data"]
    work = next(s for s in listed["spaces"] if s["name"] == "工作")
    assert [c["name"] for c in listed["columns"] if c["spaceId"] == work["id"]] == ["待办", "进行中", "已完成"]
