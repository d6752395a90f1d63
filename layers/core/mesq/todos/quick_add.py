"""Quick add: one line a person types ("买牛奶 明天下午3点 #家务 !high", "call mom tomorrow 5pm
every monday p1") -> a task's title, due, priority, tags and recurrence, in the person's zone.

Pure domain code (no web, no clock of its own: `now` is passed in). Dates are parsed by
`dateparser` (English and Chinese); this module adds what it lacks for Chinese ("下午5点",
"下午 3:30", "明晚7点", "后天下午", "晚上12点", "下周一", "下周", "下个月5号", "12月25日", "礼拜五",
"半小时后", Chinese numerals) by rewriting those phrases into forms it reads, corrects the English
numbers it reads as months ("at 9", "the 5th", a number alone: docs/decisions.md), and a small phrase
table for recurrence ("every monday", "every friday afternoon", "每周五", "每月15号" -> an RRULE).
A rule always comes with a first due: its first occurrence that is not past (`_first_due`).

Weeks and months as a Chinese calendar reads them: a week runs Monday to Sunday. 这周五 / 本周五
is this week's Friday, but a new task is almost never meant to be overdue the moment it is made:
once that day has passed (这周五 typed on a Sunday) it is the next Friday, as a bare 周五 is;
today stays today. 下周 / 下星期 / 下礼拜 alone is next week's Monday (as TickTick reads it), 下个月
/ 下月 the same day next month (the 31st of January -> the last of February), 下个月5号 the 5th of
next month (a day the month lacks -> its last day). 礼拜 is 星期 (礼拜五, 下礼拜一, 每礼拜五).

Bounded work, whatever is typed (dateparser takes milliseconds a call, and a line of numbers has
a candidate phrase at every word): a line over MAX_CHARACTERS (a task title's own cap) is not
read at all (the create then refuses it for its length); a candidate phrase over
MAX_PHRASE_CHARACTERS is never handed to dateparser; at most MAX_DATE_PROBES phrases are. The
callers run it in a worker thread (`web/todos/quick.py`), never on the event loop.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import dateparser

from ..kernel.tags import find_tags
from .recurrence import first_occurrence

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

_NUM = r"[0-9]{1,2}|[零\u3007一二两三四五六七八九十]{1,3}"
#: A day of the month, 1-31, in digits or Chinese numerals (longer alternatives first).
_MONTH_DAY_NUM = (
    r"3[01]|[12][0-9]|0?[1-9]|三十一|三十|二十[一二三四五六七八九]|二十|十[一二三四五六七八九]|十|[一二三四五六七八九]"
)

#: Parts of the day: how an hour said with one is read (its `_PART_HOURS` row) and the time the
#: part stands for after a day or a repeat phrase with no hour ("明天下午", "今晚", "每周五下午"),
#: the times dateparser gives "tomorrow morning", "tomorrow afternoon" and "tonight"; None: the
#: part has no time of its own.
_ZH_PARTS: dict[str, tuple[str, str | None]] = {
    "凌晨": ("small hours", None),
    "早上": ("morning", "09:00"), "早晨": ("morning", "09:00"), "上午": ("morning", "09:00"),
    "中午": ("noon", "12:00"),
    "下午": ("afternoon", "15:00"), "傍晚": ("afternoon", "18:00"),
    "晚上": ("night", "20:00"), "夜里": ("night", None), "半夜": ("night", None), "深夜": ("night", None),
}  # fmt: skip
#: English parts of the day after a repeat phrase ("every friday afternoon"): the times dateparser
#: gives "tomorrow morning", "tomorrow noon", "tomorrow afternoon", "tomorrow evening", "tomorrow night".
_EN_PART_TIMES = {"morning": "09:00", "noon": "12:00", "afternoon": "15:00", "evening": "18:00", "night": "20:00"}
#: A part of the day with no hour -> its time ("下午" and "afternoon" alike).
_PART_TIMES = {**{part: at for part, (_, at) in _ZH_PARTS.items() if at}, **_EN_PART_TIMES}
#: An hour said with a part of the day -> the hour on that day's clock (an hour not listed stays).
#: 24 and over are the next day's: 晚上12点 is the midnight that ends that evening, 晚上两点 the
#: small hours after it; 凌晨12点 is the midnight that starts the day.
_PART_HOURS: dict[str, dict[int, int]] = {
    "small hours": {12: 0},
    "morning": {},
    "noon": {hour: hour + 12 for hour in range(11)},
    "afternoon": {hour: hour + 12 for hour in range(12)},
    "night": {12: 24, **{hour: hour + 24 for hour in range(5)}, **{hour: hour + 12 for hour in range(5, 12)}},
}
#: 明早 / 明晚 / 今早 / 今晚 (also 明晚上, 今早晨): a day and a part of it in one word, read like
#: "明天早上" where an hour or nothing of a word follows ("明晚7点", "明早 跑步", "明早跑步"). Not
#: after a character that makes a word of 明 or 今 (说明, 聪明, 证明, 如今, 至今: "说明早上的事").
_ZH_SHORT_FORMS = {
    "今早": ("今天", "早上"), "今晚": ("今天", "晚上"), "明早": ("明天", "早上"), "明晚": ("明天", "晚上"),
}  # fmt: skip
_ZH_WORDS_BEFORE = {
    "明": "说聪光发证表声文简清透分英精高开失照黎神鲜阐标注查申言指写载讲点严昌澄空",
    "今": "如至当古现而从迄",
}
_ZH_SHORT = "|".join(rf"(?<![{_ZH_WORDS_BEFORE[short[0]]}]){short}" for short in _ZH_SHORT_FORMS)
#: A part of the day followed by one of these is a word of its own, not a time: 下午茶, 晚上好,
#: 中午饭.
_NOT_A_PART_BEFORE = "茶好饭"
_ZH_PART = "|".join(_ZH_PARTS)
_ZH_PART_ALONE = "|".join(part for part, (_, at) in _ZH_PARTS.items() if at)
#: Not followed by an hour: "下午3点" is read as a clock time, "下午" alone as its part's time.
_NO_HOUR_AFTER = rf"(?!\s*(?:(?:{_NUM})\s*(?:点|點|时)|[0-9]{{1,2}}\s*[:：]\s*[0-9]))"

# Recurrence phrases -> an RRULE (`_rule`); a part of the day right after one ("每周五下午",
# "every friday afternoon", not "every friday morning at 9") is its time.
_EN_DAY_ALT = "|".join(_EN_DAYS) + "|tues|thurs|thur|mon|tue|wed|thu|fri|sat|sun"
#: Several days in one rule: "every mon, wed, fri", "every monday and thursday", "每周一三五",
#: "每周三、五", "每周六日", "每周一和周三".
_EN_DAY_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s*&\s*|\s+and\s+)"
_EN_SHORT_DAY_ALT = "tues|thurs|thur|mon|tue|wed|thu|fri|sat|sun"
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
_RECUR_EVERY = re.compile(
    rf"\b(?:every|ev(?=\s+(?:{_EN_DAY_ALT})\b))\s+(?:(?P<weekend>weekend)"
    rf"|(?P<nth>{'|'.join(_EN_NTH)})\s+(?P<nthday>{_EN_DAY_ALT})\b(?:\s+of\s+(?:the|each|every)\s+month\b)?"
    r"|(?P<monthend>last\s+day\s+of\s+(?:the|each|every)\s+month|month\s+end|end\s+of\s+(?:the\s+)?month)"
    rf"|other\s+(?P<otherday>{_EN_DAY_ALT})"
    rf"|(?P<day>{_EN_DAY_LIST})"
    r"|(?:month\s+on\s+(?:the\s+)?)?(?P<monthday>3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)\b"
    rf"(?!\s+(?:day|week|month|year|{_EN_DAY_ALT})\b)(?:\s+of\s+(?:the|each|every)\s+month\b)?"
    r"|(?P<unit>day|week|month|year|weekday|workday|business\s+day)"
    rf"|(?P<daypart>{'|'.join(_EN_PART_TIMES)})"
    r"(?:\s+(?:at\s+)?(?P<parthour>[0-9]{1,2})(?::(?P<partminute>[0-5][0-9]))?(?![0-9:]|\s*[ap]\.?m\b))?"
    r"|(?P<count>\d{1,3}|other)\s+(?P<units>day|week|month|year)s?)\b"
    rf"(?:\s+(?P<part>{'|'.join(_EN_PART_TIMES)})\b(?!\s+(?:at\s+)?[0-9]))?",
    re.I,
)
_RECUR_ZH = re.compile(
    r"(?:(?P<span>(?:每)?(?:周|星期)[一1]\s*(?:到|至|~|-|—)\s*(?:周|星期)?[五5])"
    r"|(?P<weekend>每(?:逢)?(?:个)?周末)"
    r"|(?:(?<![\u4e00-\u9fff])隔|每隔一(?:个)?)(?:周|星期)(?:的)?(?:周|星期)?(?P<otherday>[一二三四五六日天])"
    r"|(?P<other>(?<![\u4e00-\u9fff])(?:隔天|隔日|隔周|隔月)(?![送达到见再数期])|每隔一(?:个)?(?:天|日|周|星期|月))"
    r"|每(?:个)?(?P<quarter>季度)"
    r"|每(?:个)?月\s*(?:的\s*)?(?:第(?P<nth>[一二三四1-4])|(?P<nthlast>最后一))个(?:周|星期|礼拜)(?P<nthday>[一二三四五六日天])"
    r"|每(?:个)?月\s*(?:的\s*)?(?P<monthend>最后一天|月底|底|末)"
    rf"|每(?:逢)?(?:个)?(?:周|星期|礼拜)(?P<day>{_ZH_DAY_LIST})"
    rf"|每(?:个)?月\s*(?:的\s*)?(?P<monthday>{_MONTH_DAY_NUM})\s*[日号號]"
    rf"|每(?P<daypart>晚上|晚|早上|早晨|早)(?![{_NOT_A_PART_BEFORE}饭餐点])"
    r"|每(?:个)?(?P<unit>天|日|周|星期|礼拜|月|年|工作日)"
    r"|每隔?(?P<count>[0-9]{1,3}|[两二三四五六七八九十]{1,2})(?:个)?(?P<units>天|日|周|星期|礼拜|月|年))"
    rf"(?:\s*(?P<part>{_ZH_PART_ALONE})(?![{_NOT_A_PART_BEFORE}]){_NO_HOUR_AFTER})?"
)
_UNIT_RULE = {
    "day": "FREQ=DAILY", "天": "FREQ=DAILY", "日": "FREQ=DAILY",
    "week": "FREQ=WEEKLY", "周": "FREQ=WEEKLY", "星期": "FREQ=WEEKLY", "礼拜": "FREQ=WEEKLY",
    "month": "FREQ=MONTHLY", "月": "FREQ=MONTHLY",
    "year": "FREQ=YEARLY", "年": "FREQ=YEARLY",
    "weekday": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "工作日": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
    "workday": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
}  # fmt: skip
#: Private-use characters (U+E000 on) that stand in for a repeat phrase not read as the rule
#: (recurrence ignored: the inbox, a removed chip; a second phrase) while the date is looked for:
#: the phrase goes back whole into the title ("周报 每周五" must not give its "周五" to the due
#: and leave "周报每"). A mark is a word of its own, never glued to the words beside it, so no date
#: phrase takes it in ("每天9:30": the due "9:30", not "<mark>9:30"). A character the line already
#: holds is skipped.
_KEPT_MARKS = range(0xE000, 0xF900)

# Words that may start or make up a date phrase; a window of words without a digit must hold one.
# Not "sun" (the sun: "sun cream", "sun salutation"); "sunday" and "every sun" are.
_DATE_WORDS = frozenset(
    {"today", "tonight", "tomorrow", "tmr", "tmrw", "next", "in", "at", "on", "noon", "midnight", "morning",
     "evening", "afternoon", "week", "month", "year", "day", "days", "weeks", "am", "pm", "hour", "hours",
     "minute", "minutes", "min", "mins",
     "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
     "january", "february", "march", "april", "june", "july", "august", "september", "october",
     "november", "december", *_EN_DAYS, "mon", "tue", "wed", "thu", "fri", "sat", "tues", "thur", "thurs",
     "night", "this"}
)  # fmt: skip
#: What "this" may stand before in a date ("this friday", "this evening"; not "do this today",
#: nor "this week" / "this month" / "this year": spans, not days).
_AFTER_THIS = frozenset({*_EN_DAYS, "weekend", "morning", "afternoon", "evening"})
#: Short weekday names dateparser does not know.
_EN_SHORT_DAYS = {"tues": "tuesday", "thur": "thursday", "thurs": "thursday"}
#: A weekday word; not 周 after a number (一周一次, 两周天数: a week) nor 周天 in 天气, 天天, 天数, 天子.
_ZH_DATE = re.compile(
    r"今天|今日|明天|明日|后天|大后天|(?:(?<![一二两三四五六七八九十几0-9])周|星期|礼拜)(?:[一二三四五六日]|天(?![气天数子]))"
)
#: 礼拜 before a day is said and written for 星期; dateparser knows only 星期 (`_find_due`).
_LIBAI = re.compile(r"礼拜(?=[一二三四五六日天])")


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


_Rewrite = Callable[[re.Match[str]], str]

_ZH_TIME = re.compile(
    rf"(?:(?P<short>{_ZH_SHORT})(?:上|晨)?|(?P<part>{_ZH_PART})|(?P<early>早|晚)(?=\s*(?:{_NUM})\s*[点點时]))?"
    rf"\s*(?P<hour>{_NUM})\s*(?:点钟?|點鐘?|时)"
    rf"(?:\s*(?P<half>半)|\s*(?P<quarter>[一三])刻|\s*整|\s*(?P<minute>{_NUM})\s*(?P<fen>分)?)?(?![式])"
)
#: A part of the day, then a clock time with a colon ("下午 3:30", "明晚8:15", "下午3：30" as a
#: Chinese keyboard types it): the hour on that part's clock, as "下午3点半" is.
_ZH_PART_CLOCK = re.compile(
    rf"(?:(?P<short>{_ZH_SHORT})(?:上|晨)?|(?P<part>{_ZH_PART}))\s*(?P<hour>[0-9]{{1,2}})\s*[:：]\s*(?P<minute>[0-5][0-9])"
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
    rf"(?<![{_NOT_NEXT_AFTER}])(?P<next>下下|下)(?:个)?月(?:\s*(?:的\s*)?(?P<day>{_MONTH_DAY_NUM})\s*[日号號])?"
    r"(?![底初中末旬份饼票报度亮光球色])(?!\s*[0-9])"
)
_ZH_MONTH_DAY = re.compile(rf"(?:(?P<year>[0-9]{{4}})年)?(?P<month>{_NUM})月(?P<day>{_NUM})[日号]")
#: "12号 理发", "20号前 交材料": a day of the month alone, its next coming day. Not a month's day
#: (12月5号: _ZH_MONTH_DAY), nor a number that names a thing (5号楼, 1号线, 3号床, 8号选手).
_ZH_MONTH_DAY_ALONE = re.compile(
    rf"(?<![0-9月\u4e00-\u9fff])(?P<day>{_MONTH_DAY_NUM})\s*[号號](?![0-9楼樓房室床位线線路门門机窗口厅馆店车柜桌球选种字码期届院台座坑会航电站箱包卡仓])"
)
#: A day, then 前 / 之前 / 以前 / 之内 / 以内 ("周五前交报告", "明天之前 回复", "下周五之前"): by
#: that day, which is the due; the word does not stay in the title. Not 前台, 前面, 前往 and the like.
_ZH_BY_DAY = re.compile(
    r"(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2}|今天|今日|明天|明日|后天|大后天|(?:周|星期|礼拜)[一二三四五六日天])"
    r"\s*(?P<by>之前|以前|之内|以内|前)(?![台面往进后天年辈夕景线方排端沿期])"
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
    rf"(?:(?:(?P<year>[0-9]{{4}})年)?(?P<month>{_NUM})月|月)底(?![下线层牌气子薪])"
)
#: 年底, 今年底, 明年底, 后年底, 2027年底: 31 December of that year (去年底: past, no due).
_ZH_YEAR_END = re.compile(r"(?:(?P<relative>今|明|后|去|前)|(?P<year>[0-9]{4}))?年底(?![薪线])")
_ZH_FIXED_DAYS = {
    "元旦": (1, 1), "双十一": (11, 11), "双11": (11, 11), "圣诞节": (12, 25), "平安夜": (12, 24),
}  # fmt: skip
_ZH_FIXED_DAY = re.compile("|".join(_ZH_FIXED_DAYS))
#: 两周后, 一周后, 一个月后, 半年后, 3个星期后: in that many weeks, months or years (days: _ZH_IN_DAYS).
_ZH_IN_UNITS = re.compile(
    rf"(?<![0-9])(?P<n>{_NUM}|半)\s*(?:(?:个)?\s*(?P<unit>周|星期|礼拜|年)|个\s*(?P<month>月))\s*(?:以|之)?[后後]"
)
#: 周5, 星期5: a weekday said with a digit.
_ZH_DIGIT_WEEKDAY = re.compile(r"(?P<word>周|星期|礼拜)(?P<n>[1-7])(?![0-9号日])")
#: 明天晚, 周五晚 (a day, then 晚 alone): that day's evening, as 晚上. Not 晚饭, 晚安, 晚点 (later).
_ZH_DAY_WAN = re.compile(r"(?P<day>今天|明天|后天|大后天|(?:周|星期|礼拜)[一二三四五六日天])晚(?![上饭餐安点了会霞间])")
_FULL_WIDTH_COLON = re.compile(r"(?<=[0-9])：(?=[0-9])")
_ZH_IN_DAYS = re.compile(rf"(?P<n>{_NUM})\s*天\s*(?:以|之)?[后後]")
#: "2小时后", "两个小时以后", "半小时后", "一个半小时后", "十五分钟之后": minutes from now.
_ZH_IN_TIME = re.compile(
    rf"(?:(?P<n>{_NUM})(?:\s*个)?(?:\s*(?P<and_half>半))?|(?P<half>半)(?:\s*个)?)\s*(?P<unit>小时|钟头|分钟)"
    r"\s*(?:以|之)?[后後]"
)
_ZH_UNIT_MINUTES = {"小时": 60, "钟头": 60, "分钟": 1}
#: A day, then a part of it with no hour: "明天早上", "后天下午", "周五傍晚", "下周一上午" (by then an
#: ISO date): the part's time on that day.
_ZH_DAY_PART = re.compile(
    rf"(?:(?P<day>今天|今日|明天|明日|大后天|后天|(?:周|星期|礼拜)[一二三四五六日天]|[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})"
    rf"\s*(?P<part>{_ZH_PART_ALONE})|(?P<short>{_ZH_SHORT})(?:上|晨)?)(?![{_NOT_A_PART_BEFORE}]){_NO_HOUR_AFTER}"
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


def _rewrite_chinese(text: str, today: date, originals: dict[str, str] | None = None) -> str:
    """Rewrite the Chinese phrases dateparser misses into ones it reads, each set apart by spaces.
    A clock time may come out as 24:00-28:59: the next day's (`_find_due` reads it so).
    `originals`: filled with what each one-word rewrite stood for (`_recorder`)."""
    record = _recorder(originals)
    morning = _MORNING_WORDS.search(text) is not None

    def clock(match: re.Match[str]) -> str:  # _ZH_TIME and _ZH_PART_CLOCK
        named = match.groupdict()
        quarter = {"一": 15, "三": 45}.get(named.get("quarter") or "")
        minute = 30 if named.get("half") else quarter or _zh_number(match["minute"] or "0")
        hour = _zh_number(match["hour"])
        if hour is None or minute is None or hour > 24 or minute > 59:
            return match[0]
        if match["hour"] == "一" and not (named.get("short") or named.get("part") or named.get("early") or minute):
            return match[0]  # 一点: "a little" (多吃一点), far more often than one o'clock
        if named.get("minute") and len(named["minute"]) == 1 and not named["minute"].isdigit() and not named.get("fen"):
            return match[0]  # 一点一滴, 一点一点: no clock says 点一 without 分
        day, part = _ZH_SHORT_FORMS[match["short"]] if match["short"] else ("", match["part"])
        part = part or {"早": "早上", "晚": "晚上"}.get(named.get("early") or "")
        if part:
            hour = _PART_HOURS[_ZH_PARTS[part][0]].get(hour, hour)
        elif hour in _AFTERNOON_HOURS and not morning:  # "两点 开会", "5点 下班": the afternoon's, as "at 2" is
            hour += 12
        return f" {day} {hour:02d}:{minute:02d} "

    def weekday(match: re.Match[str]) -> str:
        monday = today - timedelta(days=today.weekday())
        weeks = {"这": 0, "本": 0, "下": 1, "下下": 2}[match["this"]]
        found = monday + timedelta(weeks=weeks, days=_ZH_DAYS[match["day"]])
        if found < today:  # 这周五 on a Sunday: not a task overdue when made, the next Friday
            found += timedelta(weeks=1)
        return f" {found.isoformat()} "

    def next_week(match: re.Match[str]) -> str:
        monday = today - timedelta(days=today.weekday())
        return f" {(monday + timedelta(weeks=len(match['next']))).isoformat()} "

    def next_month(match: re.Match[str]) -> str:
        day = today.day if match["day"] is None else _zh_number(match["day"]) or today.day
        return f" {_months_on(today, len(match['next']), day).isoformat()} "

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

    def month_day_alone(match: re.Match[str]) -> str:  # "12号 理发": the next 12th
        day = _zh_number(match["day"])
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
        year = int(typed_year) if typed_year else today.year + {"明": 1, "后": 2}.get(relative or "", 0)
        return f" {date(year, 12, 31).isoformat()} " if year >= today.year else match[0]

    def month_end(match: re.Match[str]) -> str:
        if (match["which"] or "").startswith("上"):
            return match[0]  # 上个月底: past, no due
        ahead = _AHEAD.get(match["which"] or "", 0)
        month_number = _zh_number(match["month"]) if match["month"] else None
        if month_number is None:
            return f" {_months_on(today, ahead, 31).isoformat()} "
        if not 1 <= month_number <= 12:
            return match[0]
        # 12月底: that month's, this year's or, once past, next year's; 2028年3月底: that one
        year = int(match["year"]) if match["year"] else today.year + (month_number < today.month)
        found = _months_on(date(year, month_number, 1), 0, 31)
        return f" {found.isoformat()} " if found >= today else match[0]

    def fixed_day(match: re.Match[str]) -> str:
        month, day = _ZH_FIXED_DAYS[match[0]]
        found = date(today.year, month, day)
        return f" {(found if found >= today else found.replace(year=today.year + 1)).isoformat()} "

    def in_units(match: re.Match[str]) -> str:
        n = 0.5 if match["n"] == "半" else _zh_number(match["n"])
        if not n:
            return match[0]
        unit = match["unit"] or match["month"]
        if unit in ("周", "星期", "礼拜"):
            return f" {(today + timedelta(weeks=n)).isoformat()} " if n == int(n) else match[0]
        months = int(n * 12) if unit == "年" else (int(n) if n == int(n) else 0)
        return f" {_months_on(today, months, today.day).isoformat()} " if months else match[0]

    def in_days(match: re.Match[str]) -> str:
        n = _zh_number(match["n"])
        return match[0] if n is None else f" {(today + timedelta(days=n)).isoformat()} "

    def in_time(match: re.Match[str]) -> str:
        unit = _ZH_UNIT_MINUTES[match["unit"]]
        n = 0 if match["half"] else _zh_number(match["n"])
        minutes = None if n is None else n * unit + (unit // 2 if match["half"] or match["and_half"] else 0)
        return f" in {minutes} minutes " if minutes else match[0]

    def day_part(match: re.Match[str]) -> str:
        day, part = _ZH_SHORT_FORMS[match["short"]] if match["short"] else (match["day"], match["part"])
        return f" {day} {_ZH_PARTS[part][1]} "

    text = _FULL_WIDTH_COLON.sub(":", text)  # "14：30", as a Chinese keyboard types it
    text = _ZH_DIGIT_WEEKDAY.sub(lambda match: match["word"] + "一二三四五六日"[int(match["n"]) - 1], text)
    text = _ZH_DAY_WAN.sub(lambda match: match["day"] + "晚上", text)
    text = _ZH_WEEKEND.sub(record(weekend), text)
    text = _ZH_YEAR_END.sub(record(year_end), text)
    text = _ZH_MONTH_END.sub(record(month_end), text)
    text = _ZH_FIXED_DAY.sub(record(fixed_day), text)
    text = _ZH_IN_UNITS.sub(record(in_units), text)
    text = _ZH_MONTH_DAY_ALONE.sub(record(month_day_alone), text)
    text = _ZH_NEXT_WEEKDAY.sub(record(weekday), text)
    text = _ZH_NEXT_WEEK.sub(record(next_week), text)
    text = _ZH_NEXT_MONTH.sub(record(next_month), text)
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

    return _ZH_BY_DAY.sub(by_day, text)


#: "on the 5th", "the 21st": a day of the month alone, which dateparser reads as a month ("the
#: 5th" was 5 May). Not a count or a rank ("the 3rd time", "the 2nd floor", "the 5th of May").
_EN_MONTH_DAY_ALONE = re.compile(
    r"(?<![A-Za-z0-9])(?:on\s+)?the\s+(?P<day>3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)\b"
    r"(?!\s+(?:of|day|days|week|weeks|month|months|year|years|time|times|floor|place|row|edition|anniversary)\b)",
    re.I,
)


#: A number alone, or an ordinal: never a date by itself.
_BARE_NUMBER = re.compile(r"[0-9]{1,4}|[0-9]{1,2}(?:st|nd|rd|th)", re.I)


#: "this weekend", "the weekend", "next weekend": that weekend's Saturday (today on a weekend).
_EN_WEEKEND = re.compile(r"(?<![A-Za-z])(?P<which>this|next|the)\s+weekend\b(?!'s)", re.I)
#: "next week": next week's Monday, as 下周.
_EN_NEXT_WEEK = re.compile(r"\bnext\s+week\b(?!'s)", re.I)
#: "end of month", "the end of the month": this month's last day ("month end close" is a name).
_EN_MONTH_END = re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+)?month\b(?!'s)", re.I)
#: "in a week", "in an hour": one of them.
_EN_IN_ONE = re.compile(
    r"(?<!once )(?<!twice )(?<!built )\bin\s+an?\s+(?P<unit>minute|hour|week|month|year)\b(?!\s+or\b)", re.I
)


def _rewrite_english(text: str, today: date, originals: dict[str, str] | None = None) -> str:
    """Rewrite the English phrases dateparser misreads into dates, set apart by spaces: a day of
    the month alone is its next coming day ("the 5th" on 6 December: 5 January); the weekend,
    next week, the month's end."""
    record = _recorder(originals)

    def weekend(match: re.Match[str]) -> str:
        return f" {_weekend(today, 1 if (match['which'] or '').lower() == 'next' else 0).isoformat()} "

    def next_week(match: re.Match[str]) -> str:
        return f" {(today + timedelta(days=7 - today.weekday())).isoformat()} "

    def month_end(match: re.Match[str]) -> str:
        return f" {_months_on(today, 0, 31).isoformat()} "

    text = _EN_IN_ONE.sub(lambda match: f"in 1 {match['unit']}", text)
    text = _EN_WEEKEND.sub(record(weekend), text)
    text = _EN_NEXT_WEEK.sub(record(next_week), text)
    text = _EN_MONTH_END.sub(record(month_end), text)

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
        if lowered not in _DATE_WORDS and not _ZH_DATE.fullmatch(lowered):
            return False
        if lowered == "this" and (index + 1 == len(words) or words[index + 1].lower() not in _AFTER_THIS):
            return False
    return True


