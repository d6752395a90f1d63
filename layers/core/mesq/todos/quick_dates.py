"""The due of a quick-add line: where a date or a time is said, and when it is. Dates are parsed
by `dateparser` (English and Chinese); `rewrite_chinese` and `rewrite_english` turn what it
misses or misreads into forms it reads ("下午5点", "明晚7点", "下周", "12号", "周末", "月底",
"this weekend", "the 5th", "at 9"), and `find_due` picks the phrase: the longest, the first typed,
never a number that is no date. `with_its_other_half` joins a day and a time said apart.

Bounded work, whatever is typed (dateparser takes milliseconds a call, and a line of numbers has
a candidate phrase at every word): a candidate phrase over MAX_PHRASE_CHARACTERS is never handed
to dateparser; at most MAX_DATE_PROBES phrases are. Pure: `now` is passed in."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import dateparser

from .quick_words import (
    EN_DAY_NAMES,
    EN_DAYS,
    EN_WEEKDAY_INDEX,
    MONTH_DAY_NUM,
    NO_HOUR_AFTER,
    NOT_A_PART_BEFORE,
    NUM,
    PART_HOURS,
    ZH_DAYS,
    ZH_PART,
    ZH_PART_ALONE,
    ZH_PARTS,
    ZH_SHORT,
    ZH_SHORT_FORMS,
    zh_number,
)  # fmt: skip

#: Phrases handed to dateparser per line (a few milliseconds each): a typed line has a handful;
#: a line of numbers would otherwise have five per word.
MAX_DATE_PROBES = 48
#: The longest phrase handed to dateparser ("december 25 2026 at 10:30pm" is 27): its time grows
#: with the phrase's length.
MAX_PHRASE_CHARACTERS = 40

#: English month names; "may" is one, but never a date word alone ("may need milk").
_MONTH_NAMES = frozenset(
    {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
     "january", "february", "march", "april", "june", "july", "august", "september", "october",
     "november", "december"}
)  # fmt: skip
# Words that may start or make up a date phrase; a window of words without a digit must hold one.
# Not "sun" (the sun: "sun cream", "sun salutation"); "sunday" and "every sun" are.
_DATE_WORDS = frozenset(
    {"today", "tonight", "tomorrow", "tmr", "tmrw", "next", "in", "at", "on", "noon", "midnight", "morning",
     "evening", "afternoon", "week", "month", "year", "day", "days", "weeks", "am", "pm", "hour", "hours",
     "minute", "minutes", "min", "mins",
     *(_MONTH_NAMES - {"may"}), *(name for name in EN_DAY_NAMES if name != "sun"), "night", "this"}
)  # fmt: skip
#: What "this" may stand before in a date ("this friday", "this evening"; not "do this today",
#: nor "this week" / "this month" / "this year": spans, not days).
_AFTER_THIS = frozenset({*EN_DAYS, "weekend", "morning", "afternoon", "evening"})
#: Short weekday names dateparser does not know.
_EN_SHORT_DAYS = {"tues": "tuesday", "thur": "thursday", "thurs": "thursday"}
#: A weekday word; not 周 after a number (一周一次, 两周天数: a week) nor 周天 in 天气, 天天, 天数, 天子.
_ZH_DATE = re.compile(
    r"今天|今日|明天|明日|后天|大后天|(?:(?<![一二两三四五六七八九十几0-9])周|星期|礼拜)(?:[一二三四五六日]|天(?![气天数子]))"
)
#: 礼拜 before a day is said and written for 星期; dateparser knows only 星期 (`find_due`).
_LIBAI = re.compile(r"礼拜(?=[一二三四五六日天])")


_Rewrite = Callable[[re.Match[str]], str]

_ZH_TIME = re.compile(
    rf"(?:(?P<short>{ZH_SHORT})(?:上|晨)?|(?P<part>{ZH_PART})|(?P<early>早|晚)(?=\s*(?:{NUM})\s*[点點时]))?"
    rf"\s*(?P<hour>{NUM})\s*(?:点钟?|點鐘?|时)"
    rf"(?:\s*(?P<half>半)|\s*(?P<quarter>[一三])刻|\s*整|(?:(?=\s+(?:{NUM})\s*分)\s+)?(?P<minute>{NUM})(?![0-9])"
    r"\s*(?P<fen>分)?)?(?![式])"
)
#: A part of the day, then a clock time with a colon ("下午 3:30", "明晚8:15", "下午3：30" as a
#: Chinese keyboard types it): the hour on that part's clock, as "下午3点半" is.
_ZH_PART_CLOCK = re.compile(
    rf"(?:(?P<short>{ZH_SHORT})(?:上|晨)?|(?P<part>{ZH_PART}))\s*(?P<hour>[0-9]{{1,2}})\s*[:：]\s*(?P<minute>[0-5][0-9])"
    r"(?![0-9])"
)
#: 这周五, 本周五, 这个礼拜五, 下周一, 下下星期三 (not 本周天气: the weather).
#: 下 after 一 or a verb it completes is no "next" (看一下周报, 收下月饼, 放下, 留下, 写下).
_NOT_NEXT_AFTER = "一收放留拿剩写买签坐躺停记接打扔落倒脱拉按录摘天底"
_ZH_NEXT_WEEKDAY = re.compile(
    rf"(?P<this>这|本|(?<![{_NOT_NEXT_AFTER}])下下|(?<![{_NOT_NEXT_AFTER}])下)(?:个)?(?:周|星期|礼拜)"
    r"(?P<day>[一二三四五六日]|天(?![气天数子]))"
)
#: 下周, 下个星期, 下下礼拜 with no day after: that week's Monday. Not 下周末 nor a word 周 starts
#: (周期, 周年, 周边, 周围, 周转, 周刊).
_ZH_NEXT_WEEK = re.compile(
    rf"(?<![{_NOT_NEXT_AFTER}])(?P<next>下下|下)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末期年边围转刊])"
)
#: 下个月, 下月, 下个月5号, 下个月的十五日: the same day next month, or that day of it. Not 下个月底 /
#: 初 / 中 / 末 / 旬 / 份 (a part of the month, not a day), nor a number that is no day (下个月32号).
_ZH_NEXT_MONTH = re.compile(
    rf"(?<![{_NOT_NEXT_AFTER}])(?P<next>下下|下)(?:个)?月(?:\s*(?:的\s*)?(?P<day>{MONTH_DAY_NUM})\s*[日号號])?"
    r"(?![底初中末旬份饼票报度亮光球色])(?!\s*[0-9])"
)
#: 12月25日, 12月25号, and 12月25 with nothing after the day (as it is often typed); 2027年3月1日,
#: 去年 / 今年 / 明年 / 后年3月1日.
_ZH_MONTH_DAY = re.compile(
    rf"(?:(?P<year>[0-9]{{4}})年|(?P<relative>去|今|明|后)年)?(?P<month>{NUM})月(?P<day>{NUM})(?:[日号]|(?=\s|$))"
)
_RELATIVE_YEARS = {"去": -1, "今": 0, "明": 1, "后": 2}
#: 本月25号, 这个月的30日: that day of this month (said when it is past too, as a typed date is).
_ZH_THIS_MONTH_DAY = re.compile(rf"(?:本|这个?)月\s*(?:的\s*)?(?P<day>{MONTH_DAY_NUM})\s*[日号號]")
#: "12号 理发", "20号前 交材料": a day of the month alone, its next coming day. Not a month's day
#: (12月5号: _ZH_MONTH_DAY), nor a number that names a thing (5号楼, 1号线, 3号床, 8号选手).
_ZH_MONTH_DAY_ALONE = re.compile(
    rf"(?<![0-9月\u4e00-\u9fff])(?P<day>{MONTH_DAY_NUM})\s*[号號](?![0-9楼樓房室床位线線路门門机窗口厅馆店车柜桌球选种字码期届院台座坑会航电站箱包卡仓])"
)
#: A day, then 前 / 之前 / 以前 / 之内 / 以内 ("周五前交报告", "明天之前 回复", "下周五之前"): by
#: that day, which is the due; the word does not stay in the title. Not 前台, 前面, 前往 and the like.
_ZH_BY_DAY = re.compile(
    r"(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2}|今天|今日|明天|明日|后天|大后天|(?:周|星期|礼拜)[一二三四五六日天])"
    r"\s*(?P<by>之前|以前|之内|以内|前)(?![台面往进后天年辈夕景线方排端沿期])"
)
#: A clock time, then 前 / 之前 / 以前 ("下午3点前 交材料", "周五18点之前", "15:30前"): by then,
#: which is the due; the word does not stay in the title (it was "前交材料"). Read once the clock
#: times are rewritten ("15:00 前").
_ZH_BY_TIME = re.compile(
    r"(?<![0-9:])(?P<time>[0-9]{1,2}:[0-5][0-9])\s*(?P<by>之前|以前|前)(?![台面往进后天年辈夕景线方排端沿期])"
)
#: 周末, 这个周末, 本周末, 下周末 (the weekend's Saturday; on a Saturday or Sunday, 周末 is today);
#: 月底, 这个月底, 下个月底, 12月底 (the month's last day); 年底 (31 December); 元旦, 双十一 (the next
#: 1 January, 11 November).
#: Not 每周末 (a rule), 南方周末 (a paper), 周末愉快 / 周末版; 上周末 is past (no due).
#: Which week or month: this, next (2 ahead: 下下), or last (上: past, no due).
_WHICH = "上上个|上上|上个|上|这个|这|本|下下个|下下|下个|下"
_AHEAD = {"下": 1, "下个": 1, "下下": 2, "下下个": 2}
_ZH_WEEKEND = re.compile(rf"(?<![方每逢])(?P<which>{_WHICH})?周末(?![愉快乐版报刊])")
_ZH_MONTH_END = re.compile(
    rf"(?<![去前])(?P<which>{_WHICH})?"
    rf"(?:(?:(?P<year>[0-9]{{4}})年)?(?P<month>{NUM})月|月)底(?![下线层牌气子薪])"
)
#: 年底, 今年底, 明年底, 后年底, 2027年底: 31 December of that year (去年底: past, no due).
_ZH_YEAR_END = re.compile(r"(?:(?P<relative>今|明|后|去|前)|(?P<year>[0-9]{4}))?年底(?![薪线])")
#: Holidays on a fixed day of the solar calendar (not 国庆 alone: a given name, as in 王国庆).
_ZH_FIXED_DAYS = {
    "元旦": (1, 1), "双十一": (11, 11), "双11": (11, 11), "圣诞节": (12, 25), "平安夜": (12, 24),
    "国庆节": (10, 1), "劳动节": (5, 1), "儿童节": (6, 1), "情人节": (2, 14), "妇女节": (3, 8), "教师节": (9, 10),
}  # fmt: skip
_ZH_FIXED_DAY = re.compile("|".join(_ZH_FIXED_DAYS))
#: 两周后, 一周后, 一个月后, 半年后, 3个星期后: in that many weeks, months or years (days: _ZH_IN_DAYS).
_ZH_IN_UNITS = re.compile(
    rf"(?<![0-9])(?P<n>{NUM}|半)\s*(?:(?:个)?\s*(?P<unit>周|星期|礼拜|年)|个\s*(?P<month>月))\s*(?:以|之)?[后後内內]"
)
#: 周5, 星期5: a weekday said with a digit.
_ZH_DIGIT_WEEKDAY = re.compile(r"(?P<word>周|星期|礼拜)(?P<n>[1-7])(?![0-9号日])")
#: 明天晚, 周五晚 (a day, then 晚 alone): that day's evening, as 晚上. Not 晚饭, 晚安, 晚点 (later).
_ZH_DAY_WAN = re.compile(r"(?P<day>今天|明天|后天|大后天|(?:周|星期|礼拜)[一二三四五六日天])晚(?![上饭餐安点了会霞间])")
_FULL_WIDTH_COLON = re.compile(r"(?<=[0-9])：(?=[0-9])")
#: 三天后, 3天以后; 三天内, 3天之内 (within them: by their last day).
_ZH_IN_DAYS = re.compile(rf"(?P<n>{NUM})\s*天\s*(?:以|之)?[后後内內]")
#: "2小时后", "两个小时以后", "半小时后", "一个半小时后", "十五分钟之后": minutes from now.
_ZH_IN_TIME = re.compile(
    rf"(?:(?P<n>{NUM})(?:\s*个)?(?:\s*(?P<and_half>半))?|(?P<half>半)(?:\s*个)?)\s*(?P<unit>小时|钟头|分钟)"
    r"\s*(?:以|之)?[后後内內]"
)
_ZH_UNIT_MINUTES = {"小时": 60, "钟头": 60, "分钟": 1}
#: A day, then a part of it with no hour: "明天早上", "后天下午", "周五傍晚", "下周一上午" (by then an
#: ISO date): the part's time on that day.
_ZH_DAY_PART = re.compile(
    rf"(?:(?P<day>今天|今日|明天|明日|大后天|后天|(?:周|星期|礼拜)[一二三四五六日天]|[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})"
    rf"\s*(?P<part>{ZH_PART_ALONE})|(?P<short>{ZH_SHORT})(?:上|晨)?)(?![{NOT_A_PART_BEFORE}]){NO_HOUR_AFTER}"
)


def _recorder(originals: dict[str, str] | None) -> Callable[[_Rewrite], _Rewrite]:
    """A wrapper for rewrites that notes what each one-word result stood for in `originals`: a
    rewritten word the due does not take goes back into the title as typed ("到4点", not
    "到 16:00")."""

    def record(rewrite: _Rewrite) -> _Rewrite:
        if originals is None:
            return rewrite

        def recorded(match: re.Match[str]) -> str:
            result = rewrite(match)
            word = result.strip()
            if result != match[0] and word and " " not in word:
                originals[word] = match[0].strip()
            return result

        return recorded

    return record


def rewrite_chinese(text: str, today: date, originals: dict[str, str] | None = None, *, holidays: bool = True) -> str:
    """Rewrite the Chinese phrases dateparser misses into ones it reads, each set apart by spaces.
    A clock time may come out as 24:00-28:59: the next day's (`find_due` reads it so).
    `originals`: filled with what each one-word rewrite stood for (`_recorder`); `holidays`: a
    holiday's name (元旦, 圣诞节) is read as its day (`read_due` first reads a line without)."""
    record = _recorder(originals)
    morning = MORNING_WORDS.search(text) is not None

    def clock(match: re.Match[str]) -> str:  # _ZH_TIME and _ZH_PART_CLOCK
        named = match.groupdict()
        quarter = {"一": 15, "三": 45}.get(named.get("quarter") or "")
        minute = 30 if named.get("half") else quarter or zh_number(match["minute"] or "0")
        hour = zh_number(match["hour"])
        if hour is None or minute is None or hour > 24 or minute > 59 or (hour == 24 and minute):
            return match[0]  # 25点, 24点半: no clock says it (the words stay)
        if match["hour"] == "一" and not (named.get("short") or named.get("part") or named.get("early") or minute):
            return match[0]  # 一点: "a little" (多吃一点), far more often than one o'clock
        if named.get("minute") and len(named["minute"]) == 1 and not named["minute"].isdigit() and not named.get("fen"):
            return match[0]  # 一点一滴, 一点一点: no clock says 点一 without 分
        day, part = ZH_SHORT_FORMS[match["short"]] if match["short"] else ("", match["part"])
        part = part or {"早": "早上", "晚": "晚上"}.get(named.get("early") or "")
        if part:
            hour = PART_HOURS[ZH_PARTS[part][0]].get(hour, hour)
        elif hour in _AFTERNOON_HOURS and not morning:  # "两点 开会", "5点 下班": the afternoon's, as "at 2" is
            hour += 12
        return f" {day} {hour:02d}:{minute:02d} "

    def weekday(match: re.Match[str]) -> str:
        monday = today - timedelta(days=today.weekday())
        weeks = {"这": 0, "本": 0, "下": 1, "下下": 2}[match["this"]]
        found = monday + timedelta(weeks=weeks, days=ZH_DAYS[match["day"]])
        if found < today:  # 这周五 on a Sunday: not a task overdue when made, the next Friday
            found += timedelta(weeks=1)
        return f" {found.isoformat()} "

    def next_week(match: re.Match[str]) -> str:
        monday = today - timedelta(days=today.weekday())
        return f" {(monday + timedelta(weeks=len(match['next']))).isoformat()} "

    def this_month_day(match: re.Match[str]) -> str:
        day = zh_number(match["day"])
        try:
            return match[0] if day is None else f" {today.replace(day=day).isoformat()} "
        except ValueError:  # 本月31号 in a month of 30 days
            return match[0]

    def next_month(match: re.Match[str]) -> str:
        day = today.day if match["day"] is None else zh_number(match["day"]) or today.day
        return f" {_months_on(today, len(match['next']), day).isoformat()} "

    def month_day(match: re.Match[str]) -> str:
        month, day = zh_number(match["month"]), zh_number(match["day"])
        if month is None or day is None:
            return match[0]
        if match["year"] or match["relative"]:
            year = int(match["year"]) if match["year"] else today.year + _RELATIVE_YEARS[match["relative"]]
            try:
                return f" {date(year, month, day).isoformat()} "
            except ValueError:
                return match[0]
        found = _next_date_of(today, month, day)
        return match[0] if found is None else f" {found.isoformat()} "

    def month_day_alone(match: re.Match[str]) -> str:  # "12号 理发": the next 12th
        day = zh_number(match["day"])
        found = None if day is None else _next_month_day(today, day)
        return match[0] if found is None else f" {found.isoformat()} "

    def weekend(match: re.Match[str]) -> str:
        if (match["which"] or "").startswith("上"):
            return match[0]  # 上周末: past, no due
        weeks = _AHEAD.get(match["which"] or "", 0)
        return f" {_weekend(today, weeks).isoformat()} "

    def year_end(match: re.Match[str]) -> str:
        relative, typed_year = match["relative"], match["year"]
        if relative in ("去", "前"):
            return match[0]  # 去年底: past, no due
        year = int(typed_year) if typed_year else today.year + _RELATIVE_YEARS[relative or "今"]
        return f" {date(year, 12, 31).isoformat()} " if year >= today.year else match[0]

    def month_end(match: re.Match[str]) -> str:
        if (match["which"] or "").startswith("上"):
            return match[0]  # 上个月底: past, no due
        ahead = _AHEAD.get(match["which"] or "", 0)
        month_number = zh_number(match["month"]) if match["month"] else None
        if month_number is None:
            return f" {_months_on(today, ahead, 31).isoformat()} "
        if not 1 <= month_number <= 12:
            return match[0]
        # 12月底: that month's, this year's or, once past, next year's; 2028年3月底: that one
        year = int(match["year"]) if match["year"] else today.year + (month_number < today.month)
        found = _months_on(date(year, month_number, 1), 0, 31)
        return f" {found.isoformat()} " if found >= today else match[0]

    def fixed_day(match: re.Match[str]) -> str:
        found = _next_date_of(today, *_ZH_FIXED_DAYS[match[0]])
        return match[0] if found is None else f" {found.isoformat()} "

    def in_units(match: re.Match[str]) -> str:
        n = 0.5 if match["n"] == "半" else zh_number(match["n"])
        if not n:
            return match[0]
        unit = match["unit"] or match["month"]
        if unit in ("周", "星期", "礼拜"):
            return f" {(today + timedelta(weeks=n)).isoformat()} " if n == int(n) else match[0]
        months = int(n * 12) if unit == "年" else (int(n) if n == int(n) else 0)
        return f" {_months_on(today, months, today.day).isoformat()} " if months else match[0]

    def in_days(match: re.Match[str]) -> str:
        n = zh_number(match["n"])
        return match[0] if n is None else f" {(today + timedelta(days=n)).isoformat()} "

    def in_time(match: re.Match[str]) -> str:
        unit = _ZH_UNIT_MINUTES[match["unit"]]
        n = 0 if match["half"] else zh_number(match["n"])
        minutes = None if n is None else n * unit + (unit // 2 if match["half"] or match["and_half"] else 0)
        return f" in {minutes} minutes " if minutes else match[0]

    def day_part(match: re.Match[str]) -> str:
        day, part = ZH_SHORT_FORMS[match["short"]] if match["short"] else (match["day"], match["part"])
        return f" {day} {ZH_PARTS[part][1]} "

    text = _FULL_WIDTH_COLON.sub(":", text)  # "14：30", as a Chinese keyboard types it
    text = _ZH_DIGIT_WEEKDAY.sub(lambda match: match["word"] + "一二三四五六日"[int(match["n"]) - 1], text)
    text = _ZH_DAY_WAN.sub(lambda match: match["day"] + "晚上", text)
    text = _ZH_WEEKEND.sub(record(weekend), text)
    text = _ZH_YEAR_END.sub(record(year_end), text)
    text = _ZH_MONTH_END.sub(record(month_end), text)
    if holidays:
        text = _ZH_FIXED_DAY.sub(record(fixed_day), text)
    text = _ZH_IN_UNITS.sub(record(in_units), text)
    text = _ZH_MONTH_DAY_ALONE.sub(record(month_day_alone), text)
    text = _ZH_NEXT_WEEKDAY.sub(record(weekday), text)
    text = _ZH_NEXT_WEEK.sub(record(next_week), text)
    text = _ZH_NEXT_MONTH.sub(record(next_month), text)
    text = _ZH_THIS_MONTH_DAY.sub(record(this_month_day), text)
    text = _ZH_MONTH_DAY.sub(record(month_day), text)
    text = _ZH_IN_DAYS.sub(record(in_days), text)
    text = _ZH_IN_TIME.sub(record(in_time), text)
    text = _ZH_PART_CLOCK.sub(record(clock), text)
    text = _ZH_TIME.sub(record(clock), text)
    text = _ZH_DAY_PART.sub(record(day_part), text)
    text = _ZH_DATE.sub(lambda match: f" {match[0]} ", text)

    def by_day(match: re.Match[str]) -> str:  # "周五前交报告", "明天之前": the day is the due
        day = match["day"]
        if originals is not None:
            originals[day] = originals.get(day, day) + match["by"]
        return f" {day} "

    def by_time(match: re.Match[str]) -> str:  # "下午3点前": the time is the due
        time = match["time"]
        if originals is not None:
            originals[time] = originals.get(time, time) + match["by"]
        return f" {time} "

    return _ZH_BY_TIME.sub(by_time, _ZH_BY_DAY.sub(by_day, text))


#: "on the 5th", "the 21st": a day of the month alone, which dateparser reads as a month ("the
#: 5th" was 5 May). Not a count or a rank ("the 3rd time", "the 2nd floor", "the 5th of May").
_EN_MONTH_DAY_ALONE = re.compile(
    r"(?<![A-Za-z0-9])(?:on\s+(?:the\s+)?|the\s+)(?P<day>3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)\b"
    r"(?!\s+(?:of|day|days|week|weeks|month|months|year|years|time|times|floor|place|row|edition|anniversary)\b)",
    re.I,
)


#: A number alone, or an ordinal: never a date by itself.
_BARE_NUMBER = re.compile(r"[0-9]{1,4}|[0-9]{1,2}(?:st|nd|rd|th)", re.I)


#: "this weekend", "the weekend", "next weekend": that weekend's Saturday (today on a weekend).
_EN_WEEKEND = re.compile(r"(?<![A-Za-z])(?P<which>this|next|the)\s+weekend\b(?!'s)", re.I)
#: "next week": next week's Monday, as 下周.
_EN_NEXT_WEEK = re.compile(r"\bnext\s+week\b(?!'s)", re.I)
#: "end of month", "the end of the month", "end of next month": that month's last day ("month end
#: close" is a name).
_EN_MONTH_END = re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+|(?P<next>next)\s+)?month\b(?!'s)", re.I)
#: "end of year", "the end of the year", "end of next year": 31 December, as 年底 / 明年底.
_EN_YEAR_END = re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+|(?P<next>next)\s+)?year\b(?!'s)", re.I)
#: "within 3 days" (as 三天内), "2 weeks from now", "a week from today" (dateparser read the last
#: as a week ago): that many units on.
_EN_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                    "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_EN_COUNT = rf"[0-9]{{1,3}}|{'|'.join(_EN_NUMBER_WORDS)}"
_EN_UNITS_ON = re.compile(
    rf"\bwithin\s+(?P<within>{_EN_COUNT})\s+(?P<within_unit>day|week|month|year)s?\b"
    rf"|\b(?P<n>{_EN_COUNT})\s+(?P<unit>day|week|month|year)s?\s+from\s+(?:now|today)\b",
    re.I,
)
#: Words before a due that say "by then" ("report by friday", "before 5pm", "due tomorrow"): they
#: go with the due, as 前 / 之前 do in Chinese.
BY_WORDS = frozenset({"by", "before", "due"})
#: Verbs "by" makes a visit with ("drop by tomorrow", "stop by the office friday"): "by" stays.
_VISITS = frozenset({"drop", "stop", "come", "swing", "pass", "pop", "stand", "go", "walk", "run", "get", "fly"})


def said_by(words: list[str], start: int) -> bool:
    """Whether the due starting at `words[start]` is said with a "by" word right before it."""
    return start > 0 and words[start - 1].lower() in BY_WORDS and (start < 2 or words[start - 2].lower() not in _VISITS)


#: "the day after tomorrow", as 后天 (dateparser read "tomorrow" and left "the day after").
_EN_DAY_AFTER_TOMORROW = re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.I)
#: "in a week", "in an hour": one of them.
_EN_IN_ONE = re.compile(
    r"(?<!once )(?<!twice )(?<!built )\bin\s+an?\s+(?P<unit>minute|hour|week|month|year)\b(?!\s+or\b)", re.I
)


