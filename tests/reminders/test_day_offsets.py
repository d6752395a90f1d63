"""A reminder's days and weeks are calendar days in the due's zone (RFC 5545 §3.3.6: nominal
durations), as a calendar reads the feed's `TRIGGER:-P1D`: "1 day before" a 09:00 task is 09:00
the day before, also across a DST change, where it used to be 24 hours (08:00 or 10:00 local),
and "1 day before" a date-only due is the start of the day before (it used to be 23:00 two days
before when the clocks went forward). Hours, minutes and seconds stay exact."""

from __future__ import annotations

from datetime import UTC, datetime

from mesq.todos.reminder_schedule import instants

LOS_ANGELES = "America/Los_Angeles"


def _task(due: dict[str, str], offset: str, timezone: str | None = None) -> dict[str, object]:
    return {"id": "t", "parentId": None, "done": False, "due": due, "timezone": timezone,
            "reminders": [{"type": "relative", "offset": offset}]}  # fmt: skip


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def test_a_day_before_a_timed_due_is_the_same_wall_clock_time_across_dst() -> None:
    spring = {"type": "datetime", "at": "2027-03-14T09:00:00-07:00"}  # the first day of PDT
    assert instants(_task(spring, "-P1D", LOS_ANGELES)) == [_utc("2027-03-13T09:00:00-08:00")]
    autumn = {"type": "datetime", "at": "2027-11-07T09:00:00-08:00"}  # the first day of PST
    assert instants(_task(autumn, "-P1D", LOS_ANGELES)) == [_utc("2027-11-06T09:00:00-07:00")]
    assert instants(_task(autumn, "-P1W", LOS_ANGELES)) == [_utc("2027-10-31T09:00:00-07:00")]
    # days nominal, then the exact part: the day before at 09:00, 2 hours earlier
    assert instants(_task(spring, "-P1DT2H", LOS_ANGELES)) == [_utc("2027-03-13T07:00:00-08:00")]
    assert instants(_task(spring, "P1D", LOS_ANGELES)) == [_utc("2027-03-15T09:00:00-07:00")]


def test_hours_stay_exact_across_dst() -> None:
    spring = {"type": "datetime", "at": "2027-03-14T09:00:00-07:00"}
    assert instants(_task(spring, "-PT24H", LOS_ANGELES)) == [_utc("2027-03-13T08:00:00-08:00")]
    assert instants(_task(spring, "-PT15M", LOS_ANGELES)) == [_utc("2027-03-14T08:45:00-07:00")]


def test_a_day_before_a_date_only_due_starts_the_day_before_in_the_users_zone() -> None:
    due = {"type": "date", "date": "2027-03-15"}  # the day after the clocks go forward
    assert instants(_task(due, "-P1D"), LOS_ANGELES) == [_utc("2027-03-14T00:00:00-08:00")]
    assert instants(_task(due, "-P1D", LOS_ANGELES)) == [_utc("2027-03-14T00:00:00-08:00")]


def test_a_timed_due_without_a_zone_steps_in_its_own_offset() -> None:
    due = {"type": "datetime", "at": "2027-03-14T09:00:00-07:00"}
    assert instants(_task(due, "-P1D"), LOS_ANGELES) == [_utc("2027-03-13T09:00:00-07:00")]


def test_a_day_before_a_skipped_time_is_that_time_the_day_before() -> None:
    """A daily 02:30 whose occurrence falls on the spring change (written 02:30-08:00: the
    instant of 03:30 PDT, recurrence.next_due): "1 day before" is 02:30 the day before, as the
    feed's DTSTART 02:30 with TRIGGER:-P1D gives it in a calendar, not 03:30; the exact part still
    counts from the instant."""
    gap = {"type": "datetime", "at": "2027-03-14T02:30:00-08:00"}
    assert instants(_task(gap, "-P1D", LOS_ANGELES)) == [_utc("2027-03-13T02:30:00-08:00")]
    assert instants(_task(gap, "-PT15M", LOS_ANGELES)) == [_utc("2027-03-14T03:15:00-07:00")]
    assert instants(_task(gap, "-P1DT1H", LOS_ANGELES)) == [_utc("2027-03-13T01:30:00-08:00")]
