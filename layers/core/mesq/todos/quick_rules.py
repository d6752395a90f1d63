"""The repeat phrases of a quick-add line ("every monday", "every friday afternoon", "每周一三五",
"每月最后一个周五", "隔周五", "周一到周五") -> an RRULE (`rule_of`), the part of the day a rule says
(`part_of_day`, `part_clock_time`), the rule's first due that is not past (`first_due`), and
`rule_shape`: an RRULE read back into the parts a page can say in words. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from .quick_words import (
    BYDAY,
    EN_DAY_NAMES,
    EN_DAYS,
    EN_PART_TIMES,
    EN_WEEKDAY_INDEX,
    MONTH_DAY_NUM,
    NO_HOUR_AFTER,
    NOT_A_PART_BEFORE,
    NUM,
    PART_HOURS,
    ZH_DAYS,
    ZH_PART_ALONE,
    zh_number,
)  # fmt: skip
from .recurrence import FREQUENCIES, first_occurrence
from .short_months import LEAP_DAY_OR_LAST, month_day_or_last, rule_parts

# Recurrence phrases -> an RRULE (`rule_of`); a part of the day right after one ("每周五下午",
# "every friday afternoon", not "every friday morning at 9") is its time.
_EN_DAY_ALT = "|".join(EN_DAY_NAMES)
#: Several days in one rule: "every mon, wed, fri", "every monday and thursday", "每周一三五",
#: "每周三、五", "每周六日", "每周一和周三".
_EN_DAY_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s*&\s*|\s+and\s+)"
_EN_SHORT_DAY_ALT = "|".join(name for name in EN_DAY_NAMES if name not in EN_DAYS)
#: A list of days: named in full, they need a separator ("monday and thursday"; "every monday sun
#: salutation" is Mondays); short names may follow each other with a space ("mon wed fri").
_EN_DAY_LIST = (
    rf"(?:(?:{_EN_SHORT_DAY_ALT})\b(?:(?:{_EN_DAY_SEPARATOR}|\s+)(?:{_EN_SHORT_DAY_ALT})\b)+"
    rf"|(?:{_EN_DAY_ALT})\b(?:{_EN_DAY_SEPARATOR}(?:{_EN_DAY_ALT})\b)*)"
)
_ZH_DAY_LIST = (
    r"(?:[一二三四五六日天])(?:\s*[、,，和及与]?\s*(?:(?:周|星期|礼拜)[一二三四五六日天]|[一二三四五六日]))*"
    r"(?![点點时天次回遍个])"
)
#: The nth weekday of a month ("every 2nd tuesday", "every last friday of the month",
#: "每月第二个周二", "每月最后一个周五") -> BYDAY=2TU / -1FR.
_EN_NTH = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4, "fourth": 4, "last": -1}
_ZH_NTH = {"一": 1, "1": 1, "二": 2, "2": 2, "三": 3, "3": 3, "四": 4, "4": 4, "最后一": -1}
RECUR_EVERY = re.compile(
    rf"\b(?:every|ev(?=\s+(?:{_EN_DAY_ALT})\b))\s+(?:(?P<weekend>weekend)"
    rf"|(?P<nth>{'|'.join(_EN_NTH)})\s+(?P<nthday>{_EN_DAY_ALT})\b(?:\s+of\s+(?:the|each|every)\s+month\b)?"
    r"|(?P<monthend>last\s+day\s+of\s+(?:the|each|every)\s+month|month\s+end|end\s+of\s+(?:the\s+)?month)"
    rf"|other\s+(?P<otherday>{_EN_DAY_ALT})"
    rf"|(?P<day>{_EN_DAY_LIST})"
    r"|(?:month\s+on\s+(?:the\s+)?)?(?P<monthday>3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)\b"
    rf"(?!\s+(?:day|week|month|year|{_EN_DAY_ALT})\b)(?:\s+of\s+(?:the|each|every)\s+month\b)?"
    r"|(?P<unit>day|week|month|year|weekday|workday|business\s+day)"
    rf"|(?P<daypart>{'|'.join(EN_PART_TIMES)})"
    r"(?:\s+(?:at\s+)?(?P<parthour>[0-9]{1,2})(?::(?P<partminute>[0-5][0-9]))?(?![0-9:]|\s*[ap]\.?m\b))?"
    r"|(?P<count>[1-9][0-9]{0,2}|other)\s+(?P<units>day|week|month|year)s?)\b"
    rf"(?:\s+(?P<part>{'|'.join(EN_PART_TIMES)})\b(?!\s+(?:at\s+)?[0-9]))?",
    re.I,
)
RECUR_ZH = re.compile(
    r"(?:(?P<span>(?:每)?(?:周|星期)[一1]\s*(?:到|至|~|-|—)\s*(?:周|星期)?[五5])"
    r"|(?P<weekend>每(?:逢)?(?:个)?周末)"
    r"|(?:(?<![\u4e00-\u9fff])隔|每隔一(?:个)?)(?:周|星期)(?:的)?(?:周|星期)?(?P<otherday>[一二三四五六日天])"
    r"|(?P<other>(?<![\u4e00-\u9fff])(?:隔天|隔日|隔周|隔月)(?![送达到见再数期])|每隔一(?:个)?(?:天|日|周|星期|月))"
    r"|每(?:个)?(?P<quarter>季度)"
    r"|每(?:个)?月\s*(?:的\s*)?(?:第(?P<nth>[一二三四1-4])|(?P<nthlast>最后一))个(?:周|星期|礼拜)(?P<nthday>[一二三四五六日天])"
    r"|每(?:个)?月\s*(?:的\s*)?(?P<monthend>最后一天|月底|底|末)"
    rf"|每(?:逢)?(?:个)?(?:周|星期|礼拜)(?P<day>{_ZH_DAY_LIST})"
    rf"|每(?:个)?月\s*(?:的\s*)?(?P<monthday>{MONTH_DAY_NUM})\s*[日号號]"
    rf"|每(?P<daypart>晚上|晚|早上|早晨|早)(?![{NOT_A_PART_BEFORE}饭餐点])"
    # 每年的3月8日, 每周的周一, 每天的早上: the 的 goes with the rule
    rf"|每(?:个)?(?P<unit>天|日|周|星期|礼拜|月|年|工作日)(?:的(?=\s*(?:[0-9一二三四五六七八九十]|周|星期|礼拜|今天|{ZH_PART_ALONE})))?"
    rf"|每隔?(?P<count>[1-9][0-9]{{0,2}}|[两二三四五六七八九十]{{1,2}})(?:个)?(?P<units>天|日|周|星期|礼拜|月|年)"
    rf"(?:的(?=\s*(?:[0-9一二三四五六七八九十]|周|星期|礼拜|{ZH_PART_ALONE})))?)"
    rf"(?:\s*(?P<part>{ZH_PART_ALONE})(?![{NOT_A_PART_BEFORE}]){NO_HOUR_AFTER})?"
)
_UNIT_RULE = {
    "day": "FREQ=DAILY", "天": "FREQ=DAILY", "日": "FREQ=DAILY",
    "week": "FREQ=WEEKLY", "周": "FREQ=WEEKLY", "星期": "FREQ=WEEKLY", "礼拜": "FREQ=WEEKLY",
    "month": "FREQ=MONTHLY", "月": "FREQ=MONTHLY",
    "year": "FREQ=YEARLY", "年": "FREQ=YEARLY",
    "weekday": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "工作日": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
    "workday": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
}  # fmt: skip


def rule_of(match: re.Match[str]) -> str:
    """A repeat phrase's RRULE: a weekday ("every friday", "每周五"), a day of the month ("every
    15th", "每月15号"), a count of units ("every 2 weeks", "每两周", "每隔3天") or a unit."""
    named = match.groupdict()
    day, month_day = named.get("day"), named.get("monthday")
    if day:
        return f"FREQ=WEEKLY;BYDAY={','.join(BYDAY[weekday] for weekday in _weekdays(day))}"
    if named.get("nthday"):
        nth = _ZH_NTH["最后一"] if named.get("nthlast") else _EN_NTH.get(named["nth"].lower()) or _ZH_NTH[named["nth"]]
        return f"FREQ=MONTHLY;BYDAY={nth}{BYDAY[_weekdays(named['nthday'])[0]]}"
    if named.get("monthend"):
        return "FREQ=MONTHLY;BYMONTHDAY=-1"
    if named.get("weekend"):
        return "FREQ=WEEKLY;BYDAY=SA,SU"
    if named.get("span"):  # 周一到周五: the working week
        return _UNIT_RULE["weekday"]
    if named.get("quarter"):
        return "FREQ=MONTHLY;INTERVAL=3"
    if other := named.get("other"):  # 隔天, 隔周, 每隔一周: every second one
        unit = next(unit for unit in ("天", "日", "周", "星期", "月") if unit in other)
        return f"{_UNIT_RULE[unit]};INTERVAL=2"
    if named.get("otherday"):
        return f"FREQ=WEEKLY;INTERVAL=2;BYDAY={BYDAY[_weekdays(named['otherday'])[0]]}"
    if month_day:
        return f"FREQ=MONTHLY;BYMONTHDAY={zh_number(month_day)}"
    if named.get("daypart"):  # "every morning", "每晚"
        return "FREQ=DAILY"
    if named.get("units"):
        count = named["count"].lower()
        every = 2 if count == "other" else zh_number(count) or 1
        rule = _UNIT_RULE[named["units"].lower()]
        return rule if every == 1 else f"{rule};INTERVAL={every}"
    unit = " ".join((named.get("unit") or "").lower().split())
    return _UNIT_RULE["workday" if unit == "business day" else unit]