def rewrite_english(text: str, today: date, originals: dict[str, str] | None = None) -> str:
    """Rewrite the English phrases dateparser misreads into dates, set apart by spaces: a day of
    the month alone is its next coming day ("the 5th" on 6 December: 5 January); the weekend,
    next week, the month's and the year's end, the day after tomorrow."""
    record = _recorder(originals)

    def weekend(match: re.Match[str]) -> str:
        return f" {_weekend(today, 1 if (match['which'] or '').lower() == 'next' else 0).isoformat()} "

    def next_week(match: re.Match[str]) -> str:
        return f" {(today + timedelta(days=7 - today.weekday())).isoformat()} "

    def month_end(match: re.Match[str]) -> str:
        return f" {_months_on(today, 1 if match['next'] else 0, 31).isoformat()} "

    def year_end(match: re.Match[str]) -> str:
        return f" {date(today.year + (1 if match['next'] else 0), 12, 31).isoformat()} "

    def day_after_tomorrow(match: re.Match[str]) -> str:
        return f" {(today + timedelta(days=2)).isoformat()} "

    def units_on(match: re.Match[str]) -> str:
        count, unit = (match["within"], match["within_unit"]) if match["within"] else (match["n"], match["unit"])
        n = int(count) if count.isdigit() else _EN_NUMBER_WORDS[count.lower()]
        unit = unit.lower()
        if unit in ("day", "week"):
            return f" {(today + timedelta(days=n * (7 if unit == 'week' else 1))).isoformat()} "
        return f" {_months_on(today, n * (12 if unit == 'year' else 1), today.day).isoformat()} "

    text = _EN_IN_ONE.sub(lambda match: f"in 1 {match['unit']}", text)
    text = _EN_DAY_AFTER_TOMORROW.sub(record(day_after_tomorrow), text)
    text = _EN_UNITS_ON.sub(record(units_on), text)
    text = _EN_WEEKEND.sub(record(weekend), text)
    text = _EN_NEXT_WEEK.sub(record(next_week), text)
    text = _EN_MONTH_END.sub(record(month_end), text)
    text = _EN_YEAR_END.sub(record(year_end), text)

    def month_day(match: re.Match[str]) -> str:
        found = _next_month_day(today, int(match["day"]))
        return match[0] if found is None else f" {found.isoformat()} "

    return _EN_MONTH_DAY_ALONE.sub(record(month_day), text)


