"""Quick add, the phrases an outside sweep found misread (sweep F1-F6, F10) and a later review's
(R1-R5: 这周五 on a Sunday, 礼拜五, 下周 / 下个月, "下午 3:30", "every friday afternoon"), each read
at a fixed `now` in Shanghai: a Sunday 01:45 (the sweep's own clock), a Friday 16:00 (a weekly
rule's day, its time already past), a Tuesday 08:30 (a weekday morning) and the 31st of January
(a month longer than the next). One row per phrase: the title left,
the due (a local date, or a wall-clock time in Shanghai), the rule. Rows marked `guard` were read
right before the fix too (neighbours of the misread phrases); every other row failed then."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.todos import recurrence
from mesq.todos.quick_add import QuickAdd, parse_quick_add
from mesq.todos.quick_rules import RECUR_EVERY, RECUR_ZH
from tests.hypothesis_lanes import examples

SH = ZoneInfo("Asia/Shanghai")
SUNDAY = datetime(2026, 12, 6, 1, 45, tzinfo=SH)  # 2026-12-05 17:45 UTC
FRIDAY = datetime(2026, 12, 11, 16, 0, tzinfo=SH)
TUESDAY = datetime(2026, 12, 8, 8, 30, tzinfo=SH)
JANUARY_31 = datetime(2027, 1, 31, 9, 0, tzinfo=SH)  # a Sunday
WEEKDAYS = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"


def at(month: int, day: int, hour: int, minute: int = 0, year: int = 2026) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=SH)


def read(text: str, now: datetime, ignore: frozenset[str] = frozenset()) -> QuickAdd:
    return parse_quick_add(text, zone="Asia/Shanghai", now=now, ignore=ignore)


Row = tuple[str, datetime, str, date | datetime | None, str | None]

#: F1: 明早 / 明晚 and a day word followed by a part of the day: that day, at that part of it
#: (晚 / 晚上 / 下午 after noon); a part without an hour is its usual time (早上 9:00, 中午 12:00,
#: 下午 15:00, 傍晚 18:00, 晚上 20:00, as "tomorrow morning/afternoon", "tonight" read).
TOMORROW_MORNING_AND_EVENING: list[Row] = [
    ("明早9点 面试", SUNDAY, "面试", at(12, 7, 9), None),
    ("明晚7点 吃饭", SUNDAY, "吃饭", at(12, 7, 19), None),
    ("明晚7点半 吃饭", SUNDAY, "吃饭", at(12, 7, 19, 30), None),
    ("买菜明晚六点", SUNDAY, "买菜", at(12, 7, 18), None),
    ("明早 跑步", SUNDAY, "跑步", at(12, 7, 9), None),
    ("明晚 聚餐", SUNDAY, "聚餐", at(12, 7, 20), None),
    ("明天早上 跑步", SUNDAY, "跑步", at(12, 7, 9), None),
    ("明天早上7点 跑步", SUNDAY, "跑步", at(12, 7, 7), None),  # guard
    ("明天晚上8点 看电影", SUNDAY, "看电影", at(12, 7, 20), None),  # guard
    ("明天晚上 看电影", SUNDAY, "看电影", at(12, 7, 20), None),
    ("明天中午 吃饭", SUNDAY, "吃饭", at(12, 7, 12), None),
    ("后天下午 取快递", SUNDAY, "取快递", at(12, 8, 15), None),
    ("后天晚上九点 开会", SUNDAY, "开会", at(12, 8, 21), None),  # guard
    ("大后天上午 体检", SUNDAY, "体检", at(12, 9, 9), None),
    ("今晚 看电影", SUNDAY, "看电影", at(12, 6, 20), None),
    ("今晚8点 看电影", SUNDAY, "看电影", at(12, 6, 20), None),  # guard
    ("周五傍晚 接孩子", SUNDAY, "接孩子", at(12, 11, 18), None),
    ("下周一上午 开会", SUNDAY, "开会", at(12, 7, 9), None),
    ("明早9点 面试", FRIDAY, "面试", at(12, 12, 9), None),
    ("明晚7点 吃饭", TUESDAY, "吃饭", at(12, 9, 19), None),
    # words that hold those characters and are no time
    ("明天下午茶 聚会", SUNDAY, "下午茶聚会", date(2026, 12, 7), None),  # guard
    ("说明早上的事", SUNDAY, "说明早上的事", None, None),  # guard
    ("今晚饭后 散步", SUNDAY, "今晚饭后 散步", None, None),  # guard
]

#: F2: 每月N日 / 每月N号: a monthly rule on that day, first due the next such day (today's included).
MONTH_DAYS: list[Row] = [
    ("交房租 每月15日", SUNDAY, "交房租", date(2026, 12, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),
    ("交房租 每月15号", SUNDAY, "交房租", date(2026, 12, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),
    ("交房租 每月1号", SUNDAY, "交房租", date(2027, 1, 1), "FREQ=MONTHLY;BYMONTHDAY=1"),
    ("每月十五号 还信用卡", SUNDAY, "还信用卡", date(2026, 12, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),
    ("每个月的6号 交水费", SUNDAY, "交水费", date(2026, 12, 6), "FREQ=MONTHLY;BYMONTHDAY=6"),
    ("交水费每月二十号", SUNDAY, "交水费", date(2026, 12, 20), "FREQ=MONTHLY;BYMONTHDAY=20"),
    ("每月31日 对账", TUESDAY, "对账", date(2026, 12, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
    ("每月15号上午10点 交房租", SUNDAY, "交房租", at(12, 15, 10), "FREQ=MONTHLY;BYMONTHDAY=15"),
    ("交房租 每月11号", FRIDAY, "交房租", date(2026, 12, 11), "FREQ=MONTHLY;BYMONTHDAY=11"),
    ("交房租 每月11号上午9点", FRIDAY, "交房租", at(1, 11, 9, year=2027), "FREQ=MONTHLY;BYMONTHDAY=11"),
    ("pay rent every 15th", SUNDAY, "pay rent", date(2026, 12, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),
    ("pay rent every month on the 1st", SUNDAY, "pay rent", date(2027, 1, 1), "FREQ=MONTHLY;BYMONTHDAY=1"),
]

#: F3: a rule typed without a date starts on its first occurrence from today.
RULES_WITHOUT_A_DATE: list[Row] = [
    ("跑步 每天", SUNDAY, "跑步", date(2026, 12, 6), "FREQ=DAILY"),
    ("每两周 复盘", SUNDAY, "复盘", date(2026, 12, 6), "FREQ=WEEKLY;INTERVAL=2"),
    ("每个工作日 站会", SUNDAY, "站会", date(2026, 12, 7), WEEKDAYS),
    ("每个工作日 站会", TUESDAY, "站会", date(2026, 12, 8), WEEKDAYS),
    ("每月 交报告", SUNDAY, "交报告", date(2026, 12, 6), "FREQ=MONTHLY"),
    ("every day stretch", SUNDAY, "stretch", date(2026, 12, 6), "FREQ=DAILY"),
    ("standup every weekday", SUNDAY, "standup", date(2026, 12, 7), WEEKDAYS),
    ("every 3 days water plants", SUNDAY, "water plants", date(2026, 12, 6), "FREQ=DAILY;INTERVAL=3"),
]

#: F5: 晚上 / 半夜 / 凌晨 12点 is midnight (晚上12点: the end of that evening), 中午12点 noon.
MIDNIGHT: list[Row] = [
    ("晚上12点 睡觉", SUNDAY, "睡觉", at(12, 7, 0), None),
    ("半夜12点 睡觉", SUNDAY, "睡觉", at(12, 7, 0), None),
    ("凌晨12点 睡觉", SUNDAY, "睡觉", at(12, 7, 0), None),
    ("晚上12点半 睡觉", SUNDAY, "睡觉", at(12, 7, 0, 30), None),
    ("晚上12点 睡觉", TUESDAY, "睡觉", at(12, 9, 0), None),
    ("今晚12点 睡觉", TUESDAY, "睡觉", at(12, 9, 0), None),
    ("明天晚上12点 睡觉", SUNDAY, "睡觉", at(12, 8, 0), None),
    ("明天凌晨12点 出发", SUNDAY, "出发", at(12, 7, 0), None),
    ("中午12点 午饭", SUNDAY, "午饭", at(12, 6, 12), None),  # guard
    ("晚上两点 睡觉", SUNDAY, "睡觉", at(12, 6, 2), None),  # the small hours: the next 02:00
]

#: F6: Chinese durations from now (Chinese numerals too): a timed due for hours and minutes.
DURATIONS: list[Row] = [
    ("2小时后 提醒", SUNDAY, "提醒", at(12, 6, 3, 45), None),
    ("两小时后 提醒", SUNDAY, "提醒", at(12, 6, 3, 45), None),
    ("两个小时以后 开会", SUNDAY, "开会", at(12, 6, 3, 45), None),
    ("半小时后 提醒", SUNDAY, "提醒", at(12, 6, 2, 15), None),
    ("半个小时后 提醒", SUNDAY, "提醒", at(12, 6, 2, 15), None),
    ("一个半小时后 出门", SUNDAY, "出门", at(12, 6, 3, 15), None),
    ("30分钟后 提醒", SUNDAY, "提醒", at(12, 6, 2, 15), None),
    ("十五分钟后 关火", SUNDAY, "关火", at(12, 6, 2, 0), None),
    ("关火十分钟之后", SUNDAY, "关火", at(12, 6, 1, 55), None),
    ("3小时后 吃药", FRIDAY, "吃药", at(12, 11, 19), None),
    ("3天后 复查", SUNDAY, "复查", date(2026, 12, 9), None),  # guard
    ("三天后 复查", SUNDAY, "复查", date(2026, 12, 9), None),  # guard
]

#: F10: the first due is an occurrence of the rule, not one already past.
FIRST_DUE_FITS_THE_RULE: list[Row] = [
    ("gym every weekday 7am", SUNDAY, "gym", at(12, 7, 7), WEEKDAYS),
    ("每个工作日早上7点 健身", SUNDAY, "健身", at(12, 7, 7), WEEKDAYS),
    ("周报 每周五下午3点", FRIDAY, "周报", at(12, 18, 15), "FREQ=WEEKLY;BYDAY=FR"),
    ("周报 每周五下午", FRIDAY, "周报", at(12, 18, 15), "FREQ=WEEKLY;BYDAY=FR"),
    ("every friday 3pm report", FRIDAY, "report", at(12, 18, 15), "FREQ=WEEKLY;BYDAY=FR"),
    ("周报 每周五下午5点", FRIDAY, "周报", at(12, 11, 17), "FREQ=WEEKLY;BYDAY=FR"),  # guard
    ("周报 每周五", FRIDAY, "周报", date(2026, 12, 11), "FREQ=WEEKLY;BYDAY=FR"),  # guard; today: not overdue
    ("开会 每天下午3点", FRIDAY, "开会", at(12, 12, 15), "FREQ=DAILY"),  # guard
    ("every day 7am stretch", TUESDAY, "stretch", at(12, 9, 7), "FREQ=DAILY"),  # guard
    ("every day 9am stretch", TUESDAY, "stretch", at(12, 8, 9), "FREQ=DAILY"),  # guard
    ("明天 每周一 开会", SUNDAY, "开会", date(2026, 12, 7), "FREQ=WEEKLY;BYDAY=MO"),  # guard
    ("明天 每周一 开会", FRIDAY, "开会", date(2026, 12, 14), "FREQ=WEEKLY;BYDAY=MO"),
    ("今天上午9点 每天 吃药", FRIDAY, "吃药", at(12, 12, 9), "FREQ=DAILY"),
    ("每天晚上 跑步", SUNDAY, "跑步", at(12, 6, 20), "FREQ=DAILY"),  # a part of the day after a rule
    ("每周一早上 例会", SUNDAY, "例会", at(12, 7, 9), "FREQ=WEEKLY;BYDAY=MO"),
]

#: R1: 这周X / 本周X / 这个周X is the day of this Monday-to-Sunday week, or, once that day has
#: passed, the next one (a new task is not meant overdue): 这周五 on a Sunday is the coming Friday.
THIS_WEEK: list[Row] = [
    ("这周五 交报告", SUNDAY, "交报告", date(2026, 12, 11), None),
    ("本周五 交报告", SUNDAY, "交报告", date(2026, 12, 11), None),
    ("这个周五 交报告", SUNDAY, "交报告", date(2026, 12, 11), None),
    ("这个礼拜五 交报告", SUNDAY, "交报告", date(2026, 12, 11), None),
    ("这星期六 聚餐", SUNDAY, "聚餐", date(2026, 12, 12), None),
    ("这周一 开会", TUESDAY, "开会", date(2026, 12, 14), None),
    ("这周五下午 交报告", SUNDAY, "交报告", at(12, 11, 15), None),
    ("这周五 交报告", TUESDAY, "交报告", date(2026, 12, 11), None),  # guard
    ("这周五 交报告", FRIDAY, "交报告", date(2026, 12, 11), None),  # guard; today stays today
    ("这周日 聚餐", SUNDAY, "聚餐", date(2026, 12, 6), None),  # guard
    ("本周天气 很好", SUNDAY, "本周天气 很好", None, None),  # the weather, not Sunday
]

#: R2: 礼拜 is 星期 (礼拜五, 礼拜天, 礼拜日, 下礼拜一, 每礼拜五); the title keeps the words as typed.
LIBAI: list[Row] = [
    ("礼拜五 交报告", SUNDAY, "交报告", date(2026, 12, 11), None),
    ("礼拜天 聚餐", SUNDAY, "聚餐", date(2026, 12, 6), None),  # today's weekday, bare: today, as 这周日
    ("礼拜日 聚餐", TUESDAY, "聚餐", date(2026, 12, 13), None),
    ("交报告礼拜五", TUESDAY, "交报告", date(2026, 12, 11), None),
    ("礼拜五下午 开会", SUNDAY, "开会", at(12, 11, 15), None),
    ("礼拜三上午10点 面试", SUNDAY, "面试", at(12, 9, 10), None),
    ("星期五 交报告", SUNDAY, "交报告", date(2026, 12, 11), None),  # guard
    ("星期天 聚餐", TUESDAY, "聚餐", date(2026, 12, 13), None),  # guard
    ("下礼拜一 开会", TUESDAY, "开会", date(2026, 12, 14), None),  # guard
    ("下个星期五 开会", TUESDAY, "开会", date(2026, 12, 18), None),  # guard
    ("周报 每礼拜五", SUNDAY, "周报", date(2026, 12, 11), "FREQ=WEEKLY;BYDAY=FR"),  # guard
    ("礼拜五的报告 明天", SUNDAY, "礼拜五的报告", date(2026, 12, 7), None),  # guard
    ("去做礼拜 明天", SUNDAY, "去做礼拜", date(2026, 12, 7), None),  # guard
]

#: R3: 下周 / 下星期 / 下礼拜 alone is next week's Monday; 下个月 / 下月 the same day next month
#: (clamped to its end), 下个月N号 that day of it; not 下周末, 下周期, 下个月底.
NEXT_WEEK_AND_MONTH: list[Row] = [
    ("下周 开会", SUNDAY, "开会", date(2026, 12, 7), None),
    ("下周 开会", FRIDAY, "开会", date(2026, 12, 14), None),
    ("下星期 开会", TUESDAY, "开会", date(2026, 12, 14), None),
    ("下礼拜 开会", TUESDAY, "开会", date(2026, 12, 14), None),
    ("下个星期 开会", TUESDAY, "开会", date(2026, 12, 14), None),
    ("下下周 复盘", TUESDAY, "复盘", date(2026, 12, 21), None),
    ("下周 上午10点 开会", SUNDAY, "开会", at(12, 7, 10), None),
    ("下个月 交房租", SUNDAY, "交房租", date(2027, 1, 6), None),
    ("下月 交房租", FRIDAY, "交房租", date(2027, 1, 11), None),
    ("下个月 交房租", JANUARY_31, "交房租", date(2027, 2, 28), None),
    ("下下个月 体检", SUNDAY, "体检", date(2027, 2, 6), None),
    ("下个月5号 交房租", SUNDAY, "交房租", date(2027, 1, 5), None),
    ("下个月十五日 交房租", TUESDAY, "交房租", date(2027, 1, 15), None),
    ("下个月的20号 交房租", TUESDAY, "交房租", date(2027, 1, 20), None),
    ("下个月31号 交房租", JANUARY_31, "交房租", date(2027, 2, 28), None),
    ("下个月5号下午3点 交房租", SUNDAY, "交房租", at(1, 5, 15, year=2027), None),
    ("下周末 出游", SUNDAY, "出游", date(2026, 12, 12), None),  # next week's Saturday (R10)
    ("下周期 规划", SUNDAY, "下周期 规划", None, None),  # guard
    ("下个月底 交报告", SUNDAY, "交报告", date(2027, 1, 31), None),  # next month's last day (R10)
]

#: R4: a part of the day, then a clock time with a colon (a space between or not; the full-width
#: colon of a Chinese keyboard): the hour on that part's clock, as with 点.
PART_AND_COLON: list[Row] = [
    ("明天下午 3:30 开会", SUNDAY, "开会", at(12, 7, 15, 30), None),
    ("晚上 8:15 看电影", TUESDAY, "看电影", at(12, 8, 20, 15), None),
    ("下午3：30 开会", TUESDAY, "开会", at(12, 8, 15, 30), None),
    ("明天 下午3：30 开会", SUNDAY, "开会", at(12, 7, 15, 30), None),
    ("明晚 8:15 吃饭", SUNDAY, "吃饭", at(12, 7, 20, 15), None),
    ("晚上 12:30 睡觉", SUNDAY, "睡觉", at(12, 7, 0, 30), None),
    ("周报 每周五下午 3:30", SUNDAY, "周报", at(12, 11, 15, 30), "FREQ=WEEKLY;BYDAY=FR"),
    ("周报 每周五下午3：30", SUNDAY, "周报", at(12, 11, 15, 30), "FREQ=WEEKLY;BYDAY=FR"),
    ("明天下午3:30 开会", SUNDAY, "开会", at(12, 7, 15, 30), None),  # guard
    ("晚上8:15 看电影", TUESDAY, "看电影", at(12, 8, 20, 15), None),  # guard
    ("下午 3点半 开会", TUESDAY, "开会", at(12, 8, 15, 30), None),  # guard
]

#: R5: an English part of the day right after a repeat phrase is its time, as 每周五下午 is
#: (morning 09:00, noon 12:00, afternoon 15:00, evening 18:00, night 20:00), not a title word.
EVERY_PART_OF_THE_DAY: list[Row] = [
    ("every friday afternoon report", SUNDAY, "report", at(12, 11, 15), "FREQ=WEEKLY;BYDAY=FR"),
    ("every friday afternoon report", FRIDAY, "report", at(12, 18, 15), "FREQ=WEEKLY;BYDAY=FR"),
    ("every monday morning standup", SUNDAY, "standup", at(12, 7, 9), "FREQ=WEEKLY;BYDAY=MO"),
    ("standup every weekday morning", TUESDAY, "standup", at(12, 8, 9), WEEKDAYS),
    ("drinks every Friday Evening", SUNDAY, "drinks", at(12, 11, 18), "FREQ=WEEKLY;BYDAY=FR"),
    ("每周五下午 周报", SUNDAY, "周报", at(12, 11, 15), "FREQ=WEEKLY;BYDAY=FR"),  # guard
    ("standup every friday morning at 9am", SUNDAY, "standup", at(12, 11, 9), "FREQ=WEEKLY;BYDAY=FR"),  # guard
]

#: R6: numbers in English lines. A number alone is never a date (dateparser reads "3" as March:
#: "buy 3 apples" was due 5 March); "at 9" is an hour (it was 5 September), 1-6 the afternoon's;
#: "the 5th" is the next 5th of a month (it was 5 May).
ENGLISH_NUMBERS: list[Row] = [
    ("buy 3 apples", SUNDAY, "buy 3 apples", None, None),
    ("read 10 pages", SUNDAY, "read 10 pages", None, None),
    ("visit the 2nd floor", SUNDAY, "visit the 2nd floor", None, None),
    ("call mom at 9", SUNDAY, "call mom", at(12, 6, 9), None),
    ("call mom at 9", TUESDAY, "call mom", at(12, 8, 9), None),
    ("call mom at 9 tomorrow", SUNDAY, "call mom", at(12, 7, 9), None),
    ("meet bob tomorrow at 3", SUNDAY, "meet bob", at(12, 7, 15), None),
    ("pay rent at 10", TUESDAY, "pay rent", at(12, 8, 10), None),
    ("pay rent at 8", TUESDAY, "pay rent", at(12, 9, 8), None),
    ("at 5 call mom", TUESDAY, "call mom", at(12, 8, 17), None),
    ("meet at 21", TUESDAY, "meet", at(12, 8, 21), None),
    ("dec 25 at 3 gifts", SUNDAY, "gifts", at(12, 25, 15), None),
    ("standup every friday at 9", SUNDAY, "standup", at(12, 11, 9), "FREQ=WEEKLY;BYDAY=FR"),
    ("call mom on the 5th", TUESDAY, "call mom", date(2027, 1, 5), None),
    ("pay rent the 31st", JANUARY_31, "pay rent", date(2027, 1, 31), None),
    ("pay rent the 31st", TUESDAY, "pay rent", date(2026, 12, 31), None),
    ("review the 30th", JANUARY_31, "review", date(2027, 3, 30), None),
    ("for the 3rd time", SUNDAY, "for the 3rd time", None, None),
    ("meet at 9am", SUNDAY, "meet", at(12, 6, 9), None),  # guard
    ("meet at 9 pm", SUNDAY, "meet", at(12, 6, 21), None),  # guard
    ("buy 2 eggs tomorrow", SUNDAY, "buy 2 eggs", date(2026, 12, 7), None),  # guard
    ("周天 大扫除", TUESDAY, "大扫除", date(2026, 12, 13), None),  # 周天: Sunday, as 周日
    ("一周天气 总结", TUESDAY, "一周天气 总结", None, None),  # guard
]

#: R7: a part of the day as a daily rule ("every morning", 每晚, 每早): every day at the part's
#: time, or at an hour said after it on that part's clock ("every evening at 7", 每晚8点: 19:00, 20:00).
DAILY_PARTS: list[Row] = [
    ("every morning run", SUNDAY, "run", at(12, 6, 9), "FREQ=DAILY"),
    ("every evening walk", TUESDAY, "walk", at(12, 8, 18), "FREQ=DAILY"),
    ("every night read", TUESDAY, "read", at(12, 8, 20), "FREQ=DAILY"),
    ("every evening at 7 walk", TUESDAY, "walk", at(12, 8, 19), "FREQ=DAILY"),
    ("every morning at 7:30 run", TUESDAY, "run", at(12, 9, 7, 30), "FREQ=DAILY"),
    ("every evening at 7pm walk", TUESDAY, "walk", at(12, 8, 19), "FREQ=DAILY"),
    ("每晚 跑步", TUESDAY, "跑步", at(12, 8, 20), "FREQ=DAILY"),
    ("每早 冥想", TUESDAY, "冥想", at(12, 8, 9), "FREQ=DAILY"),
    ("每晚8点 吃药", TUESDAY, "吃药", at(12, 8, 20), "FREQ=DAILY"),
    ("每晚上九点 复盘", TUESDAY, "复盘", at(12, 8, 21), "FREQ=DAILY"),
    ("每早饭后 吃药", TUESDAY, "每早饭后 吃药", None, None),  # 早饭: breakfast, no rule
    ("每天晚上8点 吃药", TUESDAY, "吃药", at(12, 8, 20), "FREQ=DAILY"),  # guard
]

#: R8: what a person means by numbers and clock words (the realistic-lines sweep). A number that
#: is no date ("50%", "$50", "3.12", "7-eleven", "24/7", "1:1", a length: "5 minute", "30天",
#: "2小时") never makes a due; a bare Chinese 1-6点 is the afternoon's, as "at 3" is; 一刻 and 整;
#: the full-width colon; "tonight at 8"; "at 3:15"; "3 pm"; a day of the month alone (12号, not
#: 5号楼); "by" words after a day (周五前, 明天之前) leave the title; 下周 / 下月 / 周天 inside
#: ordinary words (看一下周报, 收下月饼, 一周天天) are no dates.
SWEPT: list[Row] = [
    ("finish 50% of report", TUESDAY, "finish 50% of report", None, None),
    ("pay $50 to alex", TUESDAY, "pay $50 to alex", None, None),
    ("update to python 3.12", TUESDAY, "update to python 3.12", None, None),
    ("go to 7-eleven", TUESDAY, "go to 7-eleven", None, None),
    ("24/7 support setup", TUESDAY, "24/7 support setup", None, None),
    ("1:1 with boss", TUESDAY, "1:1 with boss", None, None),
    ("5 minute meditation", TUESDAY, "5 minute meditation", None, None),
    ("30 day challenge", TUESDAY, "30 day challenge", None, None),
    ("30天 挑战", TUESDAY, "30天 挑战", None, None),
    ("30分钟 冥想", TUESDAY, "30分钟 冥想", None, None),
    ("2小时 会议", TUESDAY, "2小时 会议", None, None),
    ("两点 开会", TUESDAY, "开会", at(12, 8, 14), None),
    ("5点 下班", TUESDAY, "下班", at(12, 8, 17), None),
    ("四点一刻 开会", TUESDAY, "开会", at(12, 8, 16, 15), None),
    ("九点整 开会", TUESDAY, "开会", at(12, 8, 9), None),
    ("14：30 开会", TUESDAY, "开会", at(12, 8, 14, 30), None),
    ("tonight at 8 movie", TUESDAY, "movie", at(12, 8, 20), None),
    ("pick up kids at 3:15", TUESDAY, "pick up kids", at(12, 8, 15, 15), None),
    ("call 3 pm", FRIDAY, "call", at(12, 12, 15), None),
    ("12号 理发", TUESDAY, "理发", date(2026, 12, 12), None),
    ("5号楼 开会", TUESDAY, "5号楼 开会", None, None),
    ("20号前 交材料", TUESDAY, "交材料", date(2026, 12, 20), None),
    ("周五前交报告", TUESDAY, "交报告", date(2026, 12, 11), None),
    ("明天之前 回复邮件", TUESDAY, "回复邮件", date(2026, 12, 9), None),
    ("周五前台值班", TUESDAY, "前台值班", date(2026, 12, 11), None),
    ("明天下午2点到4点 开会", TUESDAY, "到 4点开会", at(12, 9, 14), None),  # the end stays as typed
    ("看一下周报", TUESDAY, "看一下周报", None, None),
    ("收下月饼", TUESDAY, "收下月饼", None, None),
    ("这一周天天加班", TUESDAY, "这一周天天加班", None, None),
    ("一周一次 运动", TUESDAY, "一周一次 运动", None, None),
    ("every evening call mom at 7", TUESDAY, "call mom", at(12, 8, 19), "FREQ=DAILY"),
    ("every night at 12 lock up", TUESDAY, "lock up", at(12, 9, 0), "FREQ=DAILY"),
    ("12/25 party", TUESDAY, "party", date(2026, 12, 25), None),  # guard
    ("in 5 minutes call", TUESDAY, "call", at(12, 8, 8, 35), None),  # guard
    ("3天后 取快递", TUESDAY, "取快递", date(2026, 12, 11), None),  # guard
]

#: R9: rules with several days, the nth weekday of a month, the month's last day, every other
#: weekday (starting on the coming one).
RULES_OF_MANY_DAYS: list[Row] = [
    ("every mon, wed, fri gym", TUESDAY, "gym", date(2026, 12, 9), "FREQ=WEEKLY;BYDAY=MO,WE,FR"),
    ("every monday and thursday yoga", TUESDAY, "yoga", date(2026, 12, 10), "FREQ=WEEKLY;BYDAY=MO,TH"),
    ("每周一三五 健身", TUESDAY, "健身", date(2026, 12, 9), "FREQ=WEEKLY;BYDAY=MO,WE,FR"),
    ("每周三、五 健身", TUESDAY, "健身", date(2026, 12, 9), "FREQ=WEEKLY;BYDAY=WE,FR"),
    ("每周六日 休息", TUESDAY, "休息", date(2026, 12, 12), "FREQ=WEEKLY;BYDAY=SA,SU"),
    ("每周一和周三 例会", TUESDAY, "例会", date(2026, 12, 9), "FREQ=WEEKLY;BYDAY=MO,WE"),
    ("每周五六点 下班", TUESDAY, "下班", at(12, 11, 18), "FREQ=WEEKLY;BYDAY=FR"),
    ("every 2nd tuesday book club", TUESDAY, "book club", date(2026, 12, 8), "FREQ=MONTHLY;BYDAY=2TU"),
    ("every last friday of the month drinks", TUESDAY, "drinks", date(2026, 12, 25), "FREQ=MONTHLY;BYDAY=-1FR"),
    ("每月最后一个周五 聚会", TUESDAY, "聚会", date(2026, 12, 25), "FREQ=MONTHLY;BYDAY=-1FR"),
    ("每月第二个周二 读书会", FRIDAY, "读书会", date(2027, 1, 12), "FREQ=MONTHLY;BYDAY=2TU"),
    ("每个月最后一天 对账", TUESDAY, "对账", date(2026, 12, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
    ("每月底 对账", TUESDAY, "对账", date(2026, 12, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
    ("every last day of the month pay", TUESDAY, "pay", date(2026, 12, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
    ("every other tuesday trash", FRIDAY, "trash", date(2026, 12, 15), "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU"),
    ("every 15th pay rent", TUESDAY, "pay rent", date(2026, 12, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),  # guard
]

#: R10: days Chinese writers name without a date: 周末 (the weekend's Saturday; today on a
#: weekend), 下周末, 月底 / 下个月底 / 12月底 (a month's last day), 年底, 元旦, 双十一, 圣诞节,
#: 两周后 / 一个月后 / 半年后, 周5, and 晚 alone after a day (明天晚 8点, 周五晚).
NAMED_DAYS: list[Row] = [
    ("周末 打扫", TUESDAY, "打扫", date(2026, 12, 12), None),
    ("周末 打扫", SUNDAY, "打扫", date(2026, 12, 6), None),
    ("这个周末 大扫除", TUESDAY, "大扫除", date(2026, 12, 12), None),
    ("月底 报销", TUESDAY, "报销", date(2026, 12, 31), None),
    ("12月底 交报告", JANUARY_31, "交报告", date(2027, 12, 31), None),
    ("年底 总结", TUESDAY, "总结", date(2026, 12, 31), None),
    ("元旦 跨年", TUESDAY, "跨年", date(2027, 1, 1), None),
    ("双十一 抢购", TUESDAY, "抢购", date(2027, 11, 11), None),
    ("两周后 拆线", TUESDAY, "拆线", date(2026, 12, 22), None),
    ("一个月后 复查", JANUARY_31, "复查", date(2027, 2, 28), None),
    ("半年后 续费", TUESDAY, "续费", date(2027, 6, 8), None),
    ("周5 开会", TUESDAY, "开会", date(2026, 12, 11), None),
    ("明天晚 8点 打球", TUESDAY, "打球", at(12, 9, 20), None),
    ("周五晚 聚餐", TUESDAY, "聚餐", at(12, 11, 20), None),
    ("晚饭 后散步", TUESDAY, "晚饭 后散步", None, None),  # guard
    ("底线 思维", TUESDAY, "底线 思维", None, None),  # guard
]

#: R11: English days without a date (this weekend, next week as 下周, end of month, in a week,
#: tues, tomorrow night, this evening, this friday), today's weekday typed bare (today, as 这周五),
#: and rules people type (every weekend, every workday, ev, every 3rd of the month, 每逢周五,
#: 隔天, 隔周, 每隔一周, 周一到周五, 每季度). "weekly" alone stays a word.
ENGLISH_DAYS_AND_MORE_RULES: list[Row] = [
    ("call dad this weekend", TUESDAY, "call dad", date(2026, 12, 12), None),
    ("call dad this weekend", SUNDAY, "call dad", date(2026, 12, 6), None),
    ("next week plan trip", TUESDAY, "plan trip", date(2026, 12, 14), None),
    ("end of month invoice", TUESDAY, "invoice", date(2026, 12, 31), None),
    ("check back in a week", TUESDAY, "check back", date(2026, 12, 15), None),
    ("tues call bank", FRIDAY, "call bank", date(2026, 12, 15), None),
    ("tomorrow night party", TUESDAY, "party", at(12, 9, 20), None),
    ("this evening movie", TUESDAY, "movie", at(12, 8, 18), None),
    ("this friday drinks", FRIDAY, "drinks", date(2026, 12, 11), None),
    ("movie at 9pm friday", FRIDAY, "movie", at(12, 11, 21), None),
    ("周五 交报告", FRIDAY, "交报告", date(2026, 12, 11), None),
    ("friday 3pm call", FRIDAY, "call", at(12, 18, 15), None),  # today's 15:00 has passed
    ("finish this tomorrow", TUESDAY, "finish this", date(2026, 12, 9), None),
    ("every weekend clean house", TUESDAY, "clean house", date(2026, 12, 12), "FREQ=WEEKLY;BYDAY=SA,SU"),
    ("every workday standup", TUESDAY, "standup", date(2026, 12, 8), WEEKDAYS),
    ("ev monday standup", TUESDAY, "standup", date(2026, 12, 14), "FREQ=WEEKLY;BYDAY=MO"),
    ("pay bills every 3rd of the month", TUESDAY, "pay bills", date(2027, 1, 3), "FREQ=MONTHLY;BYMONTHDAY=3"),
    ("每逢周五 大扫除", TUESDAY, "大扫除", date(2026, 12, 11), "FREQ=WEEKLY;BYDAY=FR"),
    ("隔天 吃药", TUESDAY, "吃药", date(2026, 12, 8), "FREQ=DAILY;INTERVAL=2"),
    ("每隔一周 开会", TUESDAY, "开会", date(2026, 12, 8), "FREQ=WEEKLY;INTERVAL=2"),
    ("周一到周五 早上7点 跑步", FRIDAY, "跑步", at(12, 14, 7), WEEKDAYS),
    ("每季度 报税", TUESDAY, "报税", date(2026, 12, 8), "FREQ=MONTHLY;INTERVAL=3"),
    ("写周报 weekly report", TUESDAY, "写周报 weekly report", None, None),  # guard
]

#: R12: the second review's lines. The first day typed is the due and a day and a time said
#: apart are joined; a day before 的 names a thing; past references (上个月底, 去年底, 上周末) and
#: years (明年底, 2027年底) are kept straight; N号 before a thing, 底薪, 周末愉快, 南方周末, bare
#: "weekend", "month end", "this year", "once in a week", EV, 间隔, 前端 are no dates or rules;
#: 早/晚 and morning words set a bare hour's clock; 一点 is "a little"; "tonight at 12" is
#: midnight; a count after a day stays in the title; counts and 天 after 每周 are no weekdays.
REVIEWED: list[Row] = [
    ("明天 买 5号电池", TUESDAY, "买 5号电池", date(2026, 12, 9), None),
    ("明天 提醒他 月底 交报告", TUESDAY, "提醒他月底交报告", date(2026, 12, 9), None),
    ("tomorrow review end of month numbers", TUESDAY, "review end of month numbers", date(2026, 12, 9), None),
    ("12号 理发 下午3点", TUESDAY, "理发", at(12, 12, 15), None),
    ("5点 下班 明天", TUESDAY, "下班", at(12, 9, 17), None),
    ("礼拜五的报告 明天", SUNDAY, "礼拜五的报告", date(2026, 12, 7), None),
    ("明年底前 还清贷款", TUESDAY, "还清贷款", date(2027, 12, 31), None),
    ("2028年3月底 交付", TUESDAY, "交付", date(2028, 3, 31), None),
    ("3号会议室 开会", TUESDAY, "3号会议室 开会", None, None),
    ("上个月底的发票 报销", TUESDAY, "上个月底的发票 报销", None, None),
    ("去年底 的账 对一下", TUESDAY, "去年底 的账 对一下", None, None),
    ("上周末 的照片 整理", TUESDAY, "上周末 的照片 整理", None, None),
    ("发三个月底薪", TUESDAY, "发三个月底薪", None, None),
    ("2027年后 再说", TUESDAY, "2027年后 再说", None, None),
    ("3月后 开始健身", TUESDAY, "3月后 开始健身", None, None),
    ("周末愉快", TUESDAY, "周末愉快", None, None),
    ("南方周末 订阅", TUESDAY, "南方周末 订阅", None, None),
    ("weekend reading list", TUESDAY, "weekend reading list", None, None),
    ("month end close checklist", TUESDAY, "month end close checklist", None, None),
    ("read 20 books this year", TUESDAY, "read 20 books this year", None, None),
    ("next week's agenda", TUESDAY, "next week's agenda", None, None),
    ("once in a week", TUESDAY, "once in a week", None, None),
    ("ev night charging rates", TUESDAY, "ev night charging rates", None, None),
    ("计算间隔天数", TUESDAY, "计算间隔天数", None, None),
    ("隔天送达", TUESDAY, "隔天送达", None, None),
    ("明天前端上线", TUESDAY, "前端上线", date(2026, 12, 9), None),
    ("明天6点起床", TUESDAY, "起床", at(12, 9, 6), None),
    ("早6点 跑步", TUESDAY, "跑步", at(12, 9, 6), None),
    ("晚8点 看球", TUESDAY, "看球", at(12, 8, 20), None),
    ("wake up at 6", TUESDAY, "wake up", at(12, 9, 6), None),
    ("多吃一点", TUESDAY, "多吃一点", None, None),
    ("一点半 午休", TUESDAY, "午休", at(12, 8, 13, 30), None),
    ("tonight at 12 lock up", TUESDAY, "lock up", at(12, 9, 0), None),
    ("tonight 9 movie", TUESDAY, "movie", at(12, 8, 21), None),
    ("tomorrow 2 eggs", TUESDAY, "2 eggs", date(2026, 12, 9), None),
    ("隔周五 开会", TUESDAY, "开会", date(2026, 12, 11), "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"),
    ("每隔一周的周五 开会", TUESDAY, "开会", date(2026, 12, 11), "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"),
    ("每周末 打扫", TUESDAY, "打扫", date(2026, 12, 12), "FREQ=WEEKLY;BYDAY=SA,SU"),
    ("周1到周5 跑步", TUESDAY, "跑步", date(2026, 12, 8), WEEKDAYS),
    ("每周五天 上班", TUESDAY, "五天 上班", date(2026, 12, 8), "FREQ=WEEKLY"),
    ("每周一次 打扫", TUESDAY, "一次 打扫", date(2026, 12, 8), "FREQ=WEEKLY"),
    ("整理今天的材料", TUESDAY, "整理的材料", date(2026, 12, 8), None),  # a day before 的, and no other
    ("整理一点一滴的材料", TUESDAY, "整理一点一滴的材料", None, None),
    ("三点十五 开会", TUESDAY, "开会", at(12, 8, 15, 15), None),
    ("every monday sun salutation", TUESDAY, "sun salutation", date(2026, 12, 14), "FREQ=WEEKLY;BYDAY=MO"),
    ("sun cream tomorrow", TUESDAY, "sun cream", date(2026, 12, 9), None),  # "sun" alone is no Sunday
]

#: R13: a monthly repeat on the 29th-31st, or a yearly one from 29 February, keeps the short months
#: (todos/short_months.py): the rent on the 30th is due on 28 February, not skipped to 30 March.
FEBRUARY_5 = datetime(2027, 2, 5, 9, 0, tzinfo=SH)
SHORT_MONTHS: list[Row] = [
    ("交房租 每月30号", FEBRUARY_5, "交房租", date(2027, 2, 28), "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1"),
    ("每月31日 对账", FEBRUARY_5, "对账", date(2027, 2, 28), "FREQ=MONTHLY;BYMONTHDAY=-1"),
    ("pay rent every month on the 30th", FEBRUARY_5, "pay rent", date(2027, 2, 28),
     "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1"),
    ("每月 交报告", datetime(2027, 1, 31, 9, 0, tzinfo=SH), "交报告", date(2027, 1, 31), "FREQ=MONTHLY;BYMONTHDAY=-1"),
    ("每两个月 体检", datetime(2027, 1, 30, 9, 0, tzinfo=SH), "体检", date(2027, 1, 30),
     "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=28,29,30;BYSETPOS=-1"),
    ("every year party", datetime(2028, 2, 29, 9, 0, tzinfo=SH), "party", date(2028, 2, 29),
     "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"),
    ("每月 交报告", datetime(2027, 1, 28, 9, 0, tzinfo=SH), "交报告", date(2027, 1, 28), "FREQ=MONTHLY"),  # guard
    ("交房租 每月15号", FEBRUARY_5, "交房租", date(2027, 2, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),  # guard
]  # fmt: skip

#: R14: a month and day said on that very day is today's in English too ("dec 25" on 25 December
#: was next year's, "feb 29" on 29 February 2028 was 2032's); 2月29日 typed in a year without one
#: is the next 29 February (it stayed in the title); and "every year on 29 February" starts at its
#: first occurrence, the 28th of a year without one, not at the next 29 February years later.
LEAP_DAY = datetime(2028, 2, 29, 11, 0, tzinfo=SH)
JANUARY_10 = datetime(2027, 1, 10, 11, 0, tzinfo=SH)
LEAP_YEAR_MARCH = datetime(2028, 3, 1, 11, 0, tzinfo=SH)
SAID_ON_THE_DAY: list[Row] = [
    ("feb 29 pay", LEAP_DAY, "pay", date(2028, 2, 29), None),
    ("party on dec 25", at(12, 25, 11), "party", date(2026, 12, 25), None),
    ("party on dec 25 3pm", at(12, 25, 11), "party", at(12, 25, 15), None),
    ("party on dec 25 9am", at(12, 25, 11), "party", at(12, 25, 9, year=2027), None),  # guard: its time has passed
    ("party next year", at(12, 25, 11), "party", date(2027, 12, 25), None),  # guard
    ("2月29日 交", JANUARY_10, "交", date(2028, 2, 29), None),
    ("feb 29 pay", JANUARY_10, "pay", date(2028, 2, 29), None),  # guard
    ("2月30日 交", JANUARY_10, "2月30日 交", None, None),  # guard: no month has it
    ("every year on feb 29 pay", JANUARY_10, "pay", date(2027, 2, 28),
     "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"),
    ("每年2月29日 生日", JANUARY_10, "生日", date(2027, 2, 28), "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"),
    ("every year on feb 29 pay", LEAP_YEAR_MARCH, "pay", date(2029, 2, 28),
     "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"),
    ("every year on feb 29 pay", LEAP_DAY, "pay", date(2028, 2, 29),
     "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"),
    ("每年3月1日 x", LEAP_YEAR_MARCH, "x", date(2028, 3, 1), "FREQ=YEARLY"),  # guard
]  # fmt: skip

#: R15: English said as the Chinese beside it is read: "the day after tomorrow" (后天; was tomorrow,
#: "the day after" left in the title), "end of the year" (年底; not read), "end of next month"
#: (下个月底; "end of" left, and the day was next month's same day), "by friday" (周五前; "by" left); and
#: "at" before a day ("at 2027-03-01", "at the end of next year") made its midnight a time.
SAID_AS_IN_CHINESE: list[Row] = [
    ("meeting the day after tomorrow", JANUARY_31, "meeting", date(2027, 2, 2), None),
    ("meeting day after tomorrow", JANUARY_31, "meeting", date(2027, 2, 2), None),
    ("summary end of the year", JANUARY_31, "summary", date(2027, 12, 31), None),
    ("summary by end of year", JANUARY_31, "summary", date(2027, 12, 31), None),
    ("plan at the end of next year", JANUARY_31, "plan", date(2028, 12, 31), None),
    ("meet at 2027-03-01", JANUARY_31, "meet", date(2027, 3, 1), None),  # a day, not its midnight
    ("summary end of next month", at(12, 8, 9), "summary", date(2027, 1, 31), None),
    ("report by friday", TUESDAY, "report", date(2026, 12, 11), None),
    ("report before 5pm", TUESDAY, "report", at(12, 8, 17), None),
    ("taxes due tomorrow", TUESDAY, "taxes", date(2026, 12, 9), None),
    ("drop by tomorrow", TUESDAY, "drop by", date(2026, 12, 9), None),  # guard: a visit
    ("summary end of month", TUESDAY, "summary", date(2026, 12, 31), None),  # guard
    ("meeting tomorrow", TUESDAY, "meeting", date(2026, 12, 9), None),  # guard
]

#: R16: Chinese as it is often typed: 每年的3月8日 / 每周的周一 / 每天的早上 (的 was left in the title),
#: 3月15 without 日 (not read), and the holidays on a fixed solar day (国庆节, 劳动节, 儿童节, 情人节,
#: 妇女节, 教师节; not 国庆 alone, a given name).
WEDNESDAY_JANUARY_27 = datetime(2027, 1, 27, 9, 0, tzinfo=SH)
AS_TYPED_IN_CHINESE: list[Row] = [
    ("每年的3月8日 送花", WEDNESDAY_JANUARY_27, "送花", date(2027, 3, 8), "FREQ=YEARLY"),
    ("每周的周一 例会", WEDNESDAY_JANUARY_27, "例会", date(2027, 2, 1), "FREQ=WEEKLY"),
    ("每天的早上 跑步", WEDNESDAY_JANUARY_27, "跑步", datetime(2027, 1, 28, 9, 0, tzinfo=SH), "FREQ=DAILY"),
    ("3月15 交税", WEDNESDAY_JANUARY_27, "交税", date(2027, 3, 15), None),
    ("交税 3月15", WEDNESDAY_JANUARY_27, "交税", date(2027, 3, 15), None),
    ("3月15个 苹果", WEDNESDAY_JANUARY_27, "3月15个 苹果", None, None),  # guard: a count
    ("国庆节 旅行", WEDNESDAY_JANUARY_27, "旅行", date(2027, 10, 1), None),
    ("劳动节 加班", WEDNESDAY_JANUARY_27, "加班", date(2027, 5, 1), None),
    ("情人节 订餐厅", WEDNESDAY_JANUARY_27, "订餐厅", date(2027, 2, 14), None),
    ("给王国庆打电话", WEDNESDAY_JANUARY_27, "给王国庆打电话", None, None),  # guard: a name
    ("每月15号 还款", WEDNESDAY_JANUARY_27, "还款", date(2027, 2, 15), "FREQ=MONTHLY;BYMONTHDAY=15"),  # guard
]

#: R17: 明年3月1日 was this year's 1 March (明年 left in the title), and 后年 / 今年 / 去年 the same;
#: 本月25号 / 这个月的15号 and 三天内 / 两周内 / 一个月内 (within: by their last day) were not read;
#: 每两周的周五 left 的 in the title.
AND_MORE_AS_TYPED: list[Row] = [
    ("明年3月1日 续费", WEDNESDAY_JANUARY_27, "续费", date(2028, 3, 1), None),
    ("后年3月1日 续费", WEDNESDAY_JANUARY_27, "续费", date(2029, 3, 1), None),
    ("今年12月1日 续费", WEDNESDAY_JANUARY_27, "续费", date(2027, 12, 1), None),
    ("去年3月1日 补记", WEDNESDAY_JANUARY_27, "补记", date(2026, 3, 1), None),  # as typed, though past
    ("本月30号 交电费", WEDNESDAY_JANUARY_27, "交电费", date(2027, 1, 30), None),
    ("这个月的15号 交电费", WEDNESDAY_JANUARY_27, "交电费", date(2027, 1, 15), None),
    ("三天内 回复邮件", WEDNESDAY_JANUARY_27, "回复邮件", date(2027, 1, 30), None),
    ("两周内 回复", WEDNESDAY_JANUARY_27, "回复", date(2027, 2, 10), None),
    ("一个月内 完成", WEDNESDAY_JANUARY_27, "完成", date(2027, 2, 27), None),
    ("每两周的周五 发工资", WEDNESDAY_JANUARY_27, "发工资", date(2027, 1, 29), "FREQ=WEEKLY;INTERVAL=2"),
    ("这个月 完成", WEDNESDAY_JANUARY_27, "这个月 完成", None, None),  # guard: a span, not a day
    ("明年 计划", WEDNESDAY_JANUARY_27, "明年 计划", None, None),  # guard
]

#: R18: "friday before 5pm" left "before" in the title (the time was the day's other half); "within
#: 3 days" (三天内) and "2 weeks from now" were not read, and "a week from today" was a week ago;
#: "on 15th" without "the" was not read.
AND_MORE_IN_ENGLISH: list[Row] = [
    ("submit report friday before 5pm", WEDNESDAY_JANUARY_27, "submit report", at(1, 29, 17, year=2027), None),
    ("reply to email within 3 days", WEDNESDAY_JANUARY_27, "reply to email", date(2027, 1, 30), None),
    ("reply within a week", WEDNESDAY_JANUARY_27, "reply", date(2027, 2, 3), None),
    ("checkup 2 weeks from now", WEDNESDAY_JANUARY_27, "checkup", date(2027, 2, 10), None),
    ("checkup a week from today", WEDNESDAY_JANUARY_27, "checkup", date(2027, 2, 3), None),
    ("renew 2 months from today", WEDNESDAY_JANUARY_27, "renew", date(2027, 3, 27), None),
    ("pay credit card on 15th", WEDNESDAY_JANUARY_27, "pay credit card", date(2027, 2, 15), None),
    ("meet on the 15th floor", WEDNESDAY_JANUARY_27, "meet on the 15th floor", None, None),  # guard
    ("call in 2 days", WEDNESDAY_JANUARY_27, "call", date(2027, 1, 29), None),  # guard
    # a count of 0 is no repeat (it was every day): the words stay
    ("water every 0 days", WEDNESDAY_JANUARY_27, "water every 0 days", None, None),
    ("每0天 浇水", WEDNESDAY_JANUARY_27, "每0天 浇水", None, None),
    ("every 10 days water", WEDNESDAY_JANUARY_27, "water", date(2027, 1, 27), "FREQ=DAILY;INTERVAL=10"),  # guard
]

#: A holiday's name beside a day said otherwise: the day said wins and the name is the title
#: ("1月1日 元旦" was due 1 January titled "1月1日": both became the same date, and the title
#: took the holiday's date back as the other one's words; "元旦 3月1日" was due 1 January). A
#: holiday alone, or with a time alone, is still its day. English holiday names are no dates.
HOLIDAY_BESIDE_A_DATE: list[Row] = [
    ("1月1日 元旦", TUESDAY, "元旦", date(2027, 1, 1), None),
    ("元旦 1月1日", TUESDAY, "元旦", date(2027, 1, 1), None),
    ("元旦 3月1日", TUESDAY, "元旦", date(2027, 3, 1), None),
    ("3月1日 元旦", TUESDAY, "元旦", date(2027, 3, 1), None),  # guard
    ("12月24日 平安夜", TUESDAY, "平安夜", date(2026, 12, 24), None),
    ("12月25日 圣诞节", TUESDAY, "圣诞节", date(2026, 12, 25), None),
    ("10月1日 国庆节", TUESDAY, "国庆节", date(2027, 10, 1), None),
    ("5月1日 劳动节", TUESDAY, "劳动节", date(2027, 5, 1), None),
    ("6月1日 儿童节", TUESDAY, "儿童节", date(2027, 6, 1), None),
    ("2月14日 情人节", TUESDAY, "情人节", date(2027, 2, 14), None),
    ("3月8日 妇女节", TUESDAY, "妇女节", date(2027, 3, 8), None),
    ("9月10日 教师节", TUESDAY, "教师节", date(2027, 9, 10), None),
    ("11月11日 双十一", TUESDAY, "双十一", date(2027, 11, 11), None),
    ("双11 11月11日", TUESDAY, "双11", date(2027, 11, 11), None),
    ("圣诞节 明天", TUESDAY, "圣诞节", date(2026, 12, 9), None),
    ("周五 圣诞节 礼物", TUESDAY, "圣诞节礼物", date(2026, 12, 11), None),
    ("平安夜 12月24日 晚上8点", TUESDAY, "平安夜", at(12, 24, 20), None),
    ("平安夜 晚上8点 聚餐", TUESDAY, "聚餐", at(12, 24, 20), None),  # guard: a time says no day
    ("晚上8点 平安夜 聚餐", TUESDAY, "聚餐", at(12, 24, 20), None),  # was 20:20 (the minute from "2026-")
    ("元旦 跨年", TUESDAY, "跨年", date(2027, 1, 1), None),  # guard: a holiday alone is its day
    ("Jan 1 New Year's Day", TUESDAY, "New Year's Day", date(2027, 1, 1), None),  # guard
    ("Dec 25 Christmas", TUESDAY, "Christmas", date(2026, 12, 25), None),  # guard
    ("christmas dinner", TUESDAY, "christmas dinner", None, None),  # guard
]

#: A clock time said with 点, then a space and a number that is not its minute: "下午3点 12号"
#: was 15:20 on the 6th (the "20" of the 12th's rewritten "2026-12-12" taken as minutes), "晚上8点
#: 20人聚餐" was 20:20. A minute set apart by a space is one only with 分.
SPACED_MINUTES: list[Row] = [
    ("下午3点 12号 开会", TUESDAY, "开会", at(12, 12, 15), None),
    ("下午3点 12月24日 开会", TUESDAY, "开会", at(12, 24, 15), None),
    ("晚上8点 20人聚餐", TUESDAY, "20人聚餐", at(12, 8, 20), None),
    ("下午3点 20分 开会", TUESDAY, "开会", at(12, 8, 15, 20), None),  # guard
    ("下午3点20 开会", TUESDAY, "开会", at(12, 8, 15, 20), None),  # guard
    ("下午3点二十 开会", TUESDAY, "开会", at(12, 8, 15, 20), None),  # guard
]

#: A clock time no clock shows is no due and stays in the title as typed, as 2月30日 does: "at 25:00"
#: was tomorrow 01:00, "24:30" 00:30, "at 26" midnight, "24点半" 00:30, "every night at 24:30" 00:30;
#: a day said with it is still the due (its time left out, the words in the title). 24:00 / 24点 /
#: at 24 is the midnight that ends the day (ISO 8601), and 晚上12点半 (a rewrite's 24:30) the
#: next day's 00:30.
IMPOSSIBLE_TIMES: list[Row] = [
    ("call at 25:00", TUESDAY, "call at 25:00", None, None),
    ("call 25:00", TUESDAY, "call 25:00", None, None),
    ("call 24:30", TUESDAY, "call 24:30", None, None),
    ("开会 25:30", TUESDAY, "开会 25:30", None, None),
    ("26:30 x", TUESDAY, "26:30 x", None, None),
    ("call at 26", TUESDAY, "call at 26", None, None),
    ("call 25:00pm", TUESDAY, "call 25:00pm", None, None),
    ("比分 25：30", TUESDAY, "比分 25：30", None, None),  # the full-width colon
    ("24点半 睡觉", TUESDAY, "24点半 睡觉", None, None),
    ("call tomorrow at 25:00", TUESDAY, "call at 25:00", date(2026, 12, 9), None),
    ("tomorrow 24:30 call", TUESDAY, "24:30 call", date(2026, 12, 9), None),
    ("明天 25:00 开会", TUESDAY, "25:00 开会", date(2026, 12, 9), None),
    ("明天 24点30分 睡觉", TUESDAY, "24点30分睡觉", date(2026, 12, 9), None),
    ("明天 25点", TUESDAY, "25点", date(2026, 12, 9), None),  # guard
    ("明天 23:60", TUESDAY, "23:60", date(2026, 12, 9), None),  # guard
    ("every night at 24:30 check", TUESDAY, "at 24:30 check", at(12, 8, 20), "FREQ=DAILY"),
    ("every day at 25:00 pills", TUESDAY, "at 25:00 pills", date(2026, 12, 8), "FREQ=DAILY"),
    ("每天25:00 吃药", TUESDAY, "25:00 吃药", date(2026, 12, 8), "FREQ=DAILY"),
    ("明天 24:00 交", TUESDAY, "交", at(12, 10, 0), None),  # guard: the midnight that ends tomorrow
    ("明天24点 交", TUESDAY, "交", at(12, 10, 0), None),  # guard
    ("submit at 24", TUESDAY, "submit", at(12, 9, 0), None),  # guard
    ("晚上12点半 睡觉", TUESDAY, "睡觉", at(12, 9, 0, 30), None),  # guard: a rewrite's 24:30
    ("call at 23:59", TUESDAY, "call", at(12, 8, 23, 59), None),  # guard
]

#: "may" beside a day of the month is the month ("buy cake May 15" had no due: quick add never read
#: it, since "may" alone is the verb); alone, or beside no day, it stays the verb.
MAY: list[Row] = [
    ("buy cake May 15", TUESDAY, "buy cake", date(2027, 5, 15), None),
    ("dentist may 15 at 3", TUESDAY, "dentist", at(5, 15, 15, year=2027), None),
    ("15 May pay tax", TUESDAY, "pay tax", date(2027, 5, 15), None),
    ("renew passport May 5th", TUESDAY, "renew passport", date(2027, 5, 5), None),
    ("may need milk", TUESDAY, "may need milk", None, None),  # guard
    ("ask if we may go", TUESDAY, "ask if we may go", None, None),  # guard
    ("buy 3 apples may be", TUESDAY, "buy 3 apples may be", None, None),
]

#: A date typed with the punctuation that sets it apart ("周三：开会", "明天，交报告"): the title
#: was "：开会", "，交报告", "交报告：", "开会（）" (the chip taken, its separator left behind).
SEPARATED_BY_PUNCTUATION: list[Row] = [
    ("周三：开会", TUESDAY, "开会", date(2026, 12, 9), None),
    ("周三: 开会", TUESDAY, "开会", date(2026, 12, 9), None),
    ("明天，交报告", TUESDAY, "交报告", date(2026, 12, 9), None),
    ("明天下午3点：给妈妈打电话", TUESDAY, "给妈妈打电话", at(12, 9, 15), None),
    ("交报告：明天", TUESDAY, "交报告", date(2026, 12, 9), None),
    ("开会（周三）", TUESDAY, "开会", date(2026, 12, 9), None),
    ("tomorrow, call mom", TUESDAY, "call mom", date(2026, 12, 9), None),  # guard
    ("提醒：明天 交报告", TUESDAY, "提醒：交报告", date(2026, 12, 9), None),  # guard
    ("：开会 明天", TUESDAY, "：开会", date(2026, 12, 9), None),  # guard: typed so
    ("开会（）明天", TUESDAY, "开会（）", date(2026, 12, 9), None),  # guard: typed so
]

#: A day already past, with the time said with it, is no due and stays as typed (as 上周末 and
#: 去年底 are): "上周五 报销" was due the coming Friday, titled "上报销"; "前天晚上8点 回电话" was
#: due tonight at 20:00, titled "前天回电话".
PAST_DAYS: list[Row] = [
    ("上周五 报销", TUESDAY, "上周五 报销", None, None),
    ("上个星期三 的会议纪要 明天 整理", TUESDAY, "上个星期三的会议纪要整理", date(2026, 12, 9), None),  # guard
    ("上上周一 的账单", TUESDAY, "上上周一 的账单", None, None),
    ("前天晚上8点 回电话", TUESDAY, "前天晚上8点 回电话", None, None),
    ("昨晚 10点半 的会 补纪要", TUESDAY, "昨晚 10点半 的会 补纪要", None, None),
    ("昨天 15:30 的快递 取", TUESDAY, "昨天 15:30 的快递 取", None, None),
    ("前天下午 回电话", TUESDAY, "前天下午 回电话", None, None),  # guard
    ("昨天 交水费", TUESDAY, "昨天 交水费", None, None),  # guard
    ("上周末 的照片 整理", TUESDAY, "上周末 的照片 整理", None, None),  # guard
    ("提前天数 统计 明天", TUESDAY, "提前天数统计", date(2026, 12, 9), None),  # guard
    ("早上周五 跑步", TUESDAY, "早上跑步", date(2026, 12, 11), None),  # guard: 早上, then 周五
]

#: A clock time, then 前 ("下午3点前 交材料"): by then; the title was "前交材料" (the day's 前, as
#: 周五前, was read already). 15:30前 had no due at all.
BY_A_TIME: list[Row] = [
    ("下午3点前 交材料", TUESDAY, "交材料", at(12, 8, 15), None),
    ("明天下午3点半前 交材料", TUESDAY, "交材料", at(12, 9, 15, 30), None),
    ("周五18点之前 交", TUESDAY, "交", at(12, 11, 18), None),
    ("15:30前 交", TUESDAY, "交", at(12, 8, 15, 30), None),
    ("10:00前台 取件 明天", TUESDAY, "10:00前台取件", date(2026, 12, 9), None),  # guard: 前台
]

#: A date of the lunar calendar is no due (quick add does not convert it); the words stay. 农历八月
#: 十五 was due 15 August, titled "农历中秋".
LUNAR_DATES: list[Row] = [
    ("农历八月十五 中秋", TUESDAY, "农历八月十五 中秋", None, None),
    ("农历5月5日 端午", TUESDAY, "农历5月5日 端午", None, None),
    ("妈妈生日 农历十月初八", TUESDAY, "妈妈生日 农历十月初八", None, None),  # guard
    ("旧历腊月二十三 小年 明天 买糖", TUESDAY, "旧历腊月二十三小年买糖", date(2026, 12, 9), None),  # guard
]

ROWS = (
    TOMORROW_MORNING_AND_EVENING + MONTH_DAYS + RULES_WITHOUT_A_DATE + MIDNIGHT + DURATIONS + FIRST_DUE_FITS_THE_RULE
    + THIS_WEEK + LIBAI + NEXT_WEEK_AND_MONTH + PART_AND_COLON + EVERY_PART_OF_THE_DAY + ENGLISH_NUMBERS
    + DAILY_PARTS + SWEPT + RULES_OF_MANY_DAYS + NAMED_DAYS + ENGLISH_DAYS_AND_MORE_RULES + REVIEWED
    + SHORT_MONTHS + SAID_ON_THE_DAY + SAID_AS_IN_CHINESE + AS_TYPED_IN_CHINESE + AND_MORE_AS_TYPED
    + AND_MORE_IN_ENGLISH + HOLIDAY_BESIDE_A_DATE + SPACED_MINUTES
    + IMPOSSIBLE_TIMES + MAY + SEPARATED_BY_PUNCTUATION + PAST_DAYS + BY_A_TIME + LUNAR_DATES
)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "now", "title", "due", "rule"), ROWS, ids=[f"{row[0]}@{row[1]:%a %H:%M}" for row in ROWS]
)
def test_a_phrase_at_a_fixed_now(
    text: str, now: datetime, title: str, due: date | datetime | None, rule: str | None
) -> None:
    got = read(text, now)
    assert (got.title, got.due, got.recurrence) == (title, due, rule)
    if isinstance(due, datetime):  # the wall clock in the zone's own offset for that day
        assert isinstance(got.due, datetime) and got.due.utcoffset() == due.utcoffset()


RULES = [row for row in ROWS if row[4]]


@pytest.mark.parametrize(
    ("text", "now", "title", "due", "rule"), RULES, ids=[f"{row[0]}@{row[1]:%a %H:%M}" for row in RULES]
)
def test_what_is_understood_is_what_a_create_accepts(
    text: str, now: datetime, title: str, due: date | datetime | None, rule: str | None
) -> None:
    """F3: the preview's rule always comes with a first due the write path takes (check_rule is
    what create_todo_task runs), and the due chip says that due."""
    got = read(text, now)
    arguments = got.arguments("Asia/Shanghai")
    recurrence.check_rule(arguments["recurrence"], arguments["due"], arguments["timezone"])
    [chip] = [chip for chip in got.chips if chip["kind"] == "due"]
    assert chip["value"] == (f"{due:%Y-%m-%d %H:%M}" if isinstance(due, datetime) else str(due))


def test_a_due_the_rule_gave_goes_with_the_rule() -> None:
    """The due chip of a rule typed without a date is removed with the rule (removing the due
    alone would leave a rule the create refuses)."""
    got = read("跑步 每天", SUNDAY)
    [due] = [chip for chip in got.chips if chip["kind"] == "due"]
    assert due["drop"] == "recurrence" and due["text"] == ""
    without_the_rule = read("跑步 每天", SUNDAY, frozenset({"recurrence"}))
    assert (without_the_rule.title, without_the_rule.due, without_the_rule.recurrence) == ("跑步 每天", None, None)
    typed = read("跑步 明天 每天", SUNDAY, frozenset({"due"}))  # a typed due removed: the rule still starts
    assert (typed.title, typed.due, typed.recurrence) == ("跑步 明天", date(2026, 12, 6), "FREQ=DAILY")
    part = read("周报 每周五下午", FRIDAY, frozenset({"due"}))  # the part of the day was the due's
    assert (part.title, part.due, part.recurrence) == ("周报 下午", date(2026, 12, 11), "FREQ=WEEKLY;BYDAY=FR")
    english = read("report every friday afternoon", FRIDAY, frozenset({"due"}))
    assert (english.title, english.due, english.recurrence) == (
        "report afternoon",
        date(2026, 12, 11),
        "FREQ=WEEKLY;BYDAY=FR",
    )


#: F4: with recurrence not read (the inbox; a removed rule chip) a repeat phrase stays whole in
#: the title and gives no due; a date elsewhere in the line is still read.
KEPT_WHOLE = [
    ("周报 每周五", "周报 每周五", None),
    ("每周一 开例会", "每周一 开例会", None),
    ("every friday report", "every friday report", None),
    ("every friday afternoon report", "every friday afternoon report", None),  # guard
    ("写日记 每天21:30", "写日记每天", at(12, 6, 21, 30)),  # the time glued to the phrase is the due's
    ("每天 背单词", "每天 背单词", None),  # guard
    ("交房租 每月15日", "交房租 每月15日", None),  # guard
    ("周报每周五 明天", "周报每周五", date(2026, 12, 7)),  # guard
    ("每周一开例会 明天上午10点", "每周一开例会", at(12, 7, 10)),  # guard
    ("买牛奶 明天下午3点 every monday", "买牛奶 every monday", at(12, 7, 15)),  # guard
]


@pytest.mark.parametrize(("text", "title", "due"), KEPT_WHOLE, ids=[row[0] for row in KEPT_WHOLE])
def test_a_repeat_phrase_not_read_stays_whole(text: str, title: str, due: date | datetime | None) -> None:
    got = read(text, SUNDAY, frozenset({"recurrence"}))
    assert (got.title, got.due, got.recurrence) == (title, due, None)


def test_a_second_repeat_phrase_stays_whole() -> None:
    got = read("每周一 开会 每周五 复盘", SUNDAY)
    assert (got.title, got.due, got.recurrence) == ("开会 每周五 复盘", date(2026, 12, 7), "FREQ=WEEKLY;BYDAY=MO")


#: Pieces people type, glued together with or without spaces: days, parts of the day, hours,
#: durations, repeat phrases, words that hold the same characters, plain words.
PIECES = [
    "明天", "后天", "今天", "明早", "明晚", "今晚", "周五", "下周一", "12月25日", "早上", "下午", "晚上", "半夜",
    "凌晨", "中午", "3点", "12点", "七点半", "9:30", "2小时后", "半小时后", "三天后", "每天", "每周五", "每月15号",
    "每个工作日", "每两周", "every day", "every friday", "every 15th", "7am", "tomorrow", "下午茶", "说明", "周报",
    "开会", "report", "!high", "#家", "3", "每", "号", "这周五", "礼拜五", "每礼拜五", "下周", "下个月", "下个月5号",
    "3:30", "every monday morning", "afternoon",
]  # fmt: skip
NOWS = st.datetimes(datetime(2026, 1, 1), datetime(2027, 12, 31)).map(lambda at: at.replace(tzinfo=SH))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=6), glue=st.sampled_from(["", " "]), now=NOWS)
def test_any_line_a_rule_comes_with_a_due_it_gives_and_not_past(pieces: list[str], glue: str, now: datetime) -> None:
    """Whatever the line: a rule always comes with a first due the create accepts, one the rule
    gives and not past (sweep F3, F10); with the rule not read, every repeat phrase stays whole
    in the title (F4)."""
    line = glue.join(pieces)
    got = read(line, now)
    if got.recurrence:
        arguments = got.arguments("Asia/Shanghai")
        recurrence.check_rule(arguments["recurrence"], arguments["due"], arguments["timezone"])
        if isinstance(got.due, datetime):
            assert got.due > now, (line, got)
        else:
            assert got.due is not None and got.due >= now.date(), (line, got)
    kept = read(line, now, frozenset({"recurrence"}))
    assert kept.recurrence is None
    for pattern in (RECUR_EVERY, RECUR_ZH):
        for match in pattern.finditer(line):  # a phrase glued after a tag is the tag's ("#家每天")
            phrase = match[0].strip()
            assert phrase in kept.title or any(phrase in tag for tag in kept.tags), (line, kept.title)
    marks = [chip["text"] for chip in kept.chips if any("\ue000" <= ch < "\uf900" for ch in chip["text"])]
    assert not marks, (line, marks)  # the stand-in of a phrase kept whole is never shown
