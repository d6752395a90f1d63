"""Quick add: one line a person types ("买牛奶 明天下午3点 #家务 !high", "call mom tomorrow 5pm
every monday p1") -> a task's title, due, priority, tags and recurrence, in the person's zone.

Pure domain code (no web, no clock of its own: `now` is passed in). Dates are parsed by
`dateparser` (English and Chinese); this module adds what it lacks for Chinese ("下午5点",
"下周一", "12月25日", Chinese numerals) by rewriting those phrases into forms it reads, and a
small phrase table for recurrence ("every monday", "每周五" -> an RRULE).

Bounded work, whatever is typed (dateparser takes milliseconds a call, and a line of numbers has
a candidate phrase at every word): a line over MAX_CHARACTERS (a task title's own cap) is not
read at all (the create then refuses it for its length); a candidate phrase over
MAX_PHRASE_CHARACTERS is never handed to dateparser; at most MAX_DATE_PROBES phrases are. The
callers run it in a worker thread (`web/todos/quick.py`), never on the event loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import dateparser

from ..kernel.tags import find_tags

__all__ = [
    "FREQUENCIES", "KINDS", "MAX_CHARACTERS", "MAX_DATE_PROBES", "QuickAdd", "RuleShape", "parse_quick_add",
    "rule_shape",
]  # fmt: skip

#: The longest line read (a task title's maxLength): a longer one is taken as typed.
MAX_CHARACTERS = 500
#: Phrases handed to dateparser per line (a few milliseconds each): a typed line has a handful;
#: a line of numbers would otherwise have five per word.
MAX_DATE_PROBES = 48
#: The longest phrase handed to dateparser ("december 25 2026 at 10:30pm" is 27): its time grows
#: with the phrase's length.
MAX_PHRASE_CHARACTERS = 40

_PRIORITY_P = {"1": "urgent", "2": "high", "3": "medium", "4": "low"}
_PRIORITY_WORDS = {
    "urgent": "urgent", "high": "high", "medium": "medium", "med": "medium", "low": "low",
    "紧急": "urgent", "高": "high", "中": "medium", "低": "low",
    **{f"p{number}": value for number, value in _PRIORITY_P.items()},
}  # fmt: skip
# `!word` (`!high`, `!p1`, `!高`; `！` as a Chinese keyboard types it) wherever it stands, glued to
# Chinese text too (`开会!p1`), but not inside a Latin word (`wow!high`); a bare `p1` only as a
# word of its own. Either ends at whitespace, the line's end, or the next `#tag` / `!word`.
_PRIORITY = re.compile(r"(?:(?<![A-Za-z0-9])[!！](\w+)|(?:(?<=\s)|^)[pP]([1-4]))(?=[\s#!！,.;:，。；：、]|$)")

_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_BYDAY = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_ZH_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_ZH_DIGITS = {
    "零": 0,
    "\u3007": 0,  # ideographic zero
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}

# Recurrence phrases -> (RRULE, weekday the first occurrence falls on, or None).
_EN_DAY_ALT = "|".join(_EN_DAYS) + "|mon|tue|wed|thu|fri|sat|sun"
_RECUR_EVERY = re.compile(
    rf"\bevery\s+(?:(?P<day>{_EN_DAY_ALT})|(?P<unit>day|week|month|year|weekday)"
    r"|(?P<count>\d{1,3}|other)\s+(?P<units>day|week|month|year)s?)\b",
    re.I,
)
_RECUR_ZH = re.compile(
    r"每(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天])|每(?:个)?(?P<unit>天|日|周|星期|月|年|工作日)"
    r"|每隔?(?P<count>[0-9]{1,3}|[两二三四五六七八九十]{1,2})(?:个)?(?P<units>天|日|周|星期|月|年)"
)
_UNIT_RULE = {
    "day": "FREQ=DAILY", "天": "FREQ=DAILY", "日": "FREQ=DAILY",
    "week": "FREQ=WEEKLY", "周": "FREQ=WEEKLY", "星期": "FREQ=WEEKLY",
    "month": "FREQ=MONTHLY", "月": "FREQ=MONTHLY",
    "year": "FREQ=YEARLY", "年": "FREQ=YEARLY",
    "weekday": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "工作日": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
}  # fmt: skip

# Words that may start or make up a date phrase; a window of words without a digit must hold one.
_DATE_WORDS = frozenset(
    {"today", "tonight", "tomorrow", "tmr", "tmrw", "next", "in", "at", "on", "noon", "midnight", "morning",
     "evening", "afternoon", "week", "month", "year", "day", "days", "weeks", "am", "pm", "hour", "hours",
     "minute", "minutes", "min", "mins",
     "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
     "january", "february", "march", "april", "june", "july", "august", "september", "october",
     "november", "december", *_EN_DAYS, "mon", "tue", "wed", "thu", "fri", "sat", "sun"}
)  # fmt: skip
_ZH_DATE = re.compile(r"今天|今日|明天|明日|后天|大后天|今晚|周[一二三四五六日天]|星期[一二三四五六日天]")


@dataclass(frozen=True)
class QuickAdd:
    """What was understood. `due` is a local date or a timed instant (aware, in the zone)."""

    title: str
    due: date | datetime | None = None
    priority: str | None = None
    tags: tuple[str, ...] = ()
    recurrence: str | None = None
    chips: tuple[dict[str, str], ...] = field(default=())  # kind, text as typed

    def due_argument(self) -> dict[str, Any] | None:
        """The `due` of create_todo_task: a date or an instant in UTC."""
        if isinstance(self.due, datetime):
            at = self.due.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")
            return {"type": "datetime", "at": at}
        if isinstance(self.due, date):
            return {"type": "date", "date": self.due.isoformat()}
        return None

    def arguments(self, zone: str) -> dict[str, Any]:
        """create_todo_task's fields beyond the column: title, due (+ timezone), priority, tags, recurrence."""
        out: dict[str, Any] = {"title": self.title}
        due = self.due_argument()
        if due is not None:
            out["due"], out["timezone"] = due, zone
        if self.priority:
            out["priority"] = self.priority
        if self.tags:
            out["tags"] = list(self.tags)
        if self.recurrence:
            out["recurrence"] = self.recurrence
        return out


