"""A PUT body read as one task: the calendar object checked whole before anything is written,
then the master VTODO mapped to MeSQ's fields (mapping.py) and everything else kept for the
client.

Refused with a 4xx and a one-line reason (nothing is written): a body over MAX_OBJECT_BYTES,
not UTF-8 or not iCalendar, more than MAX_COMPONENTS components or MAX_ALARMS alarms, an event
or journal (this calendar holds tasks), no VTODO or VTODOs of different UIDs, no UID, a PRIORITY
outside 0..9, more than one RRULE or a frequency MeSQ does not repeat by, a DESCRIPTION longer
than a task's notes. A SUMMARY longer than a title is cut for MeSQ; the client keeps its own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Calendar, Component

from ..kernel import graphemes
from ..kernel.errors import ValidationError
from ..kernel.messages import quoted
from ..kernel.timestamps import format_timestamp, parse_zone
from ..kernel.values import without_controls
from ..todos.model import NOTES_MAX, TITLE_MAX
from ..todos.recurrence import FREQUENCIES
from ..todos.sync.links import EXCLUDED_DATES, MAX_PROPS_BYTES
from .errors import DavError
from .ical_out import digest, group_lines, vtimezone_of
from .mapping import (
    GENERATED,
    GROUP_PROPERTIES,
    MAPPED,
    exdate_values,
    offset_text,
    priority_of,
    tags_of,
    values_of,
)
from .xml import CALDAV
from .zones import check_rules, own_timezones

MAX_OBJECT_BYTES = 256 * 1024
MAX_COMPONENTS = 64
MAX_ALARMS = 5
_BEGIN = re.compile(rb"^BEGIN:", re.IGNORECASE | re.MULTILINE)
_FOLD = re.compile(rb"\r?\n[ \t]")
_ALARM = re.compile(rb"^BEGIN:VALARM", re.IGNORECASE | re.MULTILINE)
_NOT_TASKS = frozenset({"VEVENT", "VJOURNAL", "VFREEBUSY", "VAVAILABILITY"})
#: What a VTODO holds at most once (RFC 5545 3.6.2): icalendar reads a repeated one as a list,
#: which would become a title like "[vText(b'one'), vText(b'two')]".
_AT_MOST_ONCE = (
    "CLASS", "COMPLETED", "CREATED", "DESCRIPTION", "DTSTAMP", "DTSTART", "GEO", "LAST-MODIFIED",
    "LOCATION", "ORGANIZER", "PERCENT-COMPLETE", "PRIORITY", "RECURRENCE-ID", "SEQUENCE", "STATUS",
    "SUMMARY", "UID", "URL", "DUE", "DURATION",
)  # fmt: skip


@dataclass
class Incoming:
    uid: str
    fields: dict[str, Any]
    #: The client's own data (the record's `sync.props`): `ical` its unmapped VTODO lines,
    #: `overrides` its RECURRENCE-ID components, `shadows` per group {value, ical}.
    props: dict[str, Any] = field(default_factory=dict)


def _invalid(reason: str) -> DavError:
    return DavError(400, reason, (CALDAV, "valid-calendar-data"))


def read_vtodo(body: bytes, floating_zone: str | None, untitled: str = "(untitled)") -> Incoming:
    """`floating_zone`: what a time without a zone is read in; `untitled`: the title of a task
    sent without a SUMMARY (in the person's language)."""
    if len(body) > MAX_OBJECT_BYTES:
        raise DavError(413, f"a task is at most {MAX_OBJECT_BYTES} bytes of iCalendar", (CALDAV, "max-resource-size"))
    if len(_BEGIN.findall(body)) > MAX_COMPONENTS:
        raise _invalid(f"the object has more than {MAX_COMPONENTS} components")
    if len(_ALARM.findall(body)) > MAX_ALARMS:
        raise _invalid(f"a task has at most {MAX_ALARMS} alarms (VALARM)")
    sent = _decoded(body)
    text = without_controls(sent)  # RFC 5545 TEXT holds none, and XML could not carry them
    with own_timezones():  # its TZIDs read by its own VTIMEZONEs, never another object's
        try:
            calendar = Calendar.from_ical(text)
        except Exception as error:  # icalendar raises ValueError, KeyError, IndexError... on bad input
            raise _invalid(f"not valid iCalendar: {_short(error)}") from None
        if not isinstance(calendar, Calendar) or calendar.name != "VCALENDAR":
            raise _invalid("the body must be one VCALENDAR")
        _check_own_zones(calendar)
        todos = _todos(calendar)
        master = todos[0]
        try:
            incoming = _mapped(master, todos[1:], floating_zone, untitled)
            own = _own_vtimezones(calendar)
            if own:  # written back beside the app's lines that name them (ical_out.render)
                incoming.props["timezones"] = own
        except DavError:
            raise
        except Exception as error:  # a property icalendar could not decode
            raise _invalid(f"not valid iCalendar: {_short(error)}") from None
    # Bytes cleaned of controls are not the client's: no raw copy, so PUT answers no ETag.
    return with_raw(incoming, body) if text == sent and sent.encode("utf-8") == body else incoming


def _check_own_zones(calendar: Calendar) -> None:
    """Each VTIMEZONE of a zone the tz database does not know has rules read at a bounded cost
    (zones.check_rules): its times are read by walking them, an hourly one for 20 s a time."""
    for zone in calendar.subcomponents:
        if zone.name == "VTIMEZONE" and "TZID" in zone and vtimezone_of(str(zone["TZID"])) is None:
            try:
                check_rules(zone)
            except ValueError as error:
                raise _invalid(f"VTIMEZONE {quoted(str(zone['TZID'])[:60])}: {error}") from None


def _own_vtimezones(calendar: Calendar) -> str:
    """The object's VTIMEZONEs of zones the tz database does not know (MeSQ could not write
    them again): kept, so the app's own lines that name them still have their definition."""
    own = [
        c.to_ical().decode("utf-8").strip()
        for c in calendar.subcomponents
        if c.name == "VTIMEZONE" and "TZID" in c and vtimezone_of(str(c["TZID"])) is None
    ]
    return "\r\n".join(own)


def _decoded(body: bytes) -> str:
    """The body as text, without a leading byte order mark (Windows editors write one). A line
    folded at 75 octets inside a UTF-8 character (RFC 5545 3.1 lets simple writers do it, and
    asks readers to restore the sequence) is unfolded as bytes first; such text is then not the
    client's bytes, so no raw copy is kept for it."""
    try:
        return body.decode("utf-8").removeprefix("\ufeff")  # a byte order mark is no content line
    except UnicodeDecodeError:
        pass
    try:
        return _FOLD.sub(b"", body).decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise _invalid(f"the body is not UTF-8 (byte {error.start})") from None


def _short(error: Exception) -> str:
    if isinstance(error, OSError):  # the tz database's file lookup of a TZID: never the server's paths
        return "a TZID names no time zone file"
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:160]


