"""Recurrence and quick-add chips in the page's language (issue 30): the words are built in the
web layer from the domain's reading of the rule, through the committed zh catalog."""

from __future__ import annotations

from datetime import date, datetime

from mesq.todos.quick_add import QuickAdd
from mesq.web.kit.i18n import Translator
from mesq.web.kit.recurrence_words import recurrence_words
from mesq.web.todos.quick import chip_label

EN, ZH = Translator("en"), Translator("zh")


def test_recurrence_in_english_words() -> None:
    assert recurrence_words("FREQ=WEEKLY;BYDAY=FR") == "Every week on Friday"
    assert recurrence_words("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", EN) == "Every weekday"
    assert recurrence_words("FREQ=DAILY") == "Every day"
    assert (
        recurrence_words("RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=6")
        == "Every week on Monday, Wednesday, Friday, 6 times"
    )
    assert recurrence_words("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO") == "Every 2 weeks on Monday"
    assert recurrence_words("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR") == (
        "Every 2 weeks on Monday, Tuesday, Wednesday, Thursday, Friday"
    )
    assert recurrence_words("FREQ=MONTHLY;BYMONTHDAY=15;UNTIL=20271231T000000Z") == (
        "Every month on day 15, until 2027-12-31"
    )
    assert recurrence_words("FREQ=YEARLY;COUNT=1") == "Every year, once"
    # What the words cannot say exactly is never said wrongly.
    for rule in ("FREQ=MONTHLY;BYDAY=1MO", "FREQ=DAILY;BYHOUR=9", "FREQ=HOURLY", "FREQ=WEEKLY;INTERVAL=0", "nonsense"):
        assert recurrence_words(rule) == "Repeats (custom rule)", rule


def test_recurrence_in_chinese_words() -> None:
    assert recurrence_words("FREQ=WEEKLY;BYDAY=FR", ZH) == "每周的周五"
    assert recurrence_words("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", ZH) == "每个工作日"
    assert recurrence_words("FREQ=DAILY", ZH) == "每天"
    assert recurrence_words("FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=6", ZH) == "每周的周一、周三、周五，共 6 次"
    assert recurrence_words("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", ZH) == "每 2 周的周一"
    assert recurrence_words("FREQ=MONTHLY;BYMONTHDAY=1,15;UNTIL=20271231T000000Z", ZH) == (
        "每月的 1、15 日，直到 2027-12-31"
    )
    assert recurrence_words("FREQ=YEARLY;COUNT=1", ZH) == "每年，共 1 次"
    assert recurrence_words("FREQ=MONTHLY;BYDAY=1MO", ZH) == "重复（自定义规则）"


def test_quick_add_chips_in_the_page_language() -> None:
    parsed = QuickAdd(title="call mom", due=datetime(2026, 12, 3, 17, 0))
    due = {"kind": "due", "value": "2026-12-03T17:00"}
    assert chip_label("due", due, parsed) == "Due Thu, Dec 3 17:00"
    assert chip_label("due", due, parsed, ZH) == "截止 12月3日周四 17:00"
    assert chip_label("due", due, QuickAdd(title="x", due=date(2026, 12, 4)), ZH) == "截止 12月4日周五"
    assert chip_label("priority", {"kind": "priority", "value": "high"}, parsed) == "Priority High"
    assert chip_label("priority", {"kind": "priority", "value": "urgent"}, parsed, ZH) == "优先级：紧急"
    rule = {"kind": "recurrence", "value": "FREQ=WEEKLY;BYDAY=MO"}
    assert chip_label("recurrence", rule, parsed, ZH) == "每周的周一"
    assert chip_label("tag", {"kind": "tag", "value": "家务"}, parsed, ZH) == "#家务"


def test_the_repeats_that_keep_short_months_are_said_in_words() -> None:
    """What quick add and the task form write for the 29th-31st (todos/short_months.py) is said,
    not called a custom rule, as "每月底" once was on its task."""
    said = {
        "FREQ=MONTHLY;BYMONTHDAY=-1": ("Every month on the last day", "每月的最后一天"),
        "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1": (
            "Every month on day 30, or the last day of a shorter month",
            "每月的 30 日（当月没有这一天时为最后一天）",
        ),
        "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=28,29;BYSETPOS=-1;COUNT=5": (
            "Every 2 months on day 29, or the last day of a shorter month, 5 times",
            "每 2 个月的 29 日（当月没有这一天时为最后一天），共 5 次",
        ),
        "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1": (
            "Every year on 29 February, or 28 February in other years",
            "每年的 2 月 29 日（平年为 2 月 28 日）",
        ),
    }
    for rule, (english, chinese) in said.items():
        assert (recurrence_words(rule, EN), recurrence_words(rule, ZH)) == (english, chinese), rule
    # Other uses of the same parts are not those forms: never a wrong sentence.
    for rule in ("FREQ=MONTHLY;BYMONTHDAY=1,15;BYSETPOS=-1", "FREQ=MONTHLY;BYMONTHDAY=27,28,29;BYSETPOS=-1",
                 "FREQ=YEARLY;BYMONTH=3", "FREQ=MONTHLY;BYSETPOS=1;BYDAY=MO", "FREQ=WEEKLY;BYMONTHDAY=-1",
                 "FREQ=MONTHLY;BYMONTHDAY=-2", "FREQ=MONTHLY;BYMONTHDAY=28;BYSETPOS=-1",
                 "FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"):  # fmt: skip
        assert recurrence_words(rule) == "Repeats (custom rule)", rule
