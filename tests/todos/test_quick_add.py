"""Quick add (issue 30): one typed line -> title, due in the person's zone, priority, tags,
recurrence; English and Chinese, through dateparser plus the module's Chinese rewrites."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mesq.todos.quick_add import KINDS, parse_quick_add
from mesq.todos.quick_rules import RuleShape, rule_shape

SH = ZoneInfo("Asia/Shanghai")
NY = ZoneInfo("America/New_York")
# Thursday 2026-12-03, 10:00 in Shanghai (02:00 UTC); 21:00 on Wednesday in New York.
NOW = datetime(2026, 12, 3, 2, 0, tzinfo=UTC)


def at(day: int, hour: int, minute: int = 0, zone: ZoneInfo = SH, month: int = 12) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=zone)


CASES = [
    # text, title, due, priority, tags, recurrence
    ("买牛奶 明天下午3点 #家务 !high", "买牛奶", at(4, 15), "high", ("家务",), None),
    ("明天下午5点 !high #家", "明天下午5点", at(4, 17), "high", ("家",), None),
    ("买牛奶明天下午5点", "买牛奶", at(4, 17), None, (), None),
    ("开会 下午三点半 p2", "开会", at(3, 15, 30), "high", (), None),
    ("早上8点 跑步", "跑步", at(4, 8), None, (), None),
    ("晚上九点 看书", "看书", at(3, 21), None, (), None),
    ("下周一 开会", "开会", date(2026, 12, 7), None, (), None),
    ("下周五 交报告 !urgent", "交报告", date(2026, 12, 11), "urgent", (), None),
    ("12月25日 圣诞礼物", "圣诞礼物", date(2026, 12, 25), None, (), None),
    ("三天后 交作业", "交作业", date(2026, 12, 6), None, (), None),
    ("后天 取快递 !low", "取快递", date(2026, 12, 5), "low", (), None),
    ("每周五 周报", "周报", date(2026, 12, 4), None, (), "FREQ=WEEKLY;BYDAY=FR"),
    ("写周报 每周五 下午4点", "写周报", at(4, 16), None, (), "FREQ=WEEKLY;BYDAY=FR"),
    ("每天 喝水 #健康", "喝水", date(2026, 12, 3), None, ("健康",), "FREQ=DAILY"),  # a rule starts today
    ("下周一上午9点 开会＃工作 ！紧急", "开会", at(7, 9), "urgent", ("工作",), None),  # fullwidth ＃ and ！
    ("water plants every 3 days", "water plants", date(2026, 12, 3), None, (), "FREQ=DAILY;INTERVAL=3"),
    ("payroll every other week", "payroll", date(2026, 12, 3), None, (), "FREQ=WEEKLY;INTERVAL=2"),
    ("rent every 1 month", "rent", date(2026, 12, 3), None, (), "FREQ=MONTHLY"),
    ("每两周 理发", "理发", date(2026, 12, 3), None, (), "FREQ=WEEKLY;INTERVAL=2"),
    ("每隔3天 浇花", "浇花", date(2026, 12, 3), None, (), "FREQ=DAILY;INTERVAL=3"),
    ("call mom tomorrow 5pm every monday p1", "call mom", at(7, 17), "urgent", (), "FREQ=WEEKLY;BYDAY=MO"),
    ("call mom tomorrow 5pm !high #family", "call mom", at(4, 17), "high", ("family",), None),
    ("tomorrow 5pm !high #home", "tomorrow 5pm", at(4, 17), "high", ("home",), None),
    ("pay rent next monday", "pay rent", date(2026, 12, 7), None, (), None),
    ("dentist dec 25 9:30am", "dentist", at(25, 9, 30), None, (), None),
    ("email Bob in 3 days", "email Bob", date(2026, 12, 6), None, (), None),
    ("read a book tonight", "read a book", at(3, 20), None, (), None),
    ("meeting at 3pm", "meeting", at(3, 15), None, (), None),
    ("standup 9am", "standup", at(4, 9), None, (), None),  # 9am has passed today
    ("weekly review every friday", "weekly review", date(2026, 12, 4), None, (), "FREQ=WEEKLY;BYDAY=FR"),
    ("water plants every day", "water plants", date(2026, 12, 3), None, (), "FREQ=DAILY"),
    ("写周报 weekly report", "写周报 weekly report", None, None, (), None),  # "weekly" alone is a word, not a rule
    ("每个工作日 站会 上午9点半", "站会", at(4, 9, 30), None, (), "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
    ("buy milk", "buy milk", None, None, (), None),
    ("fix #bug/ui now-ish !nonsense", "fix now-ish !nonsense", None, None, ("bug/ui",), None),
    ("Ship v2 p3 #work #work", "Ship v2", None, "medium", ("work",), None),
    # issue 41: !p1-!p4 and !高/!中/!低 wherever they stand (the full-width ! of a Chinese keyboard too), the
    # memo tag rule for #tags (glued to Chinese text too), a date-only line keeps its words as the title
    ("下周一 上午9点 开会 !p1", "开会", at(7, 9), "urgent", (), None),
    ("!p2 下周一 开会", "开会", date(2026, 12, 7), "high", (), None),
    ("开会 !P4", "开会", None, "low", (), None),
    ("买牛奶!高", "买牛奶", None, "high", (), None),
    ("!低 开会", "开会", None, "low", (), None),
    ("后天取快递#家！中", "取快递", date(2026, 12, 5), "medium", ("家",), None),
    ("去买菜#生活 !p3，别忘了", "去买菜，别忘了", None, "medium", ("生活",), None),
    ("wow!high C#", "wow!high C#", None, None, (), None),
    ("明天下午5点", "明天下午5点", at(4, 17), None, (), None),
    ("tomorrow 5pm", "tomorrow 5pm", at(4, 17), None, (), None),
    # this week's day once passed is the next one; 礼拜 is 星期; 下周 / 下个月 alone; a part then "3:30";
    # an English part of the day after a rule is its time
    ("这周三 复盘", "复盘", date(2026, 12, 9), None, (), None),
    ("这周五 复盘", "复盘", date(2026, 12, 4), None, (), None),
    ("礼拜五 交报告", "交报告", date(2026, 12, 4), None, (), None),
    ("下周 开会", "开会", date(2026, 12, 7), None, (), None),
    ("下个月5号 交房租", "交房租", date(2027, 1, 5), None, (), None),
    ("明天下午 3:30 开会", "开会", at(4, 15, 30), None, (), None),
    ("report every friday afternoon", "report", at(4, 15), None, (), "FREQ=WEEKLY;BYDAY=FR"),
]


@pytest.mark.parametrize(("text", "title", "due", "priority", "tags", "recurrence"), CASES, ids=[c[0] for c in CASES])
def test_cases_in_shanghai(
    text: str,
    title: str,
    due: date | datetime | None,
    priority: str | None,
    tags: tuple[str, ...],
    recurrence: str | None,
) -> None:
    got = parse_quick_add(text, zone="Asia/Shanghai", now=NOW)
    assert (got.title, got.due, got.priority, got.tags, got.recurrence) == (title, due, priority, tags, recurrence)


def test_the_zone_decides_the_day_and_the_instant() -> None:
    """At 02:00 UTC it is still Wednesday in New York: "tomorrow 5pm" is Thursday 17:00 there."""
    got = parse_quick_add("call mom tomorrow 5pm", zone="America/New_York", now=NOW)
    assert got.due == at(3, 17, zone=NY)
    assert got.due_argument() == {"type": "datetime", "at": "2026-12-03T22:00:00Z"}
    shanghai = parse_quick_add("明天下午5点 !high #家", zone="Asia/Shanghai", now=NOW)
    assert shanghai.due_argument() == {"type": "datetime", "at": "2026-12-04T09:00:00Z"}


def test_arguments_for_create_todo_task() -> None:
    got = parse_quick_add("买牛奶 明天 #家务 !high 每周五", zone="Asia/Shanghai", now=NOW)
    assert got.arguments("Asia/Shanghai") == {
        "title": "买牛奶",
        "due": {"type": "date", "date": "2026-12-04"},
        "timezone": "Asia/Shanghai",
        "priority": "high",
        "tags": ["家务"],
        "recurrence": "FREQ=WEEKLY;BYDAY=FR",
    }
    plain = parse_quick_add("buy milk", zone="UTC", now=NOW)
    assert plain.arguments("UTC") == {"title": "buy milk"}


def test_chips_name_what_was_understood() -> None:
    got = parse_quick_add("call mom tomorrow 5pm every monday p1 #family", zone="Asia/Shanghai", now=NOW)
    kinds = {chip["kind"]: chip for chip in got.chips}
    assert set(kinds) == {"priority", "tag", "recurrence", "due"}
    assert kinds["priority"] == {"kind": "priority", "text": "p1", "value": "urgent"}
    assert kinds["tag"]["value"] == "family" and kinds["recurrence"]["text"] == "every monday"
    assert kinds["due"]["text"] == "tomorrow 5pm"


def test_a_removed_chip_leaves_its_words_in_the_title() -> None:
    text = "call mom tomorrow 5pm every monday !high #family"
    got = parse_quick_add(text, zone="Asia/Shanghai", now=NOW, ignore=frozenset({"due", "tag"}))
    assert got.title == "call mom tomorrow 5pm #family"
    # the rule still needs a first due: its own first day (Monday), not the removed "tomorrow 5pm"
    assert (got.due, got.tags, got.priority, got.recurrence) == (date(2026, 12, 7), (), "high", "FREQ=WEEKLY;BYDAY=MO")
    bare = parse_quick_add("明天下午5点 !high #家", zone="Asia/Shanghai", now=NOW, ignore=frozenset(KINDS))
    assert (bare.title, bare.due, bare.priority, bare.tags, bare.chips) == ("明天下午5点 !high #家", None, None, (), ())


def test_a_rule_read_for_words() -> None:
    """The words themselves are the web layer's (tests/web/kit/test_recurrence_words.py)."""
    assert rule_shape("RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=6") == RuleShape("WEEKLY", 1, ("MO", "WE", "FR"), (), 6)
    assert rule_shape("FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=1,15;UNTIL=20271231T000000Z") == RuleShape(
        "MONTHLY", 2, (), (1, 15), None, "2027-12-31"
    )
    assert rule_shape("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR").weekdays  # type: ignore[union-attr]
    assert not rule_shape("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR").weekdays  # type: ignore[union-attr]
    for rule in ("FREQ=MONTHLY;BYDAY=1MO", "FREQ=DAILY;BYHOUR=9", "FREQ=HOURLY", "FREQ=WEEKLY;INTERVAL=0", "nonsense"):
        assert rule_shape(rule) is None, rule


