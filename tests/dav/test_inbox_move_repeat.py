"""An inbox item a phone wrote with an RRULE and VALARMs, moved to the board: the task repeats
and reminds as the phone showed (recurrence, reminders), and the phone sees the rule and each
alarm once. python-caldav against a real `mesq serve`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.dav.conftest import phone_of
from tests.dav.driver import CaldavClient
from tests.dav.mesq_side import Rest


@pytest.fixture(scope="module")
def phone(mesq: LiveServer) -> Iterator[tuple[CaldavClient, Rest]]:
    with phone_of(mesq, "alice") as both:
        yield both


def _vtodo(uid: str, rule: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Phone//EN\r\nBEGIN:VTODO\r\n"
        f"UID:{uid}\r\nDTSTAMP:20371201T000000Z\r\nSUMMARY:Water the plants {uid}\r\n"
        "DUE;TZID=Europe/Berlin:20371210T090000\r\n"
        f"RRULE:{rule}\r\n"
        "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;RELATED=END:-PT15M\r\nEND:VALARM\r\n"
        "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;VALUE=DATE-TIME:20371209T180000Z\r\n"
        "END:VALARM\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    )


def _moved(phone: tuple[CaldavClient, Rest], mesq: LiveServer, uid: str, rule: str) -> tuple[dict[str, Any], str]:
    caldav, rest = phone
    inbox = f"{mesq.base_url}/dav/alice/inbox/"
    url = caldav.ok("add", calendar=inbox, ical=_vtodo(uid, rule))["url"]
    items = rest.ok("GET", "/api/toolkit/todo/inbox")["items"]
    item = next(i for i in items if i["title"] == f"Water the plants {uid}")
    space = rest.ok("GET", "/api/toolkit/todo/spaces")["spaces"][0]
    moved = rest.ok(
        "POST", f"/api/toolkit/todo/inbox/{item['id']}/move-to-board",
        expectedRevision=item["revision"], spaceId=space["id"],
    )  # fmt: skip
    task: dict[str, Any] = rest.ok("GET", f"/api/toolkit/todo/tasks/{moved['task']['id']}")["task"]
    caldav.ok("calendars")
    seen = caldav.ok("get", url=f"{mesq.base_url}/dav/alice/{space['id']}/{url.rsplit('/', 1)[1]}")
    return task, str(seen["data"])


def assert_repeats_and_reminds_as_the_phone_showed(task: dict[str, Any], data: str) -> None:
    """The weekly Thursday rule and its two alarms (15 minutes before, and 18:00 on the 9th) are
    the moved task's own, and the app sees each once."""
    assert task["recurrence"] == "FREQ=WEEKLY;BYDAY=TH"
    assert {"type": "relative", "offset": "-PT15M"} in task["reminders"]
    assert any(r["type"] == "absolute" and r["at"].startswith("2037-12-09T18:00:00") for r in task["reminders"])
    assert len(task["reminders"]) == 2
    assert data.count("RRULE:") == 1 and "FREQ=WEEKLY" in data
    assert data.count("BEGIN:VALARM") == 2


def test_a_moved_item_repeats_and_reminds_as_the_phone_showed(phone: tuple[CaldavClient, Rest], mesq: LiveServer):
    assert_repeats_and_reminds_as_the_phone_showed(*_moved(phone, mesq, "weekly-1", "FREQ=WEEKLY;BYDAY=TH"))


def test_a_rule_mesq_cannot_act_on_stays_the_apps_and_the_move_succeeds(
    phone: tuple[CaldavClient, Rest], mesq: LiveServer
):
    # 30 February never comes: MeSQ's rule check refuses it; the app's line comes back as it wrote it.
    task, data = _moved(phone, mesq, "odd-1", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
    assert task["recurrence"] is None
    assert data.count("RRULE:") == 1 and "BYMONTHDAY=30" in data
    assert len(task["reminders"]) == 2 and data.count("BEGIN:VALARM") == 2
