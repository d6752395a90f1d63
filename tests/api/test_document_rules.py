"""What the served document promises matches what the server does: 405 names the allowed
methods, state conflicts are 409 CONFLICT, the error codes listed are the codes raised, and
rules across arguments and time-zone names are in the schemas MCP tools advertise."""

from __future__ import annotations

import inspect
import re
import zoneinfo
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from mesq.kernel import errors
from mesq.kernel.spec import load_spec
from tests.conftest import Account
from tests.mcp.conftest import Mcp

TODO = "todo:read,todo:write"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/toolkit/memo", {"GET", "HEAD", "POST"}),
        ("DELETE", "/api/toolkit/memo/resources/read", {"GET", "HEAD"}),
        ("GET", "/api/toolkit/todo/batch/update-tasks", {"POST"}),
        ("POST", "/api/openapi.json", {"GET", "HEAD"}),
    ],
)
def test_405_names_the_allowed_methods(client: TestClient, method: str, path: str, allowed: set[str]) -> None:
    answer = client.request(method, path)
    assert answer.status_code == 405 and answer.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert {m.strip() for m in answer.headers["allow"].split(",")} == allowed


def test_state_conflicts_are_409_conflict(client: TestClient, make_account: Callable[..., Account]) -> None:
    account = make_account(scopes=f"memo:read,memo:write,{TODO}")
    mcp = Mcp(client=client, token=account.token)

    def conflict(name: str, arguments: dict[str, object]) -> str:
        envelope = mcp.fails(name, arguments)
        assert envelope["error"]["code"] == "CONFLICT", envelope
        message: str = envelope["error"]["message"]
        return message

    mcp.ok("create_todo_tag", {"name": "home"})
    assert "already exists" in conflict("create_todo_tag", {"name": "home"})
    space = mcp.ok("create_todo_space", {"name": "A", "slug": "taken"})["space"]
    assert "already used" in conflict("create_todo_space", {"name": "B", "slug": "taken"})
    column = mcp.ok("create_todo_column", {"name": "busy", "spaceId": space["id"]})["column"]
    task = mcp.ok("create_todo_task", {"title": "t", "columnId": column["id"]})["task"]
    assert "still has 1 live task;" in conflict("delete_todo_column", {"columnId": column["id"], "expectedRevision": 1})
    assert "not in the trash" in conflict("restore_todo_task", {"id": task["id"], "expectedRevision": 1})
    memo = mcp.ok("create_memo", {"content": "m"})["memo"]
    assert "not in the trash" in conflict("restore_memo", {"id": memo["id"], "expectedRevision": 1})
    # The same on REST: HTTP 409.
    answer = client.post(
        f"/api/toolkit/memo/{memo['id']}/restore", headers=account.headers, json={"expectedRevision": 1}
    )
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "CONFLICT")


def test_the_documented_error_codes_are_the_raised_ones() -> None:
    description = load_spec().document["components"]["responses"]["Error"]["description"]
    listed = {word.strip(",.") for word in description.split() if word.strip(",.").isupper()}
    raised = {cls.code for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, errors.MesqError)}
    assert listed == raised


def test_argument_groups_are_in_the_advertised_input_schema(
    client: TestClient, make_account: Callable[..., Account]
) -> None:
    mcp = Mcp(client=client, token=make_account().token)
    tool = next(t for t in mcp.tools() if t["name"] == "select_memos_for_insight")
    assert set(tool["inputSchema"]["dependentSchemas"]) == {"memoIds"}
    envelope = mcp.fails("select_memos_for_insight", {"memoIds": ["a"], "tags": ["x"]})
    assert envelope["error"]["message"] == "memoIds excludes tags, untagged, from, to and dateScopeMode"
    envelope = mcp.fails("select_memos_for_insight", {"dateScopeMode": "all", "from": "2026-01-01T00:00:00Z"})
    assert envelope["error"]["message"] == "dateScopeMode=all cannot be combined with from/to"
    answer = client.get(
        "/api/toolkit/memo/insight-selection?dateScopeMode=range", headers={"Authorization": f"Bearer {mcp.token}"}
    )
    assert answer.status_code == 400 and answer.json()["error"]["message"] == "dateScopeMode=range needs from and/or to"


def test_time_zone_names_have_a_documented_shape(client: TestClient, make_account: Callable[..., Account]) -> None:
    pattern = load_spec().document["components"]["schemas"]["TimeZoneName"]["pattern"]
    assert all(re.search(pattern, name) for name in zoneinfo.available_timezones())
    mcp = Mcp(client=client, token=make_account(scopes=TODO).token)
    envelope = mcp.fails("create_todo_task", {"title": "t", "timezone": "Asia Shanghai"})
    assert envelope["error"]["message"].startswith("timezone: an IANA time zone name such as Asia/Shanghai")
    assert mcp.ok("create_todo_task", {"title": "t", "timezone": "America/Argentina/Buenos_Aires"})
