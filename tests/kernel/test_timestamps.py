from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesq.kernel.errors import ValidationError
from mesq.kernel.timestamps import format_timestamp, normalize_timestamp, parse_timestamp


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-10-05T00:00:00+08:00", "2026-10-04T16:00:00.000000Z"),
        ("2026-10-05T00:00Z", "2026-10-05T00:00:00.000000Z"),
        ("2026-10-05T00:00:00.5-01:30", "2026-10-05T01:30:00.500000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"),
        ("0001-01-01T01:00:00+01:00", "0001-01-01T00:00:00.000000Z"),
        ("9999-12-31T08:00:00.999999-15:59", "9999-12-31T23:59:00.999999Z"),
    ],
)
def test_accepted(text, expected):
    assert normalize_timestamp(text, "t") == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-10-05",
        "2026-10-05T00:00:00",
        "2026-10-05 00:00:00Z",
        "0000-01-01T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00.1234567Z",
        "2026-01-01T00:00:00+16:00",
        "2026-01-01T00:00:00+15:60",
        "2026-01-01T00:00:00+0800",
        "١٢٣٤-01-01T00:00:00Z",
        "",
        "now",
        "0001-01-01T00:30:00+01:00",
        "9999-12-31T23:59:00-00:01",
    ],
)
def test_rejected(text):
    with pytest.raises(ValidationError) as caught:
        parse_timestamp(text, "createdFrom")
    assert caught.value.message.startswith("createdFrom")


def test_unencoded_plus_gets_a_hint():
    with pytest.raises(ValidationError, match="%2B"):
        parse_timestamp("2026-10-05T00:00:00 08:00", "createdFrom")


def test_a_space_between_date_and_time_is_not_blamed_on_a_url_query():
    """A JSON body's `2026-12-07 16:55:00+08:00` (a date format with a space, as a Shortcut's
    custom format writes it) holds no '+' turned into a space: the hint said to send '+' as %2B,
    which the value already had. It names the T instead."""
    with pytest.raises(ValidationError) as caught:
        parse_timestamp("2026-12-07 16:55:00+08:00", "due.at")
    assert "%2B" not in caught.value.message
    assert "write T between the date and the time" in caught.value.message
    with pytest.raises(ValidationError) as both:  # a space for the T and a '+' lost in a URL query
        parse_timestamp("2026-12-07 16:55:00 08:00", "dueAfter")
    assert "%2B" in both.value.message and "write T between the date and the time" in both.value.message


@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(min_value=-(15 * 60 + 59), max_value=15 * 60 + 59),
)
def test_round_trip_preserves_the_instant(moment, offset_minutes):
    zone = timezone(timedelta(minutes=offset_minutes))
    local = moment.replace(tzinfo=zone)
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    text = local.strftime("%Y-%m-%dT%H:%M:%S.%f").rjust(26, "0") + f"{sign}{hours:02d}:{minutes:02d}"
    text = f"{local.year:04d}" + text[-(len(text) - text.index("-")) :]
    assert parse_timestamp(text, "t") == local.astimezone(UTC)


@given(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)),
)
def test_stored_form_sorts_like_time(a, b):
    assert (format_timestamp(a) < format_timestamp(b)) == (a < b)
