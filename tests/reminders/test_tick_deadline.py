"""A tick keeps its deadline and shares itself fairly (jobs/reminder_tick.py): against real
servers on loopback (aiosmtpd holding every message, a TCP server that never answers, a Web Push
endpoint, webhook receivers that answer slowly), one slow endpoint delays only its own
reminders, one channel's send ends at its total deadline whatever its retries, a user with many
due reminders takes turns with the others, and what a tick could not start is sent by the next
one, once.

The deadlines here are the production ones scaled down (attempt 10 s -> 2 s, channel 20 s -> 3 s,
tick 50 s -> 8 s); each bound is stated beside its assertion, with room for a loaded machine."""

from __future__ import annotations

import base64
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from mesq.adapters.reminders.delivery import new_client, send_channel
from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.jobs.reminder_tick import RETRY_DELAYS, TickLimits, TickReport, run_due_reminder_tick
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.timestamps import format_timestamp, now_timestamp
from mesq.reminders import channels
from mesq.reminders.channels import Channel, Destinations
from mesq.reminders.transport import Reach, SendContext

from .conftest import todo_call
from .fakes import HTTPFake, SMTPFake
from .receiver import Receiver

pytestmark = pytest.mark.timing

PUBLIC = "https://mesq.example"  # VAPID signs only for an https instance
RULES = Destinations(allow_loopback=True)


@pytest.fixture
def slow_smtp() -> Iterator[SMTPFake]:
    """An SMTP server that greets, takes the envelope and the message, and then holds its answer
    for far longer than any deadline of a send."""
    fake = SMTPFake(hold=60.0).start()
    yield fake
    fake.stop()


@pytest.fixture
def push_service() -> Iterator[HTTPFake]:
    fake = HTTPFake(status=201, answer=b"").start()
    yield fake
    fake.stop()


def _user_with_tasks(items: ItemStore, user_id: str, tasks: int, soon: datetime) -> datetime:
    """`tasks` tasks of `user_id`, each reminded at `soon` and 15 minutes before its due (a
    second after `soon`): two occurrences a task. Every user made with one `soon` has the same
    instants, so in a bucket the users' entries stand in the order of their ids. Returns the
    moment by which all are due."""
    due = soon + timedelta(minutes=15, seconds=1)
    for number in range(tasks):
        task = todo_call(items, user_id, "create_todo_task", title=f"task {number}",
                         due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
        todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=[{"type": "absolute", "at": format_timestamp(soon)},
                             {"type": "relative", "offset": "-PT15M"}])  # fmt: skip
    return due


def _webhook(items: ItemStore, sealer: LocalKeySealer, user_id: str, receiver: Receiver) -> None:
    channel = channels.add_webhook(items, sealer, user_id, receiver.url, now_timestamp(), allow_loopback=True)
    receiver.secrets.append(channel.secret)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _push_channel(items: ItemStore, sealer: LocalKeySealer, user_id: str, endpoint: str) -> None:
    browser = ec.generate_private_key(ec.SECP256R1()).public_key()
    p256dh = browser.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    fields = {"endpoint": endpoint, "p256dh": _b64(p256dh), "auth": _b64(b"0123456789abcdef")}
    channels.add_channel(items, sealer, user_id, "webpush", fields, now_timestamp(), RULES)


def _email_channel(items: ItemStore, sealer: LocalKeySealer, user_id: str, port: int) -> None:
    mail = {"host": "127.0.0.1", "port": str(port), "security": "none", "from": "mesq@example.org",
            "to": "me@example.org"}  # fmt: skip
    channels.add_channel(items, sealer, user_id, "email", mail, now_timestamp(), RULES)


class _Ticking:
    """A tick in a thread of its own, timed from its start, so a test can watch the receivers
    while it runs."""

    def __init__(self, tick: Callable[[], TickReport]) -> None:
        self.report: TickReport | None = None
        self.took = 0.0

        def run() -> None:
            self.report = tick()
            self.took = time.monotonic() - self.started

        self.thread = threading.Thread(target=run)
        self.started = time.monotonic()
        self.thread.start()

    def when(self, condition: Callable[[], bool], within: float) -> float | None:
        """Seconds from the tick's start until `condition` held, or None if not within `within`."""
        while time.monotonic() - self.started < within:
            if condition():
                return time.monotonic() - self.started
            time.sleep(0.01)
        return None

    def join(self, seconds: float) -> TickReport:
        self.thread.join(seconds)
        assert not self.thread.is_alive(), "the tick did not end"
        assert self.report is not None
        return self.report


def _ids(received: list[dict[str, Any]]) -> Counter[str]:
    return Counter(str(body["id"]) for body in received)


