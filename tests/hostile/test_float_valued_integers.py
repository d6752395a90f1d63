"""`1.0` is an integer (JSON Schema 2020-12): REST bodies, REST query strings and MCP arguments
accept it alike, and the operation sees an int."""

from __future__ import annotations

from collections.abc import Callable

from starlette.testclient import TestClient

from tests.conftest import Account
from tests.mcp.conftest import Mcp

TODO = "todo:read,todo:write"


def test_float_valued_integers_work_the_same_on_rest_and_mcp(
    client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account(scopes=TODO)
    headers = account.headers
    first = client.post("/api/toolkit/todo/tasks", headers=headers, json={"title": "first"})
    assert first.status_code == 201, first.text
    on_top = client.post("/api/toolkit/todo/tasks", headers=headers, json={"title": "rest top", "index": 0.0})
    assert on_top.status_code == 201, on_top.text
    mcp = Mcp(client=client, token=account.token)
    mcp.ok("create_todo_task", {"title": "mcp top", "index": 0.0})

    board = mcp.ok("list_todos", {"limit": 1.0})
    assert board["page"]["limit"] == 1 and isinstance(board["page"]["limit"], int)
    listed = client.get("/api/toolkit/todo?limit=1.0&offset=0.0", headers=headers)
    assert listed.status_code == 200, listed.text
    assert listed.json()["data"]["page"] == board["page"]
    titles = [task["title"] for task in mcp.ok("list_todos", {})["tasks"]]
    assert titles.index("mcp top") < titles.index("rest top") < titles.index("first")
