"""Repeats that keep the short months (todos/short_months.py): what a person makes on the
29th-31st (or 29 February) is written so that no month, or year, loses its occurrence, and a
series made so keeps its day through completions."""

from __future__ import annotations

from datetime import date

import pytest

from mesq.todos.recurrence import check_rule, next_due
from mesq.todos.short_months import never_skipping, plain_repeat_of

LAST_OR_30 = "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1"
LEAP = "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"


@pytest.mark.parametrize(
    ("rule", "anchor", "said"),
    [
        ("FREQ=MONTHLY", date(2027, 1, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
        ("FREQ=MONTHLY", date(2027, 1, 30), LAST_OR_30),
        ("FREQ=MONTHLY", date(2027, 1, 29), "FREQ=MONTHLY;BYMONTHDAY=28,29;BYSETPOS=-1"),
        ("FREQ=MONTHLY;BYMONTHDAY=30", date(2027, 2, 5), LAST_OR_30),
        ("FREQ=MONTHLY;BYMONTHDAY=31", date(2027, 2, 5), "FREQ=MONTHLY;BYMONTHDAY=-1"),
        ("FREQ=MONTHLY;INTERVAL=2;COUNT=6", date(2027, 1, 30),
         "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=28,29,30;BYSETPOS=-1;COUNT=6"),
        ("FREQ=YEARLY", date(2028, 2, 29), LEAP),
        # kept as they are: days every month has, other parts, other frequencies
        ("FREQ=MONTHLY", date(2027, 1, 28), "FREQ=MONTHLY"),
        ("FREQ=MONTHLY;BYMONTHDAY=15", date(2027, 1, 31), "FREQ=MONTHLY;BYMONTHDAY=15"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", date(2027, 1, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
        ("FREQ=MONTHLY;BYMONTHDAY=1,31", date(2027, 1, 31), "FREQ=MONTHLY;BYMONTHDAY=1,31"),
        ("FREQ=MONTHLY;BYDAY=-1FR", date(2027, 1, 29), "FREQ=MONTHLY;BYDAY=-1FR"),
        (LAST_OR_30, date(2027, 1, 30), LAST_OR_30),
        ("FREQ=WEEKLY", date(2027, 1, 31), "FREQ=WEEKLY"),
        ("FREQ=YEARLY", date(2027, 3, 31), "FREQ=YEARLY"),
        ("FREQ=YEARLY;BYMONTH=2", date(2028, 2, 29), "FREQ=YEARLY;BYMONTH=2"),
    ],
)  # fmt: skip
def test_never_skipping(rule: str, anchor: date, said: str) -> None:
    assert never_skipping(rule, anchor) == said


@pytest.mark.parametrize(
    ("rule", "start", "following"),
    [
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "2027-01-31", ["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31"]),
        (LAST_OR_30, "2027-01-30", ["2027-02-28", "2027-03-30", "2027-04-30", "2027-05-30"]),
        (LAST_OR_30, "2028-01-30", ["2028-02-29", "2028-03-30"]),
        (LEAP, "2028-02-29", ["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"]),
    ],
)
def test_a_series_keeps_its_day_through_the_short_months(rule: str, start: str, following: list[str]) -> None:
    due = {"type": "date", "date": start}
    check_rule(rule, due, None)
    dates = []
    for _ in following:
        due = next_due(rule, due, None) or {}
        dates.append(due["date"])
    assert dates == following
    # What RFC 5545 does with the plain rule, the reason for all this: February is skipped.
    assert next_due("FREQ=MONTHLY", {"type": "date", "date": "2027-01-31"}, None) == {
        "type": "date",
        "date": "2027-03-31",
    }


def test_the_plain_repeat_a_form_stands_for() -> None:
    """The task form shows "Every month" for the 29th's or 30th's series while its due is on that
    day, "Every year" for the leap day's on 29 February; anywhere else the rule as it is (said
    again from a short month's last day, the preset would move the series there for good)."""
    assert plain_repeat_of(LAST_OR_30, date(2027, 4, 30)) == "FREQ=MONTHLY"
    assert plain_repeat_of("FREQ=MONTHLY;BYMONTHDAY=28,29;BYSETPOS=-1", date(2027, 1, 29)) == "FREQ=MONTHLY"
    assert plain_repeat_of(LAST_OR_30, date(2027, 2, 28)) is None
    assert plain_repeat_of(LAST_OR_30, date(2027, 3, 31)) is None  # the 31st is not the 30th
    assert plain_repeat_of(LAST_OR_30, date(2027, 2, 15)) is None
    assert plain_repeat_of("FREQ=MONTHLY;BYMONTHDAY=-1", date(2027, 1, 31)) is None  # a preset of its own
    assert plain_repeat_of(LEAP, date(2028, 2, 29)) == "FREQ=YEARLY"
    assert plain_repeat_of(LEAP, date(2029, 2, 28)) is None
    assert plain_repeat_of("FREQ=MONTHLY", date(2027, 1, 30)) is None  # the plain rule is its own preset


def test_a_form_sent_back_by_a_calendar_client_in_another_order_is_still_the_plain_repeat() -> None:
    """icalendar writes BYMONTHDAY before BYMONTH: a task a CalDAV client saved comes back so."""
    assert plain_repeat_of("FREQ=YEARLY;BYMONTHDAY=28,29;BYMONTH=2;BYSETPOS=-1", date(2032, 2, 29)) == "FREQ=YEARLY"