def test_a_slow_smtp_server_delays_no_other_users_push_and_the_tick_keeps_its_deadline(
    tmp_path: Path, sealer: LocalKeySealer, slow_smtp: SMTPFake, push_service: HTTPFake
) -> None:
    """20 email occurrences of one user ahead of another user's 2 pushes in the bucket (the same
    instants; 'u-a…' sorts first), more than the pool of 16. Before: each email send held a pool
    slot for 3 attempts x the attempt deadline (6 s here, 33 s in production) and the pushes
    waited behind 16 of them; the tick lasted as long as its slowest channel's every attempt."""
    items = SQLiteItemStore(tmp_path / "mesq.db")
    soon = datetime.now(UTC) + timedelta(seconds=2)
    due = _user_with_tasks(items, "u-a-mail", 10, soon)
    _email_channel(items, sealer, "u-a-mail", slow_smtp.port)
    _user_with_tasks(items, "u-b-push", 1, soon)
    _push_channel(items, sealer, "u-b-push", push_service.base + "/push/b")
    reach = Reach(RULES, PUBLIC, deadline=2.0, channel_deadline=3.0)
    limits = TickLimits(deadline=8.0, closing=1.0, store=0.5)  # claim window: 8 - 1 - 0.5 - 3 = 3.5 s
    ticking = _Ticking(lambda: run_due_reminder_tick(items, sealer, due + timedelta(seconds=5), backoff=(0.0,),
                                                     reach=reach, limits=limits))  # fmt: skip
    # The bound: the other user's pushes reach their endpoint within 3 s of the tick's start
    # (they start in the pool's first round; a push takes milliseconds), whatever the SMTP
    # server holds.
    pushed = ticking.when(lambda: len(push_service.received) >= 2, within=3.0)
    report = ticking.join(30)
    assert pushed is not None, f"pushes after {ticking.took:.1f} s: {len(push_service.received)}"
    # The tick ends within its deadline, every email send cut at its channel's 3 s (two rounds of
    # the pool: 16, then the other 4 claimed at ~3 s, inside the 3.5 s claim window).
    assert ticking.took < limits.deadline, ticking.took
    assert report.delivered == 2 and report.failed == 20 and report.left == 0 and report.cut == 0, report
    assert slow_smtp.held >= 16 and slow_smtp.messages == []
    (mail,) = channels.channel_records(items, "u-a-mail")
    assert mail["lastFailure"]["reason"] == "no answer within 3 s", mail["lastFailure"]


def test_one_channels_send_ends_at_its_total_deadline_whatever_its_attempts(sealer: LocalKeySealer) -> None:
    """An SMTP server that accepts the connection and never says a word: 3 attempts of 2 s each
    would take 6 s; the channel's total deadline (3 s) ends them. Bound: 3 s + 1.5 s."""
    silent = socket.create_server(("127.0.0.1", 0))  # connections wait in the backlog, never greeted
    channel = Channel(id="c-1", kind="email", url=f"smtp://127.0.0.1:{silent.getsockname()[1]}", secret="",
                      config={"security": "none", "from": "mesq@example.org", "to": "me@example.org"})  # fmt: skip
    payload = {"type": "todo.reminder", "id": "d-1", "remindAt": "2026-12-03T09:45:00Z",
               "task": {"id": "T1", "title": "Call", "due": None, "timezone": "UTC", "priority": "none"}}  # fmt: skip

    async def send() -> dict[str, Any] | None:
        async with new_client() as client:
            context = SendContext(client=client, destinations=RULES, deadline=2.0, channel_deadline=3.0)
            return await send_channel(channel, payload, context, backoff=(0.0,))

    try:
        started = time.monotonic()
        failure = anyio.run(send)
        took = time.monotonic() - started
    finally:
        silent.close()
    assert failure is not None and failure["reason"] == "no answer within 3 s" and failure["attempts"] == 2, failure
    assert 3.0 <= took < 4.5, took


