"""A task, subtask or inbox item as a calendar object (one VCALENDAR with one VTODO), built with
icalendar: each mapped group from the client's own lines while the record still holds the value
MeSQ read from them (its shadow) or the client asked MeSQ to keep them (`sync.kept`), else made
from the record; then the client's unmapped lines and RECURRENCE-ID overrides as they came; the
VTIMEZONEs its times name (each made once per process).

What MeSQ writes itself: UID (the client's, else the record id), DTSTAMP and LAST-MODIFIED (the
record's last change), CREATED; a recurring task without a client DTSTART gets DTSTART = DUE
(the series starts at the current occurrence).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Alarm, Calendar, Component, Timezone, Todo, vRecur
from icalendar.timezone import tzp

from ..kernel.ports.storage import Item
from ..kernel.timestamps import parse_timestamp, wall_clock
from ..kernel.values import without_controls
from ..todos.reminder_schedule import parse_offset
from ..todos.sync.links import RecordKind, uid_of
from .mapping import FROM_PRIORITY, GROUPS, same_value, tag_of
from .zones import own_timezones

PRODID = "-//MeSQ//CalDAV tasks//EN"
CONTENT_TYPE = "text/calendar; charset=utf-8; component=VTODO"


def _fragment(text: str, timezones: str = "") -> Component:
    """The client's own lines (properties and VALARMs), read back into a component; `timezones`:
    the app's own VTIMEZONEs its times are read with (a TZID the tz database lacks)."""
    with own_timezones():
        if not timezones:
            return Component.from_ical("BEGIN:VTODO\r\n" + text + "\r\nEND:VTODO")
        calendar = Calendar.from_ical(
            f"BEGIN:VCALENDAR\r\n{timezones}\r\nBEGIN:VTODO\r\n{text}\r\nEND:VTODO\r\nEND:VCALENDAR"
        )
        return next(c for c in calendar.subcomponents if c.name == "VTODO")


def _copy(todo: Component, text: str) -> None:
    if not text:
        return
    fragment = _fragment(text)
    for name, value in fragment.property_items(recursive=False):
        if name not in ("BEGIN", "END"):
            todo.add(name, value, encode=False)
    for component in fragment.subcomponents:
        todo.add_component(component)


def _instant(due: dict[str, Any], timezone: str | None) -> date | datetime:
    if due["type"] == "date":
        return date.fromisoformat(str(due["date"]))
    # wall_clock: a time the zone skips stays as written (RFC 5545 §3.3.5), as the series steps it.
    return wall_clock(str(due["at"]), ZoneInfo(timezone) if timezone else UTC)


def shown_zone(record: Item, user_zone: str | None) -> str | None:
    """The zone a record's datetime due is written in: its own; for a recurring task without one,
    the user's, which MeSQ steps it in (`todos.recurrence.advanced`: a daily 09:00 stays 09:00
    across a DST change), so the app expands its RRULE the same way; else none (UTC)."""
    return record.get("timezone") or (user_zone if record.get("recurrence") else None)


def _add_due(todo: Todo, record: Item, shadow: dict[str, Any] | None, user_zone: str | None = None) -> None:
    due = record.get("due")
    zone = shown_zone(record, user_zone)
    timezones = str(((record.get("sync") or {}).get("props") or {}).get("timezones") or "")
    if due is None:
        start = _client_start(shadow, timezones)  # the app's start date stays when MeSQ cleared the due
        if start is not None:
            todo.add("dtstart", start)
        return
    instant = _instant(due, zone)
    todo.add("due", instant)
    start = _shifted_start(shadow, instant, zone, timezones)
    if start is None and record.get("recurrence"):
        start = instant
    if start is not None:
        todo.add("dtstart", start)


def _client_start(shadow: dict[str, Any] | None, timezones: str = "") -> date | datetime | None:
    """The DTSTART the app wrote in its due lines (None: it wrote none, or none that reads)."""
    if not shadow or "DTSTART" not in str(shadow.get("ical") or ""):
        return None
    try:
        start = _fragment(str(shadow["ical"]), timezones).decoded("DTSTART")
    except (ValueError, TypeError, KeyError):
        return None
    return start if isinstance(start, date) else None


