"""The inbox's transactional writes on the DynamoDB adapter (moto), where the contract matters:
the move's TransactWriteItems (Puts, ConditionCheck on the column, conditional Delete), the
parent-revision condition of inbox subtask writes, idempotent capture, and trash + restore."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace

import pytest

from mesq.kernel.errors import RevisionConflict, ValidationError
from mesq.kernel.ports.storage import ItemStore
from mesq.wiring.services import Services
from tests.todos.inbox.test_inbox_ops import Caller, racing_caller


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[ItemStore]:
    import boto3
    from moto import mock_aws

    from mesq.adapters.store.dynamodb import DynamoDBItemStore, _default_config

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        client = boto3.session.Session(region_name="us-east-1").client("dynamodb", config=_default_config())
        store = DynamoDBItemStore("mesq-inbox-test", client=client)
        store.create_table_if_missing()
        yield store
        store.close()


@pytest.fixture
def alice(services: Services, dynamodb: ItemStore) -> Caller:
    return Caller(replace(services, items=dynamodb), "alice0000001")


def test_move_commits_everything_or_nothing_on_dynamodb(alice: Caller):
    item = alice("create_todo_inbox_item", title="plan", subtasks=[{"title": "a"}, {"title": "b"}],
                 idempotencyKey="cap-1")["item"]  # fmt: skip
    assert alice("create_todo_inbox_item", title="plan", subtasks=[{"title": "a"}, {"title": "b"}],
                 idempotencyKey="cap-1")["item"] == item  # fmt: skip
    default = alice.state().default_space()
    first = alice.state().first_open_column(default["id"])

    def archive() -> None:
        alice("update_todo_column", columnId=first["id"], expectedRevision=1, archived=True)

    racing_caller(alice, archive).fails(ValidationError, "move_todo_inbox_item_to_board", id=item["id"],
                                        expectedRevision=1)  # fmt: skip
    state = alice.state()
    assert state.tasks == {} and state.inbox[item["id"]]["revision"] == 1

    moved = alice("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=1)
    state = alice.state()
    assert item["id"] not in state.inbox and moved["task"]["columnId"] != first["id"]
    assert [t["title"] for t in state.subtasks_of(item["id"])] == ["a", "b"]


def test_subtask_writes_are_conditioned_on_the_parent_revision_on_dynamodb(alice: Caller):
    item = alice("create_todo_inbox_item", title="p", subtasks=[{"title": "a"}])["item"]
    sub_id = item["subtasks"][0]["id"]

    def edit() -> None:
        alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="meanwhile")

    error = racing_caller(alice, edit).fails(RevisionConflict, "set_todo_inbox_subtask_done", parentItemId=item["id"],
                                             subtaskId=sub_id, parentRevision=1, isDone=True)  # fmt: skip
    assert error.recover_data["item"]["title"] == "meanwhile" and error.recover_data["subtask"]["isDone"] is False
    done = alice("set_todo_inbox_subtask_done", parentItemId=item["id"], subtaskId=sub_id, parentRevision=2,
                 isDone=True)  # fmt: skip
    assert done["item"]["revision"] == 3


def test_trash_and_restore_on_dynamodb(alice: Caller):
    item = alice("create_todo_inbox_item", title="p")["item"]
    alice("delete_todo_inbox_item", id=item["id"], expectedRevision=1)
    assert [e["id"] for e in alice("list_todo_trash")["items"]] == [item["id"]]
    alice("restore_todo_item", id=item["id"], expectedRevision=2)
    assert [i["id"] for i in alice("list_todo_inbox_items")["items"]] == [item["id"]]
