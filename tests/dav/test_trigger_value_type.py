"""A reminder at a set time reaches the apps as valid iCalendar: `TRIGGER;VALUE=DATE-TIME:…Z`.
RFC 5545 §3.8.6.3 makes `VALUE=DATE-TIME` REQUIRED on an absolute trigger (a TRIGGER's value is a
DURATION unless it says otherwise); MeSQ wrote `TRIGGER:20261208T103000Z`, a duration that does
not parse, for every absolute reminder set on the board, over REST or MCP, or on a duplicated
task. A relative one stays a duration."""

from __future__ import annotations

import re

from tests.dav.conftest import Dav, vtodo

TRIGGER = re.compile(r"^TRIGGER([^:]*):(.*)$", re.MULTILINE)


def test_an_absolute_reminder_is_written_with_its_value_type(dav: Dav) -> None:
    assert dav.put("call.ics", vtodo("call", "DUE:20261215T110000Z", summary="给妈妈打电话")).status_code == 201
    task_id = dav.get("call.ics").headers["etag"].strip('"').rsplit("-", 1)[0]
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{task_id}")["task"]
    reminders = [{"type": "absolute", "at": "2026-12-15T10:30:00Z"}, {"type": "relative", "offset": "-PT15M"}]
    dav.rest(
        "PUT", f"/api/toolkit/todo/tasks/{task_id}/reminders", expectedRevision=task["revision"], reminders=reminders
    )
    triggers = TRIGGER.findall(dav.get("call.ics").text.replace("\r\n", "\n"))
    assert sorted(triggers) == [(";RELATED=END", "-PT15M"), (";VALUE=DATE-TIME", "20261215T103000Z")]
