"""The VTODO <-> MeSQ mapping table (docs/caldav.md), the part both directions share.

| VTODO | MeSQ field | group |
| --- | --- | --- |
| SUMMARY | title | title |
| DESCRIPTION | notes | notes |
| DUE (date, or date-time with TZID), DTSTART, DURATION | due, timezone | due |
| PRIORITY 1 / 2-4 / 5 / 6-9 / 0 | urgent / high / medium / low / none | priority |
| STATUS, PERCENT-COMPLETE | done | status |
| COMPLETED | completedAt | completed |
| CATEGORIES | tags | tags |
| RRULE | recurrence | recurrence |
| RELATED-TO (RELTYPE=PARENT) | the parent task | parentUid |
| VALARM | reminders | reminders |

Each group keeps the client's own lines beside the value MeSQ read from them (its *shadow*): while
the record still holds that value, the client gets its own lines back byte for byte (Apple's
PRIORITY 1, a category with a space, an alarm's ACKNOWLEDGED); once MeSQ changed the value, the
lines are made from the record. Everything else a client sets (X-APPLE-SORT-ORDER, URL,
LOCATION, SEQUENCE, RECURRENCE-ID overrides...) is kept as it came and given back unchanged.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from ..kernel.messages import quoted
from ..kernel.tags import MAX_TAG_LENGTH, is_valid_tag
from .errors import DavError
from .xml import CALDAV

#: Mapped groups, in the order they are written out.
GROUPS = ("title", "notes", "due", "priority", "status", "completed", "tags", "recurrence", "parentUid", "reminders")
#: The VTODO properties each group reads (VALARM is a component, not a property).
GROUP_PROPERTIES: dict[str, tuple[str, ...]] = {
    "title": ("SUMMARY",),
    "notes": ("DESCRIPTION",),
    "due": ("DUE", "DTSTART", "DURATION"),
    "priority": ("PRIORITY",),
    "status": ("STATUS", "PERCENT-COMPLETE"),
    "completed": ("COMPLETED",),
    "tags": ("CATEGORIES",),
    "recurrence": ("RRULE",),
    "parentUid": ("RELATED-TO",),
}
#: What MeSQ writes itself on every answer (a client's own value is not kept).
GENERATED = frozenset({"UID", "DTSTAMP", "CREATED", "LAST-MODIFIED"})
MAPPED = frozenset(name for names in GROUP_PROPERTIES.values() for name in names) | GENERATED

_TO_PRIORITY = {0: "none", 1: "urgent", 2: "high", 3: "high", 4: "high", 5: "medium", 6: "low", 7: "low", 8: "low"}
FROM_PRIORITY = {"none": 0, "urgent": 1, "high": 2, "medium": 5, "low": 9}
MAX_TAGS = 20
_NOT_TAG = re.compile(r"[^\w/-]+", re.UNICODE)


def priority_of(value: int) -> str:
    """RFC 5545 PRIORITY (0 undefined, 1 highest .. 9 lowest) as a MeSQ priority."""
    if not 0 <= value <= 9:
        raise ValueError(f"PRIORITY {value} is not 0..9")
    return _TO_PRIORITY.get(value, "low")


def tag_of(category: str) -> str | None:
    """A category as a MeSQ tag: spaces and punctuation become '-', at most 100 characters;
    None when nothing is left."""
    text = _NOT_TAG.sub("-", category.strip()).strip("-/")
    text = re.sub(r"/{2,}", "/", text)[:MAX_TAG_LENGTH].strip("-/")
    return text if text and is_valid_tag(text) else None


def tags_of(categories: list[str]) -> list[str]:
    tags = [tag for tag in (tag_of(c) for c in categories) if tag is not None]
    return list(dict.fromkeys(tags))[:MAX_TAGS]


def offset_text(delta: timedelta) -> str:
    """A duration as MeSQ's reminder offset (-PT15M, -P1D, PT0S)."""
    seconds = int(delta.total_seconds())
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    time = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M"), (secs, "S")) if n)
    if not days and not time:
        return "PT0S"
    return f"{sign}P{f'{days}D' if days else ''}{'T' + time if time else ''}"


def values_of(component: Any, name: str) -> list[Any]:
    """Every value of a property of an icalendar component (one, or the list of a repeated one)."""
    value = component.get(name)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def exdate_values(component: Any, floating: tzinfo, *, strict: bool = False) -> list[str]:
    """The occurrences the app excluded (every EXDATE value, of every EXDATE line, RFC 5545
    3.8.5.1) in the form `recurrence.Exclusions.of` reads: a date as `YYYY-MM-DD`, a time as an
    ISO time on the clock it was written in, a floating one in `floating` (the due's zone for a
    PUT, the calendar's for a query). `strict` (a PUT): a TZID that is neither a known zone nor a
    VTIMEZONE of the object is refused (400), as on any other line, not read as floating."""
    found: list[str] = []
    for line in values_of(component, "EXDATE"):
        tzid = (getattr(line, "params", None) or {}).get("TZID")
        for value in getattr(line, "dts", []):
            moment = value.dt
            if isinstance(moment, datetime) and moment.tzinfo is None:
                if strict and tzid:
                    name = quoted(str(tzid)[:60])
                    raise DavError(
                        400,
                        f"EXDATE: TZID {name} is not a known time zone and has no VTIMEZONE",
                        (CALDAV, "valid-calendar-data"),
                    )
                moment = moment.replace(tzinfo=floating)
            if isinstance(moment, date):
                found.append(moment.isoformat())
    return found


def same_value(left: Any, right: Any) -> bool:
    """Shadow values are compared as stored JSON (a tuple read back is a list)."""
    return bool(_plain(left) == _plain(right))


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
