"""python-caldav 3.x driven step by step: one JSON command per stdin line, one JSON answer per
stdout line. Runs in the client venv (infra/dav_clients.py), never in MeSQ's own: it imports
nothing of MeSQ or the tests, only the client library, so the same script talks to MeSQ and to
Radicale alike.

Commands (`{"do": name, ...}`); every answer is `{"ok": true, ...}` or `{"ok": false, "error":
class name, "message": text}`:
- `connect` {url, username, password}: the client, its principal and calendars;
- `calendars`: [{url, name, components}];
- `add` {calendar, ical}: PUT a new VTODO (If-None-Match: *), its url;
- `get` {url}: the object's data and etag (a fresh load);
- `load` {url, slot}: load and keep the object in `slot` (its ETag cached by the client);
- `complete` {slot}: `Todo.complete()` on the kept object, saved;
- `edit` {slot, summary}: change SUMMARY of the kept object and save it (If-Match: its ETag);
- `exclude` {slot, value, tzid}: delete "this occurrence" of the kept recurring task as an app
  does, an EXDATE added (`value` ISO: a date, or a time on the clock of `tzid`), then saved;
- `delete` {url};
- `todos` {calendar, include_completed}: the calendar-query the library builds for todos();
- `search` {calendar, start, end}: todos whose time range overlaps [start, end);
- `sync` {calendar, token}: sync-collection from `token` (None = initial), no fallback;
- `multiget` {calendar, urls}: calendar-multiget.
"""

from __future__ import annotations

import json
import sys
import traceback
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import caldav
from caldav.lib import error as caldav_error

STATE: dict[str, Any] = {"slots": {}}


def _calendar(url: str) -> Any:
    return next(c for c in STATE["calendars"] if str(c.url) == url)


def _object(url: str) -> Any:
    for calendar in STATE["calendars"]:
        if str(url).startswith(str(calendar.url)):
            return (
                calendar.object_by_url(url)
                if hasattr(calendar, "object_by_url")
                else caldav.Todo(client=STATE["client"], url=url, parent=calendar)
            )
    raise LookupError(url)


def _todo_of(obj: Any) -> dict[str, Any]:
    return {"url": str(obj.url), "data": obj.data, "etag": obj.props.get("{DAV:}getetag")}


def connect(url: str, username: str, password: str) -> dict[str, Any]:
    client = caldav.DAVClient(url=url, username=username, password=password)
    principal = client.principal()
    STATE.update(client=client, principal=principal, calendars=principal.calendars())
    return {"principal": str(principal.url), **calendars()}


def calendars() -> dict[str, Any]:
    STATE["calendars"] = STATE["principal"].calendars()
    found = []
    for calendar in STATE["calendars"]:
        found.append(
            {
                "url": str(calendar.url),
                "name": calendar.get_display_name(),
                "components": sorted(calendar.get_supported_components()),
            }
        )
    return {"calendars": found}


def add(calendar: str, ical: str) -> dict[str, Any]:
    todo = _calendar(calendar).add_todo(ical, no_overwrite=True)
    return {"url": str(todo.url)}


def get(url: str) -> dict[str, Any]:
    obj = _object(url)
    obj.load()
    return _todo_of(obj)


def load(url: str, slot: str) -> dict[str, Any]:
    obj = _object(url)
    obj.load()
    STATE["slots"][slot] = obj
    return _todo_of(obj)


def complete(slot: str) -> dict[str, Any]:
    obj = STATE["slots"][slot]
    obj.complete(completion_timestamp=datetime.now().astimezone())
    return {"url": str(obj.url)}


def edit(slot: str, summary: str) -> dict[str, Any]:
    obj = STATE["slots"][slot]
    obj.icalendar_component["SUMMARY"] = summary
    obj.save()
    return {"url": str(obj.url)}


def exclude(slot: str, value: str, tzid: str | None = None) -> dict[str, Any]:
    obj = STATE["slots"][slot]
    moment: date | datetime = date.fromisoformat(value) if len(value) == 10 else datetime.fromisoformat(value)
    if tzid is not None and isinstance(moment, datetime):
        moment = moment.replace(tzinfo=ZoneInfo(tzid))
    obj.icalendar_component.add("exdate", moment)
    obj.save()
    return {"url": str(obj.url)}


def delete(url: str) -> dict[str, Any]:
    _object(url).delete()
    return {}


def todos(calendar: str, include_completed: bool = False) -> dict[str, Any]:
    found = _calendar(calendar).todos(include_completed=include_completed)
    return {"todos": sorted((_todo_of(t) for t in found), key=lambda t: t["url"])}


def search(calendar: str, start: str, end: str) -> dict[str, Any]:
    found = _calendar(calendar).search(
        todo=True, start=datetime.fromisoformat(start), end=datetime.fromisoformat(end), include_completed=True
    )
    return {"todos": sorted((_todo_of(t) for t in found), key=lambda t: t["url"])}


def sync(calendar: str, token: str | None = None) -> dict[str, Any]:
    found = _calendar(calendar).get_objects_by_sync_token(token, load_objects=True, disable_fallback=True)
    deleted = sorted(str(url) for url in found.deleted_urls)
    present = [o for o in found if str(o.url.canonical()) not in deleted and o.data]
    return {
        "token": str(found.sync_token),
        "objects": sorted((_todo_of(o) for o in present), key=lambda t: t["url"]),
        "deleted": deleted,
    }


def multiget(calendar: str, urls: list[str]) -> dict[str, Any]:
    found = _calendar(calendar).calendar_multiget(urls)
    return {"todos": sorted((_todo_of(t) for t in found), key=lambda t: t["url"])}


COMMANDS = {fn.__name__: fn for fn in (connect, calendars, add, get, load, complete, edit, exclude, delete, todos,
                                        search, sync, multiget)}  # fmt: skip


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        name = command.pop("do")
        try:
            answer = {"ok": True, **COMMANDS[name](**command)}
        except (caldav_error.DAVError, Exception) as failure:  # the test reads the client's error class
            answer = {
                "ok": False,
                "error": type(failure).__name__,
                "message": str(failure)[:2000],
                "trace": traceback.format_exc()[-3000:],
            }
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