#: 每晚 / 每早 said as the parts 晚上 / 早上 ("每晚8点": every day, at 晚上8点 = 20:00).
ZH_DAYPART_WORD = {"晚": "晚上", "早": "早上"}
_EN_HOUR_AFTER = re.compile(r"\s+(?:at\s+)?[0-9]")
_HOUR_AFTER = re.compile(rf"\s*(?:(?:{NUM})\s*(?:点|點|时)|[0-9]{{1,2}}\s*[:：]\s*[0-9])")


def part_of_day(match: re.Match[str], line: str) -> str | None:
    """The part of the day a daily phrase names ("every evening", "每晚"), as a `PART_TIMES`
    key. None when an hour follows a Chinese one: the hour is then read on that part's clock
    (the caller puts the part back before it: `_ZH_PART_CLOCK`)."""
    daypart = match.groupdict().get("daypart")
    if not daypart:
        return None
    word = ZH_DAYPART_WORD.get(daypart[0])
    if word is None:  # no time of its own when an hour follows ("every evening at 7pm": 19:00)
        hour_after = match.groupdict().get("parthour") or _EN_HOUR_AFTER.match(line, match.end())
        return None if hour_after else daypart.lower()
    return None if _HOUR_AFTER.match(line, match.end()) else word


#: The clock an English part of the day reads an hour on ("every evening at 7": 19:00).
_EN_PART_CLOCK = {
    "morning": "morning",
    "noon": "noon",
    "afternoon": "afternoon",
    "evening": "afternoon",
    "night": "night",
}


