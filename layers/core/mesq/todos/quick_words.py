"""The words both halves of quick add read (its dates, `quick_dates.py`, and its repeat rules,
`quick_rules.py`): weekday names, Chinese numerals, the parts of the day and the hours said with
them. Pure: data and one number reader."""

from __future__ import annotations

EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: Every English weekday word read, full names first (a regex alternative tries them in order).
EN_DAY_NAMES = (*EN_DAYS, "tues", "thurs", "thur", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: Each weekday word -> its weekday, Monday 0.
EN_WEEKDAY_INDEX = {name: [day[:3] for day in EN_DAYS].index(name[:3]) for name in EN_DAY_NAMES}
BYDAY = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
ZH_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
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

NUM = r"[0-9]{1,2}|[零\u3007一二两三四五六七八九十]{1,3}"
#: A day of the month, 1-31, in digits or Chinese numerals (longer alternatives first).
MONTH_DAY_NUM = (
    r"3[01]|[12][0-9]|0?[1-9]|三十一|三十|二十[一二三四五六七八九]|二十|十[一二三四五六七八九]|十|[一二三四五六七八九]"
)

#: Parts of the day: how an hour said with one is read (its `PART_HOURS` row) and the time the
#: part stands for after a day or a repeat phrase with no hour ("明天下午", "今晚", "每周五下午"),
#: the times dateparser gives "tomorrow morning", "tomorrow afternoon" and "tonight"; None: the
#: part has no time of its own.
ZH_PARTS: dict[str, tuple[str, str | None]] = {
    "凌晨": ("small hours", None),
    "早上": ("morning", "09:00"), "早晨": ("morning", "09:00"), "上午": ("morning", "09:00"),
    "中午": ("noon", "12:00"),
    "下午": ("afternoon", "15:00"), "傍晚": ("afternoon", "18:00"),
    "晚上": ("night", "20:00"), "夜里": ("night", None), "半夜": ("night", None), "深夜": ("night", None),
}  # fmt: skip
#: English parts of the day after a repeat phrase ("every friday afternoon"): the times dateparser
#: gives "tomorrow morning", "tomorrow noon", "tomorrow afternoon", "tomorrow evening", "tomorrow night".
EN_PART_TIMES = {"morning": "09:00", "noon": "12:00", "afternoon": "15:00", "evening": "18:00", "night": "20:00"}
#: A part of the day with no hour -> its time ("下午" and "afternoon" alike).
PART_TIMES = {**{part: at for part, (_, at) in ZH_PARTS.items() if at}, **EN_PART_TIMES}
#: An hour said with a part of the day -> the hour on that day's clock (an hour not listed stays).
#: 24 and over are the next day's: 晚上12点 is the midnight that ends that evening, 晚上两点 the
#: small hours after it; 凌晨12点 is the midnight that starts the day.
PART_HOURS: dict[str, dict[int, int]] = {
    "small hours": {12: 0},
    "morning": {},
    "noon": {hour: hour + 12 for hour in range(11)},
    "afternoon": {hour: hour + 12 for hour in range(12)},
    "night": {12: 24, **{hour: hour + 24 for hour in range(5)}, **{hour: hour + 12 for hour in range(5, 12)}},
}
#: 明早 / 明晚 / 今早 / 今晚 (also 明晚上, 今早晨): a day and a part of it in one word, read like
#: "明天早上" where an hour or nothing of a word follows ("明晚7点", "明早 跑步", "明早跑步"). Not
#: after a character that makes a word of 明 or 今 (说明, 聪明, 证明, 如今, 至今: "说明早上的事").
ZH_SHORT_FORMS = {
    "今早": ("今天", "早上"), "今晚": ("今天", "晚上"), "明早": ("明天", "早上"), "明晚": ("明天", "晚上"),
}  # fmt: skip
_ZH_WORDS_BEFORE = {
    "明": "说聪光发证表声文简清透分英精高开失照黎神鲜阐标注查申言指写载讲点严昌澄空",
    "今": "如至当古现而从迄",
}
ZH_SHORT = "|".join(rf"(?<![{_ZH_WORDS_BEFORE[short[0]]}]){short}" for short in ZH_SHORT_FORMS)
#: A part of the day followed by one of these is a word of its own, not a time: 下午茶, 晚上好,
#: 中午饭.
NOT_A_PART_BEFORE = "茶好饭"
ZH_PART = "|".join(ZH_PARTS)
ZH_PART_ALONE = "|".join(part for part, (_, at) in ZH_PARTS.items() if at)
#: Not followed by an hour: "下午3点" is read as a clock time, "下午" alone as its part's time.
NO_HOUR_AFTER = rf"(?!\s*(?:(?:{NUM})\s*(?:点|點|时)|[0-9]{{1,2}}\s*[:：]\s*[0-9]))"


def zh_number(text: str) -> int | None:
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
