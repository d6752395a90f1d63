"""Errors that name the fix (issue 29, point 4): each mistake a model makes where it guesses,
sent over MCP; the message must contain what to write instead. The texts come from the schema
(mesq/kernel/hints.py, mesq/application/validation.py) and the spec's small `x-error-message` / `x-example` hints."""

from __future__ import annotations

import pytest

from mesq.kernel.hints import closest

TODO = "todo:read,todo:write,memo:read,memo:write"

MISTAKES = [
    # A union: every accepted form, each with an example.
    (
        "create_todo_task",
        {"title": "x", "due": "2026-12-03"},
        ['{"type": "date", "date": "2026-12-03"}', '{"type": "datetime", "at": "', "or null", "due:"],
    ),
    # An enum: the values.
    ("query_todos", {"status": "pending"}, ["'all'", "'open'", "'done'", "status:"]),
    ("list_todos", {"projection": "tree"}, ["'plain'", "'graph'"]),
    # A pattern, in words.
    ("query_todos", {"tags": ["#project/x"]}, ["tags[0]:", "without '#'", "project/x, not #project/x"]),
    # Every tag filter is the one TagName: the AI search refuses a '#' (either sign) as list_memos does.
    ("search_ai_memos", {"query": "爬山", "tags": ["#周末"]}, ["tags[0]:", "project/x, not #project/x"]),
    ("search_ai_memos", {"query": "爬山", "tags": ["＃周末"]}, ["tags[0]:", "project/x, not #project/x"]),
    ("list_memos", {"tags": ["＃周末"]}, ["tags[0]:", "project/x, not #project/x"]),
    ("create_todo_task", {"title": "x", "recurrence": "every week"}, ["FREQ=WEEKLY;BYDAY=MO,WE", "or null"]),
    ("create_todo_task", {"title": "x", "due": {"type": "date", "date": "03/12/2026"}}, ["YYYY-MM-DD", "2026-12-03"]),
    # An unknown field: the closest valid one.
    (
        "create_todo_task",
        {"title": "x", "dueDate": {"type": "date", "date": "2026-12-03"}},
        ["'dueDate'", "did you mean 'due'?"],
    ),
    ("list_memos", {"tag": "work"}, ["did you mean 'tags'?"]),
    ("query_todos", {"priorty": "high"}, ["did you mean 'priority'?"]),
    # A missing expectedRevision: which read returns it.
    ("update_todo_task", {"id": "t1", "title": "x"}, ["'expectedRevision' is required", "get_todo_task"]),
    ("update_todo_subtask", {"id": "s1", "title": "x"}, ["get_todo_task"]),
    ("update_memo", {"id": "m1", "pinned": True}, ["get_memo"]),
    ("update_todo_inbox_item", {"id": "i1", "title": "x"}, ["get_todo_inbox_item"]),
]


@pytest.mark.parametrize(("tool", "arguments", "fixes"), MISTAKES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MISTAKES)])
def test_each_mistake_names_its_fix(mcp, tool, arguments, fixes):
    error = mcp(scopes=TODO).fails(tool, arguments)["error"]
    assert error["code"] == "VALIDATION_ERROR"
    for fix in fixes:
        assert fix in error["message"], (fix, error["message"])


def test_an_unknown_tool_names_the_closest_one(mcp):
    client = mcp(scopes=TODO)
    error = client.error("tools/call", {"name": "query_todo", "arguments": {}})
    assert error["code"] == -32602 and "did you mean 'query_todos'?" in error["message"]
    # Only a tool this connection can call is suggested (memo scopes only: no todo tool).
    memo_only = mcp(scopes="memo:read").error("tools/call", {"name": "query_todo", "arguments": {}})
    assert "query_todos" not in memo_only["message"]


def test_closest_prefers_real_neighbours():
    names = ["due", "dueAfter", "dueBefore", "tags", "title", "priority"]
    assert closest("dueDate", names) == "due"
    assert closest("tag", names) == "tags"
    assert closest("Priority", names) == "priority"
    assert closest("zzz", names) is None


def test_the_hints_are_never_listed(mcp):
    # x-example and x-error-message are the server's own: tools/list carries neither.
    text = str(mcp(scopes=TODO).tools())
    assert "x-example" not in text and "x-error-message" not in text