def _zh_number(text: str) -> int | None:
    """'5', '五', '十', '十二', '二十三' -> the number (up to 99)."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        value = (_ZH_DIGITS.get(tens, -100) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, -100) if ones else 0)
        return value if value >= 0 else None
    if len(text) == 1 and text in _ZH_DIGITS:
        return _ZH_DIGITS[text]
    return None


_NUM = r"[0-9]{1,2}|[零\u3007一二两三四五六七八九十]{1,3}"
_ZH_TIME = re.compile(
    rf"(?P<part>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚)?\s*(?P<hour>{_NUM})\s*(?:点|點|时)"
    rf"(?:\s*(?P<half>半)|\s*(?P<minute>{_NUM})\s*分?)?"
)
_ZH_NEXT_WEEKDAY = re.compile(r"(?P<this>这|本|下下|下)(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天])")
_ZH_MONTH_DAY = re.compile(rf"(?:(?P<year>[0-9]{{4}})年)?(?P<month>{_NUM})月(?P<day>{_NUM})[日号]")
_ZH_IN_DAYS = re.compile(rf"(?P<n>{_NUM})\s*天[后後]")


def _rewrite_chinese(text: str, today: date) -> str:
    """Rewrite the Chinese phrases dateparser misses into ones it reads, each set apart by spaces."""

    def clock(match: re.Match[str]) -> str:
        hour, minute = _zh_number(match["hour"]), 30 if match["half"] else _zh_number(match["minute"] or "0")
        if hour is None or minute is None or hour > 24 or minute > 59:
            return match[0]
        part = match["part"] or ""
        if (part in ("下午", "傍晚", "晚上", "今晚") and hour < 12) or (part == "中午" and hour < 11):
            hour += 12
        prefix = " 今天 " if part == "今晚" else " "
        return f"{prefix}{hour % 24:02d}:{minute:02d} "

    def weekday(match: re.Match[str]) -> str:
        monday = today - timedelta(days=today.weekday())
        weeks = {"这": 0, "本": 0, "下": 1, "下下": 2}[match["this"]]
        return f" {(monday + timedelta(weeks=weeks, days=_ZH_DAYS[match['day']])).isoformat()} "

    def month_day(match: re.Match[str]) -> str:
        month, day = _zh_number(match["month"]), _zh_number(match["day"])
        if month is None or day is None:
            return match[0]
        year = int(match["year"]) if match["year"] else today.year
        try:
            found = date(year, month, day)
            if not match["year"] and found < today:
                found = date(year + 1, month, day)
        except ValueError:
            return match[0]
        return f" {found.isoformat()} "

    def in_days(match: re.Match[str]) -> str:
        n = _zh_number(match["n"])
        return match[0] if n is None else f" {(today + timedelta(days=n)).isoformat()} "

    text = _ZH_NEXT_WEEKDAY.sub(weekday, text)
    text = _ZH_MONTH_DAY.sub(month_day, text)
    text = _ZH_IN_DAYS.sub(in_days, text)
    text = _ZH_TIME.sub(clock, text)
    return _ZH_DATE.sub(lambda match: f" {match[0]} ", text)


def _is_date_words(words: list[str]) -> bool:
    """A window worth asking dateparser about: a digit, an ISO date, or a date word in it."""
    for word in words:
        lowered = word.lower().strip(",.")
        if any(ch.isdigit() for ch in lowered) or lowered in _DATE_WORDS or _ZH_DATE.fullmatch(lowered):
            continue
        return False
    return True


def _names_a_day(words: list[str]) -> bool:
    """Whether the phrase says which day (else a bare time means the next time it comes)."""
    for word in words:
        lowered = word.lower().strip(",.")
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", lowered) or _ZH_DATE.fullmatch(lowered):
            return True
        if lowered in _DATE_WORDS - {"at", "in", "am", "pm", "noon", "midnight", "morning", "evening", "afternoon"}:
            return True
        if re.fullmatch(r"\d{1,2}(st|nd|rd|th)?", lowered) and len(words) > 1:
            return True  # "dec 25"
    return False


#: A phrase that counts time from now rather than naming a clock time or a day.
_DURATION = re.compile(r"\bin\s+\d+\s*(hour|hr|minute|min)|\d+\s*(个)?(小时|分钟)(以)?后", re.IGNORECASE)


def _has_time(words: list[str]) -> bool:
    joined = " ".join(words).lower()
    return bool(
        re.search(r"\d:\d|\d\s*(am|pm)\b|\b(noon|midnight|tonight|morning|evening|afternoon)\b|今晚", joined)
        or re.search(r"\bat\s+\d", joined)
        or re.search(r"\bin\s+\d+\s*(hour|hr|minute|min)", joined)
    )


def _find_due(words: list[str], zone: ZoneInfo, now: datetime) -> tuple[int, int, datetime, bool] | None:
    """The longest run of words (up to 5) that dateparser reads as a date: (start, end, when, timed)."""
    settings: Any = {
        "TIMEZONE": str(zone),
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": now.astimezone(zone).replace(tzinfo=None),
    }
    probes = 0
    for size in range(min(5, len(words)), 0, -1):
        for start in range(len(words) - size, -1, -1):  # later phrases first: "call at home tomorrow"
            window = words[start : start + size]
            phrase = " ".join(window)
            if len(phrase) > MAX_PHRASE_CHARACTERS or not _is_date_words(window):
                continue
            if all(w.lower() in ("in", "at", "on", "next") for w in window):
                continue
            if probes == MAX_DATE_PROBES:
                return None  # past the budget: no due rather than seconds of guessing
            probes += 1
            when = dateparser.parse(phrase, languages=["en", "zh"], settings=settings)
            if when is None:
                continue
            # dateparser gives the offset in force now: across a DST change "tomorrow 9am" would
            # land at 10:00. A wall clock ("9am", a day) is kept in the zone's own offset for that
            # day; only a duration ("in 3 hours") is an instant from now.
            timed = _has_time(window)
            when = when.astimezone(zone) if _DURATION.search(phrase) else when.replace(tzinfo=zone)
            if timed and not _names_a_day(window):  # "5pm" alone: today's, or tomorrow's once it has passed
                local = now.astimezone(zone)
                when = datetime.combine(local.date(), when.timetz().replace(tzinfo=None), zone)
                if when <= local:
                    when += timedelta(days=1)
            return start, start + size, when, timed
    return None


def _next_weekday(today: date, weekday: int) -> date:
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def parse_quick_add(text: str, *, zone: str, now: datetime, ignore: frozenset[str] = frozenset()) -> QuickAdd:
    """Understand one line. `zone` is the person's IANA zone, `now` an aware instant; `ignore`
    names the kinds (due, priority, tag, recurrence) or single tags ("tag:home") the person removed:
    their words stay in the title. A line over MAX_CHARACTERS is the title as typed."""
    if len(text) > MAX_CHARACTERS:
        return QuickAdd(title=text.strip())
    tz = ZoneInfo(zone)
    today = now.astimezone(tz).date()
    chips: list[dict[str, str]] = []
    line = f" {text.strip()} "

    priority: str | None = None
    understood: list[tuple[int, int]] = []  # spans of the line the chips took
    for match in [] if "priority" in ignore else _PRIORITY.finditer(line):
        value = _PRIORITY_P.get(match[2] or "") or _PRIORITY_WORDS.get((match[1] or "").lower())
        if value:
            priority = value  # the last one typed wins
            chips.append({"kind": "priority", "text": match[0].strip(), "value": value})
            understood.append(match.span())
    line = _without(line, understood)

    tags: list[str] = []
    understood = []
    for start, end, name in [] if "tag" in ignore else find_tags(line):  # the memo tag rule (kernel/tags.py)
        if f"tag:{name}" in ignore:
            continue  # this one chip removed: "#name" stays in the title
        if name not in tags:
            tags.append(name)
            chips.append({"kind": "tag", "text": "#" + name, "value": name})
        understood.append((start, end))
    line = _without(line, understood)

    recurrence: str | None = None
    recur_day: int | None = None
    for pattern in () if "recurrence" in ignore else (_RECUR_EVERY, _RECUR_ZH):
        recur = pattern.search(line)
        if recur:
            named = recur.groupdict()
            day = named.get("day")
            if day:
                recur_day = _ZH_DAYS[day] if day in _ZH_DAYS else [d[:3] for d in _EN_DAYS].index(day[:3].lower())
                recurrence = f"FREQ=WEEKLY;BYDAY={_BYDAY[recur_day]}"
            elif named.get("units"):  # "every 2 weeks", "every other month", "每两周", "每隔3天"
                count = named["count"].lower()
                every = 2 if count == "other" else _zh_number(count) or 1
                rule = _UNIT_RULE[named["units"].lower()]
                recurrence = rule if every == 1 else f"{rule};INTERVAL={every}"
            else:
                recurrence = _UNIT_RULE[(named.get("unit") or "").lower()]
            chips.append({"kind": "recurrence", "text": recur[0].strip(), "value": recurrence})
            line = line[: recur.start()] + " " + line[recur.end() :]
            break

    words = line.split() if "due" in ignore else _rewrite_chinese(line, today).split()
    due: date | datetime | None = None
    found = None if "due" in ignore else _find_due(words, tz, now)
    if found:
        start, end, when, timed = found
        due = when.replace(second=0, microsecond=0) if timed else when.date()
        chips.append({"kind": "due", "text": " ".join(words[start:end]), "value": _describe(due)})
        words = words[:start] + words[end:]
    if recur_day is not None and "due" not in ignore:
        first = _next_weekday(today, recur_day)
        if due is None:
            due = first
            chips.append({"kind": "due", "text": "", "value": _describe(due)})
        elif isinstance(due, datetime) and due.date() != first and due.weekday() != recur_day:
            due = datetime.combine(first, due.timetz())

    # The rewrite set date phrases apart with spaces; without a date found, the words stay as typed.
    typed = " ".join(line.split())
    title = (_join(words) if found else typed) or typed or text.strip()
    title = _NO_SPACE_BEFORE.sub("", title)  # "去买菜 ，别忘了": the space a removed chip stood in
    return QuickAdd(
        title=title, due=due, priority=priority, tags=tuple(tags), recurrence=recurrence, chips=tuple(chips)
    )


#: Spaces before closing CJK punctuation: no one types them; they are left where a chip was taken out.
_NO_SPACE_BEFORE = re.compile(r"\s+(?=[，。；：！？、）】》」』”’])")


def _without(line: str, spans: list[tuple[int, int]]) -> str:
    """`line` with each (start, end) span, in order and apart, replaced by a space."""
    for start, end in reversed(spans):
        line = f"{line[:start]} {line[end:]}"
    return line


def _join(words: list[str]) -> str:
    """Words back into a title: no space between two CJK words ("买 牛奶" was never typed)."""
    out = ""
    for word in words:
        if out and not (_cjk(out[-1]) and _cjk(word[0])):
            out += " "
        out += word
    return out.strip()


def _cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"


def _describe(due: date | datetime) -> str:
    if isinstance(due, datetime):
        return due.strftime("%Y-%m-%d %H:%M")
    return due.isoformat()


KINDS = ("due", "priority", "tag", "recurrence")
#: RRULE parts `RuleShape` accounts for; a rule with any other part is "a custom rule".
_DESCRIBED_PARTS = {"FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "COUNT", "UNTIL", "WKST"}
FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")


@dataclass(frozen=True)
class RuleShape:
    """An RRULE's parts the pages put in words ("Every 2 weeks on Monday, 6 times"), read once here
    so the words can be said in any language by the web layer (`web/kit/recurrence_words.py`):
    `freq` one of FREQUENCIES, `every` the interval, `days` BYDAY codes ("MO"), `month_days`
    BYMONTHDAY numbers, `count` COUNT, `until` UNTIL's date (YYYY-MM-DD)."""

    freq: str
    every: int = 1
    days: tuple[str, ...] = ()
    month_days: tuple[int, ...] = ()
    count: int | None = None
    until: str | None = None

    @property
    def weekdays(self) -> bool:
        """Every weekday (Monday to Friday), said in two words rather than five day names."""
        return self.freq == "WEEKLY" and self.every == 1 and self.days == _BYDAY[:5]


