"""Recurring root tasks: an RFC 5545 RRULE stepping from the task's `due` (docs/contract.md §5).

The dates come from python-dateutil's `rrule`; nothing here does calendar arithmetic. The rule's
DTSTART is the current due, so a rescheduled due (a new `due`) keeps the rule and the series
continues from there:
- a date-only due steps in dates (`{"type": "date"}` in, the same type out);
- a datetime due steps in wall-clock time of the task's `timezone` (DST-correct: a 09:00 rule
  stays 09:00 local across a change), or of the due's own offset when the task has no zone.
  The next due is written with the offset valid on its day.
`COUNT` counts the completed occurrences of the series (`occurrenceCount`, kept across
reschedules); `UNTIL` is dateutil's. Completing the last occurrence completes the task for good.

A late completion catches up (`advanced`): the next due is the rule's first date after now (a date
series: after today in the task's zone, else the user's), the dates missed meanwhile passed; they
are no occurrence, but COUNT counts them as rule dates (in `excludedCount`, as the excluded ones).

A task a sync client wrote may carry the dates it excluded (its EXDATEs, links.excluded_dates):
the next due steps past them, and COUNT counts them as rule dates that are no occurrence; a copy
whose own due is excluded moves on to the next date that is not excluded and not past
(`past_excluded_due`: a skipped overdue occurrence catches up as a late completion does, but a
date series keeps today's date, which is not over).

Stored fields of a task (besides the public `recurrence`): `occurrences` (the completed ones,
newest `HISTORY_MAX` kept, readable in get_todo_task), `occurrenceCount` and `excludedCount`
(the rule dates the series has stepped past without an occurrence, the excluded and the missed
ones, for COUNT).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import MAXYEAR, UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from dateutil.rrule import rrule, rrulestr

from ..kernel.errors import ValidationError
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from ..kernel.timestamps import format_timestamp, parse_timestamp, parse_zone, wall_clock
from .sync.links import excluded_dates

FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
#: Parts that name times of day: a date-only due (a DATE start) cannot have them.
TIME_OF_DAY_PARTS = ("BYHOUR", "BYMINUTE", "BYSECOND")
HISTORY_MAX = 50
#: The stored count of the excluded rule dates a series has stepped past (COUNT counts them).
EXCLUDED_COUNT = "excludedCount"
_NOT_IN_A_RULE = ("DTSTART", "RDATE", "EXDATE", "EXRULE", "\n", "\r")
#: How far before the end of dateutil's calendar (year 9999) a rule is tried when checking that
#: it repeats at all. dateutil looks for a rule's next date period by period until one matches
#: or year 9999 passes (an UNTIL does not stop that walk), so a rule whose parts can never meet
#: (`BYMONTH=2;BYMONTHDAY=30`) costs seconds of CPU on every read of its next date. The
#: Gregorian calendar repeats every 400 years, so the check tries the rule from its start moved
#: on by whole 400-year cycles to this many years before 9999: the walk is at most a few
#: centuries, and a rule that finds no date in that span never finds one.
TRIED_YEARS = 50
#: The years in which the calendar (leap years and weekdays) repeats exactly.
CALENDAR_CYCLE_YEARS = 400


def normalized(text: str | None, field: str = "recurrence") -> str | None:
    """The stored form of a rule: the RRULE value without a leading `RRULE:`; None clears it."""
    if text is None:
        return None
    rule = text.strip()
    if rule.upper().startswith("RRULE:"):
        rule = rule[len("RRULE:") :]
    if any(word in rule.upper() for word in _NOT_IN_A_RULE):
        raise ValidationError("%(field)s: one RRULE value only (its start is the task's due)", field=field)
    return rule


def check_rule(rule: str | None, due: dict[str, Any] | None, timezone: str | None, field: str = "recurrence") -> None:
    """A rule is valid when dateutil accepts it from this due (UNTIL must be a date for a
    date-only due and a UTC time ending in Z for a datetime due, as RFC 5545 asks)."""
    if rule is None:
        return
    if due is None:
        raise ValidationError("%(field)s: a recurring task needs a due (the first occurrence)", field=field)
    frequency = next((part[5:] for part in rule.split(";") if part.startswith("FREQ=")), "")
    if frequency not in FREQUENCIES:
        raise ValidationError(
            "%(field)s: FREQ must be one of %(frequencies)s", field=field, frequencies=", ".join(FREQUENCIES)
        )
    if not interval_is_positive(rule):
        raise ValidationError("%(field)s: INTERVAL must be a positive whole number", field=field)
    if not month_days_in_range(rule):
        raise ValidationError(
            "%(field)s: BYMONTHDAY takes days 1 to 31 or -31 to -1 (from the month's end)", field=field
        )
    timed = _time_parts(rule) if due["type"] == "date" else []
    if timed:
        raise ValidationError(
            "%(field)s: %(parts)s need a due with a time; a due without one repeats in whole days",
            field=field, parts=", ".join(timed),
        )  # fmt: skip
    series = _series(rule, due, timezone, field)
    if not repeats(series) or not has_a_date(series, _start(due, timezone)):
        # One refusal for every rule without a first date: parts that never meet (31 February),
        # an UNTIL before the due, COUNT=0.
        raise ValidationError("%(field)s: this rule gives no date on or after the due", field=field)


def _time_parts(rule: str) -> list[str]:
    """The rule's parts that name times of day (BYHOUR, BYMINUTE, BYSECOND)."""
    names = (part.split("=", 1)[0].strip().upper() for part in rule.split(";"))
    return [name for name in names if name in TIME_OF_DAY_PARTS]


