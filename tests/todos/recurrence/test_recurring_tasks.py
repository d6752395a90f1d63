"""Recurring tasks through the real REST app: completing advances (subtasks reopen, history in
get_todo_task), rescheduling keeps the rule, COUNT ends it, query_todos dates the task by its
open occurrence, batches advance too; due semantics come back exactly as given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.conftest import Account
from tests.todos.conftest import TodoRest

Rest = Callable[[Account], TodoRest]


def _task(api: TodoRest, **fields: Any) -> dict[str, Any]:
    task: dict[str, Any] = api.ok("create_todo_task", title="water the plants", **fields)["task"]
    return task


def test_due_semantics_are_returned_exactly(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    dated = _task(api, due={"type": "date", "date": "2026-10-07"}, timezone="Asia/Shanghai")
    timed = _task(api, due={"type": "datetime", "at": "2026-10-07T09:00:00+08:00"})
    assert dated["due"] == {"type": "date", "date": "2026-10-07"} and dated["timezone"] == "Asia/Shanghai"
    assert timed["due"] == {"type": "datetime", "at": "2026-10-07T09:00:00+08:00"} and timed["timezone"] is None
    got = api.ok("get_todo_task", id=timed["id"])["task"]
    assert got["due"] == timed["due"]


def test_completing_advances_resets_subtasks_and_keeps_history(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    task = _task(api, due={"type": "date", "date": "2037-01-05"}, recurrence="RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR")
    assert task["recurrence"] == "FREQ=WEEKLY;BYDAY=MO,WE,FR"
    sub = api.ok("create_todo_subtask", taskId=task["id"], title="fill the can")["subtask"]
    sub = api.ok("complete_todo_subtask", id=sub["id"], expectedRevision=sub["revision"])["subtask"]
    assert sub["done"] is True
    done = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"] + 0)
    assert done["task"]["done"] is False and done["task"]["due"] == {"type": "date", "date": "2037-01-07"}
    assert [s["done"] for s in done["subtasks"]] == [False]
    detail = api.ok("get_todo_task", id=task["id"])
    assert detail["task"]["occurrences"][0]["due"] == {"type": "date", "date": "2037-01-05"}
    assert detail["subtasks"][0]["done"] is False
    # reschedule: a new due keeps the rule; the next completion steps from the new due
    moved = api.ok(
        "update_todo_task", id=task["id"], expectedRevision=detail["task"]["revision"],
        due={"type": "date", "date": "2037-01-12"},
    )["task"]  # fmt: skip
    assert moved["recurrence"] == "FREQ=WEEKLY;BYDAY=MO,WE,FR"
    again = api.ok("complete_todo_task", id=task["id"], expectedRevision=moved["revision"])["task"]
    assert again["due"] == {"type": "date", "date": "2037-01-14"}


def test_count_completes_for_good_and_query_dates_the_open_occurrence(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    task = _task(api, due={"type": "datetime", "at": "2037-03-07T09:00:00-05:00"}, timezone="America/New_York",
                 recurrence="FREQ=DAILY;COUNT=2")  # fmt: skip
    first = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert first["due"] == {"type": "datetime", "at": "2037-03-08T09:00:00-04:00"} and not first["done"]
    window = {"dueAfter": "2037-03-08T00:00:00-05:00", "dueBefore": "2037-03-09T00:00:00-04:00"}
    assert [i["id"] for i in api.ok("query_todos", **window)["items"]] == [task["id"]]
    before = {"dueAfter": "2037-03-07T00:00:00-05:00", "dueBefore": "2037-03-08T00:00:00-05:00"}
    assert api.ok("query_todos", **before)["items"] == []
    last = api.ok("complete_todo_task", id=task["id"], expectedRevision=first["revision"])["task"]
    assert last["done"] is True and last["completedAt"]
    history = api.ok("get_todo_task", id=task["id"])["task"]["occurrences"]
    assert [o["due"]["at"] for o in history] == ["2037-03-07T09:00:00-05:00", "2037-03-08T09:00:00-04:00"]


def test_batch_complete_advances_and_answers_every_item(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    recurring = _task(api, due={"type": "date", "date": "2037-01-31"}, recurrence="FREQ=MONTHLY;BYMONTHDAY=31")
    plain = _task(api)
    data = api.ok("batch_complete_todo_tasks", items=[
        {"id": recurring["id"], "expectedRevision": recurring["revision"]},
        {"id": plain["id"], "expectedRevision": plain["revision"]},
    ])  # fmt: skip
    first, second = data["tasks"]
    assert first["id"] == recurring["id"] and first["due"] == {"type": "date", "date": "2037-03-31"}
    assert first["done"] is False and first["revision"] == recurring["revision"] + 1
    assert second["id"] == plain["id"] and second["done"] is True and second["revision"] == plain["revision"] + 1
    updated = api.ok("batch_update_todo_tasks", updates=[
        {"id": recurring["id"], "expectedRevision": first["revision"], "done": True},
    ])["tasks"][0]  # fmt: skip
    assert updated["due"] == {"type": "date", "date": "2037-05-31"} and updated["done"] is False


def test_bad_rules_and_rules_without_due_are_refused(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    status, envelope = api.fails("create_todo_task", title="x", recurrence="FREQ=DAILY")
    assert status == 400 and "needs a due" in envelope["error"]["message"]
    status, envelope = api.fails("create_todo_task", title="x", recurrence="FREQ=DAILY;BYDAY=XX",
                                 due={"type": "date", "date": "2026-01-01"})  # fmt: skip
    assert status == 400 and envelope["error"]["code"] == "VALIDATION_ERROR"
    status, envelope = api.fails("create_todo_task", title="x", recurrence="FREQ=DAILY;INTERVAL=0",
                                 due={"type": "date", "date": "2026-01-01"})  # fmt: skip
    assert status == 400 and "INTERVAL" in envelope["error"]["message"]
    task = _task(api, due={"type": "date", "date": "2026-01-01"}, recurrence="FREQ=DAILY")
    status, envelope = api.fails("update_todo_task", id=task["id"], expectedRevision=task["revision"], due=None)
    assert status == 400 and "needs a due" in envelope["error"]["message"]
    cleared = api.ok("update_todo_task", id=task["id"], expectedRevision=task["revision"], due=None, recurrence=None)
    assert cleared["task"]["recurrence"] is None


def test_a_failing_batch_names_every_failing_item_and_changes_nothing(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    good, other = _task(api), _task(api)
    status, envelope = api.fails("batch_update_todo_tasks", updates=[
        {"id": good["id"], "expectedRevision": good["revision"], "title": "fine"},
        {"id": other["id"], "expectedRevision": other["revision"], "title": "   "},
        {"id": "missing1", "expectedRevision": 1, "title": "x"},
    ])  # fmt: skip
    assert status == 404
    items = envelope["error"]["details"]["items"]
    assert [(i["index"], i["id"], i["code"]) for i in items] == [(2, "missing1", "NOT_FOUND")]
    status, envelope = api.fails("batch_update_todo_tasks", updates=[
        {"id": good["id"], "expectedRevision": good["revision"], "title": "   "},
        {"id": other["id"], "expectedRevision": other["revision"], "title": "  "},
    ])  # fmt: skip
    assert status == 400
    assert [i["index"] for i in envelope["error"]["details"]["items"]] == [0, 1]
    assert api.ok("get_todo_task", id=good["id"])["task"]["revision"] == good["revision"]  # nothing written


def test_a_zoneless_daily_task_steps_in_the_users_zone_across_dst(rest: Rest, todo_account: Account) -> None:
    """A task without a zone of its own (as MCP, REST and CalDAV floating dues make them) keeps
    its 09:00 across New York's spring-forward when the user's zone is New York."""
    api = rest(todo_account)
    api.ok("set_time_zone", timeZone="America/New_York")
    task = _task(api, due={"type": "datetime", "at": "2027-03-13T09:00:00-05:00"}, recurrence="FREQ=DAILY")
    assert task["timezone"] is None
    done = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert done["due"] == {"type": "datetime", "at": "2027-03-14T09:00:00-04:00"}


NO_DATE = "recurrence: this rule gives no date on or after the due"


def test_every_rule_without_a_date_from_the_due_is_refused_alike(
    rest: Rest, todo_account: Account, todo_mcp: Callable[[Account], Any]
) -> None:
    """Sweep F11: parts that never meet (31 February), an UNTIL before the due and COUNT=0 give
    no occurrence at all: the same VALIDATION_ERROR on REST and MCP, on create and on a new
    due; a rule whose last date is the due itself (UNTIL on it, COUNT=1) is a series of one."""
    api, mcp = rest(todo_account), todo_mcp(todo_account)
    due = {"type": "date", "date": "2026-12-10"}
    for rule in ("FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2", "FREQ=DAILY;UNTIL=20261201", "FREQ=DAILY;COUNT=0",
                 "FREQ=WEEKLY;BYDAY=FR;UNTIL=20261210"):  # fmt: skip
        status, envelope = api.fails("create_todo_task", title="x", due=due, recurrence=rule)
        assert status == 400 and envelope["error"] == {"code": "VALIDATION_ERROR", "message": NO_DATE}, rule
        refused = mcp.fails("create_todo_task", {"title": "x", "due": due, "recurrence": rule})
        assert refused["error"] == {"code": "VALIDATION_ERROR", "message": NO_DATE}, rule
    timed = {"type": "datetime", "at": "2026-12-10T09:00:00+08:00"}
    until = "FREQ=DAILY;UNTIL=20261209T000000Z"
    status, envelope = api.fails("create_todo_task", title="x", due=timed, recurrence=until)
    assert status == 400 and envelope["error"]["message"] == NO_DATE
    for rule in ("FREQ=DAILY;UNTIL=20261210", "FREQ=DAILY;COUNT=1"):
        one = _task(api, due=due, recurrence=rule)
        done = api.ok("complete_todo_task", id=one["id"], expectedRevision=one["revision"])["task"]
        assert done["done"] is True and done["due"] == due, rule
    short = _task(api, due=due, recurrence="FREQ=DAILY;UNTIL=20261212")
    status, envelope = api.fails("update_todo_task", id=short["id"], expectedRevision=short["revision"],
                                 due={"type": "date", "date": "2026-12-20"})  # fmt: skip
    assert status == 400 and envelope["error"]["message"] == NO_DATE
