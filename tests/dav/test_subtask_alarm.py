"""A subtask made on the phone with an alarm (a VTODO with RELATED-TO;RELTYPE=PARENT and a VALARM)
stays a subtask, and its alarm comes back as the app wrote it (docs/decisions.md, "a subtask with
an alarm from an app"): the phone keeps ringing it, MeSQ does not send reminders for a subtask.
Before, the alarm made it a top-level task: the checklist lost an item and the board gained one."""

from __future__ import annotations

from icalendar import Calendar

from tests.dav.conftest import Dav, vtodo

ALARM = (
    "BEGIN:VALARM", "UID:apple-alarm-7", "X-WR-ALARMUID:apple-alarm-7", "ACTION:DISPLAY",
    "DESCRIPTION:Reminder", "TRIGGER;VALUE=DATE-TIME:20371220T010000Z", "END:VALARM",
)  # fmt: skip


def test_a_child_with_an_alarm_stays_a_subtask_and_keeps_its_alarm(dav: Dav) -> None:
    assert dav.put("trip.ics", vtodo("trip", summary="搬家")).status_code == 201
    child = vtodo("pack", "DUE:20371220T010000Z", "RELATED-TO;RELTYPE=PARENT:trip", *ALARM, summary="打包书籍")
    assert dav.put("pack.ics", child).status_code == 201
    parent = dav.rest("GET", "/api/toolkit/todo/query?query=搬家")["items"][0]
    detail = dav.rest("GET", f"/api/toolkit/todo/tasks/{parent['id']}")
    assert [s["title"] for s in detail["subtasks"]] == ["打包书籍"]
    board = dav.rest("GET", "/api/toolkit/todo/query?query=打包书籍")["items"]
    assert [item.get("parentId") for item in board] == [parent["id"]]  # not a task of its own
    todo = next(iter(Calendar.from_ical(dav.get("pack.ics").text).walk("VTODO")))
    assert str(todo["RELATED-TO"]) == "trip"
    alarms = todo.walk("VALARM")
    assert [str(a["X-WR-ALARMUID"]) for a in alarms] == ["apple-alarm-7"]
    assert alarms[0]["TRIGGER"].to_ical() == b"20371220T010000Z"
    # the app edits it (a new title) with its alarm: it stays a subtask, the alarm as written
    edited = dav.put("pack.ics", child.replace("SUMMARY:打包书籍", "SUMMARY:打包书和唱片"))
    assert edited.status_code == 204
    detail = dav.rest("GET", f"/api/toolkit/todo/tasks/{parent['id']}")
    assert [s["title"] for s in detail["subtasks"]] == ["打包书和唱片"]
    assert "X-WR-ALARMUID:apple-alarm-7" in dav.get("pack.ics").text