def _whole_days(rule: str) -> str:
    """The rule without its time-of-day parts: how a date-only due reads one stored before they
    were refused (RFC 5545 §3.3.10: they MUST be ignored with a DATE start; kept, every next time
    of day falls on the due's own date and completing never moves it)."""
    return ";".join(part for part in rule.split(";") if part.split("=", 1)[0].strip().upper() not in TIME_OF_DAY_PARTS)


def _values(rule: str, name: str) -> list[str]:
    """The values of the rule's `name` parts (`INTERVAL=2` -> `["2"]`), in the rule's order."""
    prefix = name + "="
    return [part[len(prefix) :] for part in rule.upper().split(";") if part.startswith(prefix)]


def interval_is_positive(rule: str) -> bool:
    """RFC 5545 3.3.10: INTERVAL is a positive integer. dateutil takes 0 and then never moves on
    (a thread spinning forever), and a negative one walks backwards."""
    numbers = _values(rule, "INTERVAL")
    return not numbers or (numbers[0].isdigit() and int(numbers[0]) > 0)


def month_days_in_range(rule: str) -> bool:
    """RFC 5545 3.3.10: a BYMONTHDAY is 1..31 or -31..-1. dateutil drops a 0 (the rule then
    repeats on the due's own day, not what was written) and takes 32 or more without a word."""
    days = [day for value in _values(rule, "BYMONTHDAY") for day in value.split(",")]
    unsigned = [day.removeprefix("-").removeprefix("+") for day in days]
    return all(digits.isdigit() and 1 <= int(digits) <= 31 for digits in unsigned)


def repeats(series: rrule) -> bool:
    """The rule gives a date after its start (its UNTIL and COUNT aside), tried in a few
    centuries at the end of the calendar (TRIED_YEARS says why)."""
    start: datetime = series._dtstart  # type: ignore[attr-defined]  # dateutil keeps it private
    try:
        moved = cycles_on(series, start.replace(tzinfo=None), MAXYEAR - TRIED_YEARS)
        return series.replace(dtstart=moved, until=None, count=None).after(moved) is not None
    except (ValueError, OverflowError):  # past year 9999
        return False


def has_a_date(series: rrule, start: datetime) -> bool:
    """The rule itself (its UNTIL and COUNT included) gives a date on or after `start`. Asked only
    of a rule that `repeats`, so dateutil's walk finds a matching period within a calendar cycle."""
    try:
        return series.after(start, inc=True) is not None
    except (ValueError, OverflowError):  # past year 9999
        return False