def _months_on(start: date, months: int, day: int) -> date:
    """Day `day` of the month `months` after `start`'s, or that month's last day when it has
    fewer (31 gives the last day: 月底, "end of month")."""
    year, month = divmod(start.year * 12 + start.month - 1 + months, 12)
    first_of_next = date(year + (month == 11), (month + 1) % 12 + 1, 1)
    return date(year, month + 1, min(day, (first_of_next - timedelta(days=1)).day))


def _weekend(today: date, weeks: int) -> date:
    """The weekend's Saturday `weeks` weeks on: this weekend is today on a Saturday or Sunday."""
    if not weeks and today.weekday() >= 5:
        return today
    return today + timedelta(days=5 - today.weekday(), weeks=weeks)


def _next_date_of(today: date, month: int, day: int) -> date | None:
    """The next `month`/`day` from `today` on: 2月29日 typed in 2027 is 29 February 2028 (a leap
    year comes within 8 years); None for a day no month has (2月30日)."""
    for year in range(today.year, today.year + 9):
        try:
            found = date(year, month, day)
        except ValueError:
            continue
        if found >= today:
            return found
    return None


def _next_month_day(today: date, day: int) -> date | None:
    """The next date from `today` on that is this day of a month ("the 31st" skips the months
    without one)."""
    for months_ahead in range(13):
        year, month = divmod(today.year * 12 + today.month - 1 + months_ahead, 12)
        try:
            found = date(year, month + 1, day)
        except ValueError:
            continue
        if found >= today:
            return found
    return None