def rule_shape(rule: str) -> RuleShape | None:
    """`rule` read into a RuleShape, or None when words could not say it exactly (the page then
    says "a custom rule" and keeps the raw rule under "Advanced"): never a wrong sentence."""
    parts = dict(part.split("=", 1) for part in rule.upper().removeprefix("RRULE:").split(";") if "=" in part)
    freq, days = parts.get("FREQ", ""), parts.get("BYDAY", "")
    interval = parts.get("INTERVAL", "1")
    if freq not in FREQUENCIES or set(parts) - _DESCRIBED_PARTS or not interval.isdigit() or int(interval) < 1:
        return None
    if days and (freq != "WEEKLY" or any(day not in _BYDAY for day in days.split(","))):
        return None  # "1MO" (the first Monday) and BYDAY outside a week are not said here
    month_days = parts.get("BYMONTHDAY", "")
    if month_days and (freq != "MONTHLY" or not all(d.isdigit() for d in month_days.split(","))):
        return None
    count, until = parts.get("COUNT", ""), parts.get("UNTIL", "")
    return RuleShape(
        freq=freq,
        every=int(interval),
        days=tuple(days.split(",")) if days else (),
        month_days=tuple(int(d) for d in month_days.split(",")) if month_days else (),
        count=int(count) if count.isdigit() else None,
        until=f"{until[:4]}-{until[4:6]}-{until[6:8]}" if len(until) >= 8 and until[:8].isdigit() else None,
    )
