"""Reminder channels, their secrets, preferences and the scheduler exist in the browser only: no
MCP tool, resource or REST route names or carries them, and the settings page refuses a PAT.
The two reminder tools themselves work over REST and MCP."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from starlette.testclient import TestClient

from mesq.kernel.spec import load_spec
from tests.conftest import Account
from tests.mcp.conftest import Mcp

HIDDEN = re.compile(r"channel|webhook|secret|signing|scheduler|tick|preference|sealed", re.IGNORECASE)


def _names(schema: Any) -> Iterator[str]:
    """Every property name anywhere in a schema."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            yield from _names(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _names(value)


def test_no_tool_resource_or_route_exposes_reminder_internals(
    client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account(scopes="memo:read,memo:write,todo:read,todo:write,reading:read")
    mcp = Mcp(client=client, token=account.token)
    mcp.connect()
    tools = mcp.tools()
    assert {"set_todo_reminders", "clear_todo_reminders"} <= {t["name"] for t in tools}
    for tool in tools:
        assert not HIDDEN.search(tool["name"]), tool["name"]
        fields = [*_names(tool["inputSchema"]), *_names(tool.get("outputSchema", {}))]
        assert not [f for f in fields if HIDDEN.search(f)], (tool["name"], fields)
    listed = mcp.result("resources/list")["resources"] + mcp.result("resources/templates/list")["resourceTemplates"]
    assert not [r for r in listed if HIDDEN.search(str(r.get("uri") or r.get("uriTemplate")))]
    for path in load_spec().document["paths"]:
        assert not HIDDEN.search(path), path
    # the browser page does not take an access token
    answer = client.get("/settings/reminders", headers=account.headers, follow_redirects=False)
    assert answer.status_code == 403


def test_the_reminder_tools_over_rest_and_mcp(client: TestClient, make_account: Callable[..., Account]) -> None:
    account = make_account(scopes="todo:read,todo:write")
    mcp = Mcp(client=client, token=account.token)
    mcp.connect()
    task = mcp.ok("create_todo_task", {"title": "call mum", "due": {"type": "date", "date": "2030-05-01"},
                                        "timezone": "Asia/Shanghai"})["task"]  # fmt: skip
    reminders = [{"type": "relative", "offset": "-P1D"}, {"type": "absolute", "at": "2030-04-29T20:00:00+08:00"}]
    done = mcp.ok(
        "set_todo_reminders", {"id": task["id"], "expectedRevision": task["revision"], "reminders": reminders}
    )
    assert done["task"]["reminders"] == reminders and done["task"]["revision"] == task["revision"] + 1
    path = f"/api/toolkit/todo/tasks/{task['id']}/reminders"
    bad = client.put(
        path,
        headers=account.headers,
        json={"expectedRevision": 2, "reminders": [{"type": "relative", "offset": "-P1M"}]},
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"
    stale = client.request("DELETE", path, headers=account.headers, json={"expectedRevision": 1})
    assert stale.status_code == 409 and stale.json()["recoverData"]["task"]["reminders"] == reminders
    cleared = client.request("DELETE", path, headers=account.headers, json={"expectedRevision": 2})
    assert cleared.status_code == 200 and cleared.json()["data"]["task"]["reminders"] == []
    undated = mcp.ok("create_todo_task", {"title": "no due"})["task"]
    refused = mcp.call("set_todo_reminders", {"id": undated["id"], "expectedRevision": 1,
                                              "reminders": [{"type": "relative", "offset": "-PT15M"}]})  # fmt: skip
    assert refused["isError"] is True and "needs the task's due" in refused["structuredContent"]["error"]["message"]