def _aware(moment: datetime, reference: datetime) -> datetime:
    """A floating (naive) time placed in `reference`'s zone, so it compares with aware times."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=reference.tzinfo or UTC)


def _shifted_start(
    shadow: dict[str, Any] | None, instant: date | datetime, timezone: str | None, timezones: str = ""
) -> Any:
    """The client's DTSTART moved by as much as its due moved (a recurring task advanced, a due
    changed elsewhere), so its start-to-due span stays; a start the app gave without a due stays
    where it was. A floating DTSTART stays floating (shifted in the wall clock of the due it had),
    and a start after the new due becomes the due."""
    old_start = _client_start(shadow, timezones)
    if old_start is None or isinstance(old_start, datetime) != isinstance(instant, datetime):
        return None
    start = old_start
    value = (shadow or {}).get("value")
    try:
        if value:
            old_due = _instant(value, timezone)
            if isinstance(old_due, datetime) != isinstance(instant, datetime):
                return None
            if isinstance(old_start, datetime) and isinstance(old_due, datetime) and old_start.tzinfo is None:
                # the floating start was read in the zone the due was written in: its offset
                written = datetime.fromisoformat(str(value["at"]).replace("Z", "+00:00"))
                old_due = old_due.astimezone(written.tzinfo).replace(tzinfo=None)
                start = old_start + (instant.astimezone(written.tzinfo).replace(tzinfo=None) - old_due)  # type: ignore[union-attr]
            else:
                start = old_start + (instant - old_due)  # type: ignore[operator]
        if isinstance(start, datetime) and isinstance(instant, datetime):
            return start if _aware(start, instant) <= instant else instant
        return start if start <= instant else instant
    except (ValueError, TypeError, KeyError, OverflowError):
        return None


def _add_alarm(todo: Todo, reminder: dict[str, Any], title: str) -> None:
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", title)
    if reminder["type"] == "relative":
        alarm.add("trigger", parse_offset(str(reminder["offset"])), parameters={"RELATED": "END"})
    else:
        # RFC 5545 §3.8.6.3: VALUE=DATE-TIME is required on an absolute trigger (icalendar omits it)
        moment = parse_timestamp(str(reminder["at"]), "at").astimezone(UTC)
        alarm.add("trigger", moment, parameters={"VALUE": "DATE-TIME"})
    todo.add_component(alarm)


def _generators(
    record: Item, parent_uid: str | None, shadows: dict[str, Any], user_zone: str | None = None
) -> dict[str, Callable[[Todo], None]]:
    def when_done(todo: Todo) -> None:
        if record.get("done") and record.get("completedAt"):
            todo.add("completed", parse_timestamp(str(record["completedAt"]), "completedAt").astimezone(UTC))

    def categories(todo: Todo) -> None:
        if record.get("tags"):
            own = _apps_categories(shadows.get("tags"))
            todo.add("categories", [own.get(str(tag), str(tag)) for tag in record["tags"]])

    def alarms(todo: Todo) -> None:
        # The app's own block for each reminder MeSQ did not change (its UID, ACKNOWLEDGED...) and
        # for each alarm MeSQ cannot deliver; MeSQ's own VALARM only for a reminder it added.
        # An app's absolute alarm MeSQ moved (a repeating task's, with its due: recurrence.
        # moved_reminders) keeps its block at the new time, paired in order with the absolute
        # reminders no block names, so the app sees its own alarm moved, not replaced.
        remaining = list(record.get("reminders") or ())
        blocks = _apps_alarms(shadows.get("reminders"))
        hits = []
        for value, _block in blocks:
            hit = next((i for i, r in enumerate(remaining) if same_value(value, r)), None)
            hits.append(None if hit is None else remaining.pop(hit))
        for (value, block), hit in zip(blocks, hits, strict=True):
            if value is None or hit is not None:
                _copy(todo, block)
            elif isinstance(value, dict) and value.get("type") == "absolute":
                moved = next((i for i, r in enumerate(remaining) if r.get("type") == "absolute"), None)
                if moved is not None:
                    _copy(todo, _retimed(block, remaining.pop(moved)))
        for reminder in remaining:
            _add_alarm(todo, reminder, str(record["title"]))

    return {
        "title": lambda todo: todo.add("summary", str(record["title"])),
        "notes": lambda todo: todo.add("description", str(record["notes"])) if record.get("notes") else None,
        "due": lambda todo: _add_due(todo, record, shadows.get("due"), user_zone),
        "priority": lambda todo: (
            todo.add("priority", FROM_PRIORITY[str(record["priority"])])
            if record.get("priority", "none") != "none"
            else None
        ),
        "status": lambda todo: todo.add("status", "COMPLETED" if record.get("done") else "NEEDS-ACTION"),
        "completed": when_done,
        "tags": categories,
        "recurrence": lambda todo: (
            todo.add("rrule", vRecur.from_ical(str(record["recurrence"]))) if record.get("recurrence") else None
        ),
        "parentUid": lambda todo: (
            todo.add("related-to", parent_uid, parameters={"RELTYPE": "PARENT"}) if parent_uid else None
        ),
        "reminders": alarms,
    }


_ALARM_BLOCK = re.compile(r"BEGIN:VALARM\r\n.*?\r\nEND:VALARM", re.DOTALL)


def _retimed(block: str, reminder: dict[str, Any]) -> str:
    """The app's VALARM block at `reminder`'s time: its TRIGGER an absolute UTC time, and no
    ACKNOWLEDGED (dismissing the old time must not silence the new one: RFC 9074 §6)."""
    moment = parse_timestamp(str(reminder["at"]), "at").astimezone(UTC)
    kept: list[str] = []
    dropping = False
    for line in block.split("\r\n"):
        if line[:1] in (" ", "\t"):  # a folded line's continuation goes with its line
            if not dropping:
                kept.append(line)
            continue
        name = re.split(r"[;:]", line, maxsplit=1)[0].upper()
        dropping = name in ("TRIGGER", "ACKNOWLEDGED")
        if name == "TRIGGER":
            kept.append(f"TRIGGER;VALUE=DATE-TIME:{moment:%Y%m%dT%H%M%SZ}")
        elif not dropping:
            kept.append(line)
    return "\r\n".join(kept)


def _apps_alarms(shadow: dict[str, Any] | None) -> list[tuple[Any, str]]:
    """The app's VALARM blocks with the reminder each is (`each`, ical_in), in its order; none
    for a copy stored before `each` was (MeSQ then writes every reminder its way)."""
    each = (shadow or {}).get("each")
    if not isinstance(each, list):
        return []
    blocks = _ALARM_BLOCK.findall(str((shadow or {}).get("ical") or ""))
    return list(zip(each, blocks, strict=False)) if len(blocks) == len(each) else []


def _apps_categories(shadow: dict[str, Any] | None) -> dict[str, str]:
    """tag -> the category the app last wrote for it ("Keep Me" for Keep-Me), so the tags MeSQ
    did not change keep the app's spelling when another one changed."""
    text = str((shadow or {}).get("ical") or "")
    if not text:
        return {}
    try:
        todo = Todo.from_ical("BEGIN:VTODO\r\n" + text + "\r\nEND:VTODO")
    except (ValueError, KeyError, IndexError):  # what the app sent read once; else MeSQ's spelling
        return {}
    found = todo.get("categories") if isinstance(todo, Todo) else None
    groups = found if isinstance(found, list) else [found] if found is not None else []
    own: dict[str, str] = {}
    for category in (str(c) for group in groups for c in getattr(group, "cats", ())):
        tag = tag_of(category)
        if tag is not None:
            own.setdefault(tag, category)
    return own


