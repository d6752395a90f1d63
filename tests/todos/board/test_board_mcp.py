"""Board tools over MCP: every tool is listed in toolset `todo` with the right scopes, every
success validates against the tool's outputSchema, and every REVISION_CONFLICT carries a
`recoverData` that validates too (it has the shape of the tool's data)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.mcp import default_catalog
from mesq.runtime.server import create_local_app
from mesq.todos.board.operation_table import OPERATIONS
from mesq.wiring.services import build_services
from tests.mcp.conftest import Mcp, validate_output
from tests.settings import inprocess_settings
from tests.todos.conftest import TODO_SCOPES

_KEYS = itertools.count(1)


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mcp]:
    services = build_services(inprocess_settings(data_dir=tmp_path_factory.mktemp("t1mcp") / "data"))
    user = create_user(services.items, "mcpuser", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="t", scopes=TODO_SCOPES)
    with TestClient(create_local_app(services), raise_server_exceptions=False) as client:
        yield Mcp(client=client, token=token)
    services.items.close()


@pytest.fixture(scope="module")
def tools(wire: Mcp) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in wire.tools()}


def _task(m: Mcp, **fields: Any) -> dict[str, Any]:
    task: dict[str, Any] = m.ok("create_todo_task", {"title": "t", **fields})["task"]
    return task


def _trashed(m: Mcp) -> dict[str, Any]:
    task = _task(m)
    return m.ok("delete_todo_task", {"id": task["id"], "expectedRevision": 1})["task"]  # type: ignore[no-any-return]


def _sub(m: Mcp) -> dict[str, Any]:
    task = _task(m)
    return m.ok("create_todo_subtask", {"taskId": task["id"], "title": "s"})["subtask"]  # type: ignore[no-any-return]


def _tag(m: Mcp) -> str:
    name = f"tag{next(_KEYS)}"
    m.ok("create_todo_tag", {"name": name})
    return name


def _space(m: Mcp) -> dict[str, Any]:
    return m.ok("create_todo_space", {"name": f"space {next(_KEYS)}"})  # type: ignore[no-any-return]


#: tool -> (setup returning success arguments, whether a stale revision can be sent).
SCENARIOS: dict[str, Callable[[Mcp], dict[str, Any]]] = {
    "list_todo_spaces": lambda m: {},
    "create_todo_space": lambda m: {"name": "S", "idempotencyKey": f"k{next(_KEYS)}"},
    "update_todo_space": lambda m: {"spaceId": _space(m)["space"]["id"], "expectedRevision": 1, "name": "N"},
    "delete_todo_space": lambda m: {"spaceId": _space(m)["space"]["id"], "expectedRevision": 1},
    "create_todo_column": lambda m: {"name": "C"},
    "update_todo_column": lambda m: {
        "columnId": _space(m)["columns"][0]["id"],
        "expectedRevision": 1,
        "archived": False,
    },
    "delete_todo_column": lambda m: {"columnId": _space(m)["columns"][0]["id"], "expectedRevision": 1},
    "create_todo_task": lambda m: {"title": "t", "due": {"type": "datetime", "at": "2026-10-07T09:00:00+08:00"}},
    "update_todo_task": lambda m: {"id": _task(m)["id"], "expectedRevision": 1, "notes": "n", "tags": ["x"]},
    "move_todo_task": lambda m: {"id": _sub(m)["parentId"], "expectedRevision": 1, "index": 0},
    "complete_todo_task": lambda m: {"id": _task(m)["id"], "expectedRevision": 1},
    "reopen_todo_task": lambda m: {"id": _task(m)["id"], "expectedRevision": 1},
    "set_todo_reminders": lambda m: {
        "id": _task(m)["id"],
        "expectedRevision": 1,
        "reminders": [{"type": "absolute", "at": "2030-01-01T09:00:00+08:00"}],
    },
    "clear_todo_reminders": lambda m: {"id": _task(m)["id"], "expectedRevision": 1},
    "delete_todo_task": lambda m: {"id": _task(m)["id"], "expectedRevision": 1},
    "restore_todo_task": lambda m: {"id": _trashed(m)["id"], "expectedRevision": 2},
    "duplicate_todo_task": lambda m: {"id": _sub(m)["parentId"]},
    "create_todo_subtask": lambda m: {
        "taskId": _task(m)["id"],
        "title": "s",
        "due": {"type": "date", "date": "2026-10-07"},
    },
    "update_todo_subtask": lambda m: {"id": _sub(m)["id"], "expectedRevision": 1, "priority": "urgent"},
    "complete_todo_subtask": lambda m: {"id": _sub(m)["id"], "expectedRevision": 1},
    "reopen_todo_subtask": lambda m: {"id": _sub(m)["id"], "expectedRevision": 1},
    "delete_todo_subtask": lambda m: {"id": _sub(m)["id"], "expectedRevision": 1},
    "reorder_todo_subtasks": lambda m: (
        lambda s: {"taskId": s["parentId"], "subtaskIds": [s["id"]], "expectedRevisions": [1]}
    )(_sub(m)),
    "list_todo_tags": lambda m: {},
    "create_todo_tag": lambda m: {"name": f"fresh{next(_KEYS)}", "color": "#aabbcc"},
    "update_todo_tag": lambda m: {"name": _tag(m), "expectedRevision": 1, "newName": f"renamed{next(_KEYS)}"},
    "delete_todo_tag": lambda m: {"name": _tag(m), "expectedRevision": 1},
    "list_todo_trash": lambda m: (_trashed(m), {"limit": 5})[1],
    "restore_todo_item": lambda m: {"id": _trashed(m)["id"], "expectedRevision": 2},
    "batch_update_todo_tasks": lambda m: {"updates": [{"id": _task(m)["id"], "expectedRevision": 1, "done": True}]},
    "batch_complete_todo_tasks": lambda m: {"items": [{"id": _task(m)["id"], "expectedRevision": 1}]},
}


def test_scenarios_cover_every_board_tool(tools):
    assert set(SCENARIOS) == set(OPERATIONS)
    assert set(OPERATIONS) <= set(tools)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_tool_listing_and_success_output_validates(wire, tools, name):
    tool = tools[name]
    reads_only = name.startswith("list_")
    expected = "todo:read" if reads_only else ("todo:write" if name.startswith("create_") else "todo:read + todo:write")
    assert " + ".join(default_catalog().tools[name].scopes) == expected
    assert tool["annotations"].get("readOnlyHint", False) is reads_only  # absent = false (MCP)
    result = wire.call(name, SCENARIOS[name](wire))
    assert result.get("isError") is not True, result
    validate_output(tool, result["structuredContent"])


@pytest.mark.parametrize(
    "name", [n for n in sorted(OPERATIONS) if not n.startswith(("list_", "create_", "duplicate_"))]
)
def test_revision_conflict_output_validates_with_recover_data(wire, tools, name):
    arguments = SCENARIOS[name](wire)
    if "updates" in arguments:
        arguments["updates"][0]["expectedRevision"] = 99
    elif "items" in arguments:
        arguments["items"][0]["expectedRevision"] = 99
    elif "expectedRevisions" in arguments:
        arguments["expectedRevisions"] = [99]
    else:
        arguments["expectedRevision"] = 99
    result = wire.call(name, arguments)
    assert result.get("isError") is True, result
    envelope = result["structuredContent"]
    assert envelope["error"]["code"] == "REVISION_CONFLICT"
    assert envelope["recoverData"], envelope
    validate_output(tools[name], envelope)


def test_validation_errors_are_tool_errors_not_protocol_errors(wire, tools):
    envelope = wire.fails("create_todo_task", {"title": "x" * 501})
    assert envelope["error"]["code"] == "VALIDATION_ERROR" and "500" in envelope["error"]["message"]
    validate_output(tools["create_todo_task"], envelope)
    envelope = wire.fails("update_todo_task", {"id": "missing", "expectedRevision": 1, "title": "x"})
    assert envelope["error"]["code"] == "NOT_FOUND" and "recoverData" not in envelope
