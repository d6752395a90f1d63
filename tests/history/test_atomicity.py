"""The change record and its change are one transaction, on SQLite and on DynamoDB Local: a write
whose condition fails leaves no record, `kill -9` during 300 mixed writes leaves exactly one
record per acknowledged write (and none without its change), and 20 concurrent undos of one
change revert it once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.application.invocation import invoke_sync
from mesq.history.records import CHANGE_PREFIX, expanded
from mesq.kernel.context import Principal
from mesq.kernel.errors import MesqError
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.spec import load_spec
from mesq.store.paging import walk
from mesq.wiring.services import Services
from tests.racing import Racing
from tests.settings import inprocess_settings

from ..contract.conftest import REPO_ROOT, load_runner
from .conftest import BACKENDS

SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})
USER = "atomic"


def caller(items: ItemStore) -> Any:
    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    principal = Principal(user_id=USER, scopes=SCOPES, credential_id="pat:t", kind="pat", name="tester")
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        return invoke_sync(
            spec.operations[operation_id],
            arguments,
            principal=principal,
            services=services,
            trace_id="t",
            channel="api",
        )

    return call


def changes(items: ItemStore) -> list[dict[str, Any]]:
    """The stored change records, unpacked as every reader sees them (records.expanded)."""
    return [expanded(item) for item in walk(items, user_partition(USER), prefix=CHANGE_PREFIX)]


def test_a_write_whose_condition_fails_leaves_no_record(store):
    racing = Racing(store)
    call, direct = caller(racing), caller(store)  # type: ignore[arg-type]
    memo = call("create_memo", content="one")["memo"]
    task = call("create_todo_task", title="one")["task"]
    assert len(changes(store)) == 2
    racing.race = lambda: direct("update_memo", id=memo["id"], expectedRevision=1, content="theirs")
    with pytest.raises(MesqError) as refused:
        call("update_memo", id=memo["id"], expectedRevision=1, content="mine")
    assert refused.value.code == "REVISION_CONFLICT"
    racing.race = lambda: direct("update_todo_task", id=task["id"], expectedRevision=1, title="theirs")
    with pytest.raises(MesqError) as refused:
        call("update_todo_task", id=task["id"], expectedRevision=1, title="mine")
    assert refused.value.code == "REVISION_CONFLICT"
    recorded = changes(store)
    assert len(recorded) == 4  # the two creates and the two racing edits, nothing of the refused ones
    assert {c["after"].get("content") or c["after"].get("title") for c in recorded if c["action"] == "update"} == {
        "theirs"
    }


def test_twenty_concurrent_undos_of_one_change_revert_it_once(store):
    call = caller(store)
    memo = call("create_memo", content="before")["memo"]
    call("update_memo", id=memo["id"], expectedRevision=1, content="after")
    [edit] = [c for c in changes(store) if c["action"] == "update"]
    answers: list[dict[str, Any]] = []
    start = threading.Barrier(20)

    def undo() -> None:
        start.wait(timeout=30)
        answers.append(call("undo_changes", changeIds=[edit["id"]]))

    threads = [threading.Thread(target=undo) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(answers) == 20
    assert sum(len(a["undone"]) for a in answers) == 1
    assert all(r["code"] in ("REVISION_CONFLICT", "CONFLICT") for a in answers for r in a["notUndone"])
    now = call("get_memo", id=memo["id"])["memo"]
    assert now["content"] == "before" and now["revision"] == 3
    assert Counter(c["action"] for c in changes(store)) == {"create": 1, "update": 2}


def _child(store: ItemStore, endpoint: str | None, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "layers" / "core"), str(REPO_ROOT)])}
    if isinstance(store, SQLiteItemStore):
        return ["sqlite", str(store._path), USER], env
    runner = load_runner()
    env.update(AWS_ACCESS_KEY_ID=runner.ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY=runner.SECRET_ACCESS_KEY,
               AWS_DEFAULT_REGION=runner.REGION)  # fmt: skip
    return ["dynamodb", str(endpoint), store.table_name, USER], env  # type: ignore[attr-defined]


@pytest.mark.parametrize("backend", BACKENDS)
def test_kill_9_during_300_writes_leaves_one_record_per_acknowledged_write(backend, request, tmp_path):
    store: ItemStore = request.getfixturevalue(backend)
    endpoint = request.getfixturevalue("dynamodb_local_endpoint") if backend == "dynamodb_local" else None
    argv, env = _child(store, endpoint, tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.history.writer", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO_ROOT,
    )  # fmt: skip
    assert child.stdout is not None
    acked: list[tuple[str, int]] = []
    for line in child.stdout:
        if line.startswith("ack "):
            _, record_id, revision = line.split()
            acked.append((record_id, int(revision)))
        if len(acked) >= 120:
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    for line in child.stdout:  # what it printed before it died was acknowledged too
        if line.startswith("ack "):
            _, record_id, revision = line.split()
            acked.append((record_id, int(revision)))
    assert 120 <= len(acked) < 300, "the writer should have died mid-way"
    recorded = Counter((c["record"]["id"], c["revisions"]["after"]) for c in changes(store))
    assert all(recorded[write] == 1 for write in acked), "an acknowledged write without exactly one record"
    extra = set(recorded) - set(acked)
    assert len(extra) <= 1, f"records of writes never acknowledged: {extra}"  # the one in flight, if it committed
    assert max(recorded.values()) == 1
    call = caller(store)
    for record_id, revision in extra:  # a record is never without its change
        kinds = {c["record"]["kind"] for c in changes(store) if c["record"]["id"] == record_id}
        current = (
            call("get_memo", id=record_id)["memo"] if kinds == {"memo"} else call("get_todo_task", id=record_id)["task"]
        )
        assert current["revision"] >= revision
