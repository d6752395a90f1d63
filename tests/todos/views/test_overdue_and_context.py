""" "Now" for the user (issue 29, point 3): get_context gives the user's zone, today's date there
and the instant; query_todos {overdue: true, priority: [...], orderBy: "due"} answers "what is
overdue and urgent" in one call. The clock is injected (mesq.kernel.timestamps.utc_now) just after
midnight in Asia/Shanghai and just before it in America/New_York, where UTC's "today" differs
from the user's."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from mesq.kernel import timestamps
from mesq.kernel.context import Services
from mesq.kernel.ports.storage import Update
from mesq.todos import keys
from tests.conftest import Account
from tests.todos.views.test_views_mcp import TODO, Todo


def _date(day: str) -> dict[str, str]:
    return {"type": "date", "date": day}


def _at(instant: str) -> dict[str, str]:
    return {"type": "datetime", "at": instant}


@pytest.fixture
def zoned(client: TestClient, make_account: Callable[..., Account], services: Services, monkeypatch):
    """`zoned(zone, now)`: a todo connection whose user's zone is `zone`, the clock held at `now`."""

    def make(zone: str, now: str) -> Todo:
        account = make_account(scopes=TODO)
        todo = Todo(client, account)
        todo.ok("list_todos")  # the first todo call creates the user's todo settings
        services.items.update(Update(key=keys.settings_key(account.user_id), set={"timezone": zone}))
        moment = datetime.fromisoformat(now).astimezone(UTC)
        monkeypatch.setattr(timestamps, "utc_now", lambda: moment)
        return todo

    return make


def _titles(data: dict) -> list[str]:
    return [item["title"] for item in data["items"]]


def test_just_after_midnight_in_shanghai(zoned):
    todo = zoned("Asia/Shanghai", "2026-12-02T16:30:00Z")  # 2026-12-03 00:30 in Shanghai
    context = todo.ok("get_context")
    assert context["timeZone"] == "Asia/Shanghai" and context["timeZoneSet"] is True
    assert context["today"] == "2026-12-03" and context["now"].startswith("2026-12-02T16:30:00")
    assert context["scopes"] == ["todo:read", "todo:write"] and "todo" in context["toolsets"]
    make = lambda title, **fields: todo.ok("create_todo_task", title=title, **fields)  # noqa: E731
    make("yesterday", due=_date("2026-12-02"), priority="urgent")  # UTC's today, Shanghai's yesterday
    make("today", due=_date("2026-12-03"), priority="urgent")
    make("half an hour ago", due=_at("2026-12-03T00:00:00+08:00"), priority="high")
    make("in half an hour", due=_at("2026-12-03T01:00:00+08:00"), priority="urgent")
    make("last week, low", due=_date("2026-11-25"), priority="low")
    done = make("done and late", due=_date("2026-11-30"), priority="urgent")["task"]
    todo.ok("complete_todo_task", id=done["id"], expectedRevision=done["revision"])
    make("no due", priority="urgent")

    urgent = todo.ok("query_todos", overdue=True, priority=["high", "urgent"], orderBy="due")
    assert _titles(urgent) == ["yesterday", "half an hour ago"]
    everything = todo.ok("query_todos", overdue=True, orderBy="due", status="all")
    assert _titles(everything) == ["last week, low", "yesterday", "half an hour ago"]
    not_overdue = todo.ok("query_todos", overdue=False, orderBy="due")
    assert _titles(not_overdue) == ["today", "in half an hour", "no due"]
    by_priority = todo.ok("query_todos", orderBy="priority")
    assert _titles(by_priority)[:3] == ["yesterday", "today", "in half an hour"]  # urgent, by due
    assert _titles(by_priority)[-1] == "last week, low"
    # One priority still works as before.
    assert _titles(todo.ok("query_todos", priority="high")) == ["half an hour ago"]
    # REST: the same query as a comma list (and repeated parameters).
    for query in ("priority=high,urgent", "priority=high&priority=urgent"):
        response = todo.mcp.client.get(
            f"/api/toolkit/todo/query?{query}&overdue=true&orderBy=due",
            headers={"Authorization": f"Bearer {todo.mcp.token}"},
        )
        assert response.status_code == 200, response.text
        assert _titles(response.json()["data"]) == ["yesterday", "half an hour ago"]


def test_just_before_midnight_in_new_york(zoned):
    todo = zoned("America/New_York", "2026-12-03T04:30:00Z")  # 2026-12-02 23:30 in New York
    context = todo.ok("get_context")
    assert context["today"] == "2026-12-02" and context["timeZone"] == "America/New_York"
    make = lambda title, **fields: todo.ok("create_todo_task", title=title, **fields)  # noqa: E731
    make("today", due=_date("2026-12-02"), priority="urgent")  # UTC says yesterday: not overdue here
    make("yesterday", due=_date("2026-12-01"), priority="urgent")
    # A task with a zone of its own is read in it: 2026-12-02 ended in Shanghai 12.5 hours ago.
    make("shanghai's yesterday", due=_date("2026-12-02"), timezone="Asia/Shanghai", priority="high")
    make("an hour ago", due=_at("2026-12-02T22:30:00-05:00"), priority="medium")
    found = todo.ok("query_todos", overdue=True, priority=["high", "urgent"], orderBy="due")
    assert _titles(found) == ["yesterday", "shanghai's yesterday"]
    assert _titles(todo.ok("query_todos", overdue=True, orderBy="due")) == [
        "yesterday",
        "shanghai's yesterday",
        "an hour ago",
    ]


def test_context_without_a_zone_is_utc_and_says_so(zoned, client, make_account):
    account = make_account(scopes="todo:read")
    context = Todo(client, account).ok("get_context")
    assert context["timeZone"] == "UTC" and context["timeZoneSet"] is False
    assert context["scopes"] == ["todo:read"]


def test_priority_lists_are_validated(zoned):
    todo = zoned("UTC", "2026-12-02T12:00:00Z")
    error = todo.fails("query_todos", priority=["high", "soon"])
    assert error["code"] == "VALIDATION_ERROR" and "'urgent'" in error["message"]
    assert todo.fails("query_todos", orderBy="dueDate")["code"] == "VALIDATION_ERROR"
