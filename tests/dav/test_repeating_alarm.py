"""A repeating task's alarm "at the due time" as Apple Reminders writes it (an absolute
TRIGGER;VALUE=DATE-TIME equal to the DUE) moves with the due when the phone marks it done
(docs/decisions.md, "absolute alarms of a repeating task"): python-caldav, the real client, against
a real `mesq serve`. Before, the due moved on and the alarm stayed at the old time, in the past, so
the phone never rang again; and the due moved on by one day only, still overdue."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar

from tests.conftest import LiveServer
from tests.dav.conftest import phone_of, vtodo
from tests.dav.driver import CaldavClient
from tests.dav.mesq_side import Rest

SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.fixture(scope="module")
def phone(mesq: LiveServer) -> Iterator[tuple[CaldavClient, Rest]]:
    with phone_of(mesq, "mei", "Mei's iPhone") as both:
        yield both


def _todo(data: str) -> Any:
    return next(iter(Calendar.from_ical(data).walk("VTODO")))


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def test_the_alarm_at_the_due_moves_with_the_due_when_the_phone_marks_it_done(phone: Any) -> None:
    client, rest = phone
    calendar = next(c["url"] for c in client.ok("calendars")["calendars"] if not c["url"].endswith("/inbox/"))
    now = datetime.now(SHANGHAI)
    missed = (now - timedelta(days=5)).replace(hour=9, minute=0, second=0, microsecond=0)
    alarm = (
        "BEGIN:VALARM", "UID:apple-alarm-1", "X-WR-ALARMUID:apple-alarm-1", "ACTION:DISPLAY",
        "DESCRIPTION:Reminder", f"TRIGGER;VALUE=DATE-TIME:{_stamp(missed)}",
        f"ACKNOWLEDGED:{_stamp(missed + timedelta(minutes=1))}", "END:VALARM",
    )  # fmt: skip
    ical = vtodo("vitamins-1", f"DUE;TZID=Asia/Shanghai:{missed:%Y%m%dT%H%M%S}", "RRULE:FREQ=DAILY", *alarm,
                 summary="吃维生素")  # fmt: skip
    url = client.ok("add", calendar=calendar, ical=ical)["url"]
    client.ok("load", url=url, slot="vitamins")
    client.ok("complete", slot="vitamins")  # python-caldav's Todo.complete(): STATUS:COMPLETED, saved

    today_at_nine = now.replace(hour=9, minute=0, second=0, microsecond=0)
    expected = today_at_nine if today_at_nine > now else today_at_nine + timedelta(days=1)
    todo = _todo(client.ok("get", url=url)["data"])
    assert str(todo["STATUS"]) == "NEEDS-ACTION"
    assert todo.decoded("DUE") == expected  # the first 09:00 after now, not four days ago
    alarms = todo.walk("VALARM")
    assert len(alarms) == 1
    assert alarms[0].decoded("TRIGGER") == expected  # at the new due, not in the past
    assert str(alarms[0]["X-WR-ALARMUID"]) == "apple-alarm-1"  # the phone's own alarm, moved
    assert str(alarms[0]["TRIGGER"].params.get("VALUE")) == "DATE-TIME"
    assert "ACKNOWLEDGED" not in alarms[0]  # dismissing the old time does not silence the new one

    task = rest.titled("吃维生素")
    assert [datetime.fromisoformat(r["at"]) for r in task["reminders"]] == [expected]
    assert task["due"] == {"type": "datetime", "at": expected.isoformat()}


def test_a_reminder_set_over_rest_moves_the_same_way(phone: Any) -> None:
    _client, rest = phone
    spaces = rest.ok("GET", "/api/toolkit/todo/spaces")["spaces"]
    due = datetime.now(SHANGHAI).replace(hour=20, minute=0, second=0, microsecond=0) + timedelta(days=2)
    task = rest.ok("POST", "/api/toolkit/todo/tasks", title="倒垃圾", spaceId=spaces[0]["id"], timezone="Asia/Shanghai",
                   due={"type": "datetime", "at": due.isoformat()}, recurrence="FREQ=WEEKLY")["task"]  # fmt: skip
    evening_before = (due - timedelta(days=1)).replace(hour=19)
    task = rest.ok("PUT", f"/api/toolkit/todo/tasks/{task['id']}/reminders", expectedRevision=task["revision"],
                   reminders=[{"type": "absolute", "at": evening_before.isoformat()}])["task"]  # fmt: skip
    done = rest.ok("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])["task"]
    assert done["due"] == {"type": "datetime", "at": (due + timedelta(days=7)).isoformat()}
    assert done["reminders"] == [{"type": "absolute", "at": (evening_before + timedelta(days=7)).isoformat()}]
