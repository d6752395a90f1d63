"""The python-caldav script run against MeSQ and against Radicale (the oracle): the same client
calls on both servers, and what the client saw, reduced to facts both servers can be compared
on (`observations`).

What happens outside the client differs by server and is passed in as `Elsewhere`: on MeSQ a
task is created over MCP and changed over REST, on Radicale by a second, raw WebDAV client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from icalendar import Calendar

from tests.dav.driver import CaldavClient

#: The task of the issue: DUE with TZID=Asia/Shanghai, PRIORITY 1, CATEGORIES, a weekly RRULE,
#: and a property only Apple knows.
RECURRING_UID = "weekly-review@phone"
RECURRING = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Phone//EN\r\nBEGIN:VTODO\r\n"
    f"UID:{RECURRING_UID}\r\nDTSTAMP:20371201T000000Z\r\nSUMMARY:Weekly review\r\n"
    "DUE;TZID=Asia/Shanghai:20371207T090000\r\nPRIORITY:1\r\nCATEGORIES:work,review\r\n"
    "RRULE:FREQ=WEEKLY\r\nX-APPLE-SORT-ORDER:42\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
)
PLAIN_UID = "dentist@phone"
PLAIN = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Phone//EN\r\nBEGIN:VTODO\r\n"
    f"UID:{PLAIN_UID}\r\nDTSTAMP:20371201T000000Z\r\nSUMMARY:Call the dentist\r\n"
    "DUE:20371215T020000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
)
ELSEWHERE_TITLE = "Made elsewhere"


@dataclass
class Elsewhere:
    """What the test does to a server without the client: make a task, retitle one (by its URL)."""

    create: Callable[[str], None]
    retitle: Callable[[str, str], None]


def todo_of(data: str) -> Any:
    calendar = Calendar.from_ical(data)
    return next(c for c in calendar.walk("VTODO") if "RECURRENCE-ID" not in c)


def facts(data: str) -> dict[str, Any]:
    """What both servers must agree on about one task, as the client reads it."""
    todo = todo_of(data)
    due = todo.decoded("DUE") if "DUE" in todo else None
    return {
        "uid": str(todo["UID"]),
        "summary": str(todo["SUMMARY"]),
        "due": due.isoformat() if due is not None else None,
        "due zone": str(todo["DUE"].params.get("TZID")) if "DUE" in todo and "TZID" in todo["DUE"].params else None,
        "priority": int(todo.decoded("PRIORITY")) if "PRIORITY" in todo else 0,
        "categories": sorted(str(c) for v in _all(todo, "CATEGORIES") for c in v.cats),
        "rrule": todo["RRULE"].to_ical().decode() if "RRULE" in todo else None,
        "x-apple-sort-order": str(todo.get("X-APPLE-SORT-ORDER")) if "X-APPLE-SORT-ORDER" in todo else None,
        "status": str(todo.get("STATUS", "NEEDS-ACTION")),
    }


def _all(todo: Any, name: str) -> list[Any]:
    value = todo.get(name)
    return [] if value is None else value if isinstance(value, list) else [value]


def summaries(todos: list[dict[str, Any]]) -> list[str]:
    return sorted(str(todo_of(t["data"])["SUMMARY"]) for t in todos)


def run(client: CaldavClient, calendar: str, elsewhere: Elsewhere) -> dict[str, Any]:
    """The script; returns what the client observed (compared across servers by the tests) and
    the URLs it made (`urls`)."""
    seen: dict[str, Any] = {}
    recurring = client.ok("add", calendar=calendar, ical=RECURRING)["url"]
    plain = client.ok("add", calendar=calendar, ical=PLAIN)["url"]
    seen["urls"] = {"recurring": recurring, "plain": plain}
    seen["created"] = facts(client.ok("get", url=recurring)["data"])
    seen["open todos"] = summaries(client.ok("todos", calendar=calendar)["todos"])
    window = client.ok("search", calendar=calendar, start="2037-12-15T00:00:00+00:00", end="2037-12-16T00:00:00+00:00")
    seen["time-range hit"] = summaries(window["todos"])
    far = client.ok("search", calendar=calendar, start="2030-01-01T00:00:00+00:00", end="2030-01-02T00:00:00+00:00")
    seen["time-range miss"] = summaries(far["todos"])

    first = client.ok("sync", calendar=calendar, token=None)
    seen["initial sync"] = summaries(first["objects"])
    elsewhere.create(ELSEWHERE_TITLE)
    second = client.ok("sync", calendar=calendar, token=first["token"])
    seen["sync after a task made elsewhere"] = summaries(second["objects"])
    seen["sync token moved"] = second["token"] != first["token"]

    client.ok("load", url=plain, slot="plain")
    elsewhere.retitle(plain, "Call the dentist (moved)")
    stale = client.run("edit", slot="plain", summary="Overwritten by a stale copy")
    seen["stale If-Match"] = stale.get("error")
    seen["after the stale write"] = facts(client.ok("get", url=plain)["data"])["summary"]

    client.ok("load", url=recurring, slot="recurring")
    client.ok("complete", slot="recurring")
    seen["after complete"] = facts(client.ok("get", url=recurring)["data"])
    seen["open todos after complete"] = summaries(client.ok("todos", calendar=calendar)["todos"])
    seen["all todos after complete"] = summaries(client.ok("todos", calendar=calendar, include_completed=True)["todos"])

    client.ok("delete", url=plain)
    seen["after delete"] = summaries(client.ok("todos", calendar=calendar, include_completed=True)["todos"])
    third = client.ok("sync", calendar=calendar, token=second["token"])
    seen["sync reports the delete"] = plain in third["deleted"]
    seen["last token"] = third["token"]
    return seen