def test_one_removed_tag_stays_in_the_title() -> None:
    got = parse_quick_add("plan trip #family #later", zone="UTC", now=NOW, ignore=frozenset({"tag:later"}))
    assert (got.title, got.tags) == ("plan trip #later", ("family",))


@pytest.mark.parametrize(
    ("now", "text", "due"),
    [
        # The evening before New York springs forward (2027-03-14) and falls back (2026-11-01).
        (datetime(2027, 3, 13, 20, 0, tzinfo=NY), "Standup tomorrow 9am", datetime(2027, 3, 14, 9, 0, tzinfo=NY)),
        (datetime(2027, 3, 13, 20, 0, tzinfo=NY), "明天上午9点 站会", datetime(2027, 3, 14, 9, 0, tzinfo=NY)),
        (datetime(2027, 3, 13, 20, 0, tzinfo=NY), "review in 5 days 9am", datetime(2027, 3, 18, 9, 0, tzinfo=NY)),
        (datetime(2026, 10, 31, 20, 0, tzinfo=NY), "call tomorrow 3pm", datetime(2026, 11, 1, 15, 0, tzinfo=NY)),
        (datetime(2026, 10, 31, 20, 0, tzinfo=NY), "明天下午3点 打电话", datetime(2026, 11, 1, 15, 0, tzinfo=NY)),
    ],
)
def test_a_clock_time_across_a_dst_change_keeps_its_wall_clock(now: datetime, text: str, due: datetime) -> None:
    got = parse_quick_add(text, zone="America/New_York", now=now)
    assert got.due == due and got.due.utcoffset() == due.utcoffset(), got.due


