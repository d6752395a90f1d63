"""A late completion's next due (recurrence.advanced with a fixed `now`; docs/decisions.md, "a late
completion"): the rule's first date after now, its grid (weekday, INTERVAL phase, time of day)
kept; COUNT counts the missed dates, UNTIL still ends the series; an absolute reminder moves with
the due (docs/decisions.md, "absolute alarms of a repeating task")."""

from __future__ import annotations

from typing import Any

from mesq.todos.recurrence import EXCLUDED_COUNT, advanced

# Monday 2026-12-07, 08:00 in Shanghai
NOW = "2026-12-07T00:00:00.000000Z"


def task(rule: str, due: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"recurrence": rule, "due": due, "timezone": "Asia/Shanghai", "done": False, "parentId": None, **fields}


def test_a_date_series_comes_back_after_today() -> None:
    after = advanced(task("FREQ=DAILY", {"type": "date", "date": "2026-12-02"}), NOW)
    assert after is not None and after["due"] == {"type": "date", "date": "2026-12-08"}
    assert [o["due"]["date"] for o in after["occurrences"]] == ["2026-12-02"] and after["occurrenceCount"] == 1


def test_every_monday_ticked_on_a_monday_comes_back_next_monday() -> None:
    after = advanced(task("FREQ=WEEKLY;BYDAY=MO", {"type": "date", "date": "2026-11-16"}), NOW)
    assert after is not None and after["due"] == {"type": "date", "date": "2026-12-14"}


def test_every_other_week_keeps_its_phase() -> None:
    # every second Thursday from 2026-11-05: 11-19, 12-03, 12-17
    after = advanced(task("FREQ=WEEKLY;INTERVAL=2", {"type": "date", "date": "2026-11-05"}), NOW)
    assert after is not None and after["due"] == {"type": "date", "date": "2026-12-17"}


def test_a_timed_series_comes_back_at_its_time_after_now() -> None:
    # 08:00 in Shanghai: today's 09:00 is still ahead
    after = advanced(task("FREQ=DAILY", {"type": "datetime", "at": "2026-12-01T09:00:00+08:00"}), NOW)
    assert after is not None and after["due"] == {"type": "datetime", "at": "2026-12-07T09:00:00+08:00"}


def test_count_counts_the_missed_dates_and_until_ends() -> None:
    # dates 12-01 .. 12-10: 12-01 done, 12-02 .. 12-07 passed (today counts as done), 12-08 next
    after = advanced(task("FREQ=DAILY;COUNT=10", {"type": "date", "date": "2026-12-01"}), NOW)
    assert after is not None and after["due"] == {"type": "date", "date": "2026-12-08"}
    assert after[EXCLUDED_COUNT] == 6 and after["occurrenceCount"] == 1
    ninth = advanced(advanced(after, NOW) or {}, NOW)
    assert ninth is not None and ninth["due"] == {"type": "date", "date": "2026-12-10"}
    assert advanced(ninth, NOW) is None  # the tenth date was the last
    assert advanced(task("FREQ=DAILY;COUNT=5", {"type": "date", "date": "2026-12-01"}), NOW) is None
    assert advanced(task("FREQ=DAILY;UNTIL=20261206", {"type": "date", "date": "2026-12-01"}), NOW) is None


def test_an_early_completion_steps_one_occurrence() -> None:
    after = advanced(task("FREQ=WEEKLY", {"type": "date", "date": "2026-12-20"}), NOW)
    assert after is not None and after["due"] == {"type": "date", "date": "2026-12-27"}


def test_an_absolute_reminder_moves_with_the_due() -> None:
    at_the_due = {"type": "absolute", "at": "2026-12-01T01:00:00.000000Z"}  # 09:00 in Shanghai, the due
    evening_before = {"type": "absolute", "at": "2026-11-30T20:00:00+08:00"}
    relative = {"type": "relative", "offset": "-PT15M"}
    due = {"type": "datetime", "at": "2026-12-01T09:00:00+08:00"}
    after = advanced(task("FREQ=DAILY", due, reminders=[at_the_due, evening_before, relative]), NOW)
    assert after is not None and after["reminders"] == [
        {"type": "absolute", "at": "2026-12-07T01:00:00.000000Z"},
        {"type": "absolute", "at": "2026-12-06T20:00:00+08:00"},
        relative,
    ]


def test_a_reminder_across_a_clock_change_keeps_its_wall_time() -> None:
    # New York: 19:00 the evening before a daily 09:00, the due on the 2027-03-14 change
    due = {"type": "datetime", "at": "2027-03-14T09:00:00-04:00"}
    before = {"type": "absolute", "at": "2027-03-13T19:00:00-05:00"}
    now = "2027-03-14T14:00:00.000000Z"  # 10:00 on the 14th in New York
    after = advanced(task("FREQ=DAILY", due, timezone="America/New_York", reminders=[before]), now)
    assert after is not None and after["due"] == {"type": "datetime", "at": "2027-03-15T09:00:00-04:00"}
    # 19:00 EDT on the 14th, written in the offset it was given in (not 24 hours on: 20:00 EDT)
    assert after["reminders"] == [{"type": "absolute", "at": "2027-03-14T18:00:00-05:00"}]
