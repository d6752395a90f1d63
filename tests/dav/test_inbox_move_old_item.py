"""An inbox item a phone wrote with an RRULE and VALARMs before the item kept the edge's reading
of them (`sync.held`), as an old deployment left it in the store, moved to the board (REST):
the task repeats and reminds as a PUT would have read them (the same rule and reminder checks),
and the phone sees its rule and each alarm once, as the task's."""

from __future__ import annotations

import re
from typing import Any

from mesq.todos import keys
from mesq.todos.sync.links import SYNC_FIELD
from tests.dav.conftest import Dav
from tests.dav.test_inbox_move_repeat import assert_repeats_and_reminds_as_the_phone_showed

ALARMS = (
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;RELATED=END:-PT15M\r\nEND:VALARM\r\n"
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;VALUE=DATE-TIME:20371209T180000Z\r\nEND:VALARM"
)


def _vtodo(uid: str, rule: str, alarms: str = ALARMS) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Phone//EN\r\nBEGIN:VTODO\r\n"
        f"UID:{uid}\r\nDTSTAMP:20371201T000000Z\r\nSUMMARY:Water the plants {uid}\r\n"
        f"DUE;TZID=Europe/Berlin:20371210T090000\r\nRRULE:{rule}\r\n{alarms}\r\n"
        "END:VTODO\r\nEND:VCALENDAR\r\n"
    )


def _as_an_old_deployment_left_it(dav: Dav, uid: str, rule: str, alarms: str = ALARMS) -> dict[str, Any]:
    """The item the phone PUT, then stored again without `sync.held` (written before it existed)."""
    sent = dav.request("PUT", f"/dav/{dav.username}/inbox/{uid}.ics", _vtodo(uid, rule, alarms))
    assert sent.status_code == 201, sent.text
    item = next(i for i in dav.rest("GET", "/api/toolkit/todo/inbox")["items"] if i["title"].endswith(uid))
    key = keys.key(dav.user_id, "inbox", item["id"])
    stored = dav.services.items.get(key)
    assert stored is not None and stored[SYNC_FIELD].get("held")
    link = {name: value for name, value in stored[SYNC_FIELD].items() if name != "held"}
    dav.services.items.put({**stored, SYNC_FIELD: link})
    assert "held" not in (dav.services.items.get(key) or {})[SYNC_FIELD]
    return dict(item)


def _moved(dav: Dav, item: dict[str, Any]) -> tuple[dict[str, Any], str]:
    moved = dav.rest(
        "POST", f"/api/toolkit/todo/inbox/{item['id']}/move-to-board",
        expectedRevision=item["revision"], spaceId=dav.space,
    )  # fmt: skip
    task: dict[str, Any] = dav.rest("GET", f"/api/toolkit/todo/tasks/{moved['task']['id']}")["task"]
    seen = dav.request("GET", f"{dav.calendar}{item['title'].rsplit(' ', 1)[1]}.ics")
    assert seen.status_code == 200, seen.text
    return task, seen.text


def test_an_old_item_moved_repeats_and_reminds_as_the_phone_showed(dav: Dav) -> None:
    item = _as_an_old_deployment_left_it(dav, "old-weekly", "FREQ=WEEKLY;BYDAY=TH")
    task, data = _moved(dav, item)
    assert_repeats_and_reminds_as_the_phone_showed(task, data)
    assert "RRULE:FREQ=WEEKLY;BYDAY=TH" in data
    # the task now acts on them: completing moves the due a week on, as for a new item
    done = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])
    assert done["task"]["due"] == {"type": "datetime", "at": "2037-12-17T09:00:00+01:00"}


def test_an_old_items_rule_the_checks_refuse_stays_the_apps_and_the_move_succeeds(dav: Dav) -> None:
    item = _as_an_old_deployment_left_it(dav, "old-odd", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
    task, data = _moved(dav, item)
    assert task["recurrence"] is None
    assert data.count("RRULE:") == 1 and "BYMONTHDAY=30" in data
    assert len(task["reminders"]) == 2 and data.count("BEGIN:VALARM") == 2


def test_one_refused_alarm_stays_the_apps_and_the_others_are_taken_over(dav: Dav) -> None:
    # two alarms at a time and one 15 minutes before the due; the due is then cleared on MeSQ's
    # side, so the move's reminder check refuses the relative one (it needs a due)
    relative = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Soon\r\nTRIGGER;RELATED=END:-PT15M\r\nEND:VALARM"
    absolute = [
        f"BEGIN:VALARM\r\nUID:alarm-{n}\r\nACTION:DISPLAY\r\nDESCRIPTION:At {n}\r\n"
        f"TRIGGER;VALUE=DATE-TIME:2037120{n}T180000Z\r\nEND:VALARM"
        for n in (7, 8)
    ]
    alarms = "\r\n".join([absolute[0], relative, absolute[1]])
    sent = dav.request("PUT", f"/dav/{dav.username}/inbox/three.ics", _vtodo("three", "FREQ=DAILY", alarms))
    assert sent.status_code == 201, sent.text
    item = next(i for i in dav.rest("GET", "/api/toolkit/todo/inbox")["items"] if i["title"].endswith("three"))
    item = dav.rest("PATCH", f"/api/toolkit/todo/inbox/{item['id']}", due=None, expectedRevision=item["revision"])[
        "item"
    ]
    task, data = _moved(dav, item)
    assert [r["at"][:19] for r in task["reminders"]] == ["2037-12-07T18:00:00", "2037-12-08T18:00:00"]
    assert task["recurrence"] is None  # no due: the rule stays the app's too
    # each once, as the app wrote it
    assert _alarms(data) == sorted(sorted(block.split("\r\n")) for block in (*absolute, relative))
    # MeSQ then changes the reminders: the refused alarm still comes back unchanged
    changed = dav.rest(
        "PUT", f"/api/toolkit/todo/tasks/{task['id']}/reminders",
        reminders=[task["reminders"][0]], expectedRevision=task["revision"],
    )  # fmt: skip
    assert len(changed["task"]["reminders"]) == 1
    again = dav.request("GET", f"{dav.calendar}three.ics").text
    assert _alarms(again) == sorted(sorted(block.split("\r\n")) for block in (absolute[0], relative))


def _alarms(data: str) -> list[list[str]]:
    """The VALARM blocks of a calendar object, each as its sorted lines (icalendar writes an
    alarm's properties in an order of its own)."""
    blocks = re.findall(r"BEGIN:VALARM\r\n.*?END:VALARM", data.replace("\r\n ", ""), re.DOTALL)
    return sorted(sorted(block.split("\r\n")) for block in blocks)