def cycles_on(series: rrule, start: datetime, up_to_year: int) -> datetime:
    """`start` moved on by as many whole calendar cycles of the rule (400 x INTERVAL years: the
    same dates, and the rule's phase) as keep it in `up_to_year` or before; `start` if none do."""
    cycle = CALENDAR_CYCLE_YEARS * series._interval  # type: ignore[attr-defined]  # dateutil keeps it private
    cycles = max(0, (up_to_year - start.year) // cycle)
    return start.replace(year=start.year + cycles * cycle)


def _zone(due: dict[str, Any], timezone: str | None) -> tzinfo | None:
    if due["type"] == "date":
        return None
    if timezone:
        return parse_zone(timezone, "timezone")
    parse_timestamp(str(due["at"]), "due.at")  # the strict check; fromisoformat keeps the offset
    return datetime.fromisoformat(str(due["at"])).tzinfo


def _start(due: dict[str, Any], timezone: str | None) -> datetime:
    """The due as the rule's DTSTART: naive midnight for a date, local wall time for a datetime."""
    if due["type"] == "date":
        return datetime.combine(date.fromisoformat(str(due["date"])), time(0))
    return wall_clock(str(due["at"]), _zone(due, timezone) or UTC)


def _series(rule: str, due: dict[str, Any], timezone: str | None, field: str) -> rrule:
    if due["type"] == "date":
        rule = _whole_days(rule)
    try:
        series = rrulestr(rule, dtstart=_start(due, timezone))
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as error:
        if _UNTIL_OF_THE_OTHER_KIND in str(error):
            # dateutil says the same words whichever way round the mismatch is
            if due["type"] == "date":
                raise ValidationError(
                    "%(field)s: for a due without a time, UNTIL is a date such as %(example)s",
                    field=field, example=UNTIL_DATE_EXAMPLE,
                ) from None  # fmt: skip
            raise ValidationError(
                "%(field)s: for a due with a time, UNTIL is a UTC time ending in Z such as %(example)s",
                field=field, example=UNTIL_TIME_EXAMPLE,
            ) from None  # fmt: skip
        raise ValidationError(
            "%(field)s: not a valid RFC 5545 RRULE for this due (%(reason)s)", field=field, reason=_reason(error)
        ) from None
    if not isinstance(series, rrule):
        raise ValidationError("%(field)s: one RRULE value only", field=field)
    return series


#: dateutil's words for an UNTIL whose form does not match DTSTART's (a date against a due with a
#: time, or a UTC time against a date-only due).
_UNTIL_OF_THE_OTHER_KIND = "RRULE UNTIL values must be specified in UTC"
UNTIL_DATE_EXAMPLE, UNTIL_TIME_EXAMPLE = "20261231", "20261231T235959Z"
_UNKNOWN_PART = re.compile(r"unknown parameter '([^']*)'")
_BAD_VALUE = re.compile(r"invalid '([^']*)': (.*)", re.S)


def _reason(error: Exception) -> Text:
    """Why dateutil refused a rule, in words a page can say in its reader's language (dateutil's
    own are English)."""
    text = str(error)
    if unknown := _UNKNOWN_PART.fullmatch(text):
        return Text("unknown part %(part)s", part=quoted(unknown.group(1)))
    if bad := _BAD_VALUE.fullmatch(text):
        return Text("%(part)s cannot be %(value)s", part=bad.group(1), value=quoted(bad.group(2)))
    return Text("a part has a value out of range or cannot be read")


def rule_count(rule: str) -> int | None:
    for part in rule.split(";"):
        if part.startswith("COUNT="):
            return int(part[6:]) if part[6:].isdigit() else None
    return None


def next_due(
    rule: str, due: dict[str, Any], timezone: str | None, excluded: Iterable[str] = ()
) -> dict[str, Any] | None:
    """The occurrence after `due` (same due type) that is not `excluded`, or None when UNTIL ends
    the series. COUNT is left to `advanced` (it counts completions, not rule dates)."""
    found = _following(rule, due, timezone, Exclusions.of(excluded))
    return None if found is None else found[0]


class Exclusions:
    """A client's excluded occurrences (EXDATE, as links.excluded_dates lists them): an instant
    excludes the occurrence at that instant; a day (RFC 5545 asks a DATE only of a date series,
    apps also write one on a timed series) excludes that day's occurrences, in the series' zone.
    A date series is excluded by a time's own day, as it was written."""

    def __init__(self, days: set[date], instants: set[datetime], written_days: set[date]) -> None:
        self.days, self.instants, self.written_days = days, instants, written_days

    @classmethod
    def of(cls, values: Iterable[str]) -> Exclusions:
        days: set[date] = set()
        instants: set[datetime] = set()
        written_days: set[date] = set()  # the instants' days on the clock they were written in
        for value in values:
            try:
                if len(value) == len("YYYY-MM-DD"):
                    days.add(date.fromisoformat(value))
                else:
                    instants.add(parse_timestamp(value, "exdate"))
                    written_days.add(date.fromisoformat(value[: len("YYYY-MM-DD")]))
            except (ValueError, ValidationError):
                continue  # the edge wrote each one checked; an unreadable one excludes nothing
        return cls(days, instants, written_days)

    def __bool__(self) -> bool:
        return bool(self.days or self.instants)

    def exclude(self, occurrence: datetime) -> bool:
        """`occurrence` as the series steps it: a naive midnight for a date series, an aware
        wall-clock time for a timed one."""
        if occurrence.tzinfo is None:
            return occurrence.date() in self.days or occurrence.date() in self.written_days
        return occurrence.date() in self.days or occurrence in self.instants


#: Excluded occurrences stepped past for one next due, at most: past them the next rule date is
#: the due even if excluded (a client's list of thousands of dates cannot make a completion spin).
MAX_SKIPPED = 10_000


def _following(
    rule: str,
    due: dict[str, Any],
    timezone: str | None,
    excluded: Exclusions,
    ahead_of: datetime | None = None,
    room: int | None = None,
) -> tuple[dict[str, Any], int] | None:
    """The next due after `due` that is not excluded, and how many rule dates it passed (the
    excluded ones, and with `ahead_of` the ones not after it); None when the series ends (UNTIL,
    a rule that never moves on, year 9999).

    `ahead_of` (a completion's catch-up, `advanced`): the next due is also after it, an aware
    instant for a timed series, a naive midnight (the day it starts, which counts as done) for a
    date series. `room`: how many rule dates COUNT has left; the walk stops once it passed that
    many (the caller ends the series). Without a COUNT the dates up to `ahead_of` are jumped, not
    walked, so a task missed for years costs one step."""
    series = _series(rule, due, timezone, "recurrence").replace(count=None)
    if not interval_is_positive(rule) or not repeats(series):
        return None  # a rule stored before check_rule refused it: the series ends
    start = _start(due, timezone)
    begin = start if ahead_of is None or room is not None or ahead_of <= start else ahead_of
    skipped = 0
    following: datetime | None = None
    try:
        for candidate in series.xafter(begin, inc=False):
            passed = (excluded and excluded.exclude(candidate)) or (ahead_of is not None and candidate <= ahead_of)
            if not passed or skipped >= MAX_SKIPPED or (room is not None and skipped >= room):
                following = candidate
                break
            skipped += 1
    except (ValueError, OverflowError):  # the next date would be past year 9999: the series ends
        return None
    if following is None:
        return None
    if due["type"] == "date":
        return {"type": "date", "date": following.date().isoformat()}, skipped
    # A wall-clock time the zone skips (a spring-forward gap) is written as that time with the
    # offset before the change (zoneinfo's fold=0: the instant of the time an hour later), so the
    # next step reads the series' own time of day back (`wall_clock`), not the shifted one.
    return {"type": "datetime", "at": following.isoformat()}, skipped


def _catch_up_point(due: dict[str, Any], zone: str | None, now: str) -> datetime:
    """What a completion's next due must come after (docs/decisions.md, "a late completion"): now
    for a timed series; for a date series the start of today (naive midnight, the series' own
    form), today read in `zone` (the task's, else the user's, else UTC): today's date counts as
    the one done."""
    moment = parse_timestamp(now, "now")
    if due["type"] != "date":
        return moment
    try:
        day = moment.astimezone(parse_zone(zone, "timezone") if zone else UTC).date()
    except ValidationError:  # a stored zone this tzdata does not know reads as UTC
        day = moment.astimezone(UTC).date()
    return datetime.combine(day, time(0))


def _skip_point(due: dict[str, Any], zone: str | None, now: str) -> datetime:
    """What the next due must come after when an occurrence is skipped, not done (docs/decisions.md,
    "skipping an overdue occurrence"): now for a timed series; for a date series the start of
    yesterday, so today's date, which is not over, is still one to do."""
    point = _catch_up_point(due, zone, now)
    return point if due["type"] != "date" else point - timedelta(days=1)


def first_occurrence(rule: str, start: datetime, after: datetime, *, inclusive: bool) -> datetime | None:
    """The rule's first date from `start` (its DTSTART, a naive wall-clock time) that comes after
    `after` (or at it, `inclusive`): the first due of a rule typed in quick add ("every weekday
    7am" on a Sunday: Monday 07:00). `start` itself only when the rule gives it. None when the
    rule gives none (a rule that never repeats, a date past year 9999)."""
    try:
        series = rrulestr(rule, dtstart=start)
        if not isinstance(series, rrule) or not interval_is_positive(rule) or not repeats(series):
            return None
        if after < start:
            after, inclusive = start, True
        return series.after(after, inc=inclusive)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError):
        return None


