"""When a change or a session happened, in the reader's zone and language: `Today 14:02`,
`Today 14:02-14:09`, `Yesterday 23:50 - Today 00:10`, `Dec 3 14:02-14:09` / `12月3日 14:02-14:09`
(the dashes CLDR's own: an en dash).

Dates and clocks are CLDR's (Babel), never `strftime` (which follows the process's locale); the
words "Today" and "Yesterday" are the catalog's.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from functools import cache
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_interval, format_skeleton

from ...kernel.formats import zone_at
from ...kernel.timestamps import in_zone, parse_timestamp
from ..kit.framework import Page
from ..kit.i18n import N_, NC_, Translator

#: The CLDR locale of each page language (the pages are in Simplified Chinese, as used in China).
_CLDR = {"en": "en", "zh": "zh_Hans_CN"}
_NEAR_DAYS = {0: N_("Today"), 1: N_("Yesterday")}
#: The same days after other words (`created today 14:02`): lower case in English.
_NEAR_DAYS_IN_SENTENCE = {0: NC_("inside a sentence", "today"), 1: NC_("inside a sentence", "yesterday")}


@cache
def cldr_locale(language: str) -> Locale:
    return Locale.parse(_CLDR.get(language, "en"))


def local(timestamp: str, zone: str) -> datetime:
    """`timestamp` in `zone`; in UTC when the zone's offset would take it off the calendar (a due
    of 9999-12-31T23:00Z east of UTC, which a calendar app or REST may store): one such change
    made the whole activity page answer 500."""
    return in_zone(parse_timestamp(timestamp, "at"), ZoneInfo(zone))


def day_words(day: date, today: date, say: Translator, *, in_sentence: bool = False) -> str:
    """`Today`, `Yesterday`, `Dec 3` / `12月3日`, `Dec 3, 2025` / `2025年12月3日` (another year);
    `today`, `yesterday` `in_sentence`."""
    near = (today - day).days
    if near in _NEAR_DAYS:
        return say.pgettext(*_NEAR_DAYS_IN_SENTENCE[near]) if in_sentence else say.gettext(_NEAR_DAYS[near])
    skeleton = "MMMd" if day.year == today.year else "yMMMd"
    return str(format_skeleton(skeleton, day, locale=cldr_locale(say.language)))


def clock(moment: datetime, say: Translator) -> str:
    return str(format_skeleton("Hm", moment, tzinfo=moment.tzinfo, locale=cldr_locale(say.language)))


def _zoned_clock(moment: datetime, say: Translator) -> str:
    """`01:50 EST` / `01:50 北美东部标准时间`: a clock with its side of the clock change, where a
    span crosses one (`formats.zone_at`: the same rule as every zone-qualified time of the pages)."""
    return f"{clock(moment, say)} {zone_at(moment, say.language)}"


def moment_words(timestamp: str, zone: str, now: datetime, say: Translator, *, in_sentence: bool = False) -> str:
    """One change's time: `Today 14:02`, `Dec 3 14:02` (`today 14:02` `in_sentence`)."""
    moment, today = local(timestamp, zone), now.astimezone(ZoneInfo(zone)).date()
    day = day_words(moment.date(), today, say, in_sentence=in_sentence)
    return say.gettext("%(day)s %(time)s", day=day, time=clock(moment, say))


def page_moment(page: Page, timestamp: str) -> str:
    """A stored time as /activity says it, after other words (`trashed today 14:02`, `删除于
    今天 14:02`): in the page's zone and language, "today" by the page's clock. The trash pages
    showed `2026-12-07 04:25 +0800`, an offset no one reads as their own time."""
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    return moment_words(timestamp, page.time_zone, now, page.translator, in_sentence=True)


def span_words(first: str, last: str, zone: str, now: datetime, say: Translator) -> str:
    """A session's time span, oldest change to newest: one day named once (`Today 14:02-14:09`),
    two days each with its clock; a moment alone when they are the same minute; each clock with
    its zone's short name when the span crosses a clock change (`Mar 14 01:50 EST - 03:02 EDT`:
    12 minutes, not 72)."""
    start, end = local(first, zone), local(last, zone)
    today = now.astimezone(ZoneInfo(zone)).date()
    if start.date() != end.date():
        return say.gettext(
            "%(start)s – %(end)s",  # noqa: RUF001 -- an en dash, as CLDR writes a range
            start=moment_words(first, zone, now, say),
            end=moment_words(last, zone, now, say),
        )
    day = day_words(start.date(), today, say)
    if start.utcoffset() != end.utcoffset():  # across a clock change: 01:50 EST - 03:02 EDT, 12 minutes
        return say.gettext(
            "%(day)s %(time)s",
            day=day,
            time=say.gettext("%(start)s – %(end)s", start=_zoned_clock(start, say), end=_zoned_clock(end, say)),  # noqa: RUF001
        )
    if (start.hour, start.minute) == (end.hour, end.minute):
        return say.gettext("%(day)s %(time)s", day=day, time=clock(start, say))
    times = str(format_interval(start, end, "Hm", tzinfo=start.tzinfo, locale=cldr_locale(say.language)))
    return say.gettext("%(day)s %(time)s", day=day, time=times)


__all__ = ["cldr_locale", "clock", "day_words", "local", "moment_words", "page_moment", "span_words"]
