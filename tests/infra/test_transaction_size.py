"""One atomic todo change over DynamoDB's 4 MB transaction payload: refused up front, in words,
on every storage, before anything is written (DynamoDB Local says what the real service says)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.errors import ValidationError
from mesq.wiring.services import Services
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401
from tests.settings import inprocess_settings
from tests.support.operations import call_of, run_operation


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def test_a_batch_update_over_the_transaction_payload_is_refused_and_writes_nothing(backend, request, tmp_path):
    """20 tasks with 49,000 random Chinese characters of notes each, all given new notes in one
    batch_update_todo_tasks: 4.4 MB of writes (the tasks and their change records). DynamoDB
    refused the transaction (a ValueError: INTERNAL, a 500) while SQLite wrote it; now both say
    VALIDATION_ERROR with the size and the limit, and every task keeps its notes."""
    items = SQLiteItemStore(tmp_path / "mesq.db") if backend == "sqlite" else request.getfixturevalue(backend)
    services = Services(
        settings=inprocess_settings(search_index_updates="off"), items=items, blobs=LocalBlobStore(tmp_path / "blobs")
    )
    call = call_of(services, "u1", {"todo:read", "todo:write"})
    rng = random.Random(1)

    def notes() -> str:
        return "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(49_000))

    tasks: list[dict[str, Any]] = [
        run_operation(call, "create_todo_task", {"title": f"task {number}", "notes": notes()})["task"]
        for number in range(20)
    ]
    updates = [{"id": task["id"], "expectedRevision": task["revision"], "notes": notes()} for task in tasks]
    with pytest.raises(ValidationError) as refused:
        run_operation(call, "batch_update_todo_tasks", {"updates": updates})
    assert "MB" in refused.value.message and "fewer" in refused.value.message, refused.value.message
    for task in tasks:
        now = run_operation(call, "get_todo_task", {"id": task["id"]})["task"]
        assert now["revision"] == task["revision"]
    half = run_operation(call, "batch_update_todo_tasks", {"updates": updates[:8]})
    assert len(half["tasks"]) == 8
