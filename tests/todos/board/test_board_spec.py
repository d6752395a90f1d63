"""The board fragment in the merged spec: paths, toolsets, scopes, the destination rules stated in the
descriptions, and the per-method path merge that lets domains share a REST path."""

from __future__ import annotations

import pytest

from mesq.kernel.spec import SpecError, load_spec, merge_fragments
from mesq.todos.board.operation_table import OPERATIONS

SPEC = load_spec()


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_board_operation_binding(name):
    operation = SPEC.operation(name)
    assert operation.path.startswith("/api/toolkit/todo/")
    assert operation.mcp.toolset == "todo"
    if name.startswith("list_"):
        assert operation.scopes == ("todo:read",) and operation.method == "GET"
    elif name.startswith("create_"):
        assert operation.scopes == ("todo:write",)
        assert "idempotencyKey" in operation.input_schema["properties"]
    else:
        assert operation.scopes == ("todo:read", "todo:write")
    if name == "duplicate_todo_task":
        assert "idempotencyKey" in operation.input_schema["properties"]


@pytest.mark.parametrize("name", ["create_todo_task", "move_todo_task", "create_todo_column"])
def test_destination_rules_are_stated(name):
    text = SPEC.operation(name).description
    for phrase in ("NOT_FOUND", "VALIDATION_ERROR", "default"):
        assert phrase in text
    if name != "create_todo_column":
        assert "first non-archived column" in text


def test_create_task_points_capture_without_destination_to_the_inbox():
    assert "create_todo_inbox_item" in SPEC.operation("create_todo_task").description


def test_batch_limits_are_stated_and_enforced_by_schema():
    update = SPEC.operation("batch_update_todo_tasks")
    complete = SPEC.operation("batch_complete_todo_tasks")
    assert update.input_schema["properties"]["updates"]["maxItems"] == 50 and "at most 50" in update.description
    assert complete.input_schema["properties"]["items"]["maxItems"] == 100 and "at most 100" in complete.description


def test_fragments_may_share_a_path_but_not_a_method():
    root = {"paths": {"/x": {"get": {"operationId": "a"}}}, "components": {}}
    merged = merge_fragments(root, {"f.yaml": {"paths": {"/x": {"patch": {"operationId": "b"}}}}})
    assert set(merged["paths"]["/x"]) == {"get", "patch"}
    with pytest.raises(SpecError, match=r"path '/x' is already defined \(get\)"):
        merge_fragments(root, {"f.yaml": {"paths": {"/x": {"get": {"operationId": "c"}}}}})
    assert root["paths"]["/x"] == {"get": {"operationId": "a"}}  # the root is not modified
