"""Tenant isolation for every board operation: user B, holding every todo scope, can never read or
change user A's spaces, columns, tasks, subtasks, tags or trash by id, name or slug — over REST
and MCP alike — and A's stored state is byte-for-byte unchanged afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.runtime.server import create_local_app
from mesq.todos import state as todo_state
from mesq.todos.board.operation_table import OPERATIONS
from mesq.wiring.services import Services, build_services
from tests.conftest import Account
from tests.mcp.conftest import Mcp
from tests.settings import inprocess_settings
from tests.todos.conftest import TODO_SCOPES, TodoRest


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    services: Services = build_services(inprocess_settings(data_dir=tmp_path_factory.mktemp("iso") / "data"))
    accounts = {}
    for name in ("alice", "bob"):
        user = create_user(services.items, name, "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="t", scopes=TODO_SCOPES)
        accounts[name] = Account(user_id=user["id"], username=name, token=token)
    with TestClient(create_local_app(services), raise_server_exceptions=False) as client:
        alice = TodoRest(client, accounts["alice"])
        space = alice.ok("create_todo_space", name="Secret", slug="secret")
        task = alice.ok("create_todo_task", title="secret task", columnId=space["columns"][0]["id"], tags=["private"])
        sub = alice.ok("create_todo_subtask", taskId=task["task"]["id"], title="secret sub")
        trashed = alice.ok("create_todo_task", title="trashed")["task"]
        alice.ok("delete_todo_task", id=trashed["id"], expectedRevision=1)
        bob = TodoRest(client, accounts["bob"])
        bob.ok("list_todo_spaces")  # bob has his own default space (and so a `default` alias)
        yield {
            "services": services,
            "client": client,
            "alice": accounts["alice"],
            "bob": accounts["bob"],
            "space": space["space"],
            "column": space["columns"][0],
            "task": task["task"],
            "sub": sub["subtask"],
            "trashed": trashed,
        }
    services.items.close()


def _attempts(w: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Bob's attempt at each operation, aimed at Alice's records (all with plausible revisions)."""
    space, column, task, sub, trashed = w["space"], w["column"], w["task"], w["sub"], w["trashed"]
    return {
        "list_todo_spaces": {},
        "create_todo_space": {"name": "x", "slug": "secret"},  # A's slug is no obstacle for B
        "update_todo_space": {"spaceId": space["id"], "expectedRevision": 1, "name": "pwned"},
        "delete_todo_space": {"spaceId": space["id"], "expectedRevision": 1},
        "create_todo_column": {"spaceId": space["id"], "name": "x"},
        "update_todo_column": {"columnId": column["id"], "expectedRevision": 1, "name": "pwned"},
        "delete_todo_column": {"columnId": column["id"], "expectedRevision": 1},
        "create_todo_task": {"title": "x", "columnId": column["id"]},
        "update_todo_task": {"id": task["id"], "expectedRevision": 1, "title": "pwned"},
        "move_todo_task": {"id": task["id"], "expectedRevision": 1, "index": 0},
        "complete_todo_task": {"id": task["id"], "expectedRevision": 1},
        "reopen_todo_task": {"id": task["id"], "expectedRevision": 1},
        "set_todo_reminders": {
            "id": task["id"],
            "expectedRevision": 1,
            "reminders": [{"type": "absolute", "at": "2030-01-01T09:00:00+08:00"}],
        },
        "clear_todo_reminders": {"id": task["id"], "expectedRevision": 1},
        "delete_todo_task": {"id": task["id"], "expectedRevision": 1},
        "restore_todo_task": {"id": trashed["id"], "expectedRevision": 2},
        "duplicate_todo_task": {"id": task["id"]},
        "create_todo_subtask": {"taskId": task["id"], "title": "x"},
        "update_todo_subtask": {"id": sub["id"], "expectedRevision": 1, "title": "pwned"},
        "complete_todo_subtask": {"id": sub["id"], "expectedRevision": 1},
        "reopen_todo_subtask": {"id": sub["id"], "expectedRevision": 1},
        "delete_todo_subtask": {"id": sub["id"], "expectedRevision": 1},
        "reorder_todo_subtasks": {"taskId": task["id"], "subtaskIds": [sub["id"]]},
        "list_todo_tags": {},
        "create_todo_tag": {"name": "private"},  # B's own tag of the same name
        "update_todo_tag": {"name": "private", "expectedRevision": 1, "newName": "pwned"},
        "delete_todo_tag": {"name": "private", "expectedRevision": 1},
        "list_todo_trash": {},
        "restore_todo_item": {"id": trashed["id"], "expectedRevision": 2},
        "batch_update_todo_tasks": {"updates": [{"id": task["id"], "expectedRevision": 1, "title": "pwned"}]},
        "batch_complete_todo_tasks": {"items": [{"id": task["id"], "expectedRevision": 1}]},
    }


#: Operations where B's call succeeds on B's own data (reads, creates without A's ids, B's own tag).
OWN_DATA = {"list_todo_spaces", "create_todo_space", "list_todo_tags", "create_todo_tag", "list_todo_trash"}
#: update/delete_todo_tag run after create_todo_tag made B's own "private": they hit B's tag only.
ORDER = sorted(OPERATIONS, key=lambda name: (name not in OWN_DATA, "tag" in name and name != "create_todo_tag", name))


def test_every_board_operation_is_attempted(world):
    assert set(_attempts(world)) == set(OPERATIONS)


def _secrets(w: dict[str, Any]) -> list[str]:
    return [w["space"]["id"], w["column"]["id"], w["task"]["id"], w["sub"]["id"], w["trashed"]["id"], "secret task"]


@pytest.mark.parametrize("channel", ["rest", "mcp"])
@pytest.mark.parametrize("operation_id", ORDER)
def test_bob_cannot_touch_alices_records(world, operation_id: str, channel: str):
    services: Services = world["services"]
    alice_before = todo_state.load_state(services.items, world["alice"].user_id)
    arguments = _attempts(world)[operation_id]
    if channel == "rest":
        response = TodoRest(world["client"], world["bob"]).call(operation_id, **dict(arguments))
        status, body = response.status_code, response.json()
        failed = status >= 400
    else:
        result = Mcp(client=world["client"], token=world["bob"].token).call(operation_id, dict(arguments))
        body, failed = result["structuredContent"], bool(result.get("isError"))
    if operation_id in OWN_DATA or operation_id in ("update_todo_tag", "delete_todo_tag"):
        text = str(body)
        assert not any(secret in text for secret in _secrets(world)), body
        if operation_id in ("update_todo_tag", "delete_todo_tag") and failed:
            assert body["error"]["code"] in ("NOT_FOUND", "REVISION_CONFLICT"), body
    else:
        assert failed and body["error"]["code"] == "NOT_FOUND", body
        assert "recoverData" not in body
    assert todo_state.load_state(services.items, world["alice"].user_id) == alice_before


def test_bob_sees_only_his_own_board(world):
    bob = TodoRest(world["client"], world["bob"])
    listed = bob.ok("list_todo_spaces")
    assert world["space"]["id"] not in str(listed) and world["column"]["id"] not in str(listed)
    assert {c["spaceId"] for c in listed["columns"]} <= {s["id"] for s in listed["spaces"]}
    alice_spaces = TodoRest(world["client"], world["alice"]).ok("list_todo_spaces")
    assert not {s["id"] for s in listed["spaces"]} & {s["id"] for s in alice_spaces["spaces"]}
