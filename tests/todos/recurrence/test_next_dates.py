"""Next occurrences of RRULE recurrences (todos/recurrence.py, dateutil underneath) for the cases
of docs/contract.md §5, in Asia/Shanghai and America/New_York. The completion time is fixed
(the frozen clock): a rule's next date depends only on the due, never on when it is completed."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mesq.calendar_feed.ics import event
from mesq.dav.ical_out import render
from mesq.kernel.errors import ValidationError
from mesq.kernel.timestamps import in_zone, parse_timestamp, wall_clock
from mesq.todos.quick_add import parse_quick_add
from mesq.todos.recurrence import advanced, check_rule, next_due
from mesq.web.todos.fields import TaskForm, due_of

ZONES = ("Asia/Shanghai", "America/New_York")
OFFSETS = {"Asia/Shanghai": "+08:00", "America/New_York": "-05:00"}
NOW = "2026-01-01T00:00:00.000000Z"


def at(text: str) -> dict[str, Any]:
    return {"type": "datetime", "at": text}


def day(text: str) -> dict[str, Any]:
    return {"type": "date", "date": text}


def series(rule: str, due: dict[str, Any], zone: str | None, steps: int) -> list[str]:
    """The dues a task walks through when completed `steps` times (stops when it is finished)."""
    task: dict[str, Any] = {"recurrence": rule, "due": due, "timezone": zone, "done": False, "parentId": None}
    seen = []
    for _ in range(steps):
        following = advanced(task, NOW)
        if following is None:
            break
        task = following
        seen.append(task["due"].get("at") or task["due"]["date"])
    return seen


@pytest.mark.parametrize("zone", ZONES)
def test_daily(zone: str) -> None:
    due = at(f"2026-01-30T08:00:00{OFFSETS[zone]}")
    assert series("FREQ=DAILY", due, zone, 3) == [
        f"2026-01-31T08:00:00{OFFSETS[zone]}",
        f"2026-02-01T08:00:00{OFFSETS[zone]}",
        f"2026-02-02T08:00:00{OFFSETS[zone]}",
    ]


@pytest.mark.parametrize("zone", ZONES)
def test_weekly_mon_wed_fri(zone: str) -> None:
    due = at(f"2026-01-05T10:30:00{OFFSETS[zone]}")  # a Monday
    got = series("FREQ=WEEKLY;BYDAY=MO,WE,FR", due, zone, 4)
    assert [text[:10] for text in got] == ["2026-01-07", "2026-01-09", "2026-01-12", "2026-01-14"]
    assert all(text[10:] == f"T10:30:00{OFFSETS[zone]}" for text in got)


@pytest.mark.parametrize("zone", ZONES)
def test_monthly_on_the_31st_skips_short_months(zone: str) -> None:
    due = at(f"2026-01-31T09:00:00{OFFSETS[zone]}")
    got = series("FREQ=MONTHLY;BYMONTHDAY=31", due, zone, 3)
    assert [text[:10] for text in got] == ["2026-03-31", "2026-05-31", "2026-07-31"]


@pytest.mark.parametrize("zone", ZONES)
def test_yearly_on_feb_29(zone: str) -> None:
    due = at(f"2024-02-29T07:00:00{OFFSETS[zone]}")
    got = series("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", due, zone, 2)
    assert [text[:10] for text in got] == ["2028-02-29", "2032-02-29"]


def test_dst_crossing_rule_stays_at_nine_local_in_new_york() -> None:
    # 2026-03-08: New York springs forward (EST -05:00 -> EDT -04:00); Nov 1 falls back.
    due = at("2026-03-06T09:00:00-05:00")
    assert series("FREQ=DAILY", due, "America/New_York", 3) == [
        "2026-03-07T09:00:00-05:00",
        "2026-03-08T09:00:00-04:00",
        "2026-03-09T09:00:00-04:00",
    ]
    autumn = at("2026-10-31T09:00:00-04:00")
    assert series("FREQ=DAILY", autumn, "America/New_York", 1) == ["2026-11-01T09:00:00-05:00"]


def test_a_time_the_spring_change_skips_keeps_the_series_time_of_day() -> None:
    """A daily 02:30 in New York: on 2026-03-08 the clock jumps from 02:00 to 03:00, so that day's
    02:30 is the instant of 03:30 EDT; the days after are 02:30 again, not 03:30 for ever. The gap
    day's due is written as its wall time with the offset before the change (the same instant,
    as RFC 5545 §3.3.5 reads a DTSTART the zone skips), so the next step still knows 02:30."""
    due = at("2026-03-07T02:30:00-05:00")
    walked = series("FREQ=DAILY", due, "America/New_York", 3)
    assert walked == ["2026-03-08T02:30:00-05:00", "2026-03-09T02:30:00-04:00", "2026-03-10T02:30:00-04:00"]
    assert parse_timestamp(walked[0], "due") == parse_timestamp("2026-03-08T03:30:00-04:00", "due")  # one instant
    # The same in Lord Howe, whose clock moves half an hour (02:00 -> 02:30 on 2026-10-04).
    assert series("FREQ=DAILY", at("2026-10-03T02:15:00+10:30"), "Australia/Lord_Howe", 2) == [
        "2026-10-04T02:15:00+10:30",
        "2026-10-05T02:15:00+11:00",
    ]
    # A 03:30 typed on the gap day is 03:30 on the days after (the written wall time decides).
    assert series("FREQ=DAILY", at("2026-03-08T03:30:00-04:00"), "America/New_York", 1) == ["2026-03-09T03:30:00-04:00"]


def test_dst_crossing_rule_in_shanghai_has_no_change() -> None:
    due = at("2026-03-07T09:00:00+08:00")
    assert series("FREQ=DAILY", due, "Asia/Shanghai", 2) == ["2026-03-08T09:00:00+08:00", "2026-03-09T09:00:00+08:00"]


def test_a_due_written_in_utc_steps_in_the_task_zone() -> None:
    """09:00 New York written as 14:00Z before the change: the rule keeps 09:00 local."""
    assert next_due("FREQ=DAILY", at("2026-03-07T14:00:00Z"), "America/New_York") == at("2026-03-08T09:00:00-04:00")


@pytest.mark.parametrize("zone", ZONES)
def test_count_three_ends_after_three_completions(zone: str) -> None:
    due = at(f"2026-01-05T09:00:00{OFFSETS[zone]}")
    task: dict[str, Any] = {"recurrence": "FREQ=DAILY;COUNT=3", "due": due, "timezone": zone, "done": False}
    first = advanced(task, NOW)
    assert first is not None
    second = advanced(first, NOW)
    assert second is not None and second["due"]["at"][:10] == "2026-01-07"
    assert advanced(second, NOW) is None  # the third completion finishes the series
    assert [o["due"]["at"][:10] for o in second["occurrences"]] == ["2026-01-05", "2026-01-06"]


@pytest.mark.parametrize("zone", ZONES)
def test_until_ends_the_series(zone: str) -> None:
    due = at(f"2026-01-05T09:00:00{OFFSETS[zone]}")
    until = "20260107T235959Z"
    assert [t[:10] for t in series(f"FREQ=DAILY;UNTIL={until}", due, zone, 5)] == ["2026-01-06", "2026-01-07"]


@pytest.mark.parametrize("zone", [*ZONES, None])
def test_date_only_rules_step_in_dates(zone: str | None) -> None:
    assert series("FREQ=WEEKLY;BYDAY=MO,WE,FR", day("2026-01-05"), zone, 3) == [
        "2026-01-07",
        "2026-01-09",
        "2026-01-12",
    ]
    assert series("FREQ=MONTHLY;BYMONTHDAY=31", day("2026-01-31"), zone, 2) == ["2026-03-31", "2026-05-31"]
    assert series("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", day("2024-02-29"), zone, 1) == ["2028-02-29"]
    assert series("FREQ=DAILY;UNTIL=20260107", day("2026-01-05"), zone, 5) == ["2026-01-06", "2026-01-07"]
    assert series("FREQ=DAILY;COUNT=3", day("2026-01-05"), zone, 5) == ["2026-01-06", "2026-01-07"]


def test_without_a_zone_a_datetime_due_keeps_its_own_offset() -> None:
    assert next_due("FREQ=WEEKLY", at("2026-03-06T09:00:00-05:00"), None) == at("2026-03-13T09:00:00-05:00")


@pytest.mark.parametrize(
    ("rule", "due"),
    [
        ("FREQ=SECONDLY", day("2026-01-01")),
        ("FREQ=DAILY;BYDAY=XX", day("2026-01-01")),
        ("FREQ=DAILY", None),
        ("FREQ=DAILY;UNTIL=20260107", at("2026-01-01T09:00:00+08:00")),  # RFC 5545: UTC for a datetime
        ("FREQ=DAILY;INTERVAL=0", day("2026-01-01")),  # dateutil would never move on
        ("FREQ=WEEKLY;INTERVAL=0", at("2026-01-01T09:00:00+08:00")),
        ("FREQ=DAILY;INTERVAL=-1", day("2026-01-01")),
        ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", at("2026-01-01T09:00:00+08:00")),  # never a date
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=9", day("2026-01-01")),
    ],
)
def test_invalid_rules_are_validation_errors(rule: str, due: dict[str, Any] | None) -> None:
    with pytest.raises(ValidationError):
        check_rule(rule, due, "Asia/Shanghai")


def test_a_rule_that_never_gives_a_date_is_refused_fast_and_ends_a_stored_series() -> None:
    started = time.process_time()  # CPU time: a loaded test machine does not inflate it
    with pytest.raises(ValidationError, match="gives no date on or after the due"):
        check_rule("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", day("2026-01-01"), None)
    # Stored before the check refused them: completing ends the series instead of spinning.
    assert next_due("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", day("2026-01-01"), None) is None
    assert next_due("FREQ=DAILY;INTERVAL=0", day("2026-01-01"), None) is None
    assert time.process_time() - started < 1.5  # dateutil alone walks to year 9999: about 3.4 s each


def test_rare_rules_and_the_end_of_the_calendar() -> None:
    check_rule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", day("2026-01-01"), None)  # next in 2044
    assert next_due("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", day("2026-01-01"), None) == day("2044-02-29")
    assert next_due("FREQ=YEARLY", day("9999-06-01"), None) is None  # past year 9999 the series ends


@pytest.mark.parametrize("part", ["BYHOUR=9,12,15", "BYMINUTE=30", "BYSECOND=5"])
def test_a_date_only_due_refuses_time_of_day_parts(part: str) -> None:
    """RFC 5545 §3.3.10: BYHOUR, BYMINUTE and BYSECOND MUST NOT be given with a DATE start. A
    date-only due with `FREQ=DAILY;BYHOUR=9,12,15` was accepted, and completing it left its due
    on the same day every time (each next time of day falls on the due's date): it never moved."""
    with pytest.raises(ValidationError) as refused:
        check_rule(f"FREQ=DAILY;{part}", day("2026-12-06"), None)
    assert "time" in refused.value.message and part.split("=")[0] in refused.value.message
    check_rule(f"FREQ=DAILY;{part}", at("2026-12-06T09:00:00+08:00"), "Asia/Shanghai")  # fine with a time


def test_a_stored_date_only_rule_with_time_parts_still_moves_on() -> None:
    """One stored before the refusal: its time-of-day parts are ignored, as RFC 5545 asks of
    rules that break that rule, so completing moves to the next day."""
    assert next_due("FREQ=DAILY;BYHOUR=9,12,15", day("2026-12-06"), None) == day("2026-12-07")
    assert next_due("FREQ=WEEKLY;BYDAY=MO,TH;BYMINUTE=0,30", day("2026-12-07"), None) == day("2026-12-10")


def test_calendars_read_a_skipped_time_as_the_series_time_of_day() -> None:
    """The feed and CalDAV write the gap day's due as 02:30 with its TZID (RFC 5545 §3.3.5 reads
    it as 03:30 EDT that day), so a calendar expanding the RRULE puts the next days at 02:30, as
    MeSQ steps them, not at 03:30."""
    record = {
        "id": "T1", "title": "night job", "notes": "", "tags": [], "priority": "none", "done": False,
        "due": at("2026-03-08T02:30:00-05:00"), "timezone": "America/New_York", "recurrence": "FREQ=DAILY",
        "reminders": [], "revision": 1, "createdAt": NOW, "updatedAt": NOW,
    }  # fmt: skip
    written = event("task", record).to_ical().decode()
    assert "DTSTART;TZID=America/New_York:20260308T023000" in written
    todo = render("task", record).to_ical().decode()
    assert "DUE;TZID=America/New_York:20260308T023000" in todo


def test_a_skipped_time_typed_in_quick_add_or_the_task_form_keeps_its_series() -> None:
    """ "每天凌晨2点半" typed in New York on 2026-03-07 and the task form's 2026-03-08 02:30: the
    first due is the skipped 02:30 (the instant of 03:30 EDT), written so that the series steps
    at 02:30 from then on, not at 03:30."""
    typed = parse_quick_add("每天凌晨2点半 备份", zone="America/New_York", now=datetime(2026, 3, 7, 17, 0, tzinfo=UTC))
    arguments = typed.arguments("America/New_York")
    assert arguments["due"] == at("2026-03-08T02:30:00-05:00"), arguments
    assert next_due(arguments["recurrence"], arguments["due"], "America/New_York") == at("2026-03-09T02:30:00-04:00")
    form = TaskForm("t", "", "none", "", "2026-03-08", "02:30", "America/New_York", "FREQ=DAILY", "")
    due = due_of(form)
    assert due == at("2026-03-08T02:30:00-05:00")
    assert next_due("FREQ=DAILY", due, "America/New_York") == at("2026-03-09T02:30:00-04:00")
    # Every other time keeps the stored UTC form.
    assert due_of(replace(form, due_time="03:30")) == at("2026-03-08T07:30:00.000000Z")
    assert parse_quick_add(
        "tomorrow 9am call", zone="America/New_York", now=datetime(2026, 3, 7, 17, 0, tzinfo=UTC)
    ).arguments("America/New_York")["due"] == at("2026-03-08T13:00:00Z")


def test_the_wall_clock_of_a_due_at_the_calendars_ends_is_in_zones_reading() -> None:
    """wall_clock reads a due as in_zone does wherever the zone skips nothing, the calendar's last
    day included (a due of 9999-12-31T23:59:59Z is 18:59 in New York; it read UTC when the check
    for a skipped time overflowed past year 9999)."""
    new_york = ZoneInfo("America/New_York")
    for text in ("9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "2026-03-08T07:30:00Z", "2026-11-01T05:30:00Z"):
        moment = parse_timestamp(text, "due")
        assert wall_clock(text, new_york) == in_zone(moment, new_york)
        assert wall_clock(text, new_york).utcoffset() == in_zone(moment, new_york).utcoffset()
