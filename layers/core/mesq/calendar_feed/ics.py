"""The calendar feed document: a user's open, dated todos as iCalendar (RFC 5545), built with
the `icalendar` package.

What is in it (docs/decisions.md "Calendar feed"): every live, not-done root task, subtask and
inbox item with a `due`, as one VEVENT each (calendar apps show VEVENTs in their calendars;
Google Calendar ignores VTODO, Apple would put VTODOs in Reminders):
- a date-only due is an all-day event (`DTSTART;VALUE=DATE`);
- a datetime due is an instant (`DTSTART` without an end, RFC 5545 §3.6.1), in the task's
  `timezone` (with its VTIMEZONE) when it has one, else in the user's own zone when set
  (`auth/user_zone.py`; also the calendar's `X-WR-TIMEZONE`), else in UTC: a recurring 09:00
  steps in the zone it was meant in;
- `recurrence` becomes the event's RRULE, stepping from the current due (the next open
  occurrence); a `COUNT` is reduced by the occurrences already completed;
- each reminder becomes a VALARM (DISPLAY): relative ones trigger relative to the start,
  absolute ones at their UTC time;
- `UID` is stable per record (`<kind>-<id>@mesq`), `DTSTAMP` its last change, tags are
  CATEGORIES, notes the DESCRIPTION.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Alarm, Calendar, Event, vRecur

from ..kernel.i18n import N_, Translator
from ..kernel.ports.storage import Item
from ..kernel.timestamps import parse_timestamp, wall_clock
from ..kernel.values import without_controls
from ..todos.recurrence import EXCLUDED_COUNT
from ..todos.reminder_schedule import parse_offset

PRODID = "-//MeSQ//Todo calendar feed//EN"
#: The calendar's name in the subscribing app, in the person's language.
CALENDAR_NAME = N_("MeSQ todos")
REFRESH = "PT15M"


def _start(due: dict[str, Any], timezone: str | None) -> date | datetime:
    if due["type"] == "date":
        return date.fromisoformat(str(due["date"]))
    # wall_clock: a time the zone skips stays as written (RFC 5545 §3.3.5), as the series steps it.
    return wall_clock(str(due["at"]), ZoneInfo(timezone) if timezone else UTC)


def _rule(record: Item) -> vRecur | None:
    text = record.get("recurrence")
    if not text:
        return None
    rule: vRecur = vRecur.from_ical(str(text))
    # the rule's dates used: the completed occurrences and the excluded ones stepped past
    done = int(record.get("occurrenceCount") or 0) + int(record.get(EXCLUDED_COUNT) or 0)
    if "COUNT" in rule and done:
        rule["COUNT"] = [max(1, int(rule["COUNT"][0]) - done)]
    return rule


def _alarm(reminder: dict[str, Any], title: str) -> Alarm:
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", title)
    if reminder["type"] == "relative":
        alarm.add("trigger", parse_offset(str(reminder["offset"])))
    else:
        # RFC 5545 §3.8.6.3: an absolute trigger must say VALUE=DATE-TIME (icalendar leaves it out)
        moment = parse_timestamp(str(reminder["at"]), "at").astimezone(UTC)
        alarm.add("trigger", moment, parameters={"VALUE": "DATE-TIME"})
    return alarm


def event(kind: str, record: Item, user_zone: str | None = None) -> Event:
    """One dated todo record as a VEVENT; `user_zone` places a datetime due without a zone of its own."""
    vevent = Event()
    vevent.add("uid", f"{kind}-{record['id']}@mesq")
    vevent.add("dtstamp", parse_timestamp(str(record["updatedAt"]), "updatedAt").astimezone(UTC))
    vevent.add("summary", str(record["title"]))
    if record.get("notes"):
        vevent.add("description", str(record["notes"]))
    vevent.add("dtstart", _start(record["due"], record.get("timezone") or user_zone))
    if record.get("tags"):
        vevent.add("categories", [str(tag) for tag in record["tags"]])
    rule = _rule(record)
    if rule is not None:
        vevent.add("rrule", rule)
    for reminder in record.get("reminders") or ():
        vevent.add_component(_alarm(reminder, str(record["title"])))
    return vevent


def feed(records: Iterable[tuple[str, Item]], user_zone: str | None = None, language: str = "en") -> bytes:
    """The whole feed from (kind, record) pairs; records that are done, trashed or undated are
    left out. `user_zone`: the user's own zone (None: unset); `language`: the person's, which
    names the calendar. Control characters (C0 but tab, line feed and return; DEL) are left out:
    RFC 5545 TEXT cannot carry them, and notes made over REST may hold some."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", Translator(language).gettext(CALENDAR_NAME))
    calendar.add("x-published-ttl", REFRESH)
    if user_zone:
        calendar.add("x-wr-timezone", user_zone)
    for kind, record in records:
        if record.get("due") and not record.get("done") and record.get("deletedAt") is None:
            calendar.add_component(event(kind, record, user_zone))
    calendar.add_missing_timezones()
    return without_controls(bytes(calendar.to_ical()).decode("utf-8")).encode("utf-8")
