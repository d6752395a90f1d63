"""Dates, times, relative days, sizes and zone names in a reader's language, by Babel's CLDR data
(`en`, and `zh_Hans_CN` for Chinese): `Dec 2` / `12月2日`, `Wed` / `周三`, `in 3 days` / `3天后`,
`5 bytes` / `5字节`, `China Time` / `中国时间`. Never `strftime`, which follows the process's
locale, and never a table written here, which would say one language's conventions in another's.

The words of the catalog (today, tomorrow, yesterday) stay in the catalog (`kernel/i18n.py`);
this module only formats values."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, tzinfo
from functools import cache

from babel import Locale
from babel.core import get_global
from babel.dates import format_datetime, format_skeleton, format_timedelta, get_timezone_name
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.units import format_unit

from .i18n import DEFAULT_LANGUAGE, LANGUAGES

#: The CLDR locale of each language: the pages are in Simplified Chinese, as used in China.
CLDR_LOCALES = {"en": "en", "zh": "zh_Hans_CN"}
#: A `format_timedelta` threshold no count of days reaches: "in 17 days", never "in 2 weeks".
_DAYS_ONLY = 1_000_000.0
_SIZE_UNITS = ((1024**3, "digital-gigabyte"), (1024**2, "digital-megabyte"), (1024, "digital-kilobyte"))


@cache
def cldr_locale(language: str) -> Locale:
    return Locale.parse(CLDR_LOCALES.get(language, CLDR_LOCALES[DEFAULT_LANGUAGE]))


def month_day(day: date, language: str, *, with_year: bool = False) -> str:
    """`Dec 2` / `12月2日`; with the year `Jan 3, 2027` / `2027年1月3日`."""
    return format_skeleton("yMMMd" if with_year else "MMMd", day, locale=cldr_locale(language))


def weekday_month_day(day: date, language: str) -> str:
    """`Wed, Dec 2` / `12月2日周三`."""
    return format_skeleton("MMMEd", day, locale=cldr_locale(language))


def weekday(day: date, language: str) -> str:
    """`Wed` / `周三`."""
    return format_skeleton("E", day, locale=cldr_locale(language))


def clock(moment: datetime, language: str) -> str:
    """`17:00` (a 24-hour clock in both languages)."""
    return format_skeleton("Hm", moment, locale=cldr_locale(language), tzinfo=moment.tzinfo)


def in_days(days: int, language: str) -> str:
    """`in 3 days` / `3天后`, `5 days ago` / `5天前`."""
    delta = timedelta(days=days)
    return format_timedelta(delta, granularity="day", threshold=_DAYS_ONLY, add_direction=True,
                            locale=cldr_locale(language))  # fmt: skip


def moment_text(moment: datetime, zone: tzinfo, language: str) -> str:
    """`2026-11-30 04:30 +0800`, `2026-07-01 08:00 EDT` / `2026-07-01 08:00 北美东部夏令时间`
    (the zone as `zone_at` says it): digits a reader of either language reads."""
    local = moment.astimezone(zone)
    text = format_datetime(local, "yyyy-MM-dd HH:mm", tzinfo=zone, locale=cldr_locale(language))
    return f"{text} {zone_at(local, language)}"


def _is_name(label: str) -> bool:
    """Whether CLDR gave a zone's name (`EDT`, `中欧夏令时间`), not an offset (`-0400`, `GMT+02:00`)."""
    return any(c.isalpha() for c in label) and not re.match(r"GMT[+-]", label)


def _changes_clock(zone: tzinfo, year: int) -> bool:
    """Whether `zone` has a clock change (standard and daylight time) in `year`."""
    offsets = {datetime(year, month, 1, 12, tzinfo=zone).utcoffset() for month in (1, 4, 7, 10)}
    return len(offsets) > 1


def zone_at(moment: datetime, language: str) -> str:
    """The zone of `moment` (aware, in its zone) as a reader of `language` tells its side of a
    clock change: CLDR's short name where the language has one (`EST` / `EDT`, `UTC`); for a zone
    with a clock change and no short name, its long name, which says standard or daylight time
    (`北美东部标准时间` / `北美东部夏令时间`, `Central European Summer Time`); else the offset
    (`+0800`: one all year). Chinese has no short names, and a bare `-0500` / `-0400` on a
    Chinese page meant nothing where the English one read EST / EDT."""
    locale, zone = cldr_locale(language), moment.tzinfo
    short = str(format_datetime(moment, "z", tzinfo=zone, locale=locale))
    if _is_name(short):
        return short
    if zone is not None and _changes_clock(zone, moment.year):
        long = str(format_datetime(moment, "zzzz", tzinfo=zone, locale=locale))
        if _is_name(long):
            return long
    return short


#: Every IANA name of UTC itself (with and without `Etc/`).
_UTC_NAMES = frozenset(
    prefix + name
    for prefix in ("", "Etc/")
    for name in ("UTC", "UCT", "GMT", "GMT0", "GMT+0", "GMT-0", "Greenwich", "Universal", "Zulu")
)
#: `Etc/GMT+5`: POSIX signs, five hours *behind* UTC.
_ETC_OFFSET = re.compile(r"Etc/GMT([+-])(\d{1,2})")


def zone_name(zone: tzinfo, language: str) -> str:
    """The zone by its generic name: `China Time` / `中国时间`, `Eastern Time` / `北美东部时间`;
    UTC by that name; a fixed `Etc/GMT±N` by its real offset (`Etc/GMT+5` is `UTC-5`: the name's
    sign is POSIX's, the reverse of ISO 8601's, and "GMT+5" told a person five hours behind UTC
    they were five ahead); a zone CLDR places in no region (`EST5EDT`, `Antarctica/Troll`) by its
    own name, not "world (EST5EDT) Time"."""
    name = str(zone)
    if name in _UTC_NAMES:
        return "UTC"
    fixed = _ETC_OFFSET.fullmatch(name)
    if fixed:
        hours = int(fixed[2])
        return f"UTC{'-' if fixed[1] == '+' else '+'}{hours}" if hours else "UTC"
    canonical = get_global("zone_aliases").get(name, name)
    if get_global("zone_territories").get(canonical, "001") == "001":
        return name
    return str(get_timezone_name(zone, "long", zone_variant="generic", locale=cldr_locale(language)))


def size(count: int, language: str) -> str:
    """`5 bytes` / `5字节`, `1.2 kB`, `3.4 MB`: bytes in words, bigger units by their symbols."""
    for factor, unit in _SIZE_UNITS:
        if count >= factor:
            value = round(count / factor, 1)
            return str(format_unit(value, unit, length="short", locale=cldr_locale(language)))
    return str(format_unit(count, "digital-byte", length="long", locale=cldr_locale(language)))


def number(value: float, language: str) -> str:
    """`12,345` / `12,345` (the locale's grouping)."""
    return format_decimal(value, locale=cldr_locale(language))


def listing(items: list[str], language: str) -> str:
    """`a, b, and c` / `a、b和c`."""
    return format_list(items, locale=cldr_locale(language)) if items else ""


__all__ = [
    "CLDR_LOCALES",
    "LANGUAGES",
    "cldr_locale",
    "clock",
    "in_days",
    "listing",
    "moment_text",
    "month_day",
    "number",
    "size",
    "weekday",
    "weekday_month_day",
    "zone_at",
    "zone_name",
]  # fmt: skip