def _todos(calendar: Calendar) -> list[Component]:
    """The master VTODO first, then its RECURRENCE-ID overrides."""
    todos: list[Component] = []
    for component in calendar.subcomponents:
        if component.name in _NOT_TASKS:
            raise DavError(
                403,
                f"this calendar holds tasks (VTODO) only, not {component.name}",
                (CALDAV, "supported-calendar-component"),
            )
        if component.name == "VTODO":
            todos.append(component)
        elif component.name != "VTIMEZONE":
            raise _invalid(f"{component.name} is not a component of a task object")
    if not todos:
        raise _invalid("the object holds no VTODO")
    for todo in todos:
        _check_properties(todo)
    uids = {str(todo.get("UID", "")) for todo in todos}
    if len(uids) != 1 or not next(iter(uids)).strip():
        raise _invalid("every VTODO of one object needs the same, non-empty UID")
    masters = [todo for todo in todos if "RECURRENCE-ID" not in todo]
    if len(masters) != 1:
        raise _invalid("the object needs exactly one VTODO without RECURRENCE-ID")
    return [masters[0], *(todo for todo in todos if "RECURRENCE-ID" in todo)]


def _check_properties(todo: Component) -> None:
    for name in _AT_MOST_ONCE:
        if len(values_of(todo, name)) > 1:
            raise _invalid(f"{name} occurs more than once in a VTODO (RFC 5545 3.6.2)")
    for name, value in todo.property_items(recursive=False):
        tzid = (getattr(value, "params", None) or {}).get("TZID")
        moment = getattr(value, "dt", None)
        # icalendar leaves a time naive when its TZID is neither a zone it knows nor a VTIMEZONE
        # of the object; read as floating it would silently be another instant.
        if tzid and isinstance(moment, datetime) and moment.tzinfo is None:
            raise _invalid(f"{name}: TZID {quoted(str(tzid)[:60])} is not a known time zone and has no VTIMEZONE")