def advanced(task: Item, now: str, user_zone: str | None = None) -> Item | None:
    """A recurring task after completing its current occurrence: the next due (past the dates a
    sync client excluded, and the first after `now`: a late completion catches up), subtasks to
    be reset by the caller, the occurrence in the history; None when the series has ended (the
    caller completes the task for good, still recording the occurrence with `recorded`)."""
    rule, due = task.get("recurrence"), task.get("due")
    if not rule or not due or task.get("done"):
        return None
    # COUNT counts the rule's dates: the completed occurrences and the excluded ones passed
    # (RFC 5545: an excluded date is not an occurrence, yet it is one of the rule's COUNT dates).
    used = int(task.get("occurrenceCount") or 0) + 1 + int(task.get(EXCLUDED_COUNT) or 0)
    limit = rule_count(rule)
    if limit is not None and used >= limit:
        return None
    # A task without a zone of its own steps in the user's (a daily 09:00 stays 09:00 across a DST
    # change, as the calendar feed shows it); with neither, in the due's own offset.
    zone = task.get("timezone") or user_zone
    # A late completion catches up: the next due is the first rule date after now (a date series:
    # after today), the occurrences missed meanwhile passed (COUNT counts them, as excluded ones).
    room = None if limit is None else limit - used
    found = _following(rule, due, zone, Exclusions.of(excluded_dates(task)), _catch_up_point(due, zone, now), room)
    if found is None:
        return None
    following, skipped = found
    if limit is not None and used + skipped >= limit:
        return None
    after = {**recorded(task, now), "due": following}
    if any(reminder.get("type") == "absolute" for reminder in task.get("reminders") or ()):
        after["reminders"] = moved_reminders(task["reminders"], due, following, zone)
    if skipped:
        after[EXCLUDED_COUNT] = int(task.get(EXCLUDED_COUNT) or 0) + skipped
    return after