_AM_PM = frozenset({"am", "pm", "a.m.", "p.m.", "a.m", "p.m"})
#: Day words after which a bare number is a count ("tomorrow 2 eggs"), never the day's hour.
_DAYS_BEFORE_A_COUNT = frozenset(
    {"today", "tomorrow", "tmr", "tmrw", *_EN_DAYS, "mon", "tue", "wed", "thu", "fri", "sat", "sun"}
)
_EN_WEEKDAY_INDEX = {
    **{name: index for index, name in enumerate(_EN_DAYS)},
    **{name[:3]: index for index, name in enumerate(_EN_DAYS)},
    "tues": 1, "thur": 3, "thurs": 3,
}  # fmt: skip


def _names_todays_weekday(words: list[str], local_now: datetime) -> bool:
    """Whether the phrase names today's weekday, bare ("friday", "周五"; not "next friday")."""
    lowered = [word.lower().strip(",.") for word in words]
    if "next" in lowered:
        return False
    for word in lowered:
        zh = _ZH_DATE.fullmatch(word)
        weekday = _ZH_DAYS.get(word[-1]) if zh and word[:1] in "周星礼" else _EN_WEEKDAY_INDEX.get(word)
        if weekday == local_now.weekday():
            return True
    return False


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
_MORNING_WORDS = re.compile(r"起床|早饭|早餐|晨跑|晨练|赶飞机|\b(?:wake|breakfast|sunrise|alarm)\b", re.I)
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