def _line(todo: Component, name: str, value: Any) -> str:
    return str(todo.content_line(name, value).to_ical().decode("utf-8"))


def _is_parent_link(value: Any) -> bool:
    return str(getattr(value, "params", {}).get("RELTYPE", "PARENT")).upper() == "PARENT"


def _mapped(todo: Component, overrides: list[Component], floating_zone: str | None, untitled: str) -> Incoming:
    lines: dict[str, list[str]] = {group: [] for group in (*GROUP_PROPERTIES, "reminders")}
    unknown: list[str] = []
    for name, value in todo.property_items(recursive=False):
        if name in ("BEGIN", "END") or name in GENERATED:
            continue
        group = next((g for g, names in GROUP_PROPERTIES.items() if name in names), None)
        if name == "RELATED-TO" and not _is_parent_link(value):
            group = None
        if group is None or name not in MAPPED:
            unknown.append(_line(todo, name, value))
        else:
            lines[group].append(_line(todo, name, value))
    alarms = [c for c in todo.subcomponents if c.name == "VALARM"]
    for component in todo.subcomponents:
        if component.name != "VALARM":
            unknown.append(component.to_ical().decode("utf-8").strip())
    lines["reminders"] = [alarm.to_ical().decode("utf-8").strip() for alarm in alarms]

    due, zone = _due(todo, floating_zone)
    done = str(todo.get("STATUS", "")).upper() == "COMPLETED" or ("COMPLETED" in todo and "STATUS" not in todo)
    fields: dict[str, Any] = {
        "title": _title(todo, untitled),
        "notes": _notes(todo),
        "due": due,
        "priority": _priority(todo),
        "done": done,
        "completedAt": _completed(todo) if done else None,
        "tags": tags_of(_categories(todo)),
        "recurrence": _rule(todo, due, zone or floating_zone),
        "parentUid": next((str(v) for v in values_of(todo, "RELATED-TO") if _is_parent_link(v)), None),
        "reminders": _reminders(alarms, todo, due, zone or floating_zone),
    }
    if zone is not None:
        fields["timezone"] = zone
    values = {
        "title": fields["title"], "notes": fields["notes"], "due": due, "priority": fields["priority"],
        "status": done, "completed": fields["completedAt"], "tags": fields["tags"],
        "recurrence": fields["recurrence"], "parentUid": fields["parentUid"], "reminders": fields["reminders"],
    }  # fmt: skip
    shadows = _shadows(lines, values, fields, floating_zone)
    if "reminders" in shadows:
        shadows["reminders"]["each"] = _each_alarm(alarms, todo, due, zone or floating_zone)
    props: dict[str, Any] = {
        "shadows": shadows,
        "digests": {group: digest(value) for group, value in values.items()},
    }
    if unknown:
        props["ical"] = "\r\n".join(unknown)
    # a floating EXDATE in the due's zone, else the one floating times are read in
    excluded = exdate_values(todo, ZoneInfo(zone or floating_zone or "UTC"), strict=True)
    if excluded:  # read where the next due is computed (todos.sync.links.excluded_dates)
        props[EXCLUDED_DATES] = excluded
    if overrides:
        props["overrides"] = "\r\n".join(o.to_ical().decode("utf-8").strip() for o in overrides)
    return Incoming(uid=str(todo["UID"]), fields=fields, props=props)


#: Groups whose client lines are always kept: a record may be unable to hold them (`sync.kept`).
_ALWAYS_KEPT = frozenset({"recurrence", "reminders", "parentUid"})


