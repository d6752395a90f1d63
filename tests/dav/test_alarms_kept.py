"""An app's own alarms stay as it wrote them when MeSQ adds or removes another reminder: their
UID, X-WR-ALARMUID, ACKNOWLEDGED, ACTION and DESCRIPTION come back, and so does an alarm
MeSQ cannot deliver (an offset with no due). Before, one reminder added on the board rewrote
every VALARM as MeSQ's own: an acknowledged alarm lost ACKNOWLEDGED (the phone rang it again)
and its UID (the app saw a new alarm)."""

from __future__ import annotations

from icalendar import Calendar

from tests.dav.conftest import Dav, vtodo

ACKED = (
    "BEGIN:VALARM", "UID:alarm-1", "X-WR-ALARMUID:alarm-1", "ACTION:DISPLAY", "TRIGGER:-PT15M",
    "DESCRIPTION:Reminder", "ACKNOWLEDGED:20261220T094600Z", "END:VALARM",
)  # fmt: skip
SOUND = (
    "BEGIN:VALARM",
    "X-WR-ALARMUID:alarm-2",
    "ACTION:AUDIO",
    "TRIGGER;VALUE=DATE-TIME:20261219T080000Z",
    "END:VALARM",
)


def _alarms(dav: Dav, name: str) -> list[dict[str, str]]:
    todo = next(iter(Calendar.from_ical(dav.get(name).content).walk("VTODO")))
    return [{key: str(value.to_ical().decode()) for key, value in alarm.items()} for alarm in todo.walk("VALARM")]


def _task(dav: Dav, name: str) -> dict:
    etag = dav.get(name).headers["etag"].strip('"')
    return dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]


def test_the_apps_alarms_stay_when_mesq_adds_a_reminder(dav: Dav) -> None:
    assert dav.put("a.ics", vtodo("a", "DUE:20261220T100000Z", *ACKED, *SOUND)).status_code == 201
    task = _task(dav, "a.ics")
    reminders = [*task["reminders"], {"type": "relative", "offset": "-P1D"}]
    path = f"/api/toolkit/todo/tasks/{task['id']}/reminders"
    dav.rest("PUT", path, expectedRevision=task["revision"], reminders=reminders)
    alarms = _alarms(dav, "a.ics")
    assert len(alarms) == 3
    acked = next(a for a in alarms if a.get("X-WR-ALARMUID") == "alarm-1")
    assert acked["UID"] == "alarm-1" and acked["ACKNOWLEDGED"] == "20261220T094600Z"
    assert acked["DESCRIPTION"] == "Reminder"
    sound = next(a for a in alarms if a.get("X-WR-ALARMUID") == "alarm-2")
    assert sound["ACTION"] == "AUDIO"
    assert any(a["TRIGGER"] == "-P1D" for a in alarms)  # MeSQ's new one, its way

    task = _task(dav, "a.ics")  # the board removes the app's sound alarm: only that one goes
    kept = [r for r in task["reminders"] if r["type"] == "relative"]
    dav.rest("PUT", path, expectedRevision=task["revision"], reminders=kept)
    alarms = _alarms(dav, "a.ics")
    assert len(alarms) == 2 and not any(a.get("X-WR-ALARMUID") == "alarm-2" for a in alarms)
    assert any(a.get("ACKNOWLEDGED") == "20261220T094600Z" for a in alarms)


def test_an_alarm_mesq_cannot_deliver_stays_when_mesq_adds_one(dav: Dav) -> None:
    lonely = ("BEGIN:VALARM", "X-WR-ALARMUID:lonely", "ACTION:DISPLAY", "TRIGGER:-PT5M", "END:VALARM")
    assert dav.put("b.ics", vtodo("b", *lonely)).status_code == 201  # no due: the app's alone
    task = _task(dav, "b.ics")
    assert task["reminders"] == []
    path = f"/api/toolkit/todo/tasks/{task['id']}/reminders"
    dav.rest(
        "PUT", path, expectedRevision=task["revision"], reminders=[{"type": "absolute", "at": "2026-12-19T08:00:00Z"}]
    )
    alarms = _alarms(dav, "b.ics")
    assert len(alarms) == 2 and any(a.get("X-WR-ALARMUID") == "lonely" for a in alarms)
