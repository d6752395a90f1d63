"""The write contract of the board operations: every write is ONE store transaction with revision conditions, so a
failing condition (a record changed between read and write, a racing tag registration, a racing
first use) leaves nothing half-written; and the same write paths hold on DynamoDB (moto)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.kernel.context import Call, Principal
from mesq.kernel.errors import Conflict, MesqError, RevisionConflict, ValidationError
from mesq.kernel.ports.storage import ItemStore, Put, Update, WriteOp
from mesq.todos import keys as todo_keys
from mesq.todos import state as todo_state
from mesq.todos import writes as todo_writes
from mesq.todos.board.operation_table import OPERATIONS
from mesq.wiring.config import Settings
from mesq.wiring.services import Services
from tests.todos.conftest import TODO_SCOPES


class Interfering:
    """An ItemStore proxy that runs `before` once, right before the next transaction: a concurrent
    writer acting between an operation's read and its write."""

    def __init__(self, inner: ItemStore) -> None:
        self.inner = inner
        self.before: Callable[[], None] | None = None
        self.transactions: list[Sequence[WriteOp]] = []

    def transact(self, ops: Sequence[WriteOp]) -> None:
        hook, self.before = self.before, None
        if hook is not None:
            hook()
        self.transactions.append(ops)
        self.inner.transact(ops)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def caller(services: Services, user_id: str) -> Callable[..., dict[str, Any]]:
    principal = Principal(user_id=user_id, scopes=frozenset(TODO_SCOPES.split(",")), credential_id="c", kind="pat")

    def run(operation_id: str, **arguments: Any) -> dict[str, Any]:
        call = Call(principal=principal, services=services, trace_id=uuid.uuid4().hex, channel="mcp")
        return OPERATIONS[operation_id](call, arguments)

    return run


@pytest.fixture
def proxy(services: Services) -> Interfering:
    return Interfering(services.items)


@pytest.fixture
def run(services: Services, proxy: Interfering) -> Callable[..., dict[str, Any]]:
    return caller(replace(services, items=proxy), "u1")  # type: ignore[arg-type]


def touch(items: ItemStore, user_id: str, task_id: str) -> None:
    """A concurrent edit of a task: its revision moves on."""
    key = todo_keys.task_key(user_id, task_id)
    items.update(Update(key=key, set={"title": "edited elsewhere"}, add={"revision": 1}))


def snapshot(services: Services) -> todo_state.TodoState:
    return todo_state.load_state(services.items, "u1")


def test_move_with_a_subtask_changed_meanwhile_writes_nothing(run, proxy, services):
    task = run("create_todo_task", title="t")["task"]
    subs = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"] for i in range(3)]
    work = run("create_todo_space", name="Work")["space"]
    before = snapshot(services)
    proxy.before = lambda: touch(services.items, "u1", subs[2]["id"])
    with pytest.raises(RevisionConflict) as caught:
        run("move_todo_task", id=task["id"], expectedRevision=1, spaceId=work["id"])
    # one transaction: the task, its three subtasks, the check that the target column is open and
    # the sizes of the column it leaves and the one it joins, and the move's change record with the
    # subtasks as its members (the history, in the same transaction), and the graph counts of the
    # two columns (todos/graph_counts.py: the one it leaves conditioned on its version)
    assert len(proxy.transactions[-1]) == 10
    after = snapshot(services)
    assert after.tasks[task["id"]] == before.tasks[task["id"]]  # the task did not move
    assert [after.tasks[s["id"]] for s in subs[:2]] == [before.tasks[s["id"]] for s in subs[:2]]
    assert caught.value.recover_data == {"task": task}  # the current (unmoved) task