def test_a_user_with_many_due_reminders_takes_turns_with_the_others(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    """100 occurrences of one user ('u-a…', first in the bucket) to a webhook that answers in
    0.5 s, a pool of 4, and another user's 2 occurrences: round robin starts the other user's
    first in the pool's first round and its second in the next. Bound: both within 2.5 s of the
    tick's start (before: behind all 100, 100 / 16 x 0.5 s = 3 s and more; and nothing bounded
    the tick)."""
    items = SQLiteItemStore(tmp_path / "mesq.db")
    soon = datetime.now(UTC) + timedelta(seconds=2)
    due = _user_with_tasks(items, "u-a-many", 50, soon)
    heavy = Receiver(delay=0.5).start()
    try:
        _webhook(items, sealer, "u-a-many", heavy)
        _user_with_tasks(items, "u-b-few", 1, soon)
        _webhook(items, sealer, "u-b-few", receiver)
        # A channel deadline 1.5 s over the webhook's 0.5 s: at 1.0 s a loaded machine timed sends
        # out, whose retries (5 then 30 minutes on) fell outside the ticks below (99 of 102 sent).
        reach = Reach(RULES, PUBLIC, deadline=2.0, channel_deadline=2.0)
        limits = TickLimits(deadline=5.0, closing=0.5, pool=4, store=0.5)  # claim window: 2 s
        at = due + timedelta(seconds=5)
        ticking = _Ticking(lambda: run_due_reminder_tick(items, sealer, at, backoff=(0.0,), reach=reach,
                                                         limits=limits))  # fmt: skip
        both = ticking.when(lambda: len(receiver.received) >= 2, within=2.5)
        first = ticking.join(30)
        assert both is not None, f"{len(receiver.received)} after {ticking.took:.1f} s"
        assert ticking.took < limits.deadline, ticking.took
        # the many were not all sent: the rest are left for the next ticks, and each is sent once
        assert first.left > 0 and first.delivered < 102, first
        moment, sent = at, first.delivered
        patient = Reach(RULES, PUBLIC, deadline=10.0, channel_deadline=10.0)  # the rest, whatever the load
        for _ in range(20):
            if sent == 102:
                break
            moment += timedelta(minutes=1)
            sent += run_due_reminder_tick(items, sealer, moment, backoff=(0.0,), reach=patient).delivered
        assert sent == 102
        assert set(_ids(heavy.received).values()) == {1} and len(heavy.received) == 100
        assert set(_ids(receiver.received).values()) == {1} and len(receiver.received) == 2
    finally:
        heavy.stop()


def test_what_a_tick_could_not_start_is_sent_by_the_next_tick_exactly_once(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    """6 occurrences, a webhook that answers in 1 s, a pool of 1 and a claim window of 1 s: the
    tick sends one or two and leaves the rest unclaimed in their bucket, 15 minutes behind the
    tick's minute (before: all were claimed at once and sent, the tick as long as they took).
    The cursor stays at their minute, so the next tick finds them and sends each once; no later
    tick (not even after a claim's lease) sends any again."""
    items = SQLiteItemStore(tmp_path / "mesq.db")
    soon = datetime.now(UTC) + timedelta(seconds=2)
    due = _user_with_tasks(items, "u-late", 3, soon)
    _webhook(items, sealer, "u-late", receiver)
    receiver.delay = 1.0
    reach = Reach(RULES, PUBLIC, deadline=2.0, channel_deadline=2.5)
    limits = TickLimits(deadline=4.5, closing=0.5, pool=1, store=0.5)  # claim window: 1 s
    at = due + timedelta(seconds=5)
    started = time.monotonic()
    first = run_due_reminder_tick(items, sealer, at, backoff=(0.0,), reach=reach, limits=limits)
    took = time.monotonic() - started
    assert took < limits.deadline, took
    assert 1 <= first.delivered <= 2 and first.left >= 1 and first.failed == 0, first
    assert len(receiver.received) == first.delivered
    receiver.delay = 0.0
    second = run_due_reminder_tick(items, sealer, at + timedelta(minutes=1), backoff=(0.0,), reach=reach)
    assert second.delivered == 6 - first.delivered and second.left == 0, second
    ids = _ids(receiver.received)
    assert len(ids) == 6 and set(ids.values()) == {1}, ids
    for later in (timedelta(minutes=2), RETRY_DELAYS[0] + timedelta(minutes=2)):
        again = run_due_reminder_tick(items, sealer, at + later, backoff=(0.0,), reach=reach)
        assert again.due == 0 and len(receiver.received) == 6, again


class _SlowStore:
    """An item store whose every call takes `latency` seconds first (a DynamoDB round trip)."""

    def __init__(self, inner: ItemStore, latency: float) -> None:
        self._inner, self._latency = inner, latency

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self._latency)
            return attribute(*args, **kwargs)

        return call


def test_a_tick_whose_reading_outlasts_the_claim_window_still_sends(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    """After a 3-hour outage a tick reads 181 minutes of buckets, one query each: at 15 ms a
    query that is 2.7 s, longer than the 2 s claim window. The window opens when the reading is
    done, so the tick sends the reminder due meanwhile (before: the window had closed while
    reading, nothing was claimed, the cursor stayed, and every later tick read the same minutes
    and claimed nothing, until the reminders were past the 24 h lookback and lost)."""
    inner = SQLiteItemStore(tmp_path / "mesq.db")
    now = datetime.now(UTC)
    run_due_reminder_tick(inner, sealer, now)  # the cursor at now; the next tick comes 3 h later
    _user_with_tasks(inner, "u-1", 1, now + timedelta(seconds=70))
    _webhook(inner, sealer, "u-1", receiver)
    reach = Reach(RULES, PUBLIC, deadline=1.0, channel_deadline=1.0)
    limits = TickLimits(deadline=4.0, closing=0.5, store=0.5)  # claim window: 4 - 0.5 - 0.5 - 1 = 2 s
    slow: Any = _SlowStore(inner, 0.015)
    report = run_due_reminder_tick(slow, sealer, now + timedelta(hours=3), reach=reach, limits=limits)
    assert report.buckets > 180 and report.delivered == 2 and report.left == 0, report
    assert len(receiver.received) == 2


class _HangingChannelWrites(_SlowStore):
    """An item store whose writes to a reminder channel's record (its last outcome) hang for
    `hold` seconds: a store call that outlasts the tick's closing."""

    def __init__(self, inner: ItemStore, hold: float) -> None:
        super().__init__(inner, 0.0)
        self._hold = hold

    def update(self, op: Any) -> Any:
        if str(op.key[1]).startswith(channels.PREFIX):
            time.sleep(self._hold)
        return self._inner.update(op)


def test_a_tick_cut_while_recording_the_channels_sends_nothing_again(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    """Two occurrences go out to a webhook; writing the channel's outcome then hangs past the
    tick's closing, so the tick is cut. The occurrences' records were written as soon as the
    sends were done, so their leases, when their minute comes, send nothing again (before: the
    claim's status and its retry entry were written after the channels', the lease still named
    every channel, and the receiver got each reminder twice)."""
    inner = SQLiteItemStore(tmp_path / "mesq.db")
    soon = datetime.now(UTC) + timedelta(seconds=2)
    due = _user_with_tasks(inner, "u-cut", 1, soon)
    _webhook(inner, sealer, "u-cut", receiver)
    reach = Reach(RULES, PUBLIC, deadline=1.0, channel_deadline=1.0)
    limits = TickLimits(deadline=3.0, closing=0.5, store=0.5)  # claim window: 3 - 0.5 - 0.5 - 1 = 1 s
    at = due + timedelta(seconds=5)
    hanging: Any = _HangingChannelWrites(inner, 4.0)
    started = time.monotonic()
    first = run_due_reminder_tick(hanging, sealer, at, backoff=(0.0,), reach=reach, limits=limits)
    took = time.monotonic() - started
    # Cut at its closing (the channel writes hang for 4 s): the sends end by 3 - 0.5 = 2.5 s.
    assert limits.deadline - limits.closing - 0.2 < took < limits.deadline, (took, first)
    # Both recorded as delivered before the cut, so neither counts as cut (sent again).
    assert first.delivered == 2 and first.cut == 0 and len(receiver.received) == 2, first
    for later in (timedelta(minutes=1), RETRY_DELAYS[0] + timedelta(minutes=1)):
        again = run_due_reminder_tick(inner, sealer, at + later, backoff=(0.0,), reach=reach)
        assert again.retried == 0, again
    ids = _ids(receiver.received)
    assert len(ids) == 2 and set(ids.values()) == {1}, ids


def test_a_channel_outcome_that_fails_to_be_written_leaves_the_others(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    """Two webhooks take a reminder; writing the first one's outcome fails once. The second's
    outcome is still written (before: the loop stopped at the first failure, and the second
    channel showed no success on the settings page, though it had the reminder)."""
    inner = SQLiteItemStore(tmp_path / "mesq.db")
    soon = datetime.now(UTC) + timedelta(seconds=2)
    task = todo_call(inner, "u-two", "create_todo_task", title="one reminder")["task"]
    todo_call(inner, "u-two", "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
              reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
    _webhook(inner, sealer, "u-two", receiver)
    _webhook(inner, sealer, "u-two", receiver)
    failing: Any = _FailingFirstChannelWrite(inner)
    report = run_due_reminder_tick(failing, sealer, soon + timedelta(seconds=5), backoff=(0.0,),
                                   reach=Reach(RULES, PUBLIC, deadline=2.0, channel_deadline=2.0))  # fmt: skip
    assert report.delivered == 1 and report.errors == 0, report
    assert failing.failed == 1 and len(receiver.received) == 2
    recorded = sorted(bool(record.get("lastSuccessAt")) for record in channels.channel_records(inner, "u-two"))
    assert recorded == [False, True], recorded  # the one write that failed, and the other's


class _FailingFirstChannelWrite(_SlowStore):
    """An item store whose first write to a reminder channel's record fails (a throttled call)."""

    def __init__(self, inner: ItemStore) -> None:
        super().__init__(inner, 0.0)
        self.failed = 0

    def update(self, op: Any) -> Any:
        if str(op.key[1]).startswith(channels.PREFIX) and not self.failed:
            self.failed += 1
            raise RuntimeError("ProvisionedThroughputExceededException")
        return self._inner.update(op)
