"""calendar-query filters (RFC 4791 §9.7) evaluated on a task's calendar object as MeSQ answers
it: `comp-filter` (with `is-not-defined`, `time-range`, nested filters), `prop-filter` (with
`is-not-defined`, `time-range`, `text-match`, `param-filter`) and `text-match` (substring,
`i;ascii-casemap` or `i;octet`, `negate-condition`).

A VTODO's `time-range` follows RFC 4791 §9.9 (DTSTART, DURATION, DUE, COMPLETED, CREATED); a
recurring task matches when one of its occurrences does (its due stepped by the RRULE, with
python-dateutil). So `completed` filters (`<C:prop-filter name="COMPLETED"><C:is-not-defined/>`,
a text-match on STATUS) and due ranges behave as Radicale's and Apple's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from xml.etree import ElementTree as ET

from dateutil.rrule import rrule, rrulestr
from icalendar import Component

from ..kernel.messages import quoted
from ..todos.recurrence import Exclusions, cycles_on, interval_is_positive, repeats
from .errors import DavError
from .mapping import values_of
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


def matches(calendar: Component, filter_element: ET.Element) -> bool:
    children = [child for child in filter_element if child.tag == tag(CALDAV, "comp-filter")]
    if len(children) != 1:
        raise _bad("a filter holds one comp-filter (VCALENDAR)")
    return _comp_filter([calendar], children[0], parent=None)


def _comp_filter(components: Iterable[Component], element: ET.Element, parent: Component | None) -> bool:
    name = (element.get("name") or "").upper()
    candidates = [c for c in components if c.name == name]
    if any(child.tag == tag(CALDAV, "is-not-defined") for child in element):
        return not candidates
    return any(_component_matches(c, element, parent) for c in candidates)


def _component_matches(component: Component, element: ET.Element, parent: Component | None) -> bool:
    for child in element:
        if child.tag == tag(CALDAV, "time-range"):
            if not _overlaps(component, time_range(child), parent):
                return False
        elif child.tag == tag(CALDAV, "prop-filter"):
            if not _prop_filter(component, child):
                return False
        elif child.tag == tag(CALDAV, "comp-filter"):
            if not _comp_filter(component.subcomponents, child, component):
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


def _prop_filter(component: Component, element: ET.Element) -> bool:
    name = (element.get("name") or "").upper()
    values = values_of(component, name)
    if any(child.tag == tag(CALDAV, "is-not-defined") for child in element):
        return not values
    if not values:
        return False
    return any(_value_matches(component, name, value, element) for value in values)


def _value_matches(component: Component, name: str, value: Any, element: ET.Element) -> bool:
    for child in element:
        if child.tag == tag(CALDAV, "text-match"):
            if not _text_match(_text_of(value), child):
                return False
        elif child.tag == tag(CALDAV, "time-range"):
            start, end = time_range(child)
            moment = _as_utc(component.decoded(name))
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


def _as_utc(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return None


def _moment(component: Component, name: str) -> datetime | None:
    return _as_utc(component.decoded(name)) if name in component else None


def _overlaps(component: Component, window: tuple[datetime, datetime], parent: Component | None) -> bool:
    if component.name == "VALARM":
        return _alarm_in(component, window, parent)
    if component.name != "VTODO":
        return True
    due, start = _moment(component, "DUE"), _moment(component, "DTSTART")
    if "RRULE" in component and (due or start):
        return any(_todo_overlaps(window, d, s, component) for d, s in _occurrences(component, due, start, window))
    return _todo_overlaps(window, due, start, component)


def _occurrences(
    component: Component, due: datetime | None, start: datetime | None, window: tuple[datetime, datetime]
) -> list[tuple[datetime | None, datetime | None]]:
    anchor = start or due
    assert anchor is not None
    text = _text_of(component["RRULE"])
    try:
        rule = rrulestr(text, dtstart=anchor)
    except (ValueError, TypeError, OverflowError):
        return [(due, start)]
    if not isinstance(rule, rrule) or not interval_is_positive(text) or not repeats(rule):
        return [(due, start)]  # a rule that would never move on (or spin forever) is its first date only
    span = (due - start) if due and start else timedelta(0)
    shift = (due - anchor) if due else timedelta(0)
    begin = _moved(window[0], -abs(span) - timedelta(days=1))
    end = _moved(window[1], timedelta(days=1))
    excluded = _excluded(component, "DTSTART" if start else "DUE")
    found: list[tuple[datetime | None, datetime | None]] = []
    passed_over = False
    try:
        for walked, occurrence in enumerate(_near(rule, anchor, begin)):
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


def _excluded(component: Component, anchor_name: str) -> Callable[[datetime], bool]:
    """Whether the app excluded an occurrence of the series (its EXDATEs, RFC 5545 3.8.5.1), the
    occurrence given in UTC as `_occurrences` steps it: an instant excludes that instant, a day
    that day's occurrence on the clock of the series' start (`recurrence.Exclusions`)."""
    exclusions = Exclusions.of(_exdate_values(component))
    if not exclusions:
        return lambda occurrence: False
    written = component.decoded(anchor_name)
    if not isinstance(written, datetime):  # a date series: its occurrences are days
        return lambda occurrence: exclusions.exclude(occurrence.replace(tzinfo=None))
    clock = written.tzinfo or UTC
    return lambda occurrence: exclusions.exclude(occurrence.astimezone(clock))


def _exdate_values(component: Component) -> Iterator[str]:
    """Every EXDATE value in the form `Exclusions.of` reads: a day as `YYYY-MM-DD`, a time as an
    ISO time on the clock it was written in (a floating one read as UTC, as the queries' ranges)."""
    for line in values_of(component, "EXDATE"):
        for value in getattr(line, "dts", []):
            moment = value.dt
            if isinstance(moment, datetime) and moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            if isinstance(moment, date):
                yield moment.isoformat()


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
    completed, created = _moment(component, "COMPLETED"), _moment(component, "CREATED")
    if completed is not None and created is not None:
        return (low <= created or low <= completed) and (high >= created or high >= completed)
    if completed is not None:
        return low <= completed <= high
    if created is not None:
        return high > created
    return True


def _alarm_in(alarm: Component, window: tuple[datetime, datetime], todo: Component | None) -> bool:
    if "TRIGGER" not in alarm:
        return False
    trigger = alarm.decoded("TRIGGER")
    if isinstance(trigger, datetime):
        moment = _as_utc(trigger)
    else:
        related = str(alarm["TRIGGER"].params.get("RELATED", "START")).upper()
        anchor = None if todo is None else _moment(todo, "DUE" if related == "END" else "DTSTART")
        anchor = anchor or (None if todo is None else _moment(todo, "DUE"))
        # an app's offset may be huge (-P99999999W): held at the ends of the calendar, no overflow
        moment = None if anchor is None or not isinstance(trigger, timedelta) else _moved(anchor, trigger)
    return moment is not None and window[0] <= moment < window[1]
