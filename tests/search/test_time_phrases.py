"""A time phrase in an AI search (search/period.py, application/search_operations.py): "上周读了什么书"
asks for the books of last week. The phrase was a few more words to match, in no note, so the
question was answered by the notes nearest to 书 from any month (an October library visit three
times over, on an outside tester's 262-memo account), while last week's reading notes were not
shown. Now the phrase is read as a window of creation days in the user's zone, the rest of the
query is searched in it, and the answer says which days (`period`). When nothing in the window is
a confident hit, the query is searched as asked over every date ("今天跑步" in a diary is words)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.auth.user_zone import set_zone
from mesq.kernel.timestamps import format_timestamp
from mesq.search.indexer import rebuild
from mesq.search.period import listed_period, read_period
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import run

SHANGHAI = ZoneInfo("Asia/Shanghai")


def test_each_phrase_names_its_days() -> None:
    wednesday = date(2026, 12, 9)
    last_week = read_period("上周读了什么书", wednesday)
    assert last_week is not None
    assert (last_week.phrase, last_week.start, last_week.end, last_week.rest) == (
        "上周", date(2026, 11, 30), date(2026, 12, 7), "读了什么书"
    )  # fmt: skip
    cooked = read_period("what did I cook Last  Month", wednesday)
    assert cooked is not None
    assert (cooked.phrase, cooked.start, cooked.end, cooked.rest) == (
        "Last  Month", date(2026, 11, 1), date(2026, 12, 1), "what did I cook"
    )  # fmt: skip
    expected = {
        "昨天吃了什么": (date(2026, 12, 8), date(2026, 12, 9)),
        "上上周的会议": (date(2026, 11, 23), date(2026, 11, 30)),  # not 上周 inside it
        "上周末去了哪里": (date(2026, 12, 5), date(2026, 12, 7)),
        "这个月的周报": (date(2026, 12, 1), date(2027, 1, 1)),
        "去年的旅行": (date(2025, 1, 1), date(2026, 1, 1)),
        "meetings this week": (date(2026, 12, 7), date(2026, 12, 14)),
        "trips last year": (date(2025, 1, 1), date(2026, 1, 1)),
        "我上周去了北京": (date(2026, 11, 30), date(2026, 12, 7)),
        "上月的账单": (date(2026, 11, 1), date(2026, 12, 1)),
        "上礼拜买的东西": (date(2026, 11, 30), date(2026, 12, 7)),
        "last week的会议": (date(2026, 11, 30), date(2026, 12, 7)),
    }
    for query, days in expected.items():
        period = read_period(query, wednesday)
        assert period is not None and (period.start, period.end) == days, query
    january = read_period("上个月的账单", date(2027, 1, 15))
    assert january is not None and (january.start, january.end) == (date(2026, 12, 1), date(2027, 1, 1))


def test_a_date_names_its_day_month_or_year() -> None:
    """A written date: without its year, the last such day or month up to today."""
    wednesday = date(2026, 12, 9)
    expected = {
        "12月4日读了什么": ("12月4日", date(2026, 12, 4), date(2026, 12, 5), "读了什么"),
        "12月4号 会议": ("12月4号", date(2026, 12, 4), date(2026, 12, 5), "会议"),
        "１２月４日 读书": ("１２月４日", date(2026, 12, 4), date(2026, 12, 5), "读书"),
        "2026年3月5日的体检": ("2026年3月5日", date(2026, 3, 5), date(2026, 3, 6), "的体检"),
        "12月15日上线": ("12月15日", date(2025, 12, 15), date(2025, 12, 16), "上线"),  # not yet this year
        "11月做了什么菜": ("11月", date(2026, 11, 1), date(2026, 12, 1), "做了什么菜"),
        "去年12月的账单": ("去年12月", date(2025, 12, 1), date(2026, 1, 1), "的账单"),
        "2025年的旅行": ("2025年", date(2025, 1, 1), date(2026, 1, 1), "的旅行"),
        "2026-12-04 notes": ("2026-12-04", date(2026, 12, 4), date(2026, 12, 5), "notes"),
        "what did I read on December 4": ("December 4", date(2026, 12, 4), date(2026, 12, 5), "what did I read on"),
        "4 Dec 2025 dinner": ("4 Dec 2025", date(2025, 12, 4), date(2025, 12, 5), "dinner"),
        "notes from November 2026": ("November 2026", date(2026, 11, 1), date(2026, 12, 1), "notes from"),
    }
    for query, (phrase, first, after, rest) in expected.items():
        period = read_period(query, wednesday)
        assert period is not None and (period.phrase, period.start, period.end, period.rest) == (
            phrase, first, after, rest
        ), query  # fmt: skip
    for query in ("2月30日 计划", "13月 计划", "May I help", "3号会议室", "112月4日 x", "12月4日"):
        assert read_period(query, wednesday) is None, query


def test_no_phrase_or_nothing_else_to_search_is_no_period() -> None:
    today = date(2026, 12, 9)
    for query in ("读书笔记", "上周", "last week", "  上个月？", "yesterdays", "todays specials", "thelast week"):
        assert read_period(query, today) is None, query
    # A phrase's characters inside other words are no time: 登上|月球, 这|月饼, 马上|周末, 晚上|周报.
    for query in ("登上月球的纪录片", "这月饼真好吃", "马上周末了", "晚上周报写完了"):
        assert read_period(query, today) is None, query


def _at(day: date, hour: int = 12) -> str:
    return format_timestamp(datetime.combine(day, time(hour), SHANGHAI))


@pytest.fixture(scope="module")
def account(
    local_embedder: BundledEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Services, dict[str, str]]]:
    settings = inprocess_settings(
        data_dir=tmp_path_factory.mktemp("periods"), search_provider="none", search_index_updates="off"
    )
    services = build_services(settings)
    services.search.embedder = local_embedder
    set_zone(services.items, "u1", "Asia/Shanghai")
    today = datetime.now(UTC).astimezone(SHANGHAI).date()
    monday = today - timedelta(days=today.weekday())
    notes = {
        "three_body": (
            "读完了刘慈欣的《三体》第二部《黑暗森林》，面壁者罗辑的设定太妙了。#读书/科幻",
            monday - timedelta(days=5),
        ),
        "ball": ("开始读《球状闪电》，林云这个角色很有意思。#读书/科幻", monday - timedelta(days=3)),
        "library": ("周末去图书馆借了三本书。", monday - timedelta(days=60)),
        "library2": ("周末去图书馆借了三本书，都是小说。", monday - timedelta(days=45)),
        "run": ("今天跑步5公里，配速6分钟，膝盖有点疼。#运动", monday - timedelta(days=20)),
        "hotpot": ("晚上和朋友吃了火锅。", monday - timedelta(days=4)),
        "cat": ("给猫买了新的猫粮，它不爱吃。", monday - timedelta(days=2)),
        "deploy": ("周报：本周完成了部署流水线迁移，下周开始做监控告警。#工作", monday - timedelta(days=6)),
        "pasta": ("Made pasta carbonara tonight: guanciale, egg yolks, pecorino. #菜谱", monday - timedelta(days=33)),
        "coffee": ("Had coffee with Zhang Wei, he's moving to Shenzhen next year.", monday - timedelta(days=1)),
        "shopping": ("下午去超市买了水果和酸奶。", today - timedelta(days=1)),
        "cleaning": ("在家打扫卫生，扔掉了很多旧衣服。", monday - timedelta(days=40)),
    }
    ids = {
        run(services, "create_memo", {"content": text, "createdAt": _at(day)})["memo"]["id"]: name
        for name, (text, day) in notes.items()
    }
    rebuild(services, "u1")
    yield services, ids
    services.items.close()


def _names(ids: dict[str, str], hits: list[dict[str, str]]) -> list[str]:
    return [ids[hit["id"]] for hit in hits]


def test_last_weeks_books_are_last_weeks_reading_notes(account: tuple[Services, dict[str, str]]) -> None:
    services, ids = account
    today = datetime.now(UTC).astimezone(SHANGHAI).date()
    monday = today - timedelta(days=today.weekday())
    for operation in ("search_ai_memos", "search_everything"):
        answer = run(services, operation, {"query": "上周读了什么书"})
        items = _names(ids, answer["items"])
        assert items[:2] == ["three_body", "ball"] or items[:2] == ["ball", "three_body"], (operation, items)
        shown = items + _names(ids, answer["closestMatches"])
        assert "library" not in shown and "library2" not in shown, (operation, shown)
        assert answer["period"] == {
            "phrase": "上周",
            "createdFrom": format_timestamp(datetime.combine(monday - timedelta(days=7), time(0), SHANGHAI)),
            "createdTo": format_timestamp(datetime.combine(monday, time(0), SHANGHAI)),
        }


def test_a_date_asks_for_that_days_notes(account: tuple[Services, dict[str, str]]) -> None:
    """ "12月4日读了什么" (the day the 三体 note was written): the date was words no note holds, and a
    note saying 12月15日 shared more of them than any note of that day. In English the day's
    Chinese note is the nearest (a closest match: "read" alone is little to go on across languages)."""
    services, ids = account
    today = datetime.now(UTC).astimezone(SHANGHAI).date()
    day = today - timedelta(days=today.weekday()) - timedelta(days=5)
    answer = run(services, "search_ai_memos", {"query": f"{day.month}月{day.day}日读了什么"})
    assert _names(ids, answer["items"]) == ["three_body"]
    assert answer["period"]["phrase"] == f"{day.month}月{day.day}日"
    answer = run(services, "search_ai_memos", {"query": f"what did I read on {day:%B} {day.day}"})
    assert _names(ids, answer["items"] + answer["closestMatches"]) == ["three_body"]
    assert answer["period"]["phrase"] == f"{day:%B} {day.day}"


def test_a_phrase_with_nothing_in_its_window_searches_every_date(account: tuple[Services, dict[str, str]]) -> None:
    """ "今天跑步": nothing of today is about running, so the diary's running note (20 days ago,
    written "今天跑步") answers, and no period is claimed."""
    services, ids = account
    answer = run(services, "search_ai_memos", {"query": "今天跑步"})
    assert _names(ids, answer["items"])[:1] == ["run"] and "period" not in answer


def test_a_range_the_caller_gave_is_not_read_again(account: tuple[Services, dict[str, str]]) -> None:
    services, _ids = account
    answer = run(
        services, "search_ai_memos",
        {"query": "上周读了什么书", "createdFrom": "2000-01-01T00:00:00Z", "createdTo": "2100-01-01T00:00:00Z"},
    )  # fmt: skip
    assert "period" not in answer


def test_a_question_about_a_day_with_no_confident_hit_stays_on_that_day(
    account: tuple[Services, dict[str, str]],
) -> None:
    """ "昨天的吉他课" (yesterday's guitar lesson): no note is about it, in the window or anywhere,
    so the answer is yesterday's nearest notes and says it read 昨天: not the nearest-sounding
    notes of any date, which read as if they were yesterday's."""
    services, ids = account
    answer = run(services, "search_ai_memos", {"query": "昨天的吉他课"})
    assert answer["items"] == [] and answer["period"]["phrase"] == "昨天"
    shown = _names(ids, answer["closestMatches"])
    assert shown and set(shown) <= {"shopping", "coffee"}, shown


def test_a_query_without_a_time_reads_no_zone(
    account: tuple[Services, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's zone is one more read (a GetItem on DynamoDB): only a query naming a time pays it."""
    from mesq.application import search_operations

    services, _ids = account
    zones: list[str] = []
    monkeypatch.setattr(search_operations, "configured_zone", lambda _items, user: zones.append(user) or None)
    run(services, "search_ai_memos", {"query": "读书笔记"})
    run(services, "search_everything", {"query": "three body"})
    assert zones == []
    run(services, "search_ai_memos", {"query": "上周读了什么书"})
    assert zones == ["u1"]


def test_a_period_asked_for_as_a_whole_lists_its_records() -> None:
    """Only a time phrase or a date, or one plus words that name no topic (period.NO_TOPIC_*),
    asks for the period's records; any other word is a topic, searched in the window as before."""
    today = date(2026, 12, 9)
    listed = {
        "上周": ("上周", date(2026, 11, 30)), "昨天": ("昨天", date(2026, 12, 8)),
        "12月4日": ("12月4日", date(2026, 12, 4)), "上周写了什么": ("上周", date(2026, 11, 30)),
        "昨天记了啥": ("昨天", date(2026, 12, 8)), "上个月的笔记": ("上个月", date(2026, 11, 1)),
        "what did I write last week": ("last week", date(2026, 11, 30)),
        "last week": ("last week", date(2026, 11, 30)), "  上个月？": ("上个月", date(2026, 11, 1)),
        "昨天做了什么": ("昨天", date(2026, 12, 8)), "my notes from yesterday": ("yesterday", date(2026, 12, 8)),
    }  # fmt: skip
    for query, (phrase, start) in listed.items():
        period = listed_period(query, today)
        assert period is not None and (period.phrase, period.start, period.rest) == (phrase, start, ""), query
    for query in ("上周读了什么书", "今天跑步", "昨天的吉他课", "上周写了什么代码", "what did I cook last month",
                  "读书笔记", "登上月球的纪录片", "last week的会议", "上礼拜买的东西"):  # fmt: skip
        assert listed_period(query, today) is None, query


def test_last_week_alone_is_last_weeks_memos_newest_first(account: tuple[Services, dict[str, str]]) -> None:
    """ "上周写了什么", "上周", "what did I write last week": the phrase was read and 写了什么 /
    nothing / "what did I write" searched as words, which answered one random note or nothing.
    Now they list the week's memos, newest first, and name the period."""
    services, ids = account
    today = datetime.now(UTC).astimezone(SHANGHAI).date()
    monday = today - timedelta(days=today.weekday())
    week = {"three_body", "ball", "hotpot", "cat", "deploy", "coffee", *(["shopping"] if today == monday else [])}
    for operation in ("search_ai_memos", "search_everything"):
        for query in ("上周写了什么", "上周", "what did I write last week", "上周的笔记"):
            answer = run(services, operation, {"query": query})
            names = _names(ids, answer["items"])
            assert set(names) == week and len(names) == len(week), (operation, query, names)
            assert names.index("coffee") < names.index("cat") < names.index("ball") < names.index("hotpot")
            assert names.index("hotpot") < names.index("three_body") < names.index("deploy")
            assert answer["period"]["createdFrom"] == format_timestamp(
                datetime.combine(monday - timedelta(days=7), time(0), SHANGHAI)
            )
            assert answer["closestMatches"] == [] and not answer["degraded"] and answer["period"]["listed"] is True
        assert len(run(services, operation, {"query": "上周", "limit": 2})["items"]) == 2


def test_today_lists_todays_memos_todos_and_reading_notes(make_services: Any) -> None:
    """search_everything's "今天记了啥": the memos, todo tasks, inbox items and reading notes of
    today, newest first; none of another day. Without an AI index, the records themselves."""
    from mesq.reading.merge import apply_snapshot
    from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote

    services = make_services()
    now = datetime.now(UTC)
    old = format_timestamp(now - timedelta(days=40))
    memo = run(services, "create_memo", {"content": "超市的收据"})["memo"]["id"]
    run(services, "create_memo", {"content": "很久以前的笔记", "createdAt": old})
    task = run(services, "create_todo_task", {"title": "给房东打电话"})["task"]["id"]
    inbox = run(services, "create_todo_inbox_item", {"title": "买电池"})["item"]["id"]
    notes = (
        UpstreamNote("highlight", "n1", "人生而自由", format_timestamp(now - timedelta(minutes=1))),
        UpstreamNote("highlight", "n2", "很久以前的划线", old),
    )
    apply_snapshot(
        services.items, "u1", BookSnapshot(UpstreamBook("b1", "社会契约论"), notes), format_timestamp(now), "import"
    )
    for query in ("今天记了啥", "today"):
        answer = run(services, "search_everything", {"query": query})
        kinds = [(hit["kind"], hit["snippet"]) for hit in answer["items"]]
        assert {hit["id"] for hit in answer["items"] if hit["kind"] != "reading_note"} == {memo, task, inbox}, kinds
        assert [snippet for kind, snippet in kinds if kind == "reading_note"] == ["人生而自由"], kinds
        assert len(kinds) == 4 and answer["period"]["phrase"] in ("今天", "today"), kinds
        assert answer["period"]["listed"] is True
