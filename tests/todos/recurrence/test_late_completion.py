"""A repeating task completed late catches up (docs/decisions.md, "a late completion"): its next
due is the rule's first date after now (a date-only series: after today, in the task's zone,
else the person's), not the occurrence after the missed one; COUNT still ends where it ends; the
reminders follow the new due; every completing path (complete, batch complete, batch done, the
done column) does it. Dates are relative to today, so the test never rots."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from mesq.todos.reminder_schedule import index_key
from mesq.wiring.services import Services
from tests.conftest import Account
from tests.mcp.conftest import Mcp
from tests.todos.conftest import TodoRest

Rest = Callable[[Account], TodoRest]
SHANGHAI = ZoneInfo("Asia/Shanghai")


def _today() -> date:
    return datetime.now(SHANGHAI).date()


def _day(days: int) -> dict[str, Any]:
    return {"type": "date", "date": (_today() + timedelta(days=days)).isoformat()}


def _vitamins(api: TodoRest, **fields: Any) -> dict[str, Any]:
    fields.setdefault("due", _day(-5))
    fields.setdefault("recurrence", "FREQ=DAILY")
    task: dict[str, Any] = api.ok("create_todo_task", title="吃维生素", timezone="Asia/Shanghai", **fields)["task"]
    return task


def test_a_daily_task_missed_for_five_days_comes_back_tomorrow(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    task = _vitamins(api)
    done = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert done["done"] is False and done["due"] == _day(1)  # not 4 days ago: today's counts as done
    history = api.ok("get_todo_task", id=task["id"])["task"]
    assert [o["due"] for o in history["occurrences"]] == [_day(-5)]  # the one ticked, none invented
    overdue = api.ok("query_todos", overdue=True)["items"]
    assert task["id"] not in [item["id"] for item in overdue]


def test_a_timed_task_comes_back_at_its_time_after_now(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    now = datetime.now(SHANGHAI)
    missed = (now - timedelta(days=3)).replace(hour=9, minute=0, second=0, microsecond=0)
    task = _vitamins(api, due={"type": "datetime", "at": missed.isoformat()})
    done = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    at = datetime.fromisoformat(done["due"]["at"])
    assert at > now and at - now <= timedelta(days=1) and at.astimezone(SHANGHAI).hour == 9


def test_every_monday_comes_back_on_the_next_monday_after_today(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    today = _today()
    three_mondays_ago = today - timedelta(days=today.weekday() + 21)
    task = _vitamins(api, due={"type": "date", "date": three_mondays_ago.isoformat()},
                     recurrence="FREQ=WEEKLY;BYDAY=MO")  # fmt: skip
    done = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    next_monday = today + timedelta(days=7 - today.weekday())
    assert done["due"] == {"type": "date", "date": next_monday.isoformat()}


def test_count_still_ends_where_it_ends(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    ended = _vitamins(api, recurrence="FREQ=DAILY;COUNT=3")  # its last date was 3 days ago
    done = api.ok("complete_todo_task", id=ended["id"], expectedRevision=ended["revision"])["task"]
    assert done["done"] is True
    left = _vitamins(api, recurrence="FREQ=DAILY;COUNT=8")  # dates -5 .. +2
    first = api.ok("complete_todo_task", id=left["id"], expectedRevision=left["revision"])["task"]
    assert first["due"] == _day(1) and not first["done"]
    second = api.ok("complete_todo_task", id=left["id"], expectedRevision=first["revision"])["task"]
    assert second["due"] == _day(2) and not second["done"]
    last = api.ok("complete_todo_task", id=left["id"], expectedRevision=second["revision"])["task"]
    assert last["done"] is True  # the 8th date was the last


def test_the_reminder_follows_the_new_due(rest: Rest, todo_account: Account, services: Services) -> None:
    api = rest(todo_account)
    task = _vitamins(api)
    set_ = api.ok("set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=[{"type": "relative", "offset": "-PT30M"}])["task"]  # fmt: skip
    api.ok("complete_todo_task", id=task["id"], expectedRevision=set_["revision"])
    item = services.items.get(index_key(todo_account.user_id, task["id"]))
    assert item is not None
    tomorrow = _today() + timedelta(days=1)
    expected = datetime.combine(tomorrow, datetime.min.time(), SHANGHAI) - timedelta(minutes=30)
    assert datetime.fromisoformat(str(item["at"])) == expected.astimezone(UTC)


def test_every_completing_path_catches_up(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    todo, _doing, done_column = api.ok("list_todo_spaces")["columns"]
    batch, update, dropped = (_vitamins(api, columnId=todo["id"]) for _ in range(3))
    completed = api.ok("batch_complete_todo_tasks", items=[{"id": batch["id"], "expectedRevision": 1}])["tasks"][0]
    updated = api.ok("batch_update_todo_tasks", updates=[{"id": update["id"], "expectedRevision": 1, "done": True}])
    moved = api.ok("move_todo_task", id=dropped["id"], expectedRevision=1, columnId=done_column["id"])["task"]
    assert [completed["due"], updated["tasks"][0]["due"], moved["due"]] == [_day(1)] * 3
    assert moved["columnId"] == todo["id"] and not moved["done"]


def test_over_mcp_too(todo_mcp: Callable[[Account], Mcp], todo_account: Account) -> None:
    mcp = todo_mcp(todo_account)
    task = mcp.ok("create_todo_task", {"title": "吃维生素", "timezone": "Asia/Shanghai", "due": _day(-5),
                                       "recurrence": "FREQ=DAILY"})["task"]  # fmt: skip
    done = mcp.ok("complete_todo_task", {"id": task["id"], "expectedRevision": task["revision"]})["task"]
    assert done["due"] == _day(1) and done["done"] is False


def test_undo_takes_the_catch_up_back_whole(rest: Rest, todo_account: Account) -> None:
    api = rest(todo_account)
    task = _vitamins(api, recurrence="FREQ=DAILY;COUNT=7")  # dates -5 .. +1
    alarm = [{"type": "absolute", "at": f"{_day(-5)['date']}T09:00:00+08:00"}]
    task = api.ok("set_todo_reminders", id=task["id"], expectedRevision=task["revision"], reminders=alarm)["task"]
    done = api.ok("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
    assert done["reminders"] == [{"type": "absolute", "at": f"{_day(1)['date']}T09:00:00+08:00"}]
    changes = api.ok("list_changes", recordId=task["id"], limit=5)["changes"]
    assert api.ok("undo_changes", changeIds=[changes[0]["id"]])["undone"]
    back = api.ok("get_todo_task", id=task["id"])["task"]
    assert back["due"] == _day(-5) and back["reminders"] == alarm and back.get("occurrences") in (None, [])
    again = api.ok("complete_todo_task", id=task["id"], expectedRevision=back["revision"])["task"]
    # the missed dates were given back with the undo: counted again, they leave +1 (else: done)
    assert again["due"] == _day(1) and not again["done"]