def _is_date_words(words: list[str]) -> bool:
    """A window worth asking dateparser about: a digit, an ISO date, or a date word in it."""
    for index, word in enumerate(words):
        lowered = word.lower().strip(",.")
        if any(ch.isdigit() for ch in lowered):
            if not _DATE_NUMBER.fullmatch(lowered):
                return False
            continue
        if lowered not in _DATE_WORDS and not _ZH_DATE.fullmatch(lowered) and not _may_the_month(words, index):
            return False
        if lowered == "this" and (index + 1 == len(words) or words[index + 1].lower() not in _AFTER_THIS):
            return False
    return True


#: A day of the month as written beside its month's name ("15", "5th").
_DAY_OF_MONTH = re.compile(r"(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?")


def _may_the_month(words: list[str], index: int) -> bool:
    """Whether `words[index]` is "may" the month: beside a day of the month ("may 15", "15 may",
    "may 5th"); alone it is the verb ("may need milk"), which a date never starts."""
    if words[index].lower().strip(",.") != "may":
        return False
    beside = words[max(0, index - 1) : index] + words[index + 1 : index + 2]
    return any(_DAY_OF_MONTH.fullmatch(word.lower().strip(",.")) for word in beside)


_AM_PM = frozenset({"am", "pm", "a.m.", "p.m.", "a.m", "p.m"})
#: Day words after which a bare number is a count ("tomorrow 2 eggs"), never the day's hour.
_DAYS_BEFORE_A_COUNT = frozenset(
    {"today", "tomorrow", "tmr", "tmrw", *EN_DAYS, "mon", "tue", "wed", "thu", "fri", "sat", "sun"}
)


