"""`dueBefore` / `dueAfter` as an iPhone Shortcut can send them (docs/shortcuts.md): `today`,
`tomorrow` or a date (2026-12-07), each the whole day in the user's zone (dueBefore: up to its
end; dueAfter: from its start), beside the timestamps with an offset; anything else a small 400.
The clock is held at 2026-12-07 09:00 in Shanghai (01:00 UTC) through `timestamps.utc_now`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.kernel import timestamps
from tests.conftest import Account
from tests.mcp.conftest import check_text_copy, validate_output
from tests.todos.conftest import TodoRest

NOW = datetime(2026, 12, 7, 1, 0, tzinfo=UTC)
QUERY = "/api/toolkit/todo/query"


@pytest.fixture(autouse=True)
def held_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timestamps, "utc_now", lambda: NOW)


@pytest.fixture
def board(client: TestClient, todo_account: Account, rest: Callable[[Account], TodoRest]) -> Account:
    answer = client.put("/api/toolkit/todo/context", headers=todo_account.headers, json={"timeZone": "Asia/Shanghai"})
    assert answer.status_code == 200, answer.text
    todo = rest(todo_account)
    dues = {
        "afternoon": {"type": "datetime", "at": "2026-12-07T14:00:00+08:00"},
        "late evening": {"type": "datetime", "at": "2026-12-07T23:30:00+08:00"},
        "after midnight": {"type": "datetime", "at": "2026-12-08T00:30:00+08:00"},  # still the 7th in UTC
        "tomorrow": {"type": "date", "date": "2026-12-08"},
        "yesterday": {"type": "date", "date": "2026-12-06"},
    }
    for title, due in dues.items():
        todo.ok("create_todo_task", title=title, due=due)
    return todo_account


def titles(client: TestClient, account: Account, **params: Any) -> list[str]:
    answer = client.get(QUERY, headers=account.headers, params={"orderBy": "due", **params})
    assert answer.status_code == 200, answer.text
    return [item["title"] for item in answer.json()["data"]["items"]]


def test_today_is_the_users_day(client: TestClient, board: Account) -> None:
    assert titles(client, board, dueBefore="today") == ["yesterday", "afternoon", "late evening"]
    assert titles(client, board, dueBefore="2026-12-07") == ["yesterday", "afternoon", "late evening"]


def test_tomorrow_and_a_whole_day(client: TestClient, board: Account) -> None:
    # a date-only due is the start of its day: "tomorrow" comes before 00:30
    everything = ["yesterday", "afternoon", "late evening", "tomorrow", "after midnight"]
    assert titles(client, board, dueBefore="tomorrow") == everything
    assert titles(client, board, dueAfter="today", dueBefore="today") == ["afternoon", "late evening"]
    assert titles(client, board, dueAfter="tomorrow") == ["tomorrow", "after midnight"]
    assert titles(client, board, dueAfter="2026-12-08", dueBefore="2026-12-08") == ["tomorrow", "after midnight"]


def test_the_same_days_in_chinese_percent_encoded_as_a_shortcut_sends_them(client: TestClient, board: Account) -> None:
    today, tomorrow = "%E4%BB%8A%E5%A4%A9", "%E6%98%8E%E5%A4%A9"  # 今天, 明天 in a URL
    assert client.get(f"{QUERY}?dueBefore={today}").url.query == f"dueBefore={today}".encode()

    def raw(query: str) -> list[str]:
        answer = client.get(f"{QUERY}?orderBy=due&{query}", headers=board.headers)
        assert answer.status_code == 200, answer.text
        return [item["title"] for item in answer.json()["data"]["items"]]

    assert raw(f"dueBefore={today}") == ["yesterday", "afternoon", "late evening"]
    assert raw(f"dueAfter={today}&dueBefore={today}") == ["afternoon", "late evening"]
    assert raw(f"dueAfter={tomorrow}&dueBefore={tomorrow}") == ["tomorrow", "after midnight"]
    assert raw(f"dueAfter=today&dueBefore={tomorrow}") == titles(client, board, dueAfter="today", dueBefore="tomorrow")


def test_timestamps_still_work(client: TestClient, board: Account) -> None:
    assert titles(client, board, dueBefore="2026-12-07T15:00:00+08:00") == ["yesterday", "afternoon"]


@pytest.mark.parametrize("value", ["next week", "2026-02-30", "2026-12-7", "Today ", "20261207", "后天", "今日"])
def test_anything_else_is_a_small_clear_400(client: TestClient, board: Account, value: str) -> None:
    answer = client.get(QUERY, headers=board.headers, params={"dueBefore": value})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "today" in error["message"] and "2026-12-07" in error["message"] and len(error["message"]) < 200
    assert "今天" in error["message"] and "明天" in error["message"]  # the words a Chinese Shortcut can use


def test_without_a_zone_the_day_is_utcs(client: TestClient, make_account, rest: Callable[[Account], TodoRest]) -> None:
    account = make_account(scopes="todo:read,todo:write")
    rest(account).ok("create_todo_task", title="late", due={"type": "datetime", "at": "2026-12-07T23:30:00Z"})
    rest(account).ok("create_todo_task", title="next", due={"type": "datetime", "at": "2026-12-08T00:30:00Z"})
    assert titles(client, account, dueBefore="today") == ["late"]


def test_an_agent_sends_the_same_words_over_mcp(board: Account, todo_mcp) -> None:
    session = todo_mcp(board)
    tool = next(tool for tool in session.tools() if tool["name"] == "query_todos")
    result = session.call("query_todos", {"dueAfter": "today", "dueBefore": "today", "orderBy": "due"})
    envelope = check_text_copy(result)
    validate_output(tool, envelope)
    assert [item["title"] for item in envelope["data"]["items"]] == ["afternoon", "late evening"]


def test_a_timestamps_offset_still_places_date_only_dues(client: TestClient, make_account, rest) -> None:
    """Without a zone of the user's, a bound's own offset is where a date-only due starts its day."""
    account = make_account(scopes="todo:read,todo:write")
    rest(account).ok("create_todo_task", title="thursday", due={"type": "date", "date": "2026-12-09"})
    assert titles(client, account, dueBefore="2026-12-09T04:00:00+08:00") == ["thursday"]
