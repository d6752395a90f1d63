"""The user's own time zone (issue 40 §5), in process: set over REST (the `set_time_zone`
operation of the spec), checked against the IANA database with a clear 400; `mesq user
set-timezone` in the CLI; Code Mode's `mesq.context` carrying `timeZoneSet`; and the calendar
feed and reminder messages placing a zone-less due in it. The clock is held at 07:30 in Shanghai
(23:30 UTC the day before) through `mesq.kernel.timestamps.utc_now`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.auth.user_zone import configured_zone, zone_names
from mesq.calendar_feed.ics import feed
from mesq.calendar_feed.source import dated_records
from mesq.jobs.reminder_tick import _payload
from mesq.kernel import timestamps
from mesq.kernel.context import Call, Principal, Services
from mesq.mcp.code.handlers import user_context
from mesq.runtime.cli.main import main as mesq_cli
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services
from tests.conftest import Account

#: 2026-12-03 07:30 in Shanghai; still 2026-12-02 in UTC.
NOW = datetime(2026, 12, 2, 23, 30, tzinfo=UTC)
CONTEXT = "/api/toolkit/todo/context"


@pytest.fixture(autouse=True)
def held_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timestamps, "utc_now", lambda: NOW)


def rest(client: TestClient, account: Account, method: str, path: str, **kwargs: Any) -> Any:
    return client.request(method, path, headers={"Authorization": f"Bearer {account.token}"}, **kwargs)


def test_set_over_rest_and_today_follows(client: TestClient, make_account) -> None:
    account = make_account(scopes="todo:read,todo:write")
    before = rest(client, account, "GET", CONTEXT).json()["data"]
    assert (before["timeZone"], before["timeZoneSet"], before["today"]) == ("UTC", False, "2026-12-02")
    answer = rest(client, account, "PUT", CONTEXT, json={"timeZone": "Asia/Shanghai"})
    assert answer.status_code == 200, answer.text
    data = answer.json()["data"]
    assert (data["timeZone"], data["timeZoneSet"], data["today"]) == ("Asia/Shanghai", True, "2026-12-03")
    assert rest(client, account, "GET", CONTEXT).json()["data"]["today"] == "2026-12-03"
    # The first todo use after the zone was set still creates the default space.
    made = rest(client, account, "POST", "/api/toolkit/todo/tasks", json={"title": "t"})
    assert made.status_code in (200, 201), made.text
    assert rest(client, account, "GET", CONTEXT).json()["data"]["timeZone"] == "Asia/Shanghai"


@pytest.mark.parametrize(
    "name",
    ["Mars/Olympus_Mons", "localtime", "Factory", "../../etc/passwd", "/usr/share/zoneinfo/UTC", " ", "A" * 65,
     "asia/shanghai", "UTC+8"],
)  # fmt: skip
def test_a_name_outside_the_zone_database_is_a_clear_400(client: TestClient, make_account, name: str) -> None:
    account = make_account(scopes="todo:read,todo:write")
    rest(client, account, "PUT", CONTEXT, json={"timeZone": "Europe/Berlin"})
    answer = rest(client, account, "PUT", CONTEXT, json={"timeZone": name})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "timeZone" in error["message"], error
    assert "Asia/Shanghai" in error["message"] or "maxLength" in error["message"] or "long" in error["message"]
    assert "Traceback" not in answer.text
    # Nothing half-written: the earlier zone stands.
    assert rest(client, account, "GET", CONTEXT).json()["data"]["timeZone"] == "Europe/Berlin"


def test_setting_the_zone_needs_todo_write(client: TestClient, make_account) -> None:
    reader = make_account(scopes="todo:read")
    answer = rest(client, reader, "PUT", CONTEXT, json={"timeZone": "Asia/Shanghai"})
    assert answer.status_code == 403, answer.text
    assert rest(client, reader, "GET", CONTEXT).json()["data"]["timeZoneSet"] is False


def test_every_offered_name_is_accepted_and_none_is_a_file() -> None:
    names = zone_names()
    assert "Asia/Shanghai" in names and "UTC" in names and len(names) > 300
    assert "localtime" not in names and "Factory" not in names


def test_code_modes_context_says_whether_the_zone_was_set(services: Services, make_account) -> None:
    account = make_account(scopes="todo:read,todo:write")
    principal = Principal(user_id=account.user_id, scopes=frozenset({"todo:read"}), credential_id="t", kind="pat")
    call = Call(principal=principal, services=services, trace_id="t", channel="mcp")
    assert user_context(call) == {
        "timeZone": "UTC", "timeZoneSet": False, "today": "2026-12-02", "now": "2026-12-02T23:30:00.000000Z"
    }  # fmt: skip
    from mesq.auth.user_zone import set_zone

    set_zone(services.items, account.user_id, "Asia/Shanghai")
    context = user_context(call)
    assert (context["timeZone"], context["timeZoneSet"], context["today"]) == ("Asia/Shanghai", True, "2026-12-03")


def test_the_cli_sets_the_zone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d"
    services = build_services(Settings(data_dir=data))
    try:
        from mesq.auth.users import create_user

        user = create_user(services.items, "mei", "correct horse battery")
    finally:
        services.items.close()
    assert mesq_cli(["user", "set-timezone", "mei", "Asia/Shanghai", "--data-dir", str(data)]) == 0
    assert "Asia/Shanghai" in capsys.readouterr().out
    assert mesq_cli(["user", "set-timezone", "mei", "Shanghai", "--data-dir", str(data)]) != 0
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "not an IANA time zone name" in err and "Traceback" not in err
    assert mesq_cli(["user", "set-timezone", "nobody", "Asia/Shanghai", "--data-dir", str(data)]) != 0
    services = build_services(Settings(data_dir=data))
    try:
        assert configured_zone(services.items, user["id"]) == "Asia/Shanghai"
    finally:
        services.items.close()


def test_the_feed_and_reminders_use_the_users_zone(client: TestClient, services: Services, make_account) -> None:
    account = make_account(scopes="todo:read,todo:write")
    rest(client, account, "PUT", CONTEXT, json={"timeZone": "Asia/Shanghai"})
    due = {"type": "datetime", "at": "2026-12-03T01:00:00Z"}  # 09:00 in Shanghai
    created = rest(client, account, "POST", "/api/toolkit/todo/tasks", json={"title": "standup", "due": due})
    assert created.status_code in (200, 201), created.text
    text = feed(dated_records(services.items, account.user_id), configured_zone(services.items, account.user_id))
    ics = text.decode()
    assert "X-WR-TIMEZONE:Asia/Shanghai" in ics
    assert "DTSTART;TZID=Asia/Shanghai:20261203T090000" in ics, ics
    task = created.json()["data"]["task"]
    payload = _payload(
        {"userId": account.user_id, "taskId": task["id"], "at": "2026-12-03T00:45"},
        {**task, "timezone": None},
        NOW,
        configured_zone(services.items, account.user_id),
    )
    assert payload["task"]["timezone"] == "Asia/Shanghai"