def _names_todays_weekday(words: list[str], local_now: datetime) -> bool:
    """Whether the phrase names today's weekday, bare ("friday", "周五"; not "next friday")."""
    lowered = [word.lower().strip(",.") for word in words]
    if "next" in lowered:
        return False
    for word in lowered:
        zh = _ZH_DATE.fullmatch(word)
        weekday = ZH_DAYS.get(word[-1]) if zh and word[:1] in "周星礼" else EN_WEEKDAY_INDEX.get(word)
        if weekday == local_now.weekday():
            return True
    return False


def _names_todays_date(words: list[str], local_now: datetime, when: datetime) -> bool:
    """Whether the phrase names a month and day without a year ("dec 25", "25 december") that
    are today's, and dateparser put it in a later year."""
    lowered = [word.lower().strip(",.") for word in words]
    if not any(word in _MONTH_NAMES for word in lowered) or any(re.fullmatch(r"\d{4}", word) for word in lowered):
        return False
    if "next" in lowered or "year" in lowered:
        return False
    return (when.month, when.day) == (local_now.month, local_now.day) and when.year > local_now.year


def _names_a_day(words: list[str]) -> bool:
    """Whether the phrase says which day (else a bare time means the next time it comes)."""
    for index, word in enumerate(words):
        lowered = word.lower().strip(",.")
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", lowered) or _ZH_DATE.fullmatch(lowered):
            return True
        if lowered in _DATE_WORDS - {"at", "in", "am", "pm", "noon", "midnight", "morning", "evening", "afternoon"}:
            return True
        after_at = index > 0 and words[index - 1].lower() == "at"  # "at 5": an hour (_AT_HOUR)
        before_am_pm = index + 1 < len(words) and words[index + 1].lower().strip(",.") in _AM_PM  # "3 pm"
        if re.fullmatch(r"\d{1,2}(st|nd|rd|th)?", lowered) and len(words) > 1 and not (after_at or before_am_pm):
            return True  # "dec 25"
    return False


