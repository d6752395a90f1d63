"""Friendly dues on the todo pages: "Fri 18:00 · in 3 days", "yesterday", "Dec 20 · in 17 days",
in the browser's zone (the `mesq_tz` cookie), and an overdue task marked (red, and the word)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from mesq.kernel.timestamps import format_timestamp
from mesq.web.kit.i18n import Translator
from mesq.web.todos.fields import FriendlyDue, friendly_due
from mesq.wiring.services import Services

from ..conftest import Browser, FakeClock
from .test_todos_pages import new_task, run

#: Tuesday 2026-12-08 10:00 UTC = 18:00 in Shanghai.
NOW = datetime(2026, 12, 8, 10, 0, tzinfo=UTC)


def moment(**delta: float) -> dict[str, str]:
    return {"type": "datetime", "at": format_timestamp(NOW + timedelta(**delta))}


def day(text: str) -> dict[str, str]:
    return {"type": "date", "date": text}


def words(due: dict[str, str], zone: str = "Asia/Shanghai", **kwargs: bool) -> str:
    shown = friendly_due(due, NOW, zone, **kwargs)
    assert shown is not None
    return shown.text


def test_dues_in_chinese_words() -> None:
    chinese = {"say": Translator("zh")}

    def zh(due: dict[str, str]) -> str:
        shown = friendly_due(due, NOW, "Asia/Shanghai", **chinese)  # type: ignore[arg-type]
        assert shown is not None
        return shown.text

    assert zh(moment(days=3)) == "周五 18:00 · 3天后"
    assert zh(moment(hours=2)) == "今天 20:00"
    assert zh(moment(days=-5)) == "12月3日 18:00 · 5天前"
    assert zh(day("2026-12-07")) == "昨天"
    assert zh(day("2027-02-01")) == "2027年2月1日"
    assert zh(day("2026-12-14")) == "周一 · 6天后"
    assert friendly_due(moment(days=-1), NOW, "Asia/Shanghai", **chinese).exact == "2026-12-07 18:00 +0800"  # type: ignore[arg-type, union-attr]


def test_dues_in_words() -> None:
    assert words(moment(days=3)) == "Fri 18:00 · in 3 days"
    assert words(moment(hours=2)) == "today 20:00"
    assert words(moment(hours=7)) == "tomorrow 01:00"  # past midnight in Shanghai
    assert words(moment(hours=7), zone="UTC") == "today 17:00"  # the same moment, in another zone
    assert words(moment(days=-1)) == "yesterday 18:00"
    assert words(moment(days=-5)) == "Dec 3 18:00 · 5 days ago"  # the past: a date, never "last Thu"
    assert words(day("2026-12-08")) == "today"
    assert words(day("2026-12-07")) == "yesterday"
    assert words(day("2026-12-14")) == "Mon · in 6 days"
    assert words(day("2026-12-25")) == "Dec 25 · in 17 days"
    assert words(day("2027-02-01")) == "Feb 1, 2027"  # far: the date alone, with its year
    assert words(day("2026-10-01")) == "Oct 1"
    assert friendly_due(None, NOW, "UTC") is None


def test_overdue_and_the_exact_time() -> None:
    past = friendly_due(moment(minutes=-1), NOW, "Asia/Shanghai")
    assert past == FriendlyDue("today 17:59", "2026-12-08 17:59 +0800", "2026-12-08T09:59:00.000000Z", True)
    assert friendly_due(moment(minutes=-1), NOW, "Asia/Shanghai", done=True).overdue is False  # type: ignore[union-attr]
    assert friendly_due(moment(minutes=1), NOW, "Asia/Shanghai").overdue is False  # type: ignore[union-attr]
    assert friendly_due(day("2026-12-08"), NOW, "Asia/Shanghai").overdue is False  # type: ignore[union-attr]  # due today
    assert friendly_due(day("2026-12-07"), NOW, "Asia/Shanghai").overdue is True  # type: ignore[union-attr]
    # A date is a day wherever you are; "today" is the browser's: 2026-12-08 02:00 UTC is still the 7th in New York.
    early = NOW.replace(hour=2)
    assert friendly_due(day("2026-12-07"), early, "America/New_York").text == "today"  # type: ignore[union-attr]
    assert date(2026, 12, 8).weekday() == 1  # NOW is a Tuesday (the words above rely on it)


def _card(html: str, task_id: str) -> str:
    card = html[html.index(f'id="task-{task_id}"') :]
    return card[: card.index("</li>")]


def test_board_and_task_page_mark_overdue_in_the_browsers_zone(
    services: Services, browser: Callable[..., Browser], clock: FakeClock
) -> None:
    person = browser()
    now = datetime.fromtimestamp(clock(), UTC)  # 2038-01-15 08:00 UTC, a Friday: 16:00 in Shanghai
    due = {"timezone": "America/New_York"}  # the task's own zone: not the one it is shown in
    late = new_task(services, person.user_id, "late one", due=_at(now - timedelta(days=1)), **due)
    soon = new_task(services, person.user_id, "soon one", due=_at(now + timedelta(days=3)), **due)
    done = new_task(services, person.user_id, "done late", due=_at(now - timedelta(days=1)), **due)
    run(services, person.user_id, "complete_todo_task", {"id": done["id"], "expectedRevision": done["revision"]})
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    html = person.get("/todos").text
    late_card, soon_card, done_card = (_card(html, t["id"]) for t in (late, soon, done))
    assert re.search(r'<time class="due overdue"[^>]*>Overdue: yesterday 16:00</time>', late_card), late_card
    assert 'title="2038-01-14 16:00 +0800"' in late_card
    assert re.search(r'<time class="due"[^>]*>Due Mon 16:00 · in 3 days</time>', soon_card), soon_card
    assert "overdue" not in done_card and "Due yesterday 16:00" in done_card  # done: not overdue
    page = person.get(f"/todos/tasks/{late['id']}").text
    assert re.search(r'<time class="due overdue"[^>]*>Overdue: yesterday 16:00</time>', page)
    assert "(2038-01-14 16:00 +0800)" in page
    person.client.cookies.set("mesq_tz", "UTC")
    assert "Overdue: yesterday 08:00" in _card(person.get("/todos").text, late["id"])


def _at(when: datetime) -> dict[str, str]:
    return {"type": "datetime", "at": format_timestamp(when)}
