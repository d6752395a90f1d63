"""A time phrase in a search query read as a window of creation dates: "上周读了什么书" asks for
the books of last week, "what did I cook last month" for last month's cooking. Without it the
phrase was a few more words to match: 上周 and "last month" are in no note, so the question was
answered by whatever matched 书 or "cook" best, from any month (an October library visit for
上周读了什么书, while last week's reading notes were not shown).

`read_period(query, today)` finds one such phrase (the longest at the earliest place), and gives
the days it names (in the caller's calendar: `today` is the user's date) and the query without
it, which is what is searched. A Chinese phrase counts only as whole words of the query (jieba's
cut), so 登上月球 holds no 上月. Weeks start on Monday. Only phrases that name one whole past or
current day, week, month or year are read: no "recently", no "3 days ago", no dates (they are
words a note may hold, and the literal search finds them).
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


def _found(query: str) -> tuple[int, int, str] | None:
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


def read_period(query: str, today: date) -> Period | None:
    """The first time phrase of `query` as a window of days, or None when it has none or when
    nothing but the phrase would be left to search (`上周` alone is searched as the word)."""
    found = _found(query)
    if found is None:
        return None
    start, end, name = found
    rest = _SPACES.sub(" ", query[:start] + " " + query[end:]).strip()
    if not has_words(rest):
        return None
    first, after = _windows(today)[name]
    return Period(query[start:end], first, after, rest)