def moved_reminders(
    reminders: list[dict[str, Any]], due: dict[str, Any], following: dict[str, Any], zone: str | None
) -> list[dict[str, Any]]:
    """A repeating task's reminders once its due moved from `due` to `following`: an absolute one
    moves with the due, kept as far from it on the series' wall clock (an alarm "at the due time",
    Apple Reminders' TRIGGER;VALUE=DATE-TIME, stays at the due; "the evening before at 20:00" stays
    20:00 the evening before, across a clock change), as calendar apps move an occurrence's alarm.
    Relative ones follow the due already; a reminder that cannot be read is kept as it is."""
    clock = _wall_zone(due, zone)
    old_start, new_start = _wall_start(due, clock), _wall_start(following, clock)
    moved: list[dict[str, Any]] = []
    for reminder in reminders:
        if reminder.get("type") != "absolute" or old_start is None or new_start is None:
            moved.append(reminder)
            continue
        try:
            written = str(reminder["at"])
            at = parse_timestamp(written, "at").astimezone(clock).replace(tzinfo=None)
            shifted = (new_start + (at - old_start)).replace(tzinfo=clock)
            # written as it was: MeSQ's stored UTC form, else in the offset it was given in
            offset = None if written.endswith("Z") else datetime.fromisoformat(written).tzinfo
            text = format_timestamp(shifted) if offset is None else shifted.astimezone(offset).isoformat()
            moved.append({**reminder, "at": text})
        except (ValidationError, OverflowError, ValueError):
            moved.append(reminder)
    return moved