def test_batch_with_a_record_changed_meanwhile_writes_nothing(run, proxy, services):
    tasks = [run("create_todo_task", title=f"t{i}")["task"] for i in range(5)]
    before = snapshot(services)
    proxy.before = lambda: touch(services.items, "u1", tasks[4]["id"])
    with pytest.raises(RevisionConflict) as caught:
        run("batch_complete_todo_tasks", items=[{"id": t["id"], "expectedRevision": 1} for t in tasks])
    recovered = caught.value.recover_data["tasks"]
    assert [t["id"] for t in recovered] == [tasks[4]["id"]] and recovered[0]["revision"] == 2
    after = snapshot(services)
    assert [after.tasks[t["id"]] for t in tasks[:4]] == [before.tasks[t["id"]] for t in tasks[:4]]


def test_a_change_needing_more_than_100_writes_is_refused_before_writing(run, proxy, services):
    tasks = [run("create_todo_task", title=f"t{i}")["task"] for i in range(40)]
    before = snapshot(services)
    count = len(proxy.transactions)
    updates = [{"id": t["id"], "expectedRevision": 1, "tags": [f"a{i}", f"b{i}"]} for i, t in enumerate(tasks)]
    # 40 tasks + 80 tag registrations + one change record (the others as its members: they would
    # not fit the transaction)
    with pytest.raises(ValidationError, match="121 writes"):
        run("batch_update_todo_tasks", updates=updates)
    assert len(proxy.transactions) == count and snapshot(services) == before


def test_tag_registration_race_is_retried_once(run, proxy, services):
    run("list_todo_spaces")

    def register_elsewhere() -> None:
        now = "2026-01-01T00:00:00.000000Z"
        record = {"name": "race", "color": "#000000", "revision": 1, "createdAt": now, "updatedAt": now}
        services.items.put(todo_keys.stored("u1", "tag", record))

    proxy.before = register_elsewhere
    task = run("create_todo_task", title="t", tags=["race"])["task"]
    assert task["tags"] == ["race"]
    state = snapshot(services)
    assert state.tags["race"]["color"] == "#000000" and list(state.tasks) == [task["id"]]


def test_idempotent_twin_racing_the_claim_gets_the_first_answer(run, proxy, services):
    run("list_todo_spaces")
    twin: dict[str, Any] = {}
    proxy.before = lambda: twin.update(
        caller(services, "u1")("create_todo_task", title="t", idempotencyKey="same")  # the twin commits first
    )
    second = run("create_todo_task", title="t", idempotencyKey="same")
    assert second == twin
    assert len(snapshot(services).tasks) == 1


def test_first_use_race_creates_exactly_one_default_space(services):
    results: list[todo_state.TodoState] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def first_use() -> None:
        try:
            barrier.wait()
            results.append(todo_writes.ensure_default_space(services.items, "racer"))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=first_use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    state = todo_state.load_state(services.items, "racer")
    assert len(state.spaces) == 1 and len(state.columns) == 3 and state.slugs == {"default": state.default_space_id}
    assert {r.default_space_id for r in results} == {state.default_space_id}


def test_stale_first_use_rereads_the_winner(services):
    empty = todo_state.load_state(services.items, "late")
    winner = todo_writes.ensure_default_space(services.items, "late")
    again = todo_writes.ensure_default_space(services.items, "late", empty)  # its transaction fails: re-read
    assert again.default_space_id == winner.default_space_id and len(again.spaces) == 1


def test_slug_claim_race_keeps_slugs_unique(run, proxy, services):
    run("list_todo_spaces")
    proxy.before = lambda: caller(services, "u1")("create_todo_space", name="Other", slug="shared")
    with pytest.raises(MesqError) as caught:
        run("create_todo_space", name="Mine", slug="shared")
    assert caught.value.code == "CONFLICT"
    state = snapshot(services)
    assert [s["name"] for s in state.spaces.values() if s["slug"] == "shared"] == ["Other"]
    assert len(state.spaces) == 2 and len(state.columns) == 6


# -- DynamoDB (moto) ---------------------------------------------------------------------------


