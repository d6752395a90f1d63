"""The reminder tick delivers each due reminder exactly once, signed, even when two ticks run at
the same time: two processes on one SQLite file, and two stores on DynamoDB Local. A failing
receiver gets its retries, then the failure is recorded on the channel and not retried."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from mesq.reminders import channels
from mesq.reminders.tick import run_due_reminder_tick
from mesq.sealing.local import LocalKeySealer
from mesq.store.ports import ItemStore
from mesq.store.sqlite import SQLiteItemStore
from mesq.todos.reminder_schedule import INDEX_PREFIX

from .conftest import todo_call, user_with_reminders
from .receiver import Receiver

REPO = Path(__file__).resolve().parents[2]
TASKS = 4


def _assert_once(receiver: Receiver, expected: int) -> None:
    ids = Counter(str(body["id"]) for body in receiver.received)
    assert receiver.bad_signatures == 0
    assert len(ids) == expected and set(ids.values()) == {1}, ids


def test_two_processes_on_one_sqlite_file_deliver_each_reminder_once(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    db = tmp_path / "mesq.db"
    items = SQLiteItemStore(db)
    _user, due = user_with_reminders(items, sealer, receiver, TASKS)
    tick_at = (due + timedelta(seconds=5)).isoformat()
    start = time.time() + 1.5
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "layers" / "core"), str(REPO)])}
    command = [sys.executable, "-m", "tests.reminders.tick_process", str(db), str(sealer.key_file), tick_at, str(start)]
    processes = [subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    reports = [json.loads(p.communicate(timeout=60)[0]) for p in processes]
    assert all(p.returncode == 0 for p in processes)
    _assert_once(receiver, 2 * TASKS)  # an absolute and a relative reminder per task
    assert sum(r["delivered"] for r in reports) == 2 * TASKS
    assert all(r["due"] >= 1 for r in reports)  # both saw due reminders: they really overlapped
    # the index has moved past them: another tick sends nothing more
    again = run_due_reminder_tick(items, sealer, due + timedelta(minutes=1), backoff=(0.0,))
    assert again.delivered == 0 and len(receiver.received) == 2 * TASKS


def _concurrent_ticks(stores: list[ItemStore], sealer: LocalKeySealer, at: Any) -> list[Any]:
    barrier = threading.Barrier(len(stores))
    reports: list[Any] = [None] * len(stores)

    def tick(index: int) -> None:
        barrier.wait()
        reports[index] = run_due_reminder_tick(
            stores[index], sealer, at, backoff=(0.01,), on_claimed=lambda _: time.sleep(0.05)
        )

    threads = [threading.Thread(target=tick, args=(i,)) for i in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return reports


@pytest.mark.dynamodb_local
def test_two_ticks_on_dynamodb_local_deliver_each_reminder_once(
    dynamodb_local: ItemStore, dynamodb_local_env: str, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    from mesq.store.dynamodb import DynamoDBItemStore

    # a second store with its own client: two schedulers' invocations share nothing but the table
    other = DynamoDBItemStore(dynamodb_local.table_name, endpoint_url=dynamodb_local_env, region="us-east-1")  # type: ignore[attr-defined]
    _user, due = user_with_reminders(dynamodb_local, sealer, receiver, TASKS)
    reports = _concurrent_ticks([dynamodb_local, other], sealer, due + timedelta(seconds=5))
    _assert_once(receiver, 2 * TASKS)
    assert sum(r.delivered for r in reports) == 2 * TASKS
    assert all(r.due >= 1 for r in reports)


def test_a_failing_receiver_gets_retries_then_a_recorded_failure(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    receiver.status = 500
    user_id, due = user_with_reminders(items, sealer, receiver, 1)
    report = run_due_reminder_tick(items, sealer, due + timedelta(seconds=5), backoff=(0.01, 0.02))
    assert report.failed == 2 and report.delivered == 0  # both reminders of the task
    assert receiver.attempts == 2 * 3 and receiver.bad_signatures == 0
    (channel,) = channels.channel_records(items, user_id)
    assert channel["lastFailure"]["reason"] == "HTTP 500" and channel["lastFailure"]["attempts"] == 3
    assert channel["lastSuccessAt"] is None
    later = run_due_reminder_tick(items, sealer, due + timedelta(minutes=2), backoff=(0.01,))
    assert later.due == 0 and receiver.attempts == 6  # recorded, not sent again


def test_done_or_changed_tasks_are_not_reminded(tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    user_id, due = user_with_reminders(items, sealer, receiver, 2)
    index = items.query(f"U#{user_id}", prefix=INDEX_PREFIX).items
    assert len(index) == 2 and all(entry["gsi2pk"].startswith("REMINDERS#") for entry in index)
    first, second = (todo_call(items, user_id, "get_todo_task", id=e["taskId"])["task"] for e in index)
    todo_call(items, user_id, "complete_todo_task", id=first["id"], expectedRevision=first["revision"])
    todo_call(items, user_id, "clear_todo_reminders", id=second["id"], expectedRevision=second["revision"])
    assert items.query(f"U#{user_id}", prefix=INDEX_PREFIX).items == []  # removed in the tasks' transactions
    report = run_due_reminder_tick(items, sealer, due + timedelta(seconds=5), backoff=(0.0,))
    assert report.due == 0 and receiver.received == []