#: A phrase that counts time from now rather than naming a clock time or a day (the Chinese
#: ones, "2小时后", are rewritten to "in 120 minutes").
_DURATION = re.compile(r"\bin\s+\d+\s*(hour|hr|minute|min)", re.IGNORECASE)
#: A clock time past the day's end ("24:00", "26:30": the rewrite of 晚上12点, 晚上两点半): the
#: next day's 00:00-04:59.
_LATE = re.compile(r"(?<![0-9:])(2[4-9]):([0-5][0-9])(?![0-9:])")


#: "at 9", "at 3:15", an hour with no am/pm: dateparser reads a bare number as a month ("call mom
#: at 9" was 5 September). It is a clock time; hours 1-6 are read as the afternoon's ("tomorrow
#: at 3": 15:00), as calendar apps read them (nobody means 03:00 by "at 3"; so are Chinese 1-6点
#: with no part of the day), 7-12 the morning's and noon, 0 and 13-23 the 24-hour clock. With
#: tonight, evening, night or afternoon in the phrase, 1-11 are that evening's ("tonight at 8").
_AT_HOUR = re.compile(
    r"\bat\s+([0-9]{1,2})(?::([0-5][0-9]))?(?![0-9:：.]|\s*(?:am|pm|a\.m\.|p\.m\.|h|o'?clock)\b)", re.I
)
_AFTERNOON_HOURS = range(1, 7)
#: Words that put a bare hour 1-6 in the morning ("明天6点起床", "wake up at 6", "breakfast at 6").
MORNING_WORDS = re.compile(r"起床|早饭|早餐|晨跑|晨练|赶飞机|\b(?:wake|breakfast|sunrise|alarm)\b", re.I)
_EVENING_WORDS = re.compile(r"\b(?:tonight|evening|night|afternoon)\b", re.I)
_MIDNIGHT_WORDS = re.compile(r"\b(?:tonight|night)\b", re.I)
_DAY_THEN_HOUR = re.compile(r"\b(?P<day>tonight)\s+(?P<hour>[0-9]{1,2})(?![0-9:：.]|\s*(?:am|pm)\b)", re.I)


def _clock_hours(phrase: str, *, evening: bool = False, morning: bool = False) -> str:
    """`phrase` with its "at <hour>" written as a 24-hour clock time (`_AT_HOUR`); `evening`: the
    line said a part of the day after noon elsewhere ("every evening call mom at 7"); `morning`:
    it said a morning word ("wake up at 6": 06:00)."""
    evening = evening or _EVENING_WORDS.search(phrase) is not None
    midnight = _MIDNIGHT_WORDS.search(phrase) is not None

    phrase = _DAY_THEN_HOUR.sub(r"\g<day> at \g<hour>", phrase)  # "tonight 9": "tonight at 9"

    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2] or 0)
        if hour > 23:
            return match[0]
        if midnight and hour == 12:
            hour = 24  # "tonight at 12": the midnight that ends today (_LATE)
        elif (evening and 1 <= hour <= 11) or (not evening and not morning and hour in _AFTERNOON_HOURS):
            hour += 12
        return f"at {hour:02d}:{minute:02d}"

    return _AT_HOUR.sub(clock, phrase)


#: A word with a digit that can be part of a date or a time: a number, an ordinal (`_BARE_NUMBER`), a clock time
#: (with am/pm or not), an ISO date, a month/day date. Anything else ("50%", "$50", "3.12",
#: "7-eleven", "24/7", "1:1", "v2") keeps its window from dateparser, which would invent a date.
_DATE_NUMBER = re.compile(
    _BARE_NUMBER.pattern + r"|[0-9]{1,2}(?::[0-5][0-9])?(?:am|pm|a\.m\.|p\.m\.)"
    r"|[0-9]{1,2}:[0-5][0-9](?::00)?|[0-9]{4}-[0-9]{2}-[0-9]{2}|(?:1[0-2]|0?[1-9])[/-](?:3[01]|[12][0-9]|0?[1-9])(?:[/-][0-9]{2,4})?",
    re.I,
)
#: A clock time as typed ("25:00", "24:30", "9:75", "25:00pm", "at 25"; the full-width colon too).
#: `impossible_times` says which of them no clock shows.
_TYPED_CLOCK = re.compile(
    r"(?:\bat\s+)?(?<![0-9:：.])(?P<hour>[0-9]{1,2})[:：](?P<minute>[0-9]{2})(?:\s*(?:am|pm|a\.m\.|p\.m\.)(?![A-Za-z]))?(?![0-9:：])"
    r"|\bat\s+(?P<at>[0-9]{1,2})(?:\s*(?:am|pm|a\.m\.|p\.m\.)(?![A-Za-z]))?(?![0-9:：.])",
    re.I,
)


