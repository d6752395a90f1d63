"""calendar-query filters (RFC 4791 §9.7) evaluated on a task's calendar object as MeSQ answers
it: `comp-filter` (with `is-not-defined`, `time-range`, nested filters), `prop-filter` (with
`is-not-defined`, `time-range`, `text-match`, `param-filter`) and `text-match` (substring,
`i;ascii-casemap` or `i;octet`, `negate-condition`).

A VTODO's `time-range` follows RFC 4791 §9.9 (DTSTART, DURATION, DUE, COMPLETED, CREATED); a
recurring task matches when one of its occurrences does (its due stepped by the RRULE, with
python-dateutil). So `completed` filters (`<C:prop-filter name="COMPLETED"><C:is-not-defined/>`,
a text-match on STATUS) and due ranges behave as Radicale's and Apple's.

A date or a floating time is read in the calendar's zone (§9.9): the query's own
`CALDAV:timezone`, else the user's zone (UTC while none is set), which the collection advertises
as `calendar-timezone`. A date stands for its whole day there: a DTSTART date from its midnight, a
DUE date to the next one (due that day), so a phone asking for its local day as UTC instants
finds the tasks dated that day and no other day's; a series steps on its own wall clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any
from xml.etree import ElementTree as ET

from dateutil.rrule import rrule, rrulestr
from icalendar import Component

from ..kernel.messages import quoted
from ..todos.recurrence import Exclusions, cycles_on, interval_is_positive, repeats
from .errors import DavError
from .mapping import exdate_values, values_of
from .xml import CALDAV, tag

MAX_OCCURRENCES = 1000
#: Occurrences walked from a rule's start to a window: past it the series is taken as over.
#: dateutil gives about 100,000 a second, so a far window costs at most a quarter of a second
#: per task. An uncounted rule starts at most one calendar cycle before the window (`_near`),
#: so a weekly, monthly or yearly one is exact anywhere and a daily one 68 years from there; a
#: counted one walks from its own start (COUNT counts from it).
MAX_WALKED = 25_000
_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


def _bad(reason: str) -> DavError:
    return DavError(400, f"calendar-query filter: {reason}", (CALDAV, "valid-filter"))


def _utc(text: str | None, default: datetime) -> datetime:
    if text is None:
        return default
    try:
        return datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise _bad(f"time-range value {quoted(text[:40])} is not a UTC date-time like 20261203T000000Z") from None


def time_range(element: ET.Element) -> tuple[datetime, datetime]:
    start = _utc(element.get("start"), datetime.min.replace(tzinfo=UTC) + timedelta(days=1))
    end = _utc(element.get("end"), datetime.max.replace(tzinfo=UTC) - timedelta(days=1))
    if end <= start:
        raise _bad("time-range end must be after its start")
    return start, end


def matches(calendar: Component, filter_element: ET.Element, floating: tzinfo = UTC) -> bool:
    """Whether `calendar` passes the filter; `floating` is the calendar's zone, the one a date or
    a floating time is read in (RFC 4791 §9.9)."""
    children = [child for child in filter_element if child.tag == tag(CALDAV, "comp-filter")]
    if len(children) != 1:
        raise _bad("a filter holds one comp-filter (VCALENDAR)")
    return _comp_filter([calendar], children[0], None, floating)


def _comp_filter(
    components: Iterable[Component], element: ET.Element, parent: Component | None, floating: tzinfo
) -> bool:
    name = (element.get("name") or "").upper()
    candidates = [c for c in components if c.name == name]
    if any(child.tag == tag(CALDAV, "is-not-defined") for child in element):
        return not candidates
    return any(_component_matches(c, element, parent, floating) for c in candidates)


def _component_matches(component: Component, element: ET.Element, parent: Component | None, floating: tzinfo) -> bool:
    for child in element:
        if child.tag == tag(CALDAV, "time-range"):
            if not _overlaps(component, time_range(child), parent, floating):
                return False
        elif child.tag == tag(CALDAV, "prop-filter"):
            if not _prop_filter(component, child, floating):
                return False
        elif child.tag == tag(CALDAV, "comp-filter"):
            if not _comp_filter(component.subcomponents, child, component, floating):
                return False
        else:
            raise _bad(f"{child.tag} is not part of a comp-filter")
    return True


def _text_of(value: Any) -> str:
    cats = getattr(value, "cats", None)
    if cats is not None:
        return ",".join(str(c) for c in cats)
    if hasattr(value, "to_ical") and not isinstance(value, str):
        raw = value.to_ical()
        return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    return str(value)


def _text_match(text: str, element: ET.Element) -> bool:
    wanted = element.text or ""
    collation = element.get("collation", "i;ascii-casemap")
    if collation not in ("i;ascii-casemap", "i;octet", "i;unicode-casemap"):
        raise DavError(403, f"collation {quoted(collation[:40])} is not supported", (CALDAV, "supported-collation"))
    found = wanted in text if collation == "i;octet" else wanted.casefold() in text.casefold()
    return found != (element.get("negate-condition", "no").lower() == "yes")


def _prop_filter(component: Component, element: ET.Element, floating: tzinfo) -> bool:
    name = (element.get("name") or "").upper()
    values = values_of(component, name)
    if any(child.tag == tag(CALDAV, "is-not-defined") for child in element):
        return not values
    if not values:
        return False
    return any(_value_matches(component, name, value, element, floating) for value in values)


def _value_matches(component: Component, name: str, value: Any, element: ET.Element, floating: tzinfo) -> bool:
    for child in element:
        if child.tag == tag(CALDAV, "text-match"):
            if not _text_match(_text_of(value), child):
                return False
        elif child.tag == tag(CALDAV, "time-range"):
            start, end = time_range(child)
            moment = _placed(component.decoded(name), floating)
            if moment is None or not start <= moment < end:
                return False
        elif child.tag == tag(CALDAV, "param-filter"):
            if not _param_filter(value, child):
                return False
        else:
            raise _bad(f"{child.tag} is not part of a prop-filter")
    return True


def _param_filter(value: Any, element: ET.Element) -> bool:
    params = getattr(value, "params", {}) or {}
    found = params.get((element.get("name") or "").upper())
    if any(child.tag == tag(CALDAV, "is-not-defined") for child in element):
        return found is None
    if found is None:
        return False
    matches_text = [child for child in element if child.tag == tag(CALDAV, "text-match")]
    return all(_text_match(str(found), child) for child in matches_text)


def _placed(value: Any, floating: tzinfo) -> datetime | None:
    """A DATE-TIME with its own zone; a floating one, or a DATE's midnight, in the calendar's
    zone `floating` (compared as instants with the query's UTC window)."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=floating)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=floating)
    return None


def _moment(component: Component, name: str, floating: tzinfo) -> datetime | None:
    """The property as an instant; a DUE date as the end of its day (the next midnight): a task
    due on the 7th is due all the 7th, so it falls in that day's window (§9.9's `start < DUE`)
    and not in the 6th's, whose end is the 7th's midnight."""
    if name not in component:
        return None
    value = component.decoded(name)
    placed = _placed(value, floating)
    if placed is not None and name == "DUE" and not isinstance(value, datetime):
        return _moved(placed, timedelta(days=1))
    return placed


def _overlaps(
    component: Component, window: tuple[datetime, datetime], parent: Component | None, floating: tzinfo
) -> bool:
    if component.name == "VALARM":
        return _alarm_in(component, window, parent, floating)
    if component.name != "VTODO":
        return True
    due, start = _moment(component, "DUE", floating), _moment(component, "DTSTART", floating)
    if "RRULE" in component and (due or start):
        occurrences = _occurrences(component, due, start, window, floating)
        return any(_todo_overlaps(window, d, s, component) for d, s in occurrences)
    return _todo_overlaps(window, due, start, component)


def _occurrences(
    component: Component,
    due: datetime | None,
    start: datetime | None,
    window: tuple[datetime, datetime],
    floating: tzinfo,
) -> list[tuple[datetime | None, datetime | None]]:
    # The series steps from its start as written, on its own wall clock (a daily 00:00 or 09:00
    # stays there across a DST change): a date (its midnight) or a floating time naive, each
    # occurrence then placed in the calendar's zone; a zoned time in its zone.
    written = component.decoded("DTSTART" if start else "DUE")
    local = written if isinstance(written, datetime) else datetime(written.year, written.month, written.day)
    anchor = _placed(written, floating)
    assert anchor is not None
    text = _text_of(component["RRULE"])
    try:
        rule = rrulestr(_until_like_start(text, local, floating), dtstart=local)
    except (ValueError, TypeError, OverflowError):
        return [(due, start)]
    if not isinstance(rule, rrule) or not interval_is_positive(text) or not repeats(rule):
        return [(due, start)]  # a rule that would never move on (or spin forever) is its first date only
    span = (due - start) if due and start else timedelta(0)
    shift = (due - anchor) if due else timedelta(0)
    begin = _moved(window[0], -abs(span) - timedelta(days=1))
    end = _moved(window[1], timedelta(days=1))
    excluded = _excluded(component, "DTSTART" if start else "DUE", floating)
    found: list[tuple[datetime | None, datetime | None]] = []
    passed_over = False
    try:
        for walked, stepped in enumerate(_near(rule, local, begin)):
            occurrence = stepped if stepped.tzinfo else stepped.replace(tzinfo=floating)
            if occurrence > end or walked > MAX_WALKED or len(found) >= MAX_OCCURRENCES:
                break
            if occurrence >= begin and excluded(occurrence):
                passed_over = True
            elif occurrence >= begin:
                found.append((occurrence + shift if due else None, occurrence if start else None))
    except (ValueError, OverflowError):  # the series reaches year 9999: it ends there
        pass
    # a window whose only occurrences the app excluded matches nothing
    return found if found or passed_over else [(due, start)]


_UNTIL = re.compile(r"UNTIL=(\d{8})(T\d{6})?(Z?)", re.IGNORECASE)


def _until_like_start(text: str, start: datetime, floating: tzinfo) -> str:
    """The rule with its UNTIL of the kind dateutil takes with this start (RFC 5545 3.3.10: UTC
    for a zoned start, local for a date or floating one): apps write the other kind too (a date
    UNTIL on a timed task, a UTC one on a dated task). A date ends with its day; a time of the
    other kind is the same instant, read in the start's zone or the calendar's."""
    found = _UNTIL.search(text)
    if found is None:
        return text
    day, clock, utc = found.groups()
    try:
        if start.tzinfo is None:
            if not utc:
                return text
            instant = datetime.strptime(day + clock, "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
            value = f"{instant.astimezone(floating):%Y%m%dT%H%M%S}"
        else:
            if utc:
                return text
            wall = datetime.strptime(day + (clock or "T235959"), "%Y%m%dT%H%M%S").replace(tzinfo=start.tzinfo)
            value = f"{wall.astimezone(UTC):%Y%m%dT%H%M%SZ}"
    except (ValueError, OverflowError):  # not a date, or past the calendar's ends: dateutil refuses it
        return text
    return text[: found.start()] + "UNTIL=" + value + text[found.end() :]


def _excluded(component: Component, anchor_name: str, floating: tzinfo) -> Callable[[datetime], bool]:
    """Whether the app excluded an occurrence of the series (its EXDATEs, RFC 5545 3.8.5.1), the
    occurrence as `_occurrences` steps it (on the series' wall clock): an instant excludes that
    instant, a day that day's occurrence on the clock of the series' start
    (`recurrence.Exclusions`). A floating EXDATE is read in the calendar's zone, as the start."""
    exclusions = Exclusions.of(exdate_values(component, floating))
    if not exclusions:
        return lambda occurrence: False
    written = component.decoded(anchor_name)
    if not isinstance(written, datetime):  # a date series: its occurrences are days
        return lambda occurrence: exclusions.exclude(occurrence.replace(tzinfo=None))
    clock = written.tzinfo or floating
    return lambda occurrence: exclusions.exclude(occurrence.astimezone(clock))


def _moved(moment: datetime, by: timedelta) -> datetime:
    """`moment + by`, held at the ends of the calendar (a window may start at year 1)."""
    try:
        return moment + by
    except OverflowError:
        return _EARLIEST if by < timedelta(0) else _LATEST


def _near(rule: rrule, anchor: datetime, begin: datetime) -> rrule:
    """The rule started as late before `begin` as whole calendar cycles allow (the same dates
    from there on), so a window centuries ahead is not reached by walking every occurrence.
    A counted rule keeps its start: COUNT counts from it."""
    if rule._count is not None:  # type: ignore[attr-defined]  # dateutil keeps it private
        return rule
    moved = cycles_on(rule, anchor, begin.year - 1)
    return rule if moved == anchor else rule.replace(dtstart=moved)


def _todo_overlaps(
    window: tuple[datetime, datetime], due: datetime | None, start: datetime | None, component: Component
) -> bool:
    """RFC 4791 §9.9's table for VTODO."""
    low, high = window
    duration = component.decoded("DURATION") if "DURATION" in component else None
    if start is not None and isinstance(duration, timedelta) and due is None:
        return low <= start + duration and (high > start or high >= start + duration)
    if start is not None and due is not None:
        return (low < due or low <= start) and (high > start or high >= due)
    if start is not None:
        return low <= start < high
    if due is not None:
        return low < due <= high
    completed, created = _moment(component, "COMPLETED", UTC), _moment(component, "CREATED", UTC)  # UTC by RFC 5545
    if completed is not None and created is not None:
        return (low <= created or low <= completed) and (high >= created or high >= completed)
    if completed is not None:
        return low <= completed <= high
    if created is not None:
        return high > created
    return True


def _alarm_in(alarm: Component, window: tuple[datetime, datetime], todo: Component | None, floating: tzinfo) -> bool:
    if "TRIGGER" not in alarm:
        return False
    trigger = alarm.decoded("TRIGGER")
    if isinstance(trigger, datetime):
        moment = _placed(trigger, floating)
    else:
        # an offset counts from the start of a date-only due's day, as the edge reads it (ical_in)
        related = str(alarm["TRIGGER"].params.get("RELATED", "START")).upper()
        anchor = None if todo is None else _anchor(todo, "DUE" if related == "END" else "DTSTART", floating)
        anchor = anchor or (None if todo is None else _anchor(todo, "DUE", floating))
        # an app's offset may be huge (-P99999999W): held at the ends of the calendar, no overflow
        moment = None if anchor is None or not isinstance(trigger, timedelta) else _moved(anchor, trigger)
    return moment is not None and window[0] <= moment < window[1]


def _anchor(component: Component, name: str, floating: tzinfo) -> datetime | None:
    return _placed(component.decoded(name), floating) if name in component else None