@pytest.fixture
def dynamo_services(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Services]:
    from moto import mock_aws

    from mesq.adapters.store.dynamodb import DynamoDBItemStore
    from tests.contract.conftest import _client, _isolate_aws_env, _shared_session, _table_name

    _isolate_aws_env(monkeypatch, "testing", "testing")
    with mock_aws():
        session = _shared_session(
            "moto", aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
        )
        items = DynamoDBItemStore(_table_name(), client=_client(session))
        items.create_table_if_missing()
        yield Services(settings=Settings(data_dir=tmp_path), items=items, blobs=LocalBlobStore(tmp_path / "blobs"))
        items.close()


def test_write_paths_on_dynamodb(dynamo_services):
    run = caller(dynamo_services, "dyn")
    board = run("list_todo_spaces")
    assert [c["name"] for c in board["columns"]] == ["To do", "Doing", "Done"]
    work = run("create_todo_space", name="Work", slug="work", idempotencyKey="w")
    assert run("create_todo_space", name="Work", slug="work", idempotencyKey="w") == work
    task = run("create_todo_task", title="t", tags=["x"], due={"type": "datetime", "at": "2026-10-07T09:00:00+08:00"})
    subs = [run("create_todo_subtask", taskId=task["task"]["id"], title=f"s{i}")["subtask"] for i in range(3)]
    moved = run("move_todo_task", id=task["task"]["id"], expectedRevision=1, spaceSlug="work")
    assert moved["task"]["spaceId"] == work["space"]["id"] and len(moved["subtasks"]) == 3
    with pytest.raises(RevisionConflict):
        run("batch_complete_todo_tasks", items=[{"id": s["id"], "expectedRevision": 1} for s in subs])
    state = todo_state.load_state(dynamo_services.items, "dyn")
    assert all(not state.tasks[s["id"]]["done"] for s in subs)  # all or nothing
    done = run("batch_complete_todo_tasks", items=[{"id": s["id"], "expectedRevision": 2} for s in subs])
    assert [t["done"] for t in done["tasks"]] == [True, True, True]
    run("delete_todo_task", id=task["task"]["id"], expectedRevision=2)
    with pytest.raises(Conflict):
        run("create_todo_subtask", taskId=task["task"]["id"], title="late")
    restored = run("restore_todo_item", id=task["task"]["id"], expectedRevision=3)
    assert restored["task"]["deletedAt"] is None
    renamed = run("update_todo_tag", name="x", expectedRevision=1, newName="y")
    assert renamed["updatedRecords"] == 1
    assert todo_state.load_state(dynamo_services.items, "dyn").tasks[task["task"]["id"]]["tags"] == ["y"]


def _put_is_conditional(op: WriteOp) -> bool:
    return not isinstance(op, Put) or op.condition is not None


def test_every_board_put_is_conditional(run, proxy):
    """No blind overwrite anywhere: every Put of a board write carries a condition (exists=False for
    new records and claims, revision equality for changes)."""
    task = run("create_todo_task", title="t", tags=["a"])["task"]
    sub = run("create_todo_subtask", taskId=task["id"], title="s")["subtask"]
    run("update_todo_task", id=task["id"], expectedRevision=1, tags=["b"])
    run("move_todo_task", id=task["id"], expectedRevision=2, index=0)
    run("reorder_todo_subtasks", taskId=task["id"], subtaskIds=[sub["id"]])
    run("update_todo_tag", name="b", expectedRevision=1, newName="c")
    run("create_todo_space", name="S")
    assert proxy.transactions and all(_put_is_conditional(op) for ops in proxy.transactions for op in ops)


def test_column_archived_meanwhile_stops_a_create(run, proxy, services):
    column = run("list_todo_spaces")["columns"][0]

    def archive_elsewhere() -> None:
        key = todo_keys.column_key("u1", column["id"])
        services.items.update(Update(key=key, set={"archived": True}, add={"revision": 1}))

    proxy.before = archive_elsewhere
    with pytest.raises(ValidationError, match="changed meanwhile"):
        run("create_todo_task", title="t", columnId=column["id"], tags=["never"])
    state = snapshot(services)
    assert state.tasks == {} and "never" not in state.tags