def _shadows(
    lines: dict[str, list[str]], values: dict[str, Any], fields: dict[str, Any], user_zone: str | None = None
) -> dict[str, Any]:
    """The client's lines of each group that MeSQ would not write back the same from the value
    it read (a PRIORITY of 3, a category with a space, a DTSTART, an alarm's own UID...)."""
    as_record = {**fields, "timezone": fields.get("timezone"), "id": "", "revision": 0}
    shadows: dict[str, Any] = {}
    for group, found in lines.items():
        if not found:
            continue
        if group not in _ALWAYS_KEPT and sorted(found) == sorted(
            group_lines(group, as_record, values["parentUid"], user_zone)
        ):
            continue
        shadows[group] = {"value": values[group], "ical": "\r\n".join(found)}
    return shadows


def with_raw(incoming: Incoming, body: bytes) -> Incoming:
    """The client's own bytes kept too, when they fit beside the rest: GET gives them back
    unchanged (and PUT answers an ETag) while nothing but the client changed the task."""
    props = {**incoming.props, "raw": body.decode("utf-8")}
    size = len(json.dumps(props, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return Incoming(incoming.uid, incoming.fields, props) if size <= MAX_PROPS_BYTES else incoming


def _title(todo: Component, untitled: str) -> str:
    text = " ".join(str(todo.get("SUMMARY", "")).split())
    return graphemes.cut(text or untitled, TITLE_MAX)  # never half a joined emoji


def _notes(todo: Component) -> str:
    text = str(todo.get("DESCRIPTION", ""))
    if len(text) > NOTES_MAX:
        raise _invalid(f"DESCRIPTION has {len(text)} characters; a task's notes hold at most {NOTES_MAX}")
    return text


def _priority(todo: Component) -> str:
    if "PRIORITY" not in todo:
        return "none"
    try:
        return priority_of(int(todo.decoded("PRIORITY")))
    except (TypeError, ValueError):
        raise _invalid(f"PRIORITY must be 0..9, not {quoted(str(todo.get('PRIORITY'))[:20])}") from None


def _categories(todo: Component) -> list[str]:
    found: list[str] = []
    for value in values_of(todo, "CATEGORIES"):
        found += [str(cat) for cat in getattr(value, "cats", [value])]
    return found


def _rule(todo: Component, due: dict[str, Any] | None, zone: str | None) -> str | None:
    rules = values_of(todo, "RRULE")
    if not rules:
        return None
    if len(rules) > 1:
        raise _invalid("a task repeats by one RRULE")
    text = str(rules[0].to_ical().decode("ascii")).upper()
    frequency = next((part[5:] for part in text.split(";") if part.startswith("FREQ=")), "")
    if frequency not in FREQUENCIES:
        raise _invalid(f"RRULE FREQ={frequency or '?'}: MeSQ repeats tasks {', '.join(FREQUENCIES).lower()}")
    return ";".join(_until_like_due(part, due, zone) for part in text.split(";"))


_UNTIL = re.compile(r"UNTIL=(\d{8})(?:T(\d{6})(Z?))?")


def _until_like_due(part: str, due: dict[str, Any] | None, zone: str | None) -> str:
    """An UNTIL of the due's kind (RFC 5545 3.3.10 asks the same value type as the start, and UTC
    for a zoned one): apps write a date UNTIL on a timed task, or a floating one (Tasks.org's
    "repeat until" is a date), which the rule reader refuses. A date becomes the end of that day,
    and a floating time that time, in the due's zone; on a date due a time becomes its date. The
    app's own RRULE line is kept and given back unchanged."""
    found = _UNTIL.fullmatch(part)
    if found is None or due is None:
        return part
    day, clock, utc = found.groups()
    if due["type"] == "date":
        return f"UNTIL={day}" if clock else part
    if utc:
        return part
    local = datetime.strptime(day + (clock or "235959"), "%Y%m%d%H%M%S")
    written = datetime.fromisoformat(str(due["at"]).replace("Z", "+00:00")).tzinfo
    try:
        moment = local.replace(tzinfo=ZoneInfo(zone) if zone else written).astimezone(UTC)
    except (ValueError, OverflowError, KeyError):
        return part
    return f"UNTIL={moment:%Y%m%dT%H%M%SZ}"


def _completed(todo: Component) -> str | None:
    if "COMPLETED" not in todo:
        return None
    moment = todo.decoded("COMPLETED")
    if not isinstance(moment, datetime):
        return None
    return format_timestamp(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def zone_name(zone: tzinfo | None) -> str | None:
    """The IANA name of a datetime's zone, when it has one the tz database knows."""
    name = getattr(zone, "key", None) or getattr(zone, "zone", None)
    if not isinstance(name, str):
        return None
    try:
        parse_zone(name, "TZID")
    except ValidationError:
        return None
    return name


def _moment(value: date | datetime, floating_zone: str | None) -> datetime:
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=ZoneInfo(floating_zone or "UTC"))
    return value if value.tzinfo else value.replace(tzinfo=ZoneInfo(floating_zone or "UTC"))


def _due(todo: Component, floating_zone: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """(MeSQ due, the IANA zone the client named) from DUE, else DTSTART + DURATION."""
    value: Any = todo.decoded("DUE") if "DUE" in todo else None
    if value is None and "DTSTART" in todo and "DURATION" in todo:
        start, length = todo.decoded("DTSTART"), todo.decoded("DURATION")
        value = start + length if isinstance(length, timedelta) else None
    if value is None:
        return None, None
    if not isinstance(value, datetime):
        return {"type": "date", "date": value.isoformat()}, None
    moment = _moment(value, floating_zone)
    zone = zone_name(value.tzinfo) if value.tzinfo else None
    if zone in ("UTC", "Etc/UTC") or (zone is None and moment.utcoffset() == timedelta(0)):
        return {"type": "datetime", "at": format_timestamp(moment)}, None
    return {"type": "datetime", "at": moment.isoformat(timespec="seconds")}, zone


def _due_moment(due: dict[str, Any] | None, zone: str | None) -> datetime | None:
    if due is None:
        return None
    if due["type"] == "date":
        return _moment(date.fromisoformat(due["date"]), zone)
    return datetime.fromisoformat(due["at"].replace("Z", "+00:00"))


def _reminders(
    alarms: list[Component], todo: Component, due: dict[str, Any] | None, zone: str | None
) -> list[dict[str, Any]]:
    """The alarms MeSQ can deliver: an absolute time, or an offset from the due (RELATED=END, or
    from DTSTART converted to one from the due). An offset without a due is left to the client."""
    found: list[dict[str, Any]] = []
    due_at = _due_moment(due, zone)
    start = _moment(todo.decoded("DTSTART"), zone) if "DTSTART" in todo else None
    for alarm in alarms:
        reminder = _reminder(alarm, due_at, start)
        if reminder is not None:
            found.append(reminder)
    return found


#: What makes an alarm a place's, not a time's (RFC 9074 §8; Apple's own name before it): its
#: TRIGGER is a placeholder (Apple writes 19760401T005545Z), never a time to remind at.
_PROXIMITY = ("PROXIMITY", "X-APPLE-PROXIMITY")


def _reminder(alarm: Component, due_at: datetime | None, start: datetime | None) -> dict[str, Any] | None:
    """One alarm as a reminder MeSQ delivers (None: the client's alone: an offset without a due,
    or a location alert, "when I arrive home", which MeSQ cannot deliver)."""
    if "TRIGGER" not in alarm:
        raise _invalid("every VALARM needs a TRIGGER")
    if any(name in alarm for name in _PROXIMITY):
        return None
    trigger = alarm.decoded("TRIGGER")
    if isinstance(trigger, datetime):
        moment = trigger if trigger.tzinfo else trigger.replace(tzinfo=UTC)
        return {"type": "absolute", "at": format_timestamp(moment)}
    if not isinstance(trigger, timedelta) or due_at is None:
        return None
    related = str(alarm["TRIGGER"].params.get("RELATED", "START")).upper()
    if related == "START" and start is not None:
        trigger = trigger + (start - due_at)
    return {"type": "relative", "offset": offset_text(trigger)}


def _each_alarm(alarms: list[Component], todo: Component, due: dict[str, Any] | None, zone: str | None) -> list[Any]:
    """Per VALARM, in order, the reminder it is (None: the client's alone): what lets MeSQ write
    back the client's own block for each reminder it did not change (ical_out)."""
    due_at = _due_moment(due, zone)
    start = _moment(todo.decoded("DTSTART"), zone) if "DTSTART" in todo else None
    return [_reminder(alarm, due_at, start) for alarm in alarms]
