"""A location alert ("remind me when I arrive home") is the app's own, never a MeSQ reminder.
Apple Reminders writes one as a VALARM with `X-APPLE-PROXIMITY` (RFC 9074 names it `PROXIMITY`),
its place in a `VLOCATION` or `X-APPLE-STRUCTURED-LOCATION`, and a placeholder trigger,
`TRIGGER;VALUE=DATE-TIME:19760401T005545Z`. MeSQ read that placeholder as a reminder at
1 April 1976: the task page showed "指定时间 1976-04-01 08:55" and "已设置 1 个提醒", and REST
and MCP answered the reminder. Now the alarm is kept and given back as the app wrote it, and the
task has no reminder from it; a timed alarm beside it is still one."""

from __future__ import annotations

from icalendar import Calendar

from tests.dav.conftest import Dav, vtodo

ARRIVE_HOME = (
    "BEGIN:VALARM", "UID:5D8D7F2C-1", "X-WR-ALARMUID:5D8D7F2C-1", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z",
    "ACTION:DISPLAY", "DESCRIPTION:Reminder", "X-APPLE-PROXIMITY:ARRIVE",
    "BEGIN:VLOCATION", "UID:3C1B-LOC", "URL:geo:31.230400,121.473700", "TITLE:家", "END:VLOCATION",
    "END:VALARM",
)  # fmt: skip
LEAVE_WORK = (  # RFC 9074's own property name
    "BEGIN:VALARM", "UID:leave-1", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z", "ACTION:DISPLAY",
    "DESCRIPTION:Reminder", "PROXIMITY:DEPART", "END:VALARM",
)  # fmt: skip
AT_NINE = ("BEGIN:VALARM", "UID:nine", "TRIGGER;VALUE=DATE-TIME:20261220T010000Z", "ACTION:DISPLAY", "END:VALARM")


def _task(dav: Dav, name: str) -> dict:
    etag = dav.get(name).headers["etag"].strip('"')
    return dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]


def _alarm_uids(dav: Dav, name: str) -> list[str]:
    todo = next(iter(Calendar.from_ical(dav.get(name).content).walk("VTODO")))
    return sorted(str(alarm.get("UID")) for alarm in todo.walk("VALARM"))


def test_a_location_alert_is_no_reminder_and_comes_back_as_the_app_wrote_it(dav: Dav) -> None:
    sent = vtodo("home", *ARRIVE_HOME, *LEAVE_WORK, *AT_NINE, summary="到家后收快递")
    assert dav.put("home.ics", sent).status_code == 201
    task = _task(dav, "home.ics")
    assert task["reminders"] == [{"type": "absolute", "at": "2026-12-20T01:00:00.000000Z"}]

    dav.rest("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", expectedRevision=task["revision"], title="到家后拿快递")
    answer = dav.get("home.ics").text  # MeSQ writes the task now: the app's alarms come back around it
    assert "X-APPLE-PROXIMITY:ARRIVE" in answer and "PROXIMITY:DEPART" in answer and "TITLE:家" in answer
    assert _alarm_uids(dav, "home.ics") == ["5D8D7F2C-1", "leave-1", "nine"]
    assert _task(dav, "home.ics")["reminders"] == [{"type": "absolute", "at": "2026-12-20T01:00:00.000000Z"}]
