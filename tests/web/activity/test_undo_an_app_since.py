"""/activity's "Undo everything <app> did since ...": an agent let loose for an afternoon worked
in three sessions; the page offers, per app or agent (never the web app), one action whose time
defaults to the start of its earliest session shown, previewed like a group's Undo, then undone
through `undo_changes {actor, since}` in one click: every session of that agent since that time,
none of another agent's, none of its own before the time; in Chinese and in English."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mesq.history import change_op, sessions
from mesq.kernel import timestamps
from mesq.wiring.services import Services
from tests.hostile.test_no_url_text import shown_text

from ..conftest import Browser
from .seed import caller
from .test_activity_pages import _sections
from .test_filtered_undo_and_restore import EN, ZH, _as_form, _flash, _forms

GAP = timedelta(minutes=20)  # past the 15-minute session gap: a new session each time


class HistoryClock:
    """The time change records are written at (and sessions cut by): the morning of the page's day."""

    def __init__(self, web_now: float) -> None:
        self.now = datetime.fromtimestamp(web_now, UTC) - timedelta(hours=8)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def history_clock(monkeypatch: pytest.MonkeyPatch, clock: Any) -> Iterator[HistoryClock]:
    driven = HistoryClock(clock())
    monkeypatch.setattr(change_op, "utc_now", driven)
    monkeypatch.setattr(sessions, "utc_now", driven)
    monkeypatch.setattr(timestamps, "utc_now", driven)  # the clock run ids start with (kernel/context.py)
    sessions._SEEN.clear()
    yield driven
    sessions._SEEN.clear()


def _app_rows(page: str) -> list[str]:
    start = '<div class="app-undo-row">'
    return [start + part.split("</form>")[0] + "</form>" for part in page.split(start)[1:]]


def _afternoon(services: Services, person: Browser, clock: HistoryClock) -> tuple[Any, Any, list[str], str]:
    """A memo the agent wrote in the morning (before the afternoon the person undoes), then three
    sessions of the agent, and another agent's memo between them."""
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    other = caller(services, person.user_id, "pat:cursor", "Cursor")
    morning = agent("create_memo", content="上午的笔记")["memo"]["id"]
    clock.advance(3 * 3600)
    made = []
    for n in range(3):
        made.append(agent("create_memo", content=f"下午第 {n} 次")["memo"]["id"])
        made.append(agent("create_memo", content=f"下午第 {n} 次，又一条")["memo"]["id"])
        if n == 1:
            other("create_memo", content="别的智能体写的")
        clock.advance(GAP.total_seconds())
    return agent, other, made, morning


def test_undo_everything_an_agent_did_since_its_first_session_shown(
    services: Services, browser: Callable[..., Browser], history_clock: HistoryClock
):
    person = browser()
    agent, other, made, morning = _afternoon(services, person, history_clock)
    page = person.get("/activity", headers=EN).text
    rows = _app_rows(page)
    names = [shown_text(row).split("\n")[0] for row in rows]
    assert len(rows) == 2 and "Web app" not in shown_text("".join(rows)), names  # Claude Desktop and Cursor
    claude = next(row for row in rows if "Claude Desktop" in row)
    assert "Undo everything Claude Desktop did since then" in shown_text(claude)
    [fields] = _forms(claude, "/activity/undo/preview")
    since = re.search(r'type="datetime-local"[^>]* name="since" value="([^"]+)"', claude)
    form = {**_as_form(fields), "since": since.group(1) if since else ""}
    assert form["actor"] == "pat:claude" and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d", form["since"])
    # The default is the start of its earliest session on the page: the morning's (all of it shows).
    preview = person.post("/activity/undo/preview", form, headers={**EN, "HX-Request": "true"})
    said = " ".join(shown_text(preview.text).split())
    assert said.startswith("Undo everything Claude Desktop did since") and "This undoes 7 changes." in said, said
    assert said.startswith("Undo everything Claude Desktop did since today "), said  # mid-sentence: not "Today"
    assert "Undo them" in said
    # The person picks the afternoon instead: its first session's start, in their wall clock.
    afternoon = agent("list_changes", limit=100)["changes"]
    first_afternoon = min(
        c["at"] for c in afternoon if c["actor"]["id"] == "pat:claude" and c["record"]["id"] != morning
    )
    form["since"] = first_afternoon[:16]  # the page's zone is UTC here
    zh = " ".join(
        shown_text(person.post("/activity/undo/preview", form, headers={**ZH, "HX-Request": "true"}).text).split()
    )
    assert "撤销 Claude Desktop 自" in zh and "将撤销 6 处改动。" in zh, zh
    confirm = _as_form(_forms(person.post("/activity/undo/preview", form, headers=EN).text, "/activity/undo")[0])
    assert confirm["actor"] == "pat:claude" and confirm["since"].endswith("Z")
    assert agent("get_memo", id=made[0])["memo"].get("status", "NORMAL") == "NORMAL"  # a preview writes nothing
    assert _flash(person, person.post("/activity/undo", confirm, headers=ZH), ZH) == "已撤销 6 处改动。"
    statuses = {memo_id: agent("get_memo", id=memo_id)["memo"].get("status", "NORMAL") for memo_id in [*made, morning]}
    assert [statuses[memo_id] for memo_id in made] == ["DELETED"] * 6 and statuses[morning] == "NORMAL"
    cursor = other("list_changes", actor="pat:cursor")["changes"]
    assert len(cursor) == 1 and "undoneBy" not in cursor[0]  # another agent's memo, between the sessions, stays
    # The undo is one group of its own (one click, one undo), and a second click says nothing was left.
    undo_groups = [group for group in _sections(person.get("/activity", headers=EN).text) if "undo-badge" in group]
    assert len(undo_groups) == 1 and "6 changes" in shown_text(undo_groups[0]), [
        shown_text(g)[:90] for g in undo_groups
    ]
    again = _flash(person, person.post("/activity/undo", confirm, headers=EN), EN)
    assert again == "Nothing was undone: Claude Desktop changed nothing since then that is not undone already.", again