def part_clock_time(match: re.Match[str]) -> str | None:
    """ "every evening at 7" -> "19:00": the hour the rule phrase took, on its part's clock."""
    named = match.groupdict()
    if not named.get("parthour"):
        return None
    hour = int(named["parthour"])
    hour = PART_HOURS[_EN_PART_CLOCK[named["daypart"].lower()]].get(hour, hour)
    minute = int(named.get("partminute") or 0)
    return f"{hour % 24:02d}:{minute:02d}"  # "every night at 12": midnight


def _weekdays(days: str) -> list[int]:
    """The weekdays a day list names ("mon, wed and fri", "一三五", "三、五"), Monday 0, in week order."""
    zh = [ZH_DAYS[ch] for ch in days if ch in ZH_DAYS]
    en = [EN_WEEKDAY_INDEX[word.lower()] for word in re.findall(r"[A-Za-z]+", days) if word.lower() != "and"]
    return sorted(set(zh + en))


def first_due(rule: str, start: date | datetime, zone: ZoneInfo, now: datetime) -> date | datetime:
    """The rule's first occurrence on or after `start` that is not past: a date from today on,
    a time after now ("every weekday 7am" on a Sunday: Monday 07:00; "每周五下午3点" on a Friday
    at 16:00: next Friday 15:00; "every day 7am" at 09:00: tomorrow 07:00). `start` when the
    rule gives none (it then stays as typed; the create says why)."""
    local = now.astimezone(zone).replace(tzinfo=None)
    if isinstance(start, datetime):
        timed = first_occurrence(rule, start.replace(tzinfo=None), local, inclusive=False)
        return start if timed is None else timed.replace(tzinfo=zone)
    midnight = datetime.combine(local.date(), time(0))
    day = first_occurrence(rule, datetime.combine(start, time(0)), midnight, inclusive=True)
    return start if day is None else day.date()


