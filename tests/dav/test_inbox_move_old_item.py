"""An inbox item a phone wrote with an RRULE and VALARMs before the item kept the edge's reading
of them (`sync.held`), as an old deployment left it in the store, moved to the board (REST):
the task repeats and reminds as a PUT would have read them (the same rule and reminder checks),
and the phone sees its rule and each alarm once, as the task's."""

from __future__ import annotations

from typing import Any

from mesq.todos import keys
from mesq.todos.sync.links import SYNC_FIELD
from tests.dav.conftest import Dav

ALARMS = (
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;RELATED=END:-PT15M\r\nEND:VALARM\r\n"
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;VALUE=DATE-TIME:20261209T180000Z\r\nEND:VALARM"
)


def _vtodo(uid: str, rule: str, alarms: str = ALARMS) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Phone//EN\r\nBEGIN:VTODO\r\n"
        f"UID:{uid}\r\nDTSTAMP:20261201T000000Z\r\nSUMMARY:Water the plants {uid}\r\n"
        f"DUE;TZID=Europe/Berlin:20261210T090000\r\nRRULE:{rule}\r\n{alarms}\r\n"
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
    assert task["recurrence"] == "FREQ=WEEKLY;BYDAY=TH"
    assert {"type": "relative", "offset": "-PT15M"} in task["reminders"]
    assert any(r["type"] == "absolute" and r["at"].startswith("2026-12-09T18:00:00") for r in task["reminders"])
    assert len(task["reminders"]) == 2
    assert data.count("RRULE:") == 1 and "RRULE:FREQ=WEEKLY;BYDAY=TH" in data
    assert data.count("BEGIN:VALARM") == 2
    # the task now acts on them: completing moves the due a week on, as for a new item
    done = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])
    assert done["task"]["due"] == {"type": "datetime", "at": "2026-12-17T09:00:00+01:00"}


def test_an_old_items_rule_the_checks_refuse_stays_the_apps_and_the_move_succeeds(dav: Dav) -> None:
    item = _as_an_old_deployment_left_it(dav, "old-odd", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
    task, data = _moved(dav, item)
    assert task["recurrence"] is None
    assert data.count("RRULE:") == 1 and "BYMONTHDAY=30" in data
    assert len(task["reminders"]) == 2 and data.count("BEGIN:VALARM") == 2