def test_a_duration_across_a_dst_change_is_an_instant_from_now() -> None:
    now = datetime(2027, 3, 14, 0, 30, tzinfo=NY)  # EST; 02:00 jumps to 03:00
    got = parse_quick_add("call in 3 hours", zone="America/New_York", now=now)
    assert got.due is not None and got.due.astimezone(UTC) == now.astimezone(UTC) + timedelta(hours=3)


# decisions.md "digits a person types": full-width digits (a Chinese input method) and Arabic-Indic
# ones are the numbers they are; the title keeps them as typed. "明天下午５点" was due at 15:00
# with "５点" left in the title, and "１２月２５日" was no date at all.
TYPED_DIGITS = [
    ("写报告 明天下午\uff15点", "写报告", at(4, 17)),
    ("report tomorrow \uff15pm", "report", at(4, 17)),
    ("买菜 \uff11\uff12月\uff12\uff15日", "买菜", date(2026, 12, 25)),
    ("买\uff13个苹果 明天", "买\uff13个苹果", date(2026, 12, 4)),
    ("明天下午\uff15点", "明天下午\uff15点", at(4, 17)),
    ("call mom \u0665pm tomorrow", "call mom", at(4, 17)),
]


@pytest.mark.parametrize(("text", "title", "due"), TYPED_DIGITS, ids=[case[0] for case in TYPED_DIGITS])
def test_digits_of_any_script_are_read_and_the_title_keeps_them_as_typed(
    text: str, title: str, due: date | datetime
) -> None:
    got = parse_quick_add(text, zone="Asia/Shanghai", now=NOW)
    assert (got.title, got.due) == (title, due)