def current_values(record: Item, parent_uid: str | None) -> dict[str, Any]:
    """Each group's value as the record holds it (what a shadow is compared with)."""
    done = bool(record.get("done"))
    return {
        "title": record.get("title"), "notes": record.get("notes") or "", "due": record.get("due"),
        "priority": record.get("priority") or "none", "status": done,
        "completed": record.get("completedAt") if done else None, "tags": list(record.get("tags") or []),
        "recurrence": record.get("recurrence"), "parentUid": parent_uid,
        "reminders": list(record.get("reminders") or []),
    }  # fmt: skip


def group_lines(group: str, record: Item, parent_uid: str | None, user_zone: str | None = None) -> list[str]:
    """The content lines (and VALARM blocks) MeSQ writes for one group of a record."""
    todo = Todo()
    _generators(record, parent_uid, {}, user_zone)[group](todo)
    lines = [
        todo.content_line(name, value).to_ical().decode("utf-8")
        for name, value in todo.property_items(recursive=False)
        if name not in ("BEGIN", "END")
    ]
    return lines + [component.to_ical().decode("utf-8").strip() for component in todo.subcomponents]


def digest(value: Any) -> str:
    """A short fingerprint of a group's value (what `faithful` compares)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def faithful(record: Item, parent_uid: str | None) -> bool:
    """The client's own bytes are still this record: it wrote the current revision, and every
    value MeSQ read from them is the record's (no recurrence moved on, nothing cut)."""
    needed = _faithful_with_parent(record)
    return needed if isinstance(needed, bool) else needed == digest(parent_uid)