#: A word with a digit that can be part of a date or a time: a number, an ordinal, a clock time
#: (with am/pm or not), an ISO date, a month/day date. Anything else ("50%", "$50", "3.12",
#: "7-eleven", "24/7", "1:1", "v2") keeps its window from dateparser, which would invent a date.
_DATE_NUMBER = re.compile(
    r"[0-9]{1,4}|[0-9]{1,2}(?:st|nd|rd|th)|[0-9]{1,2}(?::[0-5][0-9])?(?:am|pm|a\.m\.|p\.m\.)"
    r"|[0-9]{1,2}:[0-5][0-9](?::00)?|[0-9]{4}-[0-9]{2}-[0-9]{2}|(?:1[0-2]|0?[1-9])[/-](?:3[01]|[12][0-9]|0?[1-9])(?:[/-][0-9]{2,4})?",
    re.I,
)
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
        or re.search(r"\bat\s+\d", joined)
        or re.search(r"\bin\s+\d+\s*(hour|hr|minute|min)", joined)
    )


def _find_due(
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
            # ("at 9" is an hour: _AT_HOUR; "the 5th" a day: _rewrite_english)
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


def _with_its_other_half(
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
    other = _find_due(words, zone, now, evening=evening, morning=morning)
    if other is None:
        return when, timed, words
    start, end, other_when, other_timed = other
    other_words = words[start:end]
    if day_only and other_timed and not _names_a_day(other_words) and not _DURATION.search(" ".join(other_words)):
        combined = datetime.combine(when.date(), other_when.timetz().replace(tzinfo=None), zone)
    elif time_only and not other_timed:
        combined = datetime.combine(other_when.date(), when.timetz().replace(tzinfo=None), zone)
    else:
        return when, timed, words
    return combined, True, words[:start] + words[end:]


def _rule(match: re.Match[str]) -> str:
    """A repeat phrase's RRULE: a weekday ("every friday", "每周五"), a day of the month ("every
    15th", "每月15号"), a count of units ("every 2 weeks", "每两周", "每隔3天") or a unit."""
    named = match.groupdict()
    day, month_day = named.get("day"), named.get("monthday")
    if day:
        return f"FREQ=WEEKLY;BYDAY={','.join(_BYDAY[weekday] for weekday in _weekdays(day))}"
    if named.get("nthday"):
        nth = _ZH_NTH["最后一"] if named.get("nthlast") else _EN_NTH.get(named["nth"].lower()) or _ZH_NTH[named["nth"]]
        return f"FREQ=MONTHLY;BYDAY={nth}{_BYDAY[_weekdays(named['nthday'])[0]]}"
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
        return f"FREQ=WEEKLY;INTERVAL=2;BYDAY={_BYDAY[_weekdays(named['otherday'])[0]]}"
    if month_day:
        return f"FREQ=MONTHLY;BYMONTHDAY={_zh_number(month_day)}"
    if named.get("daypart"):  # "every morning", "每晚"
        return "FREQ=DAILY"
    if named.get("units"):
        count = named["count"].lower()
        every = 2 if count == "other" else _zh_number(count) or 1
        rule = _UNIT_RULE[named["units"].lower()]
        return rule if every == 1 else f"{rule};INTERVAL={every}"
    unit = " ".join((named.get("unit") or "").lower().split())
    return _UNIT_RULE["workday" if unit == "business day" else unit]


#: 每晚 / 每早 said as the parts 晚上 / 早上 ("每晚8点": every day, at 晚上8点 = 20:00).
_ZH_DAYPART_WORD = {"晚": "晚上", "早": "早上"}
_EN_HOUR_AFTER = re.compile(r"\s+(?:at\s+)?[0-9]")
_HOUR_AFTER = re.compile(rf"\s*(?:(?:{_NUM})\s*(?:点|點|时)|[0-9]{{1,2}}\s*[:：]\s*[0-9])")


def _daypart(match: re.Match[str], line: str) -> str | None:
    """The part of the day a daily phrase names ("every evening", "每晚"), as a `_PART_TIMES`
    key. None when an hour follows a Chinese one: the hour is then read on that part's clock
    (the caller puts the part back before it: `_ZH_PART_CLOCK`)."""
    daypart = match.groupdict().get("daypart")
    if not daypart:
        return None
    word = _ZH_DAYPART_WORD.get(daypart[0])
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


def _part_clock_time(match: re.Match[str]) -> str | None:
    """ "every evening at 7" -> "19:00": the hour the rule phrase took, on its part's clock."""
    named = match.groupdict()
    if not named.get("parthour"):
        return None
    hour = int(named["parthour"])
    hour = _PART_HOURS[_EN_PART_CLOCK[named["daypart"].lower()]].get(hour, hour)
    minute = int(named.get("partminute") or 0)
    return f"{hour % 24:02d}:{minute:02d}"  # "every night at 12": midnight


def _weekdays(days: str) -> list[int]:
    """The weekdays a day list names ("mon, wed and fri", "一三五", "三、五"), Monday 0, in week order."""
    zh = [_ZH_DAYS[ch] for ch in days if ch in _ZH_DAYS]
    en = [
        [d[:3] for d in _EN_DAYS].index(word[:3].lower())
        for word in re.findall(r"[A-Za-z]+", days)
        if word.lower() != "and"
    ]
    return sorted(set(zh + en))


def _first_due(rule: str, start: date | datetime, zone: ZoneInfo, now: datetime) -> date | datetime:
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


def _unmasked(word: str, kept: dict[str, str]) -> str:
    """A word with the repeat phrases its marks hid put back."""
    for mark, phrase in kept.items():
        word = word.replace(mark, phrase)
    return word


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

    # Repeat phrases: the first one typed ("every ..." before "每...") is the rule unless ignored;
    # any other is hidden from the date reader behind a mark and stays whole in the title.
    recurrence: str | None = None
    phrases = [match for pattern in (_RECUR_EVERY, _RECUR_ZH) for match in pattern.finditer(line)]
    rule_phrase = None if "recurrence" in ignore or not phrases else phrases[0]
    marks = (chr(code) for code in _KEPT_MARKS if chr(code) not in line)
    kept: dict[str, str] = {}  # mark -> the phrase it hides
    originals: dict[str, str] = {}  # a rewritten word -> what was typed (`_recorder`)
    evening = False  # the rule names a part of the day after noon: "at 7" is on its clock
    masked = plain = ""  # the line for the date reader; the line as the title keeps it
    end = 0
    for match in sorted(phrases, key=lambda match: match.start()):
        masked, plain = masked + line[end : match.start()], plain + line[end : match.start()]
        end = match.end()
        if match is rule_phrase:
            recurrence, part = _rule(match), match.groupdict().get("part") or _daypart(match, line)
            chips.append({"kind": "recurrence", "text": match[0].strip(), "value": recurrence})
            if part and "due" in ignore:  # the due chip removed: its words stay in the title
                masked, plain = masked + f" {part} ", plain + f" {part} "
            elif part:  # "每周五下午", "every friday afternoon": the part's time, read as a bare time would be
                # (with seconds: no rewrite makes that word, and the title drops it if a time typed
                # later is the due: "every evening call mom at 7")
                injected = f"{_PART_TIMES[part.lower()]}:00"
                originals[injected] = ""
                evening = _PART_TIMES[part.lower()] >= "12:00"
                masked, plain = masked + f" {injected} ", plain + " "
            elif clock := _part_clock_time(match):  # "every evening at 7"
                masked, plain = masked + f" {clock} ", plain + " "
            else:  # "每晚8点": the part goes back before its hour, to be read on its clock (晚上8点)
                daypart = match.groupdict().get("daypart") or ""
                masked, plain = masked + " " + _ZH_DAYPART_WORD.get(daypart[:1], ""), plain + " "
            continue
        mark = next(marks, None)
        if mark is None:  # cannot happen in MAX_CHARACTERS; the phrase is then left to the reader
            masked, plain = masked + match[0], plain + match[0]
            continue
        kept[mark] = match[0]
        masked, plain = masked + f" {mark} ", plain + match[0]
    masked, plain = masked + line[end:], plain + line[end:]

    rewritten = _rewrite_english(_rewrite_chinese(masked, today, originals), today, originals)
    words = masked.split() if "due" in ignore else rewritten.split()
    due: date | datetime | None = None
    morning = _MORNING_WORDS.search(text) is not None
    found = None if "due" in ignore else _find_due(words, tz, now, evening=evening, morning=morning)
    due_chip: dict[str, str] | None = None
    if found:
        start, end, when, timed = found
        due_words, words = words[start:end], words[:start] + words[end:]
        when, timed, words = _with_its_other_half(when, timed, due_words, words, tz, now, evening, morning)
        due = when.replace(second=0, microsecond=0) if timed else when.date()
        due_chip = {"kind": "due", "text": " ".join(due_words)}
    if recurrence:
        # The first due is the rule's first occurrence from the typed due (else today), not
        # already past: a rule needs a due, and it must be one the rule gives.
        # "every other tuesday" starts on the coming Tuesday (the due anchors the series); an
        # INTERVAL counted from today's week could skip it
        first_rule = re.sub(r";INTERVAL=\d+", "", recurrence) if "BYDAY" in recurrence else recurrence
        due = _first_due(first_rule, today if due is None else due, tz, now)
        if due_chip is None:  # a due the rule gave: removed with the rule, not on its own
            due_chip = {"kind": "due", "text": "", "drop": "recurrence"}
    if due_chip is not None and due is not None:
        chips.append({**due_chip, "value": _describe(due)})

    # The rewrite set date phrases apart with spaces; without a date found, the words stay as typed.
    typed = " ".join(plain.split())
    title_words = [shown for word in words if (shown := originals.get(word, _unmasked(word, kept)))]
    title = (_join(title_words) if found else typed) or typed or text.strip()
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
