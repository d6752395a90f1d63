"""The reminder tick delivers each due reminder exactly once, signed, even when two ticks run at
the same time: two processes on one SQLite file, and two stores on DynamoDB Local. A failing
receiver gets its retries, then later rounds (to the channels that failed only), then a final
failure; a tick that dies between claim and send loses nothing."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.jobs.reminder_tick import CLAIM_PREFIX, RETRY_DELAYS, RETRY_PREFIX, run_due_reminder_tick
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.timestamps import now_timestamp
from mesq.reminders import channels
from mesq.todos.reminder_schedule import INDEX_PREFIX

from .conftest import todo_call, user_with_reminders
from .receiver import Receiver
from .tick_process import tick_together

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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "layers" / "core"), str(REPO)])}
    reports = tick_together([str(db), str(sealer.key_file), tick_at], REPO, env)
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
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

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


def _claims(items: ItemStore, user_id: str) -> list[dict[str, Any]]:
    return items.query(f"U#{user_id}", prefix=CLAIM_PREFIX).items


def test_a_failed_channel_gets_the_occurrence_again_later_and_only_that_channel(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    user_id, due = user_with_reminders(items, sealer, receiver, 1)
    failing = Receiver(status=503).start()
    try:
        channel = channels.add_webhook(items, sealer, user_id, failing.url, now_timestamp(), allow_loopback=True)
        failing.secrets.append(channel.secret)
        first = run_due_reminder_tick(items, sealer, due + timedelta(seconds=5), backoff=(0.0,))
        assert first.failed == 2 and len(receiver.received) == 2 and failing.attempts == 2 * 3
        assert {claim["status"] for claim in _claims(items, user_id)} == {"retrying"}
        early = run_due_reminder_tick(items, sealer, due + timedelta(minutes=4), backoff=(0.0,))
        assert early.retried == 0 and failing.attempts == 6  # not before the first delay
        failing.status = 204
        second = run_due_reminder_tick(items, sealer, due + RETRY_DELAYS[0] + timedelta(minutes=1), backoff=(0.0,))
        assert second.retried == 2 and second.delivered == 2
        _assert_once(failing, 2)
        _assert_once(receiver, 2)  # the channel that took it the first time got no repeat
        assert {claim["status"] for claim in _claims(items, user_id)} == {"delivered"}
        assert items.query(f"U#{user_id}", prefix=RETRY_PREFIX).items == []
        later = run_due_reminder_tick(items, sealer, due + timedelta(hours=3), backoff=(0.0,))
        assert later.due == 0 and len(failing.received) == 2
    finally:
        failing.stop()


def test_a_receiver_that_keeps_failing_gets_every_round_then_a_final_failure(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    receiver.status = 500
    user_id, due = user_with_reminders(items, sealer, receiver, 1)
    moment = due + timedelta(seconds=5)
    run_due_reminder_tick(items, sealer, moment, backoff=(0.0,))
    for delay in RETRY_DELAYS:
        moment += delay + timedelta(minutes=1)
        assert run_due_reminder_tick(items, sealer, moment, backoff=(0.0,)).retried == 2
    rounds = 1 + len(RETRY_DELAYS)
    assert receiver.attempts == rounds * 2 * 3 and receiver.bad_signatures == 0
    assert [(c["status"], c["rounds"]) for c in _claims(items, user_id)] == [("failed", rounds)] * 2
    assert items.query(f"U#{user_id}", prefix=RETRY_PREFIX).items == []
    assert run_due_reminder_tick(items, sealer, moment + timedelta(hours=6), backoff=(0.0,)).due == 0
    assert receiver.attempts == rounds * 2 * 3


def test_a_tick_that_dies_between_claim_and_send_loses_nothing(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    user_id, due = user_with_reminders(items, sealer, receiver, 1)

    def die(entry: dict[str, Any]) -> None:
        raise SystemExit("the process died after claiming")

    with pytest.raises(SystemExit):
        run_due_reminder_tick(items, sealer, due + timedelta(seconds=5), on_claimed=die)
    # the two occurrences are handled concurrently: one or both were claimed before the end
    died_holding = len(_claims(items, user_id))
    assert receiver.attempts == 0 and died_holding in (1, 2)
    next_tick = run_due_reminder_tick(items, sealer, due + timedelta(minutes=1), backoff=(0.0,))
    assert len(receiver.received) == 2 - died_holding  # the claimed ones wait for their lease
    assert next_tick.skipped >= died_holding
    run_due_reminder_tick(items, sealer, due + RETRY_DELAYS[0] + timedelta(minutes=1), backoff=(0.0,))
    _assert_once(receiver, 2)
    assert {claim["status"] for claim in _claims(items, user_id)} == {"delivered"}


def test_a_task_done_before_its_retry_is_not_sent_again(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    receiver.status = 500
    user_id, due = user_with_reminders(items, sealer, receiver, 1)
    run_due_reminder_tick(items, sealer, due + timedelta(seconds=5), backoff=(0.0,))
    (entry, *_) = items.query(f"U#{user_id}", prefix=RETRY_PREFIX).items
    task = todo_call(items, user_id, "get_todo_task", id=entry["taskId"])["task"]
    todo_call(items, user_id, "complete_todo_task", id=task["id"], expectedRevision=task["revision"])
    receiver.status = 204
    report = run_due_reminder_tick(items, sealer, due + RETRY_DELAYS[0] + timedelta(minutes=1), backoff=(0.0,))
    assert report.retried == 0 and report.skipped == 2 and receiver.received == []
    assert {claim["status"] for claim in _claims(items, user_id)} == {"dropped"}
    assert items.query(f"U#{user_id}", prefix=RETRY_PREFIX).items == []


def test_a_tick_with_nothing_due_opens_no_client(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tick with nothing due costs its reads, not a client (the first one builds the process's
    TLS context, ~18 ms of CPU, just as `mesq serve` turns ready). A tick with something due
    opens one and sends."""
    from mesq.jobs import reminder_tick

    opened: list[object] = []
    real = reminder_tick.new_client

    def counted() -> Any:
        opened.append(None)
        return real()

    monkeypatch.setattr(reminder_tick, "new_client", counted)
    items = SQLiteItemStore(tmp_path / "mesq.db")
    _user_id, due = user_with_reminders(items, sealer, receiver, 1, seconds_ahead=120)
    idle = run_due_reminder_tick(items, sealer, datetime.now(UTC), backoff=(0.0,))  # both are 2 minutes away
    assert idle.due == 0 and idle.buckets >= 1 and opened == []
    sent = run_due_reminder_tick(items, sealer, due, backoff=(0.0,))
    assert sent.due == 2 and len(opened) == 1 and len(receiver.received) == 2
