"""Time zones an object defines for itself (a VTIMEZONE whose TZID is no zone the tz database
knows: Outlook's "W. Europe Standard Time" variants, "My Zone", a /vendor/ prefix icalendar
cannot map) stay that object's.

icalendar keeps every VTIMEZONE it parses in one process-wide cache, first definition wins, and
reads every later TZID of that name with it: another object's (another account's) "Work" zone
at -08:00 would read this one's 09:00 at +05:30 as 09:00 at -08:00, and the cache grows with
every name a client invents. So every parse here runs under `own_timezones()`: the cache holds
no object's zone before it (only the object's own VTIMEZONEs and the tz database's zones are
read) and none after it (nothing of it is left for the next object).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Calendar
from icalendar.timezone import tzp

_LOCK = threading.RLock()


def _forget() -> None:
    """Drop every zone an object defined; the tz database's own stay (icalendar never lets a
    VTIMEZONE redefine a name the tz database knows), so they are not looked up again."""
    cache = getattr(tzp, "_TZP__tz_cache", None)  # icalendar's own (name-mangled) cache
    if isinstance(cache, dict):
        for name, zone in list(cache.items()):
            if not isinstance(zone, ZoneInfo):
                cache.pop(name, None)


@contextmanager
def own_timezones() -> Iterator[None]:
    with _LOCK:
        _forget()
        try:
            yield
        finally:
            _forget()


def zone_of_calendar(text: str) -> tzinfo:
    """The zone of an iCalendar object holding one VTIMEZONE (a calendar-query's
    `CALDAV:timezone`, RFC 4791 §9.8): the tz database's zone of that name, else the zone as the
    VTIMEZONE defines it. ValueError (one line) when the text is no such object."""
    with own_timezones():
        try:
            calendar = Calendar.from_ical(text.strip())
        except Exception:  # icalendar raises ValueError, KeyError, IndexError... on bad input
            raise ValueError("not an iCalendar object") from None
        found = [c for c in getattr(calendar, "subcomponents", []) if c.name == "VTIMEZONE"]
        if len(found) != 1 or "TZID" not in found[0]:
            raise ValueError("it holds one VTIMEZONE with a TZID")
        try:
            zone: tzinfo = found[0].to_tz()
        except Exception:  # a VTIMEZONE without its offsets, a bad DTSTART...
            raise ValueError("its VTIMEZONE cannot be read") from None
        if not isinstance(zone, ZoneInfo):  # a zone of the client's own: read by its rules
            check_rules(found[0])
        return zone


#: What a VTIMEZONE of the client's own may repeat by: a zone's offsets change a few times a year.
#: dateutil finds a moment's offset by walking each rule from its DTSTART (and keeps what it
#: walked): an hourly rule from 1601 took 20 s of CPU for one time of a query, and held millions
#: of datetimes, for every time the query read. BYSETPOS only picks among what the others give.
_RULE_PARTS = frozenset({"FREQ", "INTERVAL", "UNTIL", "COUNT", "BYMONTH", "BYDAY", "BYMONTHDAY", "BYSETPOS", "WKST"})
MAX_ZONE_RULES = 16
#: The years all rules of a zone may walk together, each from its DTSTART to _WALKED_UNTIL: two
#: rules from year 1 (eM Client writes its Windows zones so, Outlook from 1601) are 4,200 and
#: cost about 0.4 ms a time read; sixteen from year 1 would be eight times that.
MAX_RULE_YEARS = 10_000
_WALKED_UNTIL = 2100


def check_rules(vtimezone: Any) -> None:
    """ValueError unless each STANDARD / DAYLIGHT rule of `vtimezone` is yearly, on at most one
    month and one weekday (and a week's days of the month), at most MAX_ZONE_RULES of them
    walking at most MAX_RULE_YEARS together: what real zones write, at a bounded cost."""
    rules = [part for part in vtimezone.subcomponents if "RRULE" in part]
    if len(rules) > MAX_ZONE_RULES:
        raise ValueError(f"its VTIMEZONE has more than {MAX_ZONE_RULES} RRULEs")
    walked = 0
    for part in rules:
        start = part.get("DTSTART")
        if start is None or getattr(start, "dt", None) is None:
            raise ValueError("its VTIMEZONE's rules each have a DTSTART")
        walked += max(0, _WALKED_UNTIL - start.dt.year)
        for rule in part["RRULE"] if isinstance(part["RRULE"], list) else [part["RRULE"]]:
            freq = [str(value).upper() for value in rule.get("FREQ", [])]
            if freq != ["YEARLY"] or not set(rule) <= _RULE_PARTS:
                raise ValueError("its VTIMEZONE's RRULEs repeat yearly, by month, weekday and day of the month")
            if (
                len(rule.get("BYMONTH", [])) > 1
                or len(rule.get("BYDAY", [])) > 1
                or len(rule.get("BYMONTHDAY", [])) > 7
            ):
                raise ValueError("its VTIMEZONE's RRULEs name one month and one weekday")
    if walked > MAX_RULE_YEARS:
        raise ValueError(f"its VTIMEZONE's RRULEs walk more than {MAX_RULE_YEARS} years from their DTSTARTs")