#: A day already past ("上周五", "上个星期三", "昨天", "前天", "昨晚"), with the part of the day
#: and the hour said with it ("前天晚上8点", "昨天 15:30", "上周五下午"): no due, as 上周末 and
#: 去年底 are; the words stay in the title as typed. Without this, 周五 of 上周五 was read as the
#: coming Friday (title "上报销") and 晚上8点 of 前天晚上8点 as tonight. Not 马上 / 早上 / 晚上 /
#: 路上 + 周五 ("马上周五了"), nor 提前天数.
_PAST_DAY = re.compile(
    r"(?:(?<![马早晚路线身面台桌])(?:上上|上)(?:个)?(?:周|星期|礼拜)(?:[一二三四五六日]|天(?![气天数子]))"
    r"|大前天|(?<![提之以向往])前天|昨天|昨日|昨晚|昨夜|(?<![提之以向往])前晚)"
    rf"(?:\s*(?:(?:{ZH_PART}|早|晚)?\s*(?:{NUM})\s*(?:点钟?|點鐘?|时)(?:\s*半|\s*[一三]刻|\s*整|\s*(?:{NUM})\s*分?)?"
    rf"|(?:{ZH_PART})?\s*[0-9]{{1,2}}\s*[:：]\s*[0-5][0-9]|(?:{ZH_PART})))?"
)


