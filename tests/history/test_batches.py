"""A full batch (100 items, the documented maximum of batch_complete_todo_tasks) and its undo
fit DynamoDB's 100-item transactions with their change records, on SQLite and DynamoDB Local: it
is written in parts of `PART` items, each with its record, and undone part by part. A later part
that fails has the written parts undone before the batch answers."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.kernel.errors import MesqError
from mesq.todos.board.batch import PART

from .test_atomicity import Racing, caller, changes


def _tasks(call: Any, count: int) -> list[str]:
    return [call("create_todo_task", title=f"t{number}")["task"]["id"] for number in range(count)]


def test_a_full_batch_of_100_completes_and_its_run_undoes(store):
    call = caller(store)
    ids = _tasks(call, 100)
    done = call("batch_complete_todo_tasks", items=[{"id": i, "expectedRevision": 1} for i in ids])
    assert [t["id"] for t in done["tasks"]] == ids and all(t["done"] for t in done["tasks"])
    batch = [c for c in changes(store) if c["operation"] == "batch_complete_todo_tasks"]
    assert len(batch) == 100 // PART and len({c["runId"] for c in batch}) == 1
    covered = [c["record"]["id"] for c in batch] + [m["record"]["id"] for c in batch for m in c.get("members", [])]
    assert sorted(covered) == sorted(ids)
    undone = call("undo_changes", runId=batch[0]["runId"])
    assert undone["notUndone"] == [] and len(undone["undone"]) == len(batch)
    assert all(not call("get_todo_task", id=i)["task"]["done"] for i in ids)


def test_a_batch_of_99_undoes(store):
    call = caller(store)
    ids = _tasks(call, 99)
    call("batch_complete_todo_tasks", items=[{"id": i, "expectedRevision": 1} for i in ids])
    [run] = {c["runId"] for c in changes(store) if c["operation"] == "batch_complete_todo_tasks"}
    undone = call("undo_changes", runId=run)
    assert undone["notUndone"] == []
    assert all(call("get_todo_task", id=i)["task"]["revision"] == 3 for i in ids)


def test_a_later_part_that_fails_leaves_the_batch_undone(sqlite):
    racing = Racing(sqlite)
    call, direct = caller(racing), caller(sqlite)
    ids = _tasks(direct, 100)
    racing.race = None
    last = ids[-1]
    writes = 0

    def transact(ops: list[Any]) -> None:  # the concurrent edit lands between the two parts
        nonlocal writes
        writes += 1
        if writes == 2:
            direct("update_todo_task", id=last, expectedRevision=1, title="theirs")
        sqlite.transact(ops)

    racing.transact = transact  # type: ignore[method-assign]
    with pytest.raises(MesqError) as refused:
        call("batch_complete_todo_tasks", items=[{"id": i, "expectedRevision": 1} for i in ids])
    assert refused.value.code == "REVISION_CONFLICT"
    assert [t["id"] for t in refused.value.recover_data["tasks"]] == [last]
    assert not any(direct("get_todo_task", id=i)["task"]["done"] for i in ids)
    first = [c for c in changes(sqlite) if c["operation"] == "batch_complete_todo_tasks"]
    assert len(first) == 1 and "undoneBy" in first[0]  # the written part, recorded and undone