def test_only_on_pages_of_whole_sessions_and_never_for_the_web_app(
    services: Services, browser: Callable[..., Browser], history_clock: HistoryClock
):
    person = browser()
    agent, _, made, _ = _afternoon(services, person, history_clock)
    person.post("/activity/undo", {"changeId": agent("list_changes", limit=1)["changes"][0]["id"], "back": "/activity"})
    assert len(_app_rows(person.get("/activity?actor=pat:claude", headers=EN).text)) == 1
    assert _app_rows(person.get(f"/activity?recordId={made[0]}", headers=EN).text) == []  # a page of some changes
    assert _app_rows(person.get("/activity?kind=memo", headers=EN).text) == []
    page = person.get("/activity", headers=ZH).text
    section = page[page.index('<section class="card app-undo"') : page.index("</section>")]
    # (a time input's value is the machine's `2026-12-06T14:02`: the browser shows it in its own words)
    chinese = shown_text(re.sub(r'<input type="datetime-local"[^>]*>', "", section))
    assert "撤销某个应用的改动" in chinese and "撤销 Claude Desktop 自此时间起做的所有改动" in chinese
    assert not set(re.findall(r"[A-Za-z]+", chinese)) - {"Claude", "Desktop", "Cursor"}, chinese


def test_a_time_that_is_not_one_is_a_small_error(
    services: Services, browser: Callable[..., Browser], history_clock: HistoryClock
):
    person = browser()
    _afternoon(services, person, history_clock)
    for since in ("", "2026-02-30T10:00", "yesterday", "x" * 100):
        answer = person.post("/activity/undo/preview", {"actor": "pat:claude", "since": since, "back": "/activity"})
        assert answer.status_code == 400, (since, answer.status_code)
        said = shown_text(answer.text)
        assert "choose a date and time to undo from" in said and (not since or since not in said), said


def test_the_default_time_in_the_autumn_repeated_hour_is_the_sessions_own_instant(
    services: Services, browser: Callable[..., Browser], history_clock: HistoryClock, clock: Any
):
    """New York, 2037-11-01: 01:00-02:00 comes twice. The agent's session starts at 01:30 EST (the
    second one, 06:30Z): the field's default 01:30 must undo from that instant, not from 01:30
    EDT an hour earlier; a time the person types in the repeated hour is read as the earlier one.
    (2037 has 2026's calendar: a change record's 90-day `ttl` is judged by the real clock, so
    2026-11-01 would have failed from 2027-01-30.)"""
    from ..todos.test_todos_pages import run

    person = browser()
    run(services, person.user_id, "set_time_zone", {"timeZone": "America/New_York"})
    history_clock.now = datetime(2037, 11, 1, 6, 30, 20, tzinfo=UTC)
    clock.now = datetime(2037, 11, 1, 8, 0, tzinfo=UTC).timestamp()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    agent("create_memo", content="凌晨第二个一点半写的")
    [row] = _app_rows(person.get("/activity", headers=EN).text)
    [fields] = _forms(row, "/activity/undo/preview")
    since = re.search(r'type="datetime-local"[^>]* name="since" value="([^"]+)"', row)
    form = {**_as_form(fields), "since": since.group(1) if since else ""}
    assert form["since"] == "2037-11-01T01:30"

    def confirmed_since(sent: dict[str, Any]) -> str:
        preview = person.post("/activity/undo/preview", sent, headers=EN)
        return str(_as_form(_forms(preview.text, "/activity/undo")[0])["since"])

    assert confirmed_since(form).startswith("2037-11-01T06:30:00")  # 01:30 EST, the session's start
    assert confirmed_since({**form, "since": "2037-11-01T01:45"}).startswith("2037-11-01T05:45:00")  # EDT


def test_an_app_with_no_changes_here_is_nothing_to_undo_in_the_pages_words(
    services: Services, browser: Callable[..., Browser], history_clock: HistoryClock
):
    """undo_changes {actor, since} is NOT_FOUND for an actor with no change in the account (a typo,
    another account's credential); a hand-edited form naming one gets the page's own "nothing to
    undo" in its language, not the API's advice to an agent nor an error page."""
    person = browser()
    _afternoon(services, person, history_clock)
    form = {"actor": "pat:typo", "since": "2020-01-01T00:00", "back": "/activity"}
    for language in (ZH, EN):
        answer = person.post("/activity/undo/preview", form, headers=language)
        said = shown_text(answer.text)
        assert answer.status_code == 200 and "list_changes" not in said and "pat:typo" not in said, said
        assert ("没有" in said) if language == ZH else ("nothing" in said.lower()), said