def _faithful_with_parent(record: Item) -> bool | str:
    """`faithful` before the parent's UID is known: a bool when that UID does not decide it, else
    the digest it must have (what the app wrote as RELATED-TO, unless MeSQ changed the parent)."""
    link = record.get("sync") or {}
    props: dict[str, Any] = link.get("props") or {}
    digests: dict[str, str] = props.get("digests") or {}
    if not props.get("raw") or link.get("revision") != record.get("revision") or not digests:
        return False
    kept = set(link.get("kept") or ())
    values = current_values(record, None)
    others = [group for group in GROUPS if group not in kept and group != "parentUid"]
    if not all(digests.get(group) == digest(values[group]) for group in others):
        return False
    if "parentUid" in kept:
        return True
    return str(digests["parentUid"]) if digests.get("parentUid") is not None else False


def _apps_lines_kept(group: str, shadows: dict[str, Any], kept: set[str], values: dict[str, Any]) -> bool:
    """A group is written as the app's own lines (its shadow) rather than made from the record."""
    shadow = shadows.get(group)
    return shadow is not None and (group in kept or same_value(shadow.get("value"), values[group]))


def render(
    kind: RecordKind,
    record: Item,
    parent_uid: str | None = None,
    *,
    timezones: bool = True,
    user_zone: str | None = None,
) -> Calendar:
    """The calendar object of a record; `timezones=False` leaves out the VTIMEZONEs (what a
    filter reads needs none: its times carry their zones)."""
    link = record.get("sync") or {}
    props: dict[str, Any] = link.get("props") or {}
    shadows: dict[str, Any] = props.get("shadows") or {}
    kept = set(link.get("kept") or ())
    values = current_values(record, parent_uid)
    todo = Todo()
    todo.add("uid", uid_of(record))
    changed = parse_timestamp(str(record["updatedAt"]), "updatedAt").astimezone(UTC)
    todo.add("dtstamp", changed)
    todo.add("created", parse_timestamp(str(record["createdAt"]), "createdAt").astimezone(UTC))
    todo.add("last-modified", changed)
    generators = _generators(record, parent_uid, shadows, user_zone)
    for group in GROUPS:
        if _apps_lines_kept(group, shadows, kept, values):
            _copy(todo, str(shadows[group].get("ical") or ""))
        else:
            generators[group](todo)
    _copy(todo, str(props.get("ical") or ""))
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add_component(todo)
    if props.get("overrides"):
        with own_timezones():
            overrides = Calendar.from_ical("BEGIN:VCALENDAR\r\n" + props["overrides"] + "\r\nEND:VCALENDAR")
        for override in overrides.walk("VTODO"):
            calendar.add_component(override)
    if timezones:
        own = _own_timezones(str(props.get("timezones") or ""))
        for tzid in sorted(calendar.get_missing_tzids()):
            found = vtimezone_of(tzid) or own.get(tzid)
            if found is not None:
                calendar.subcomponents.insert(0, found)
    return calendar


def _own_timezones(text: str) -> dict[str, Component]:
    """The app's own VTIMEZONEs (of zones the tz database does not know), by TZID."""
    if not text:
        return {}
    try:
        with own_timezones():
            kept = Calendar.from_ical("BEGIN:VCALENDAR\r\n" + text + "\r\nEND:VCALENDAR")
    except (ValueError, KeyError, IndexError):  # what the app sent read; anything else is no zone
        return {}
    return {str(c["TZID"]): c for c in kept.subcomponents if c.name == "VTIMEZONE" and "TZID" in c}


@functools.lru_cache(maxsize=128)
def vtimezone_of(tzid: str) -> Timezone | None:
    """The VTIMEZONE of a zone the tz database knows (an IANA name, or a Windows name icalendar
    maps to one), made once per process: icalendar walks the zone's offsets hour by hour from
    1970 to 2038 to make one (~20 ms), which a listing of 500 tasks would pay 500 times. None for
    any other name: only the object that defined it has its VTIMEZONE (zones.py)."""
    with own_timezones():
        if not isinstance(tzp.timezone(tzid), ZoneInfo):
            return None
        try:
            return Timezone.from_tzid(tzid)
        except ValueError:
            return None


