"""Dues and dates at the ends of the calendar (in-process, TestClient): REST, MCP, CalDAV and the
imports accept 0001-01-01T00:00:00Z and 9999-12-31T23:00:00Z, and in a zone west or east of UTC
such a moment is off the calendar (year 0, year 10000). Each page that shows one showed a 500
(`astimezone` overflowing); now it is shown in UTC (`kernel.timestamps.in_zone`), and so are the
reminder's words, a completed recurring task's next due and the memo sidebar's days."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from mesq.kernel.timestamps import in_zone
from mesq.reminders.message import local_due
from mesq.wiring.services import Services

from ..conftest import Browser
from .test_todos_pages import new_task, run

ENDS = [("0001-01-01T00:00:00Z", "America/New_York"), ("9999-12-31T23:00:00Z", "Asia/Tokyo")]


@pytest.mark.parametrize(("at", "zone"), ENDS)
def test_every_todo_page_shows_a_due_at_the_calendars_end(
    services: Services, browser: Callable[..., Browser], at: str, zone: str
) -> None:
    person = browser()
    run(services, person.user_id, "set_time_zone", {"timeZone": zone})
    person.client.cookies.set("mesq_tz", zone)
    task = new_task(services, person.user_id, "edge", due={"type": "datetime", "at": at}, timezone=zone)
    item = run(
        services,
        person.user_id,
        "create_todo_inbox_item",
        {"title": "inbox edge", "due": {"type": "datetime", "at": at}},
    )
    for path in ("/todos", f"/todos/tasks/{task['id']}", "/todos/inbox", f"/todos/inbox/{item['item']['id']}",
                 "/todos/today", "/todos/upcoming", "/todos/overdue", "/activity"):  # fmt: skip
        answer = person.get(path)
        assert answer.status_code == 200, (path, answer.text[:300])
    shown = person.get(f"/todos/tasks/{task['id']}").text
    assert at[:4] in shown  # the year, in UTC


def test_a_completed_recurring_task_at_the_calendars_start_moves_on(
    services: Services, browser: Callable[..., Browser]
) -> None:
    person = browser()
    task = new_task(
        services, person.user_id, "daily", due={"type": "datetime", "at": "0001-01-01T00:00:00Z"},
        timezone="America/New_York", recurrence="FREQ=DAILY",
    )  # fmt: skip
    done = run(services, person.user_id, "complete_todo_task", {"id": task["id"], "expectedRevision": task["revision"]})
    assert done["task"]["due"]["at"] > "0001-01-01T00:00:00Z"


def test_the_reminder_and_the_zone_helper_say_it_in_utc() -> None:
    assert local_due({"type": "datetime", "at": "9999-12-31T23:00:00Z"}, "Asia/Tokyo").startswith("9999-12-31 23:00")
    moment = datetime(1, 1, 1, tzinfo=UTC)
    assert in_zone(moment, ZoneInfo("America/New_York")) == moment
    assert in_zone(datetime(2026, 12, 1, tzinfo=UTC), ZoneInfo("Asia/Shanghai")).hour == 8