#: RRULE parts `RuleShape` accounts for; a rule with any other part is "a custom rule".
_DESCRIBED_PARTS = {"FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "COUNT", "UNTIL", "WKST"}
#: The parts of the never-skipping forms (todos/short_months.py), said only in those forms.
_SHORT_MONTH_PARTS = {"BYMONTH", "BYSETPOS"}


@dataclass(frozen=True)
class RuleShape:
    """An RRULE's parts the pages put in words ("Every 2 weeks on Monday, 6 times"), read once here
    so the words can be said in any language by the web layer (`web/kit/recurrence_words.py`):
    `freq` one of FREQUENCIES, `every` the interval, `days` BYDAY codes ("MO"), `month_days`
    BYMONTHDAY numbers, `count` COUNT, `until` UNTIL's date (YYYY-MM-DD); and the forms that keep
    the short months (todos/short_months.py): `last_day` (BYMONTHDAY=-1), `or_last_day` (the one
    day of `month_days`, or the month's last day when it is shorter), `leap_day` (29 February, or
    the 28th in other years)."""

    freq: str
    every: int = 1
    days: tuple[str, ...] = ()
    month_days: tuple[int, ...] = ()
    count: int | None = None
    until: str | None = None
    last_day: bool = False
    or_last_day: bool = False
    leap_day: bool = False

    @property
    def weekdays(self) -> bool:
        """Every weekday (Monday to Friday), said in two words rather than five day names."""
        return self.freq == "WEEKLY" and self.every == 1 and self.days == BYDAY[:5]


def rule_shape(rule: str) -> RuleShape | None:
    """`rule` read into a RuleShape, or None when words could not say it exactly (the page then
    says "a custom rule" and keeps the raw rule under "Advanced"): never a wrong sentence."""
    parts = rule_parts(rule.upper())
    freq, days = parts.get("FREQ", ""), parts.get("BYDAY", "")
    interval = parts.get("INTERVAL", "1")
    if freq not in FREQUENCIES or set(parts) - _DESCRIBED_PARTS - _SHORT_MONTH_PARTS:
        return None
    if not interval.isdigit() or int(interval) < 1:
        return None
    if days and (freq != "WEEKLY" or any(day not in BYDAY for day in days.split(","))):
        return None  # "1MO" (the first Monday) and BYDAY outside a week are not said here
    month_days = parts.get("BYMONTHDAY", "")
    short_months = _short_month_form(parts)
    if short_months is None:
        return None
    if not any(short_months.values()) and month_days:
        if freq != "MONTHLY" or not all(d.isdigit() for d in month_days.split(",")):
            return None
    elif short_months["or_last_day"]:
        month_days = month_days.split(",")[-1]
    else:
        month_days = ""
    count, until = parts.get("COUNT", ""), parts.get("UNTIL", "")
    return RuleShape(
        freq=freq,
        every=int(interval),
        days=tuple(days.split(",")) if days else (),
        month_days=tuple(int(d) for d in month_days.split(",")) if month_days else (),
        count=int(count) if count.isdigit() else None,
        until=f"{until[:4]}-{until[4:6]}-{until[6:8]}" if len(until) >= 8 and until[:8].isdigit() else None,
        **short_months,
    )


def _short_month_form(parts: dict[str, str]) -> dict[str, bool] | None:
    """Which never-skipping form the parts are (all False: none, and no BYMONTH or BYSETPOS);
    None when they hold BYMONTH or BYSETPOS in any other way."""
    form = {"last_day": False, "or_last_day": False, "leap_day": False}
    freq, month_days = parts.get("FREQ"), parts.get("BYMONTHDAY", "")
    selected = {name: parts[name] for name in ("BYMONTH", "BYMONTHDAY", "BYSETPOS") if name in parts}
    if freq == "MONTHLY" and month_days == "-1" and set(selected) == {"BYMONTHDAY"}:
        form["last_day"] = True
    elif freq == "MONTHLY" and "BYSETPOS" in selected and "BYMONTH" not in selected:
        day = month_days.split(",")[-1]
        if not day.isdigit() or int(day) not in (29, 30) or selected != month_day_or_last(int(day)):
            return None
        form["or_last_day"] = True
    elif freq == "YEARLY" and selected == LEAP_DAY_OR_LAST:
        if parts.get("INTERVAL", "1") != "1":
            return None  # every 4 years from a leap year never meets the other years the words name
        form["leap_day"] = True
    elif set(selected) & _SHORT_MONTH_PARTS:
        return None
    return form