def _wall_zone(due: dict[str, Any], zone: str | None) -> tzinfo:
    """The wall clock an absolute reminder keeps its distance from the due on: the series' zone
    (the task's, else the user's), else a timed due's own offset, else UTC."""
    try:
        if zone:
            return parse_zone(zone, "timezone")
    except ValidationError:
        pass  # a stored zone this tzdata does not know
    if due.get("type") == "datetime":
        return datetime.fromisoformat(str(due["at"])).tzinfo or UTC
    return UTC


def _wall_start(due: dict[str, Any], clock: tzinfo) -> datetime | None:
    """The due on `clock`'s wall clock (naive): a date's midnight, a time as the series keeps it."""
    try:
        if due.get("type") == "date":
            return datetime.combine(date.fromisoformat(str(due["date"])), time(0))
        return wall_clock(str(due["at"]), clock).replace(tzinfo=None)
    except (ValidationError, ValueError):
        return None


def past_excluded_due(task: Item, now: str, user_zone: str | None = None) -> Item:
    """A recurring root task whose current due the sync client excluded (the app deleted "this
    occurrence", the current one: an EXDATE names the due) moved on to the rule's next date it did
    not exclude, as Apple Reminders and Thunderbird show it, and that is not past (`_skip_point`: an
    overdue occurrence skipped catches up as a late completion does); the dates passed, excluded
    or past, count as COUNT's rule dates (`excludedCount`). When none is left (UNTIL, COUNT) the
    series is over: the task is done for good, with no occurrence recorded (none was done). Any
    other task as it is."""
    rule, due = task.get("recurrence"), task.get("due")
    if not rule or not due or task.get("done") or task.get("parentId") is not None:
        return task
    zone = task.get("timezone") or user_zone  # the series steps there, as `advanced` steps it
    exclusions = Exclusions.of(excluded_dates(task))
    if not exclusions or not exclusions.exclude(_start(due, zone)):
        return task
    passed = int(task.get(EXCLUDED_COUNT) or 0) + 1  # the due itself is one of the rule's dates
    used = int(task.get("occurrenceCount") or 0) + passed
    limit = rule_count(rule)
    room = None if limit is None else limit - used
    ahead_of = _skip_point(due, zone, now)
    found = None if room is not None and room <= 0 else _following(rule, due, zone, exclusions, ahead_of, room)
    if found is None or (limit is not None and used + found[1] >= limit):
        return {**task, "done": True, "completedAt": now}
    following, skipped = found
    return {**task, "due": following, EXCLUDED_COUNT: passed + skipped}


def excluded_up_to(task: Item, due: dict[str, Any], now: str, user_zone: str | None = None) -> bool:
    """Whether `task` (a sync client's copy of a recurring task) is behind `due` (where the task
    stands in MeSQ) by skipped occurrences only: its own due is among its EXDATEs, and every rule
    date after it before `due` is too or is past (`_skip_point`: an overdue skip passed it). The
    app excluded an occurrence MeSQ already moved past, and did not read the task again before
    excluding another: its copy still shows the old due."""
    rule, own = task.get("recurrence"), task.get("due")
    if not rule or not own or not due or own == due or own.get("type") != due.get("type"):
        return False
    zone = task.get("timezone") or user_zone
    exclusions = Exclusions.of(excluded_dates(task))
    if not exclusions or not exclusions.exclude(_start(own, zone)) or _start(due, zone) <= _start(own, zone):
        return False
    found = _following(rule, own, zone, exclusions, _skip_point(own, zone, now))
    return found is not None and _start(found[0], zone) >= _start(due, zone)


def recorded(task: Item, now: str) -> Item:
    """`task` with its current occurrence appended to the history (bounded)."""
    history = [*(task.get("occurrences") or []), {"due": task["due"], "completedAt": now}][-HISTORY_MAX:]
    return {**task, "occurrences": history, "occurrenceCount": int(task.get("occurrenceCount") or 0) + 1}
