"""The timestamp rules of docs/contract.md §3, in one place.

Filters accept ISO 8601 with `Z` or an offset, year 0001..9999, at most 6 fractional digits and
an offset of at most ±15:59. Stored times are fixed-width UTC strings
(`2026-11-29T08:00:00.000000Z`), so string order is time order in every store and index.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..kernel.messages import quoted
from .errors import ValidationError

_ISO = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})[Tt]"
    r"(?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>[Zz]|(?P<sign>[+-])(?P<oh>\d{2}):(?P<om>\d{2}))",
    re.ASCII,  # \d must not match other scripts' digits
)
_MIN_UTC = datetime(1, 1, 1, tzinfo=UTC)
_MAX_UTC = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def _space_hint(value: object) -> str:
    """What a space in a refused timestamp likely means: one where the T goes (a date format
    written with a space), and any other a '+' a URL query turned into a space."""
    if not isinstance(value, str) or " " not in value:
        return ""
    hints = []
    if len(value) > 10 and value[10] == " ":
        hints.append("write T between the date and the time")
        value = value[:10] + "T" + value[11:]
    if " " in value:
        hints.append("in a URL query, send '+' as %2B")
    return " (" + "; ".join(hints) + ")"


def parse_timestamp(value: str, field: str) -> datetime:
    """Parse a filter timestamp into an aware UTC datetime, or raise ValidationError naming `field`."""
    match = _ISO.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        hint = _space_hint(value)
        raise ValidationError(
            "%(field)s: %(value)s is not an ISO 8601 timestamp with Z or an offset (e.g. "
            "2026-10-05T00:00:00+08:00)%(hint)s",
            field=field,
            value=quoted(value),
            hint=hint,
        )
    fraction = match["fraction"] or ""
    if len(fraction) > 6:
        raise ValidationError("%(field)s: at most 6 fractional second digits are allowed", field=field)
    year = int(match["year"])
    if year < 1:
        raise ValidationError("%(field)s: the year must be between 0001 and 9999", field=field)
    offset = timedelta(0)
    if match["sign"]:
        hours, minutes = int(match["oh"]), int(match["om"])
        if hours > 15 or minutes > 59:
            raise ValidationError("%(field)s: the offset must be within ±15:59", field=field)
        offset = timedelta(hours=hours, minutes=minutes)
        if match["sign"] == "-":
            offset = -offset
    try:
        local = datetime(
            year,
            int(match["month"]),
            int(match["day"]),
            int(match["hour"]),
            int(match["minute"]),
            int(match["second"] or 0),
            int(fraction.ljust(6, "0")) if fraction else 0,
        )
    except ValueError as exc:
        raise ValidationError(
            "%(field)s: %(value)s is not a valid date and time (%(exc)s)", field=field, value=quoted(value), exc=exc
        ) from None
    # An instant whose UTC time leaves 0001..9999 (0001-01-01T00:30+01:00) cannot be stored or
    # compared exactly: reject it rather than silently moving it.
    naive_min, naive_max = _MIN_UTC.replace(tzinfo=None), _MAX_UTC.replace(tzinfo=None)
    if (offset > timedelta(0) and local - naive_min < offset) or (
        offset < timedelta(0) and naive_max - local < -offset
    ):
        raise ValidationError(
            "%(field)s: %(value)s is outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z",
            field=field,
            value=quoted(value),
        )
    return (local - offset).replace(tzinfo=UTC)


def format_timestamp(moment: datetime) -> str:
    """Fixed-width UTC form used for every stored time."""
    # Not strftime: %Y drops the leading zeros of years before 1000 on glibc.
    m = moment.astimezone(UTC)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}.{m.microsecond:06d}Z"


def in_zone(moment: datetime, zone: tzinfo) -> datetime:
    """`moment` at `zone`'s wall clock; in UTC when that offset would take it off the calendar
    (0001-01-01T00:00Z west of UTC, 9999-12-31T23:00Z east of it: REST, MCP, CalDAV and the
    imports accept them, and one such due or date made a whole page or listing answer 500)."""
    try:
        return moment.astimezone(zone)
    except OverflowError:
        return moment.astimezone(UTC)


def wall_clock(text: str, zone: tzinfo, field: str = "due.at") -> datetime:
    """The instant written as `text` at `zone`'s wall clock (`in_zone`), except a wall time the
    zone skips (a spring-forward gap: New York's 02:30 on 2026-03-08) written with the offset
    before the change (`...T02:30:00-05:00`, the instant of 03:30 EDT, as RFC 5545 §3.3.5 and
    zoneinfo read it): that stays 02:30, so a daily 02:30 series goes back to 02:30 the next day
    instead of keeping 03:30 for ever."""
    moment = parse_timestamp(text, field)
    shown = in_zone(moment, zone)
    written = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    skipped = written.replace(tzinfo=zone)
    try:
        if skipped.astimezone(UTC) == moment and skipped.replace(tzinfo=None) != shown.replace(tzinfo=None):
            return skipped
    except OverflowError:  # a wall time at the calendar's very ends: no gap there
        pass
    return shown


def skipped_wall_time(moment: datetime) -> bool:
    """Whether `moment`'s wall time is one its zone skips (a spring-forward gap: New York's 02:30
    on 2026-03-08, which zoneinfo reads with the offset before the change). A due typed so is
    written as that wall time with its offset (`moment.isoformat()`), which `wall_clock` reads
    back as 02:30, so a series stepping from it keeps its time of day."""
    try:
        return moment.astimezone(UTC).astimezone(moment.tzinfo).replace(tzinfo=None) != moment.replace(tzinfo=None)
    except OverflowError:
        return False


def normalize_timestamp(value: str, field: str) -> str:
    return format_timestamp(parse_timestamp(value, field))


def utc_now() -> datetime:
    return datetime.now(UTC)


def now_timestamp() -> str:
    return format_timestamp(utc_now())


def parse_zone(name: str, field: str) -> ZoneInfo:
    """An IANA time zone by name, or ValidationError naming `field`. Callers for which a zone is
    optional handle None before calling."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a file name
        raise ValidationError(
            "%(field)s: %(name)s is not an IANA time zone name (e.g. Asia/Shanghai)", field=field, name=quoted(name)
        ) from None