def past_days(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that name a day already past, with the time said with it (`_PAST_DAY`)."""
    return [match.span() for match in _PAST_DAY.finditer(text)]


#: A date of the Chinese lunar calendar ("农历八月十五", "阴历5月5日", "旧历腊月二十三"): no due, since
#: quick add does not convert it; the words stay in the title. It was read as the Gregorian day
#: (农历八月十五 due 15 August, titled "农历中秋").
_LUNAR_DATE = re.compile(
    r"(?:农历|阴历|旧历)\s*(?:(?:正|腊|冬|闰?[一二三四五六七八九十]{1,2}|[0-9]{1,2})月)?\s*"
    r"(?:初[一二三四五六七八九十]|廿[一二三四五六七八九]?|二十[一二三四五六七八九]?|三十|十[一二三四五六七八九]?"
    r"|[一二三四五六七八九]|[0-9]{1,2})?\s*[日号號]?"
)


def lunar_dates(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that are dates of the lunar calendar (`_LUNAR_DATE`)."""
    spans = []
    for match in _LUNAR_DATE.finditer(text):
        said = match[0].rstrip()
        if len(said) > 2:  # more than 农历 alone ("农历 生日": the word, nothing to keep from the reader)
            spans.append((match.start(), match.start() + len(said)))
    return spans


def impossible_times(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that are clock times no clock shows: an hour past 24, a minute past 59,
    24 with minutes ("24:30"), "at 25". They are no due and stay in the title as typed, as an
    impossible date does (2月30日); 24:00 is the midnight that ends the day (ISO 8601). Only what
    is typed: the rewrites' own 24:00-28:59 (晚上12点半) are read later."""
    spans = []
    for match in _TYPED_CLOCK.finditer(text):
        if match["at"] is not None:
            impossible = int(match["at"]) > 24
        else:
            hour, minute = int(match["hour"]), int(match["minute"])
            impossible = hour > 24 or minute > 59 or (hour == 24 and minute > 0)
        if impossible:
            spans.append(match.span())
    return spans


#: Units of a length of time: "5 minute meditation", "30 day challenge", "6 month checkup" name a
#: length, not a due; "in 5 minutes" does.
_LENGTH_UNITS = frozenset(
    {"minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "day", "days", "week", "weeks", "month",
     "months", "year", "years"}
)  # fmt: skip


def _is_length(window: list[str]) -> bool:
    """A number followed by a unit of time, not after "in": a length ("2 hour meeting prep")."""
    for index, word in enumerate(window[:-1]):
        after_in = index > 0 and window[index - 1].lower() == "in"
        if word.isdigit() and window[index + 1].lower() in _LENGTH_UNITS and not after_in:
            return True
    return False


def _has_time(words: list[str]) -> bool:
    joined = " ".join(words).lower()
    return bool(
        re.search(r"\d:\d|\d\s*(am|pm)\b|\b(noon|midnight|tonight|morning|evening|afternoon|night)\b", joined)
        or re.search(r"\bat\s+\d(?![0-9]{3}-[0-9]{2}-[0-9]{2})", joined)  # "at 9", not "at 2027-03-01" (a day)
        or re.search(r"\bin\s+\d+\s*(hour|hr|minute|min)", joined)
    )


def find_due(
    words: list[str], zone: ZoneInfo, now: datetime, *, evening: bool = False, morning: bool = False
) -> tuple[int, int, datetime, bool] | None:
    """The longest run of words (up to 5) that dateparser reads as a date, the first typed of
    those (a day said first is the one meant: "明天 交 年底总结" is tomorrow's): (start, end,
    when, timed). `evening`: an "at <hour>" is read on the evening's clock (`_clock_hours`)."""
    settings: Any = {
        "TIMEZONE": str(zone),
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": now.astimezone(zone).replace(tzinfo=None),
    }
    probes = 0
    attributive: tuple[int, int, datetime, bool] | None = None  # a day before 的, if nothing else
    for size in range(min(5, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            window = words[start : start + size]
            phrase = " ".join(window)
            if len(phrase) > MAX_PHRASE_CHARACTERS or not _is_date_words(window) or _is_length(window):
                continue
            if size > 1 and _BARE_NUMBER.fullmatch(window[-1]) and window[-2].lower() in _DAYS_BEFORE_A_COUNT:
                continue  # "tomorrow 2 eggs": a count after the day, not its hour or date
            before_de = start + size < len(words) and words[start + size].startswith("的")
            if before_de and attributive is not None:
                continue  # "礼拜五的报告 明天", "12号 的会议": a day that says which thing, not when
            # "buy 3 apples", "read 10 pages", "the 2nd floor": dateparser would read a month
            # ("at 9" is an hour: _AT_HOUR; "the 5th" a day: rewrite_english)
            an_hour = size == 2 and window[0].lower() == "at" and window[1].isdigit()
            numbers_only = all(w.lower() in ("in", "at", "on", "next") or _BARE_NUMBER.fullmatch(w) for w in window)
            if numbers_only and not an_hour:
                continue
            if probes == MAX_DATE_PROBES:
                return None  # past the budget: no due rather than seconds of guessing
            probes += 1
            phrase = _LIBAI.sub("星期", phrase)  # the chip and the title keep 礼拜 as typed
            phrase = phrase.replace("周天", "星期日")  # dateparser knows 周日 and 星期天, not 周天
            phrase = " ".join(_EN_SHORT_DAYS.get(word.lower(), word) for word in phrase.split())
            phrase = _clock_hours(phrase, evening=evening, morning=morning)
            late = _LATE.search(phrase)
            if late:
                phrase = f"{phrase[: late.start()]}{int(late[1]) - 24:02d}:{late[2]}{phrase[late.end() :]}"
            when = dateparser.parse(phrase, languages=["en", "zh"], settings=settings)
            if when is None:
                continue
            # dateparser gives the offset in force now: across a DST change "tomorrow 9am" would
            # land at 10:00. A wall clock ("9am", a day) is kept in the zone's own offset for that
            # day; only a duration ("in 3 hours") is an instant from now.
            timed = _has_time(window) or _has_time(phrase.split())  # "tonight 9" read as "tonight at 21:00"
            when = when.astimezone(zone) if _DURATION.search(phrase) else when.replace(tzinfo=zone)
            local_now = now.astimezone(zone)
            # "dec 25" typed on 25 December: today (dateparser gives next year's, and "feb 29" on
            # 29 February the next leap year's), as 12月25日 is; a later year's once a time said
            # with it has passed
            if _names_todays_date(window, local_now, when):
                this_year = when.replace(year=local_now.year)  # today's month and day: a date this year
                when = this_year if not timed or this_year > local_now else when
            if _names_todays_weekday(window, local_now) and when.date() == local_now.date() + timedelta(days=7):
                # "friday" / "周五" typed on a Friday: today (dateparser gives next week's), as
                # 这周五 is; next week's only once a time said with it has passed
                earlier = when - timedelta(days=7)
                if not timed or earlier > local_now:
                    when = earlier
            if timed and not _names_a_day(window):  # "5pm" alone: today's, or tomorrow's once it has passed
                local = now.astimezone(zone)
                when = datetime.combine(local.date(), when.timetz().replace(tzinfo=None), zone)
                if when <= local:
                    when += timedelta(days=1)
            elif late:  # "明天 24:00": the midnight that ends tomorrow
                when += timedelta(days=1)
            if before_de:  # the due only if no other date is typed ("整理今天的材料": today)
                attributive = attributive or (start, start + size, when, timed)
                continue
            return start, start + size, when, timed
    return attributive


def with_its_other_half(
    when: datetime,
    timed: bool,
    due_words: list[str],
    words: list[str],
    zone: ZoneInfo,
    now: datetime,
    evening: bool,
    morning: bool,
) -> tuple[datetime, bool, list[str]]:
    """A day and a time said apart ("12号 理发 下午3点", "5点 下班 明天"): the due found is one
    of them; the other, found among the remaining `words`, completes it (and leaves them)."""
    day_only = not timed
    time_only = timed and not _names_a_day(due_words) and not _DURATION.search(" ".join(due_words))
    if not (day_only or time_only):
        return when, timed, words
    other = find_due(words, zone, now, evening=evening, morning=morning)
    if other is None:
        return when, timed, words
    start, end, other_when, other_timed = other
    start -= said_by(words, start)  # "friday before 5pm": the word goes with the time
    other_words = words[start:end]
    if day_only and other_timed and not _names_a_day(other_words) and not _DURATION.search(" ".join(other_words)):
        combined = datetime.combine(when.date(), other_when.timetz().replace(tzinfo=None), zone)
    elif time_only and not other_timed:
        combined = datetime.combine(other_when.date(), when.timetz().replace(tzinfo=None), zone)
    else:
        return when, timed, words
    return combined, True, words[:start] + words[end:]


#: What `read_due` answers: the line's words less the due's, and the due (when, timed, its words).
DueRead = tuple[list[str], tuple[datetime, bool, list[str]] | None]


def read_due(
    text: str,
    today: date,
    originals: dict[str, str],
    zone: ZoneInfo,
    now: datetime,
    *,
    evening: bool = False,
    morning: bool = False,
) -> DueRead:
    """The due of a line: its rewrites, the phrase `find_due` picks (with a "by" said before
    it), and its other half (`with_its_other_half`). A holiday's name (元旦, 圣诞节, 双十一) is its
    day only when the line says no other day: "1月1日 元旦" is due 1 January and titled 元旦, "元旦
    3月1日" is due 1 March; "元旦 晚上8点" is 1 January at 20:00 (a time alone says no day).
    `originals` is filled as the rewrites go (`_recorder`). A line with a holiday's name and no
    other day is read twice (at most 2 x MAX_DATE_PROBES phrases)."""
    first = dict(originals)
    words, found, says_the_day = _read_due(text, today, first, zone, now, evening, morning, holidays=False)
    if says_the_day or _ZH_FIXED_DAY.search(text) is None:
        originals.update(first)
        return words, found
    words, found, _ = _read_due(text, today, originals, zone, now, evening, morning, holidays=True)
    return words, found


def _read_due(
    text: str,
    today: date,
    originals: dict[str, str],
    zone: ZoneInfo,
    now: datetime,
    evening: bool,
    morning: bool,
    *,
    holidays: bool,
) -> tuple[list[str], tuple[datetime, bool, list[str]] | None, bool]:
    """`read_due`'s one reading, and whether the due it found says which day."""
    words = rewrite_english(rewrite_chinese(text, today, originals, holidays=holidays), today, originals).split()
    found = find_due(words, zone, now, evening=evening, morning=morning)
    if found is None:
        return words, None, False
    start, end, when, timed = found
    start -= said_by(words, start)  # "report by friday": by that day, which is the due (as 周五前交报告)
    due_words, rest = words[start:end], words[:start] + words[end:]
    says_the_day = not timed or _names_a_day(due_words) or _DURATION.search(" ".join(due_words)) is not None
    when, timed, left = with_its_other_half(when, timed, due_words, rest, zone, now, evening, morning)
    says_the_day = says_the_day or len(left) < len(rest)  # a time said apart from its day ("5点 下班 明天")
    return left, (when, timed, due_words), says_the_day
