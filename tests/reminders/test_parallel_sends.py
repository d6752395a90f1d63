"""One slow destination delays only its own reminder: the tick sends each due occurrence (and
each channel of one) concurrently, every attempt under its own total deadline."""

from __future__ import annotations

import socket
import threading
import time
from datetime import timedelta
from pathlib import Path

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.jobs.reminder_tick import run_due_reminder_tick
from mesq.kernel.timestamps import now_timestamp
from mesq.reminders import channels
from mesq.reminders.transport import Reach

from .conftest import user_with_reminders
from .receiver import Receiver

#: Each attempt's total deadline here (production: SEND_DEADLINE_SECONDS, 10 s): what is measured
#: is that the silent channel's attempts end at it, concurrently, whatever its value.
DEADLINE = 2.0


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_webhook_that_never_answers_does_not_hold_back_another(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # connections queue in the backlog, never answered
    silent_url = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
    items = SQLiteItemStore(tmp_path / "mesq.db")
    slow_user, due = user_with_reminders(items, sealer, receiver, 2, url=silent_url)  # another tenant's
    _fast_user, _ = user_with_reminders(items, sealer, receiver, 1)
    # and a user whose first channel never answers, beside one that does
    both_user, _ = user_with_reminders(items, sealer, receiver, 1, url=silent_url)
    both = channels.add_webhook(items, sealer, both_user, receiver.url, now_timestamp(), allow_loopback=True)
    receiver.secrets.append(both.secret)
    report: list[object] = []
    try:
        started = time.monotonic()
        at = due + timedelta(seconds=5)
        ticking = threading.Thread(
            target=lambda: report.append(
                run_due_reminder_tick(items, sealer, at, backoff=(0.0,), reach=Reach(deadline=DEADLINE))
            )
        )
        ticking.start()
        # the fast user's two occurrences and the mixed user's two reach the receiver at once
        assert _wait_for(lambda: len(receiver.received) >= 4, 2.0), receiver.received
        reached = time.monotonic() - started
        ticking.join(3 * DEADLINE + 10)
        took = time.monotonic() - started
    finally:
        silent.close()
    assert reached < 2.0
    assert not ticking.is_alive() and len(receiver.received) == 4
    # the silent channel's attempts each ended at their deadline, concurrently for all occurrences
    assert 3 * DEADLINE <= took < 3 * DEADLINE + 8, took
    tick = report[0]
    assert tick.delivered == 2 and tick.failed == 6  # type: ignore[attr-defined]
    failing = channels.channel_records(items, slow_user)[0]["lastFailure"]
    assert failing["reason"] == f"no answer within {DEADLINE:g} s" and failing["attempts"] == 3