def body_of(calendar: Calendar) -> bytes:
    return bytes(calendar.to_ical())


def body(kind: RecordKind, record: Item, parent_uid: str | None = None, user_zone: str | None = None) -> bytes:
    """What a GET answers: the client's own bytes while they are still the record, else the
    record rendered; without control characters either way (a title made over REST may hold
    one, and RFC 5545 TEXT may not)."""
    if faithful(record, parent_uid):
        return without_controls(str(record["sync"]["props"]["raw"])).encode("utf-8")
    rendered = render(kind, record, parent_uid, user_zone=user_zone)
    return without_controls(body_of(rendered).decode("utf-8")).encode("utf-8")


def todo_of(calendar: Calendar) -> Component:
    return next(c for c in calendar.subcomponents if c.name == "VTODO" and "RECURRENCE-ID" not in c)


#: Hex digits of a zone's mark: every name of the zone database has its own (a test checks).
ZONE_MARK_CHARS = 8


def zone_mark(zone: str | None) -> str:
    """A short fingerprint of the user's zone ("" while none is set): what an ETag, the CTag and a
    sync token carry so that a switch of zone, which writes no change record, still moves them."""
    return "" if zone is None else hashlib.sha256(zone.encode("utf-8")).hexdigest()[:ZONE_MARK_CHARS]


def depends_on_zone(record: Item, parent_uid: str | None) -> bool:
    """The body MeSQ writes for this record changes with the user's zone: a timed due that MeSQ
    writes itself (not the app's own lines) in the user's zone (`shown_zone`)."""
    return zoned_given(zone_dependence(record), parent_uid)


def zone_dependence(record: Item) -> bool | str:
    """`depends_on_zone` from the record alone: a bool, or, when the answer turns on its task's UID
    (a recurring subtask the app wrote), the digest that UID must have for the body to be the app's
    own (`zoned_given`): a listing decides it once it knows the UIDs, without reading it again."""
    due = record.get("due")
    if due is None or due.get("type") == "date" or record.get("timezone") or not record.get("recurrence"):
        return False  # a date, a time in the task's own zone, or one written in UTC
    link = record.get("sync") or {}
    shadows: dict[str, Any] = (link.get("props") or {}).get("shadows") or {}
    if _apps_lines_kept("due", shadows, set(link.get("kept") or ()), {"due": due}):
        return False
    needed = _faithful_with_parent(record)
    return not needed if isinstance(needed, bool) else needed


def zoned_given(dependence: bool | str, parent_uid: str | None) -> bool:
    """What `zone_dependence` left open, decided with the parent's UID."""
    return dependence if isinstance(dependence, bool) else dependence != digest(parent_uid)


def etag(record: Item, parent_uid: str | None, user_zone: str | None, zoned: bool | None = None) -> str:
    """A record's version: its id and revision (a name reused by a new record never repeats one),
    and, when its body is written in the user's zone, that zone's mark (a GET after a switch of
    zone answers a new ETag, and an If-Match naming the old one is refused). `zoned`: whether it
    is, when the caller knows (a listing decided it from the whole record: dav/members.py)."""
    zoned = depends_on_zone(record, parent_uid) if zoned is None else zoned
    mark = zone_mark(user_zone) if zoned else ""
    return f'"{record["id"]}-{record["revision"]}' + (f"-z{mark}" if mark else "") + '"'


def names_etag(given: str, current: str) -> bool:
    """An If-Match entry names the current ETag. A weak ETag (`W/"..."`) never does: If-Match
    compares strongly (RFC 7232 3.1), and MeSQ gives out strong ones only."""
    text = given.strip()
    return not text.startswith("W/") and text.strip('"') == current.strip('"')


def calendar_timezone(zone: str | None) -> str:
    """A collection's `CALDAV:calendar-timezone` (RFC 4791 §5.2.2): an iCalendar object holding
    the VTIMEZONE of the zone its dates and floating times are read in (the user's, else UTC)."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    found = vtimezone_of(zone or "UTC") or vtimezone_of("UTC")
    if found is not None:
        calendar.add_component(found)
    return body_of(calendar).decode("utf-8")
