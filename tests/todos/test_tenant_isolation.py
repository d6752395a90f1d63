"""Tenant isolation over EVERY todo operation of the spec (toolsets todo and todo_inbox): user B
calls each tool with user A's ids (space, slug, column, task, subtask, inbox item, inbox subtask,
tag, trashed task) and gets NOT_FOUND; tools that take no reference succeed for B without showing
anything of A's. A's stored todo items are byte-for-byte unchanged afterwards.

The operation list comes from the spec, so a new todo operation is covered (or fails the argument
builder loudly) without editing this file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.keys import user_partition
from mesq.kernel.spec import Operation, load_spec
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services, build_services
from tests.mcp.conftest import Mcp, check_text_copy, validate_output
from tests.settings import inprocess_settings

TODO_OPERATIONS = sorted(
    (op for op in load_spec().operations.values() if op.mcp.toolset in ("todo", "todo_inbox") and op.mcp.exposed),
    key=lambda op: op.operation_id,
)  # (the REST-only save_synced_todo: tests/dav/test_isolation.py)
#: Tools whose arguments name none of A's records: B succeeds and sees only B's data.
NO_REFERENCE = {
    "get_context",
    "set_time_zone",
    "list_todo_spaces",
    "create_todo_space",
    "list_todo_tags",
    "create_todo_tag",
    "list_todo_trash",
    "list_todo_inbox_items",
    "create_todo_inbox_item",
}
SLUG = "alpha-secret"
TAG = "alpha-tag"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    services = build_services(inprocess_settings(data_dir=Path(tmp_path_factory.mktemp("iso")) / "data"))
    with TestClient(create_local_app(services), raise_server_exceptions=False) as client:
        tokens = {}
        for name in ("alice", "bob"):
            user = create_user(services.items, name, "correct horse battery")
            token, _ = create_token(services.items, user["id"], name="t", scopes="todo:read,todo:write")
            tokens[name] = (user["id"], token)
        alice = Mcp(client=client, token=tokens["alice"][1])

        def ok(tool: str, /, **arguments: Any) -> dict[str, Any]:
            result = alice.call(tool, arguments)
            assert result.get("isError") is not True, result
            return check_text_copy(result)["data"]  # type: ignore[no-any-return]

        space = ok("create_todo_space", name="Alpha", slug=SLUG, columns=["A1", "A2"])
        column = space["columns"][0]["id"]
        task = ok("create_todo_task", columnId=column, title="alpha task", tags=[TAG])["task"]
        subtask = ok("create_todo_subtask", taskId=task["id"], title="alpha sub")["subtask"]
        trashed = ok("create_todo_task", columnId=column, title="alpha trashed")["task"]
        ok("delete_todo_task", id=trashed["id"], expectedRevision=trashed["revision"])
        item = ok("create_todo_inbox_item", title="alpha inbox", subtasks=[{"title": "alpha inbox sub"}])["item"]
        ids = {
            "space": space["space"]["id"],
            "column": column,
            "task": task["id"],
            "subtask": subtask["id"],
            "trashed": trashed["id"],
            "inbox": item["id"],
            "inboxSubtask": item["subtasks"][0]["id"],
        }
        bob = Mcp(client=client, token=tokens["bob"][1])
        yield {"services": services, "alice_id": tokens["alice"][0], "ids": ids, "bob": bob}
    services.items.close()


def _snapshot(services: Services, user_id: str) -> str:
    items, after = [], None
    while True:
        page = services.items.query(user_partition(user_id), prefix="TODO#", limit=1000, after=after)
        items += page.items
        if page.next_key is None:
            return json.dumps(sorted(items, key=lambda i: str(i["sk"])), sort_keys=True, default=str)
        after = page.next_key


def _id_for(op: Operation, ids: dict[str, str]) -> str:
    path = op.path
    if "/trash/restore" in path or path.endswith("/restore"):
        return ids["trashed"]
    if "/subtasks/{id}" in path:
        return ids["subtask"]
    if "/inbox/{id}" in path:
        return ids["inbox"]
    if "/tasks/{id}" in path:
        return ids["task"]
    raise AssertionError(f"{op.operation_id}: which record does `id` name in {path}?")


def _arguments(op: Operation, ids: dict[str, str]) -> dict[str, Any]:
    """A's references for every argument that names a record; plain values for the rest."""
    properties = op.input_schema["properties"]
    required = set(op.input_schema.get("required", []))
    references: dict[str, Any] = {
        "spaceId": ids["space"],
        "spaceSlug": SLUG,
        "columnId": ids["column"],
        "taskId": ids["task"],
        "parentItemId": ids["inbox"],
        "subtaskId": ids["inboxSubtask"],
        "subtaskIds": [ids["subtask"]],
        "updates": [{"id": ids["task"], "expectedRevision": 1, "title": "hijacked"}],
        "items": [{"id": ids["task"], "expectedRevision": 1}],
    }
    values: dict[str, Any] = {
        "expectedRevision": 1,
        "parentRevision": 1,
        "title": "bob's",
        "isDone": True,
        "reminders": [{"type": "absolute", "at": "2030-01-01T09:00:00Z"}],
        "name": TAG if op.operation_id in ("update_todo_tag", "delete_todo_tag") else "bobs",
        "timeZone": "Asia/Shanghai",
    }
    arguments: dict[str, Any] = {}
    if "id" in properties:
        arguments["id"] = _id_for(op, ids)
    for name in properties:
        if name in references and not (name == "spaceSlug" and "spaceId" in properties):
            arguments[name] = references[name]  # (spaceId and spaceSlug would have to agree: one is enough)
        elif name in required and name not in arguments:
            assert name in values, f"{op.operation_id}: no test value for required argument {name!r}"
            arguments[name] = values[name]
    if op.operation_id.startswith("update_"):  # an update must change something to be tried at all
        change = next(name for name in ("title", "newName", "name") if name in properties and name not in arguments)
        arguments[change] = "hijacked"
    return arguments


@pytest.mark.parametrize("op", TODO_OPERATIONS, ids=lambda op: op.operation_id)
def test_another_users_ids_are_not_found_and_change_nothing(world: dict[str, Any], op: Operation) -> None:
    services, ids, bob = world["services"], world["ids"], world["bob"]
    before = _snapshot(services, world["alice_id"])
    arguments = _arguments(op, ids)
    tool = next(t for t in bob.tools() if t["name"] == op.operation_id)
    result = bob.call(op.operation_id, arguments)
    envelope = check_text_copy(result)
    validate_output(tool, envelope)
    if op.operation_id in NO_REFERENCE:
        assert result.get("isError") is not True, result
        text = json.dumps(envelope["data"])
        assert not any(value in text for value in (*ids.values(), SLUG, TAG, "alpha")), text
    else:
        assert result.get("isError") is True, (arguments, result)
        assert envelope["error"]["code"] == "NOT_FOUND", (arguments, envelope)
    assert _snapshot(services, world["alice_id"]) == before


@pytest.mark.parametrize("name", ["list_todos", "query_todos"])
def test_views_without_references_show_only_the_callers_records(world: dict[str, Any], name: str) -> None:
    data = world["bob"].ok(name, {"status": "all"} if name == "query_todos" else {})
    text = json.dumps(data)
    assert not any(value in text for value in (*world["ids"].values(), SLUG, TAG, "alpha")), text
