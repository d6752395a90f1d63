"""A time phrase in a search query read as a window of creation dates: "上周读了什么书" asks for
the books of last week, "what did I cook last month" for last month's cooking. Without it the
phrase was a few more words to match: 上周 and "last month" are in no note, so the question was
answered by whatever matched 书 or "cook" best, from any month (an October library visit for
上周读了什么书, while last week's reading notes were not shown).

`read_period(query, today)` finds one such phrase (the longest at the earliest place), and gives
the days it names (in the caller's calendar: `today` is the user's date) and the query without
it, which is what is searched. A Chinese phrase counts only as whole words of the query (jieba's
cut), so 登上月球 holds no 上月. Weeks start on Monday. A date is read too: a day (`12月4日`,
`12月4号`, `2026年12月4日`, `2026-12-04`, "December 4", "4 Dec 2026"), a month (`11月`,
`2026年11月`, `去年12月`, "November 2026") or a year (`2025年`); without its year, the last such day or month
up to today. Not read: "recently", "3 days ago", a month name alone ("May").

`listed_period(query, today)` is the other reading: a query that is only a time phrase or a
date, or one plus words that ask "what" without a topic (`上周`, `12月4日`, `昨天记了啥`,
`上个月的笔记`, "what did I write last week"), asks for that period's records themselves, newest
first; searching `写了什么` or "what did I write" as words answered nearly nothing, or noise. The
words that name no topic are `NO_TOPIC_CHINESE` and `NO_TOPIC_ENGLISH` (docs/decisions.md):
a rest made of them alone (and spaces, punctuation) is no topic; any other word is one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from ..kernel.graphemes import has_words


@dataclass(frozen=True)
class Period:
    #: The phrase as written in the query.
    phrase: str
    #: The first day of the window and the day after its last (exclusive).
    start: date
    end: date
    #: The query without the phrase: what is searched in the window.
    rest: str


def _month_start(day: date, back: int = 0) -> date:
    month = day.year * 12 + day.month - 1 - back
    return date(month // 12, month % 12 + 1, 1)


def _windows(today: date) -> dict[str, tuple[date, date]]:
    monday = today - timedelta(days=today.weekday())
    this_month, last_month = _month_start(today), _month_start(today, 1)
    return {
        "day": (today, today + timedelta(days=1)),
        "yesterday": (today - timedelta(days=1), today),
        "day_before": (today - timedelta(days=2), today - timedelta(days=1)),
        "week": (monday, monday + timedelta(days=7)),
        "last_week": (monday - timedelta(days=7), monday),
        "week_before": (monday - timedelta(days=14), monday - timedelta(days=7)),
        "last_weekend": (monday - timedelta(days=2), monday),
        "month": (this_month, _month_start(today, -1)),
        "last_month": (last_month, this_month),
        "year": (date(today.year, 1, 1), date(today.year + 1, 1, 1)),
        "last_year": (date(today.year - 1, 1, 1), date(today.year, 1, 1)),
    }


_CHINESE = {
    "今天": "day", "今日": "day",
    "昨天": "yesterday", "昨日": "yesterday", "昨晚": "yesterday",
    "前天": "day_before",
    "本周": "week", "这周": "week", "这个星期": "week", "这星期": "week", "本星期": "week", "这礼拜": "week",
    "这个礼拜": "week",
    "上周": "last_week", "上个星期": "last_week", "上星期": "last_week", "上礼拜": "last_week",
    "上个礼拜": "last_week",
    "上上周": "week_before", "上上个星期": "week_before",
    "上周末": "last_weekend",
    "本月": "month", "这个月": "month", "这月": "month",
    "上个月": "last_month", "上月": "last_month",
    "今年": "year", "去年": "last_year",
}  # fmt: skip
_ENGLISH = {
    "today": "day", "yesterday": "yesterday", "last night": "yesterday",
    "the day before yesterday": "day_before",
    "this week": "week", "last week": "last_week", "the week before last": "week_before",
    "last weekend": "last_weekend",
    "this month": "month", "last month": "last_month",
    "this year": "year", "last year": "last_year",
}  # fmt: skip
_PHRASES = sorted([*_CHINESE, *_ENGLISH], key=len, reverse=True)
_SPACES = re.compile(r"\s+")


def _english(phrase: str) -> re.Pattern[str]:
    """An English phrase as words: not "yesterdays", "thelast week"; any spaces between."""
    words = r"\s+".join(re.escape(word) for word in phrase.split())
    return re.compile(r"(?<![A-Za-z0-9])" + words + r"(?![A-Za-z0-9])", re.IGNORECASE)


_ENGLISH_PATTERNS = {phrase: _english(phrase) for phrase in _ENGLISH}


def _word_edges(query: str) -> set[int]:
    """Where jieba's words of the query start and end: a Chinese phrase must be whole words of
    it, so 上月 in 登上月球 (登上 | 月球), 这月 in 这月饼 and 上周 in 晚上周报 are no time."""
    from .tokenizer import segmenter  # jieba's dictionary: loaded with the search, not at import

    edges, at = {0}, 0
    for word in segmenter().cut(query):
        at += len(word)
        edges.add(at)
    return edges


_MONTHS = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")),
        1,
    )
    for name in names
}  # fmt: skip
_MONTH = "(?P<name>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
#: A Chinese date's year: written (2026年) or said (今年, 去年, 前年).
_YEAR_BEFORE = r"(?:(?P<year>\d{4})\s*年\s*|(?P<said>今年|去年|前年)\s*)?"
_SAID_YEARS = {"今年": 0, "去年": 1, "前年": 2}
_NOT_DIGIT_BEFORE, _NOT_DIGIT_AFTER = r"(?<!\d)", r"(?!\d)"  # any script's digits, fullwidth too
_DATES = [
    re.compile(_NOT_DIGIT_BEFORE + pattern + _NOT_DIGIT_AFTER, re.IGNORECASE)
    for pattern in (
        _YEAR_BEFORE + r"(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号號]",
        _YEAR_BEFORE + r"(?P<month>\d{1,2})\s*月份?(?!\s*\d)",
        r"(?P<year>\d{4})\s*年(?!\s*\d)",
        r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})",
        r"(?<![A-Za-z])" + _MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<year>\d{4}))?(?![A-Za-z])",
        r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+(?P<year>\d{4}))?(?![A-Za-z])",
        r"(?<![A-Za-z])" + _MONTH + r",?\s+(?P<year>\d{4})",
    )
]


def _date_window(found: re.Match[str], today: date) -> tuple[date, date] | None:
    """The days a date names; None for one that is no date (2月30日, 13月)."""
    parts = found.groupdict()
    year = int(parts["year"]) if parts.get("year") else None
    if parts.get("said"):
        year = today.year - _SAID_YEARS[parts["said"]]
    month = (
        _MONTHS[parts["name"].casefold()] if parts.get("name") else int(parts["month"]) if parts.get("month") else None
    )
    day = int(parts["day"]) if parts.get("day") else None
    try:
        if month is None:  # a year
            return (date(year, 1, 1), date(year + 1, 1, 1)) if year else None
        if day is None:  # a month: without a year, the last one up to today
            first = date(year or today.year, month, 1)
            if year is None and first > today:
                first = date(today.year - 1, month, 1)
            return first, _month_start(first, -1)
        when = date(year or today.year, month, day)
        if year is None and when > today:
            when = date(today.year - 1, month, day)
    except ValueError:
        return None
    return when, when + timedelta(days=1)


def _found(query: str, today: date) -> tuple[int, int, date, date] | None:
    """The earliest phrase or date (the longest there) as (start, end, first day, day after)."""
    spans: list[tuple[int, int, date, date]] = []
    for pattern in _DATES:
        for match in pattern.finditer(query):
            window = _date_window(match, today)
            if window is not None:
                spans.append((match.start(), match.end(), *window))
                break
    named = _named(query)
    if named is not None:
        spans.append((named[0], named[1], *_windows(today)[named[2]]))
    return min(spans, key=lambda span: (span[0], span[0] - span[1])) if spans else None


def _named(query: str) -> tuple[int, int, str] | None:
    """The earliest phrase (the longest there) as (start, end, name)."""
    best: tuple[int, int, str] | None = None
    edges: set[int] | None = None
    for phrase in _PHRASES:
        if phrase in _CHINESE:
            at = query.find(phrase)
            while at >= 0:
                edges = _word_edges(query) if edges is None else edges
                if at in edges and at + len(phrase) in edges:
                    break
                at = query.find(phrase, at + 1)
            spans = [(at, at + len(phrase), _CHINESE[phrase])] if at >= 0 else []
        else:
            match = _ENGLISH_PATTERNS[phrase].search(query)
            spans = [(match.start(), match.end(), _ENGLISH[phrase])] if match else []
        for span in spans:  # longest first: a shorter phrase wins only by starting earlier
            if best is None or span[0] < best[0]:
                best = span
    return best


#: Chinese words that ask for a period's records without naming a topic, longest first where
#: one holds another: 上周写了什么, 昨天记了啥, 上个月的笔记, 今天有哪些记录. 读 (读了什么: reading),
#: 看 (watching) and 吃 (eating) are topics, and so is any word not here.
NO_TOPIC_CHINESE = (
    "备忘录", "所有的", "写了", "记了", "记下", "做了", "干了", "什么", "哪些", "笔记", "备忘", "记录",
    "内容", "东西", "全部", "所有", "我", "都", "有", "写", "记", "做", "干", "了", "些", "啥", "的", "吗",
    "呢", "么",
)  # fmt: skip
#: English words that do the same: "what did I write last week", "my notes from yesterday".
NO_TOPIC_ENGLISH = frozenset((
    "what", "did", "do", "i", "write", "wrote", "written", "note", "notes", "memo", "memos", "record",
    "records", "my", "me", "all", "anything", "everything", "from", "in", "on", "of", "during", "the",
    "have", "has", "had", "any", "show", "list",
))  # fmt: skip
_NO_TOPIC_CHINESE = re.compile("(?:" + "|".join(map(re.escape, NO_TOPIC_CHINESE)) + ")+")
_ENGLISH_WORD = re.compile(r"[^\W\d_]+|\d+")


def topicless(rest: str) -> bool:
    """Whether the words left beside a time phrase name no topic: none, or only `NO_TOPIC_*`."""
    folded = rest.casefold()
    words = _ENGLISH_WORD.findall(folded)
    return all(word in NO_TOPIC_ENGLISH or _NO_TOPIC_CHINESE.fullmatch(word) for word in words)


def listed_period(query: str, today: date) -> Period | None:
    """The period of a query that asks for a period's records, not a topic in it (`上周`,
    `上周写了什么`, "what did I write last week"): its `rest` is empty. None for any other query."""
    found = _found(query, today)
    if found is None:
        return None
    start, end, first, after = found
    if not topicless(query[:start] + " " + query[end:]):
        return None
    return Period(query[start:end], first, after, "")


def read_period(query: str, today: date) -> Period | None:
    """The first time phrase of `query` as a window of days, or None when it has none or when
    nothing but the phrase would be left to search (`上周` alone: `listed_period` lists the week)."""
    found = _found(query, today)
    if found is None:
        return None
    start, end, first, after = found
    rest = _SPACES.sub(" ", query[:start] + " " + query[end:]).strip()
    if not has_words(rest):
        return None
    return Period(query[start:end], first, after, rest)
