"""What the python-caldav script's tests check on MeSQ's side, over REST and MCP: shared by the
`mesq serve` test and the Lambda-on-DynamoDB test, so both prove the same things."""

from __future__ import annotations

from typing import Any

import httpx

from tests.dav import script
from tests.mcp.conftest import Mcp


class Rest:
    def __init__(self, base_url: str, token: str) -> None:
        self.http = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30)

    def ok(self, method: str, path: str, **body: Any) -> Any:
        answer = self.http.request(method, path, json=body if body else None)
        assert answer.status_code < 300, answer.text
        return answer.json()["data"]

    def titled(self, title: str) -> dict[str, Any]:
        query = httpx.QueryParams({"query": title, "status": "all"})
        found = self.ok("GET", f"/api/toolkit/todo/query?{query}")
        matches = [item for item in found["items"] if item["title"] == title]
        assert len(matches) == 1, found
        task: dict[str, Any] = self.ok("GET", f"/api/toolkit/todo/tasks/{matches[0]['id']}")["task"]
        return task


def elsewhere(base_url: str, token: str, rest: Rest, space_id: str) -> script.Elsewhere:
    """On MeSQ, a task is made over MCP and the dentist's task retitled over REST."""
    mcp = Mcp(client=httpx.Client(base_url=base_url, timeout=30), token=token)  # type: ignore[arg-type]

    def create(title: str) -> None:
        mcp.ok("create_todo_task", {"title": title, "spaceId": space_id})

    def retitle(url: str, title: str) -> None:
        task = rest.titled("Call the dentist")
        rest.ok("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", title=title, expectedRevision=task["revision"])

    return script.Elsewhere(create=create, retitle=retitle)


def check_created_as_over_rest(seen: dict[str, Any], rest: Rest) -> None:
    created = seen["created"]
    assert created["due zone"] == "Asia/Shanghai" and created["priority"] == 1
    assert created["categories"] == ["review", "work"] and created["rrule"] == "FREQ=WEEKLY"
    assert created["x-apple-sort-order"] == "42"  # a client never loses its own data
    task = rest.titled("Weekly review")
    assert task["priority"] == "urgent" and task["tags"] == ["work", "review"]
    assert task["timezone"] == "Asia/Shanghai" and task["recurrence"] == "FREQ=WEEKLY"
    # completed once by the client (in the script): the occurrence it completed is in the history
    assert [o["due"] for o in task["occurrences"]] == [{"type": "datetime", "at": "2037-12-07T09:00:00+08:00"}]


def check_completion_as_over_rest(seen: dict[str, Any], rest: Rest, space_id: str) -> None:
    """The client's completion moved the recurrence on exactly as complete_todo_task does."""
    twin = rest.ok(
        "POST", "/api/toolkit/todo/tasks", title="Twin", spaceId=space_id, recurrence="FREQ=WEEKLY",
        due={"type": "datetime", "at": "2037-12-07T09:00:00+08:00"}, timezone="Asia/Shanghai",
    )["task"]  # fmt: skip
    done = rest.ok("POST", f"/api/toolkit/todo/tasks/{twin['id']}/complete", expectedRevision=twin["revision"])["task"]
    after = seen["after complete"]
    assert after["status"] == "NEEDS-ACTION" and after["due zone"] == "Asia/Shanghai"
    assert after["due"] == "2037-12-14T09:00:00+08:00"
    task = rest.titled("Weekly review")
    assert task["due"] == done["due"] == {"type": "datetime", "at": "2037-12-14T09:00:00+08:00"}
    assert task["done"] is done["done"] is False


def check_sync_and_etags(seen: dict[str, Any]) -> None:
    assert seen["sync after a task made elsewhere"] == [script.ELSEWHERE_TITLE]  # made over MCP
    assert seen["sync token moved"] is True
    assert seen["stale If-Match"] == "ETagMismatchError"  # python-caldav's name for the 412
    assert seen["after the stale write"] == "Call the dentist (moved)"
    assert "Call the dentist (moved)" not in seen["after delete"] and seen["sync reports the delete"] is True


def check_back_after_undo(seen: dict[str, Any], back: dict[str, Any]) -> None:
    """The client's sync after the delete was undone: the task is there again, as it was."""
    plain = seen["urls"]["plain"]
    returned = [o for o in back["objects"] if o["url"] == plain]  # (the REST twin comes too)
    assert len(returned) == 1 and back["deleted"] == []
    assert script.facts(returned[0]["data"])["summary"] == "Call the dentist (moved)"
