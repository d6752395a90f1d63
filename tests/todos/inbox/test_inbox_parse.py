"""`parse: true` on the inbox capture (create_todo_inbox_item), as an iPhone Shortcut sends it
(docs/shortcuts.md): the dictated line read as the web's quick add reads it (todos/quick_add.py),
in the user's zone, with `read` saying what was understood. The clock is held at 2026-12-07 09:00
in Shanghai (01:00 UTC) through `mesq.kernel.timestamps.utc_now`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.kernel import timestamps
from tests.conftest import Account
from tests.mcp.conftest import check_text_copy, validate_output

NOW = datetime(2026, 12, 7, 1, 0, tzinfo=UTC)
INBOX = "/api/toolkit/todo/inbox"
CONTEXT = "/api/toolkit/todo/context"


@pytest.fixture(autouse=True)
def held_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timestamps, "utc_now", lambda: NOW)


@pytest.fixture
def shanghai(client: TestClient, make_account) -> Account:
    account: Account = make_account(scopes="todo:read,todo:write")
    answer = client.put(CONTEXT, headers=account.headers, json={"timeZone": "Asia/Shanghai"})
    assert answer.status_code == 200, answer.text
    return account


def capture(client: TestClient, account: Account, **body: Any) -> Any:
    return client.post(INBOX, headers=account.headers, json=body)


def test_a_dictated_line_is_read_as_the_web_reads_it(client: TestClient, shanghai: Account) -> None:
    answer = capture(client, shanghai, title="明天下午3点交报告 #工作", parse=True)
    assert answer.status_code == 201, answer.text
    data = answer.json()["data"]
    item = data["item"]
    assert item["title"] == "交报告"
    assert item["due"] == {"type": "datetime", "at": "2026-12-08T07:00:00Z"}  # 15:00 in Shanghai
    assert item["timezone"] == "Asia/Shanghai"
    assert item["tags"] == ["工作"]
    assert data["read"] == "交报告 · 2026-12-08 15:00 Asia/Shanghai · #工作"
    listed = client.get(INBOX, headers=shanghai.headers).json()["data"]["items"]
    assert [entry["title"] for entry in listed] == ["交报告"]


def test_priority_and_english_and_no_repeat_in_the_inbox(client: TestClient, shanghai: Account) -> None:
    data = capture(client, shanghai, title="call mom tomorrow 5pm every monday !high", parse=True).json()["data"]
    # The inbox takes no recurrence: the repeat phrase stays in the title, as on the web's inbox.
    assert data["item"]["title"] == "call mom every monday"
    assert data["item"]["priority"] == "high"
    assert data["item"]["due"] == {"type": "datetime", "at": "2026-12-08T09:00:00Z"}
    assert data["read"] == "call mom every monday · 2026-12-08 17:00 Asia/Shanghai · !high"


def test_without_parse_the_title_is_kept_as_typed(client: TestClient, shanghai: Account) -> None:
    data = capture(client, shanghai, title="明天下午3点交报告 #工作").json()["data"]
    assert data["item"]["title"] == "明天下午3点交报告 #工作" and data["item"]["due"] is None
    assert "read" not in data


def test_given_fields_win_over_what_was_read(client: TestClient, shanghai: Account) -> None:
    due = {"type": "date", "date": "2026-12-20"}
    data = capture(client, shanghai, title="明天交报告 #工作 !low", parse=True, due=due, priority="urgent",
                   tags=["家"]).json()["data"]  # fmt: skip
    assert data["item"]["due"] == due and data["item"]["priority"] == "urgent"
    assert data["item"]["tags"] == ["家", "工作"]


def test_a_replay_returns_the_first_answer(client: TestClient, shanghai: Account, monkeypatch) -> None:
    headers = {**shanghai.headers, "Idempotency-Key": "dictated-1"}
    body = {"title": "明天下午3点交报告", "parse": True}
    first = client.post(INBOX, headers=headers, json=body)
    monkeypatch.setattr(timestamps, "utc_now", lambda: datetime(2026, 12, 8, 2, 0, tzinfo=UTC))  # a day later
    again = client.post(INBOX, headers=headers, json=body)
    assert first.status_code == again.status_code == 201, again.text
    assert again.json()["data"] == first.json()["data"]


def test_a_line_read_in_utc_when_the_user_has_no_zone(client: TestClient, make_account) -> None:
    account = make_account(scopes="todo:read,todo:write")
    data = capture(client, account, title="明天下午3点交报告", parse=True).json()["data"]
    assert data["item"]["due"] == {"type": "datetime", "at": "2026-12-08T15:00:00Z"}
    assert data["read"] == "交报告 · 2026-12-08 15:00 UTC"


def test_parse_must_be_a_boolean(client: TestClient, shanghai: Account) -> None:
    answer = capture(client, shanghai, title="明天交报告", parse="yes")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "VALIDATION_ERROR"


def test_an_agent_sends_the_same_flag_over_mcp(client: TestClient, shanghai: Account, todo_mcp) -> None:
    session = todo_mcp(shanghai)
    tool = next(tool for tool in session.tools() if tool["name"] == "create_todo_inbox_item")
    assert tool["inputSchema"]["properties"]["parse"]["type"] == "boolean"
    result = session.call("create_todo_inbox_item", {"title": "明天下午3点交报告 #工作", "parse": True})
    envelope = check_text_copy(result)
    validate_output(tool, envelope)
    assert envelope["data"]["read"] == "交报告 · 2026-12-08 15:00 Asia/Shanghai · #工作"


@pytest.mark.parametrize("zone", ["NC_", "Mars/Olympus", "../etc/passwd"])
def test_a_zone_that_is_no_zone_is_a_400_naming_it_not_a_500(client: TestClient, shanghai: Account, zone: str) -> None:
    """The capture's own `timezone` is read before the line is (the schema takes any short text):
    a name the zone database lacks is the same 400 a capture without `parse` gets. The schema
    conformance run found 'NC_' answering a 500."""
    answer = capture(client, shanghai, title="明天交报告", parse=True, timezone=zone)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "timezone" in error["message"], error
    assert capture(client, shanghai, title="明天交报告", timezone=zone).json()["error"]["code"] == "VALIDATION_ERROR"
    assert client.get(INBOX, headers=shanghai.headers).json()["data"]["items"] == []
