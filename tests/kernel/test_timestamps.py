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
