"""Control characters in titles and names (sweep F12): C0 controls but tab, line feed and
return, and DEL (`kernel.values.CONTROL_CHARACTERS`, the set CalDAV leaves out) are dropped from
every title (task, subtask, inbox item and inbox subtask) and every space or column name, over
REST and MCP alike, as the outer whitespace is; a title of nothing else is empty and refused.
Free text (notes, like a memo's content) keeps them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.conftest import Account

RAW = "a\u0000b\u0007c\u001b[0m\u007f d\u000c"


def test_titles_and_names_drop_control_characters_over_rest(
    todo_account: Account, rest: Callable[[Account], Any]
) -> None:
    api = rest(todo_account)
    task = api.ok("create_todo_task", title=RAW, notes="x\u0007y")["task"]
    assert task["title"] == "abc[0m d" and task["notes"] == "x\u0007y"
    updated = api.ok("update_todo_task", id=task["id"], expectedRevision=task["revision"], title="\u0001new\u0002")
    assert updated["task"]["title"] == "new"
    sub = api.ok("create_todo_subtask", taskId=task["id"], title="s\u0000t")["subtask"]
    assert sub["title"] == "st"
    item = api.ok("create_todo_inbox_item", title="i\u0008n", subtasks=[{"title": "o\u001fk"}])["item"]
    assert item["title"] == "in" and item["subtasks"][0]["title"] == "ok"
    space = api.ok("create_todo_space", name="w\u0000ork", columns=["t\u0007odo"])
    assert space["space"]["name"] == "work" and space["columns"][0]["name"] == "todo"
    column = api.ok("create_todo_column", spaceId=space["space"]["id"], name="\u007flater")["column"]
    assert column["name"] == "later"
    keeps = api.ok("create_todo_task", title="line one\nline\ttwo")["task"]
    assert keeps["title"] == "line one\nline\ttwo"  # tab and line breaks are text


def test_a_title_of_control_characters_alone_is_empty(todo_account: Account, rest: Callable[[Account], Any]) -> None:
    status, envelope = rest(todo_account).fails("create_todo_task", title="\u0000\u0007 ")
    assert status == 400 and envelope["error"]["code"] == "VALIDATION_ERROR"
    assert envelope["error"]["message"].startswith("title:")


def test_mcp_drops_them_the_same_way(todo_account: Account, todo_mcp: Callable[[Account], Any]) -> None:
    task = todo_mcp(todo_account).ok("create_todo_task", {"title": RAW})["task"]
    assert task["title"] == "abc[0m d"
