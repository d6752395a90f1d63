"""`run_due_reminder_tick(now)`: deliver every reminder that is due, each exactly once
(docs/contract.md §12). Run every minute by functions/scheduler and by `mesq serve`'s loop.

1. The buckets: from the cursor item (`REMINDERS#CURSOR` / `tick`: the last processed minute)
   up to now's minute, at most `MAX_LOOKBACK` back; each bucket is one GSI2 query of the index
   `todos/reminder_schedule.py` keeps (never a scan of users). A cursor without the index's
   `INDEX_VERSION` was written while a date-only due's reminders were placed in UTC: that tick
   first moves them to each listed user's zone (`_place_in_users_zones`, once).
2. Each index entry due by now: re-read the task; if the instant still is one of its reminders
   (a date-only due read in the user's zone, read once a tick per user),
   CLAIM the occurrence with a conditional put of `U#<user>` / `REMIND#SENT#<taskId>#<at>`
   (exists=False). Only the tick whose claim succeeds delivers, so two overlapping ticks (two
   processes, two Lambda invocations) send it once.
   The claim is written in one transaction with a RETRY entry (`REMIND#RETRY#<taskId>#<at>`, in
   the bucket `RETRY_DELAYS[0]` ahead): a lease. If the process dies between the claim and the
   send, the retry entry still fires, so an occurrence is delivered at least once, never lost
   (receivers drop repeats by the stable `id`).
3. Delivery to each channel of the user (`mesq/adapters/reminders/delivery.py`: signed,
   retried with backoff, each attempt under its own total deadline and all of one channel's
   attempts under the channel's, `transport.CHANNEL_DEADLINE_SECONDS`), the outcome recorded on
   the claim (first: one transaction with the retry entry, as soon as the sends are done) and
   then on each channel. All delivered: the retry entry goes. A channel failed: the
   retry entry stays, and when its minute comes a later tick sends again to the channels that
   failed (only those), moving the entry along `RETRY_DELAYS`; after the last round the failure
   is final. Each round is claimed by a conditional write of the entry's `round`, so two ticks
   never send one round twice.
4. The entry moves to the task's next instant (conditional on it still naming this one, so a
   concurrent task write wins), or is deleted; the cursor moves to now's minute (re-reading that
   minute next time is harmless: claims deduplicate), or to the earliest minute of an entry the
   tick left (below).

The buckets are a global partition: an entry that is not one the todo writes or the tick
write (`well_formed`: its key is the index or retry key of the user and task it names, its
instants parse; an earlier archive import could plant others) is logged, counted as
`malformed` and passed: it never counts as an error, so it never holds the cursor.

A tick ends within `TickLimits.deadline` (50 s, below the schedule's minute) and shares itself
out fairly:
- a pool of `TickLimits.pool` slots (`transport.MAX_CONCURRENT_SENDS`, 16) takes the due
  entries one user at a time in turn (`_Turns`, round robin): a user with hundreds of due
  reminders gets one turn a round like any other, so nobody's reminders wait behind theirs;
- a slot claims an entry and sends it, the channels of one occurrence at once, so one slow
  destination holds only its own slot, for at most the channel's deadline (20 s);
- slots claim only within the claim window (deadline - closing - channel deadline = 25 s), so
  every send ends before the tick's last `closing` seconds (5 s, its writes). An entry not taken
  by then is not claimed and stays where it is, and the cursor stays at its minute: the next
  tick sends it, once (nothing was written for it). A send still running at the closing (only a
  store call that hangs could outlast the window) is cut; its claim's lease sends it again, as
  after a crash, to the channels not yet recorded as delivered: a cut while the channels'
  outcomes are written (after the claim's record) sends nothing again.
The tick runs on an event loop of its own (`anyio.run`; `mesq serve` calls it in a worker
thread, the scheduler function directly): its store calls are quick and run inline on that
loop, while `deliver`, which the settings page's test send shares with the server's loop, moves
its store calls to worker threads.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections import deque
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import httpx
from aws_lambda_powertools import Logger

from ..adapters.reminders.delivery import new_client, send_all
from ..auth.user_zone import configured_zone
from ..auth.users import get_user, list_users, preferred_language
from ..kernel.concurrency import run_sync
from ..kernel.errors import ValidationError
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.ports.sealer import Sealer, SealingError
from ..kernel.ports.storage import Condition, ConditionFailed, Delete, Item, ItemStore, Put, Update
from ..kernel.timestamps import format_timestamp, parse_timestamp
from ..reminders import channels
from ..reminders.transport import ATTEMPTS, BACKOFF_SECONDS, MAX_CONCURRENT_SENDS, Reach, SendContext
from ..reminders.vapid import instance_vapid
from ..store.paging import walk
from ..todos import keys as todo_keys
from ..todos.reminder_schedule import INDEX_PREFIX, bucket, bucket_partition, index_item, instants, next_instant
from ..todos.reminder_zone import rezone

logger = Logger(child=True)

CURSOR_KEY = ("REMINDERS#CURSOR", "tick")
#: What the index's instants follow, kept on the cursor (`index`): 2, a date-only due's reminders
#: start its day in the user's zone (todos/reminder_zone.py); a cursor without it was written
#: while they started it in UTC, so the first tick of version 2 moves them (`_place_in_users_zones`).
INDEX_VERSION = 2
MAX_LOOKBACK = timedelta(hours=24)
FIRST_LOOKBACK = timedelta(minutes=60)
CLAIM_PREFIX = "REMIND#SENT#"
DEFAULT_ZONE = "UTC"  # a task without a zone, of a user without a todo default (as get_todo_task)
CLAIM_DAYS = 30  # claims expire (ttl) long after their minute can be re-read
RETRY_PREFIX = "REMIND#RETRY#"
#: When an occurrence is tried again after the first round: each round is ATTEMPTS sends to every
#: channel that has not yet taken it. The first delay is also the lease of a claim (a tick that
#: dies mid-send is covered by it), so it must exceed one round's longest send.
RETRY_DELAYS = (timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2))
#: How long one tick may take in all, from its start: below the schedule's minute, so a tick has
#: ended before the next begins (EventBridge's next invocation, `mesq serve`'s next loop).
TICK_DEADLINE_SECONDS = 50.0
#: A tick's last seconds, kept for its writes after the sends (the outcomes, the cursor).
CLOSING_SECONDS = 5.0
#: Kept in every claim beside its channel's deadline, for the store calls around the send (the
#: user's channels and keys before it, the outcome after it): a send claimed at the window's last
#: moment still records its outcome before the sends are cut.
STORE_SECONDS = 5.0


@dataclass(frozen=True)
class TickLimits:
    """How long a tick's sending may take (`deadline`, counted from when its due entries are
    read, so a long catch-up read never leaves a tick no time to send), the seconds at its end
    kept for its writes after the sends (`closing`), the seconds kept in each send for its store
    calls (`store`), and how many occurrences it sends at once (`pool`). A tick claims an
    occurrence only while a whole channel send and its store calls still fit before its closing
    (the claim window); what it has not claimed by then stays due, for the next tick."""

    deadline: float = TICK_DEADLINE_SECONDS
    closing: float = CLOSING_SECONDS
    pool: int = MAX_CONCURRENT_SENDS
    store: float = STORE_SECONDS

    def claim_window(self, channel_deadline: float) -> float:
        window = self.deadline - self.closing - self.store - channel_deadline
        if window <= 0 or self.pool < 1:
            raise ValueError("a tick's deadline must leave room for one channel's send and its closing")
        return window


@dataclass
class TickReport:
    buckets: int = 0
    due: int = 0
    delivered: int = 0
    failed: int = 0
    retried: int = 0  # rounds after the first (a failed channel, or a tick that died mid-send)
    skipped: int = 0  # claimed by another tick, or no longer a reminder of its task
    errors: int = 0  # entries that failed unexpectedly (logged); the cursor stays for them
    malformed: int = 0  # entries no write of ours makes (logged and passed; the cursor moves on)
    left: int = 0  # entries not taken before the claim window closed: due for the next tick
    cut: int = 0  # occurrences cut at the deadline before their round was recorded: their lease sends them again
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"buckets": self.buckets, "due": self.due, "delivered": self.delivered, "failed": self.failed,
                "retried": self.retried, "skipped": self.skipped, "errors": self.errors,
                "malformed": self.malformed, "left": self.left, "cut": self.cut}  # fmt: skip


def _minutes(start: datetime, end: datetime) -> Iterator[datetime]:
    moment = start.replace(second=0, microsecond=0)
    while moment <= end:
        yield moment
        moment += timedelta(minutes=1)


def _first_bucket(cursor: Item | None, now: datetime) -> datetime:
    earliest = now - MAX_LOOKBACK
    if cursor is None:
        return now - FIRST_LOOKBACK
    last = datetime.strptime(str(cursor["bucket"]), "%Y-%m-%dT%H:%M").replace(tzinfo=UTC)
    return max(last, earliest)


def delivery_id(user_id: str, task_id: str, at: str) -> str:
    """Stable for one reminder occurrence: receivers may drop duplicates by it."""
    return hashlib.sha256(f"{user_id}\0{task_id}\0{at}".encode()).hexdigest()[:32]


def _payload(entry: Item, task: Item, now: datetime, default_zone: str | None = None) -> dict[str, Any]:
    """`task.timezone` is the effective one (the task's, else the user's todo default
    `default_zone`, else UTC), as get_todo_task reports it: every channel shows the due there."""
    shown = {name: task.get(name) for name in ("id", "title", "due", "timezone", "spaceId", "priority")}
    shown["timezone"] = shown["timezone"] or default_zone or DEFAULT_ZONE
    return {
        "type": "todo.reminder",
        "id": delivery_id(str(entry["userId"]), str(entry["taskId"]), str(entry["at"])),
        "remindAt": entry["at"],
        "sentAt": format_timestamp(now),
        "task": shown,
    }


def retry_item(entry: Item, round_: int, moment: datetime, channel_ids: list[str] | None) -> Item:
    """The entry that brings an occurrence back at `moment` for round `round_` (1..). `channels`:
    the ids still to deliver to; None = every channel (the first round never finished)."""
    user_id, task_id, at = str(entry["userId"]), str(entry["taskId"]), str(entry["at"])
    when = format_timestamp(moment)
    item: Item = {
        "pk": user_partition(user_id),
        "sk": f"{RETRY_PREFIX}{task_id}#{at}",
        "gsi2pk": bucket_partition(moment),
        "gsi2sk": f"{when}#{user_id}#{task_id}#retry",
        "userId": user_id,
        "taskId": task_id,
        "at": at,
        "retryAt": when,
        "round": round_,
    }
    if channel_ids is not None:
        item["channels"] = channel_ids
    return item


def _claim(items: ItemStore, entry: Item, now: datetime) -> Item | None:
    """The claim item when this tick won the occurrence, else None. Written with its lease: the
    retry entry of round 1 (see the module docstring)."""
    claim: Item = {
        "pk": entry["pk"],
        "sk": f"{CLAIM_PREFIX}{entry['taskId']}#{entry['at']}",
        "status": "claimed",
        "claimedAt": format_timestamp(now),
        "ttl": int((now + timedelta(days=CLAIM_DAYS)).timestamp()),
    }
    lease = retry_item(entry, 1, now + RETRY_DELAYS[0], None)
    try:
        items.transact([Put(claim, Condition(exists=False)), Put(lease)])
    except ConditionFailed:
        return None
    return claim


def _advance(items: ItemStore, entry: Item, task: Item | None, at: datetime, zone: str | None) -> Item | None:
    """Point the entry at the task's next instant (`zone`: the user's); the new entry, or None
    (deleted, or the task was written meanwhile and re-indexed itself)."""
    following = next_instant(task, at, zone)
    guard = Condition(equals={"at": entry["at"]})
    key = (str(entry["pk"]), str(entry["sk"]))
    try:
        if following is None:
            items.delete(key, guard)
            return None
        moved = index_item(str(entry["userId"]), str(entry["taskId"]), following)
        items.put(moved, guard)
        return moved
    except ConditionFailed:
        return None


def _opened(items: ItemStore, sealer: Sealer, user_id: str, channel_ids: Collection[str] | None
            ) -> tuple[list[tuple[str, channels.Channel]], list[str]]:  # fmt: skip
    """The user's channels (those in `channel_ids`) opened; and the ids whose secret is unreadable."""
    ready: list[tuple[str, channels.Channel]] = []
    unreadable: list[str] = []
    for record in channels.channel_records(items, user_id):
        if channel_ids is not None and record["id"] not in channel_ids:
            continue
        try:
            ready.append((str(record["id"]), channels.opened(sealer, user_id, record)))
        except SealingError:
            unreadable.append(str(record["id"]))
    return ready, unreadable


def _record(items: ItemStore, user_id: str, outcomes: dict[str, dict[str, Any] | None]) -> None:
    """Each channel's outcome, each on its own: one write that fails (logged) leaves the others'."""
    now = format_timestamp(datetime.now(UTC))
    for channel_id, failure in outcomes.items():
        try:
            channels.record_outcome(items, user_id, channel_id, failure, now)
        except Exception:
            logger.exception("a reminder channel's outcome was not recorded", extra={"channelId": channel_id})


async def deliver(
    items: ItemStore,
    sealer: Sealer,
    user_id: str,
    payload: dict[str, Any],
    *,
    client: httpx.AsyncClient,
    attempts: int = ATTEMPTS,
    backoff: tuple[float, ...] = BACKOFF_SECONDS,
    channel_ids: Collection[str] | None = None,
    reach: Reach | None = None,
    language: str = "",
    on_sent: Callable[[dict[str, str]], None] | None = None,
) -> dict[str, str]:
    """Send `payload` to every channel of the user (or only to those in `channel_ids`), all at
    once, in the user's language (`language`: the page's, for a test send); the failure reason
    per channel id (empty = all delivered). `on_sent` gets those failures as soon as the sends
    are done, before each channel's outcome is written: a tick records the occurrence there, so
    a tick cut while the channels are written sends nothing again to a channel that took it."""
    reach = reach or Reach()
    ready, unreadable = await run_sync(_opened, items, sealer, user_id, channel_ids)
    spoken = preferred_language(await run_sync(get_user, items, user_id), language)
    vapid = None
    if any(channel.kind == "webpush" for _, channel in ready):
        vapid = await run_sync(instance_vapid, items, sealer, reach.public_url)
    context = SendContext(client=client, destinations=reach.destinations, public_url=reach.public_url, vapid=vapid,
                          deadline=reach.deadline, channel_deadline=reach.channel_deadline,
                          language=spoken)  # fmt: skip
    outcomes = await send_all(ready, payload, client=client, attempts=attempts, backoff=backoff, context=context)
    for channel_id in unreadable:
        unreadable_text = Text("the channel's secret cannot be opened; add the channel again")
        outcomes[channel_id] = {"at": format_timestamp(datetime.now(UTC)), "attempts": 0,
                                "reason": str(unreadable_text), "said": unreadable_text.stored()}  # fmt: skip
    failures = {channel_id: str(failure["reason"]) for channel_id, failure in outcomes.items() if failure is not None}
    if on_sent is not None:
        on_sent(failures)
    await run_sync(_record, items, user_id, outcomes)
    return failures


@dataclass
class _Tick:
    """What one tick's steps share: the store, the client, the report, and when the claim window
    closes (`claim_until`, on the loop's clock)."""

    items: ItemStore
    sealer: Sealer
    now: datetime
    http: httpx.AsyncClient
    backoff: tuple[float, ...]
    report: TickReport
    on_claimed: Callable[[Item], None] | None
    reach: Reach
    claim_until: float
    #: The users' zones read this tick (user id -> zone, None when unset): one settings read each.
    zones: dict[str, str | None] = field(default_factory=dict)
    #: The occurrences whose round this tick recorded (claim keys): a cut after it sends nothing again.
    recorded: set[tuple[str, str]] = field(default_factory=set)

    def zone_of(self, user_id: str) -> str | None:
        """The user's zone (auth/user_zone.py): where a date-only due without a zone of its own
        starts its day, and where every channel shows the due."""
        if user_id not in self.zones:
            self.zones[user_id] = configured_zone(self.items, user_id)
        return self.zones[user_id]

    def task_of(self, entry: Item) -> Item | None:
        stored = self.items.get(todo_keys.task_key(str(entry["userId"]), str(entry["taskId"])))
        return todo_keys.record_of(stored) if stored is not None else None

    async def send(self, entry: Item, task: Item, round_: int, channel_ids: Collection[str] | None = None) -> None:
        """Round `round_` of the occurrence: sent, then recorded (`_record_round`) before the
        channels' outcomes are written."""
        payload = _payload(entry, task, self.now, self.zone_of(str(entry["userId"])))
        recorded = functools.partial(_record_round, self, entry, round_)
        await deliver(self.items, self.sealer, str(entry["userId"]), payload, client=self.http, backoff=self.backoff,
                      channel_ids=channel_ids, reach=self.reach, on_sent=recorded)  # fmt: skip


class _Turns:
    """The due entries, each with the minute it was read from, handed out one user at a time in
    turn (round robin; users in the order of their earliest entry, each user's entries in the
    order read): a user with hundreds of due reminders gets one turn a round like any other, so
    every other user's next reminder starts within one round of the pool."""

    def __init__(self) -> None:
        self._queues: dict[str, deque[tuple[datetime, Item]]] = {}  # insertion order = turn order

    def add(self, minute: datetime, entry: Item) -> None:
        self._queues.setdefault(str(entry.get("userId")), deque()).append((minute, entry))

    def take(self) -> tuple[datetime, Item] | None:
        if not self._queues:
            return None
        user = next(iter(self._queues))
        queue = self._queues.pop(user)
        taken = queue.popleft()
        if queue:
            self._queues[user] = queue  # back of the line
        return taken

    def left(self) -> list[datetime]:
        """The minutes of the entries never taken."""
        return [minute for queue in self._queues.values() for minute, _ in queue]


def run_due_reminder_tick(
    items: ItemStore,
    sealer: Sealer,
    now: datetime,
    *,
    backoff: tuple[float, ...] = BACKOFF_SECONDS,
    on_claimed: Callable[[Item], None] | None = None,
    reach: Reach | None = None,
    limits: TickLimits | None = None,
) -> TickReport:
    """One tick at `now` (aware), on an event loop of its own: it reads the due entries, then
    sends for at most `limits.deadline` seconds. `on_claimed` lets tests widen the race window."""
    run = functools.partial(_run_tick, items, sealer, now, backoff=backoff, on_claimed=on_claimed,
                            reach=reach or Reach(), limits=limits or TickLimits())  # fmt: skip
    try:
        return anyio.run(run)
    except BaseExceptionGroup as group:  # only SystemExit and the like escape an entry: the process ends
        raise group.exceptions[0] from None


async def _run_tick(
    items: ItemStore,
    sealer: Sealer,
    now: datetime,
    *,
    backoff: tuple[float, ...],
    on_claimed: Callable[[Item], None] | None,
    reach: Reach,
    limits: TickLimits,
) -> TickReport:
    window = limits.claim_window(reach.channel_deadline)  # fails fast on limits that leave none
    report = TickReport()
    cursor = items.get(CURSOR_KEY)
    placed = (cursor or {}).get("index") == INDEX_VERSION or _place_in_users_zones(items, now)
    turns = _Turns()
    for minute, entry in _due_entries(items, now, report, cursor):
        turns.add(minute, entry)
    # The deadline counts from here, not from the tick's start: reading many minutes after an
    # outage (one query each) must not eat the claim window, or every tick would read and claim
    # nothing, forever.
    started = anyio.current_time()
    claim_until = started + window
    # A tick with nothing due opens no client: the first one's TLS context alone is ~18 ms of CPU,
    # and the first tick runs just as `mesq serve` turns ready, beside its first requests.
    if turns.left():
        async with new_client() as http:
            tick = _Tick(items, sealer, now, http, backoff, report, on_claimed, reach, claim_until)
            # The sends end by the closing (each claimed within the window, each channel within
            # its deadline, its store calls within `store`); this bound only stops a send that
            # outlives all three (a store call that hangs): its claim's lease sends it again, as
            # after a crash.
            with anyio.move_on_after(started + limits.deadline - limits.closing - anyio.current_time()):
                async with anyio.create_task_group() as group:
                    for _ in range(limits.pool):
                        group.start_soon(_work, tick, turns)
    left = turns.left()
    report.left = len(left)
    if left:
        logger.warning("reminder tick left due entries for the next tick", extra={"left": len(left)})
    if not report.errors:  # else the next tick reads these minutes again (claims deduplicate)
        # what was left is read again next time: the cursor stays at its earliest minute
        version = {"index": INDEX_VERSION} if placed else {}
        items.put({"pk": CURSOR_KEY[0], "sk": CURSOR_KEY[1], "bucket": bucket(min([now, *left])), **version})
    return report


async def _work(tick: _Tick, turns: _Turns) -> None:
    """One slot of the pool: take the next user's next entry and carry it out (claim, send,
    record), while the claim window is open. An unexpected failure is logged and counted (the
    cursor then stays), never allowed to stop the other deliveries."""
    while anyio.current_time() < tick.claim_until and (taken := turns.take()) is not None:
        minute, entry = taken
        try:
            await _entry(tick, entry, turns, minute)
        except anyio.get_cancelled_exc_class():
            if well_formed(entry) and _occurrence_keys(entry)[0] not in tick.recorded:
                tick.report.cut += 1  # its lease sends it again (else it was recorded: delivered or retrying)
            raise
        except Exception:
            logger.exception("reminder delivery step failed")
            tick.report.errors += 1


def _place_in_users_zones(items: ItemStore, now: datetime) -> bool:
    """Once, the index items written before a date-only due's reminders followed the user's zone
    (they were placed in UTC) moved to it: for every listed user with a zone,
    `reminder_zone.rezone` with its catch-up (a reminder whose new instant has passed while its
    old one had not come is sent by this tick, late rather than never). Whether every user was
    done (else the next tick tries again: moving is idempotent)."""
    done = True
    for user in list_users(items):
        try:
            zone = configured_zone(items, user["id"])
            if zone is not None:
                rezone(items, user["id"], zone, now, catch_up=True)
        except Exception:
            logger.exception("moving a user's reminders to their zone failed", extra={"user": user["id"]})
            done = False
    return done


def _due_entries(items: ItemStore, now: datetime, report: TickReport, cursor: Item | None
                 ) -> Iterator[tuple[datetime, Item]]:  # fmt: skip
    """The bucket entries of every minute from the cursor to `now`, each with its minute."""
    for minute in _minutes(_first_bucket(cursor, now), now):
        report.buckets += 1
        for entry in walk(items, bucket_partition(minute), index="gsi2"):
            yield minute, entry


def well_formed(entry: Item) -> bool:
    """Whether a bucket entry is one the todo writes or the tick wrote: its key is the index
    (or retry) key of the user and task it names, and its instants parse. The buckets are a
    global partition: anything else (an entry an old import planted, `mesq repair-imports`)
    is passed over, never allowed to stop the tick or hold its cursor."""
    user_id, task_id, at = entry.get("userId"), entry.get("taskId"), entry.get("at")
    if not all(isinstance(value, str) and value for value in (user_id, task_id, at)):
        return False
    sk = str(entry.get("sk", ""))
    expected = (f"{INDEX_PREFIX}{task_id}",) if not sk.startswith(RETRY_PREFIX) else (f"{RETRY_PREFIX}{task_id}#{at}",)
    if entry.get("pk") != user_partition(str(user_id)) or sk not in expected:
        return False
    try:
        parse_timestamp(str(at), "at")
        if sk.startswith(RETRY_PREFIX):
            parse_timestamp(str(entry.get("retryAt")), "retryAt")
            int(entry["round"])
    except (ValidationError, KeyError, TypeError, ValueError):
        return False
    return True


async def _entry(tick: _Tick, entry: Item, turns: _Turns, minute: datetime) -> None:
    """Carry out one bucket entry read from `minute`. A late tick finds several instants of one
    task due: the next one goes back into `turns` (its owner's next turn) before this one is sent."""
    if not well_formed(entry):
        logger.warning("skipped a malformed reminder index entry", extra={"sk": str(entry.get("sk"))[:80]})
        tick.report.malformed += 1
        return
    if str(entry.get("sk", "")).startswith(RETRY_PREFIX):
        await _retry(tick, entry)
        return
    task, following = _handle(tick, entry)
    if following is not None:  # it sits in its own instant's bucket (this one may be a later one)
        moved_to = parse_timestamp(str(following["at"]), "at").replace(second=0, microsecond=0)
        turns.add(min(minute, moved_to), following)
    if task is not None:
        await tick.send(entry, task, 0)


def _handle(tick: _Tick, entry: Item) -> tuple[Item | None, Item | None]:
    """Claim one index entry if due: its task when this tick won it (to be sent), and the entry's
    next form when that is due too. The entry moves on before the send: the claim's lease
    covers it."""
    at = parse_timestamp(str(entry["at"]), "at")
    if at > tick.now:
        return None, None
    tick.report.due += 1
    task, zone = tick.task_of(entry), tick.zone_of(str(entry["userId"]))
    claim = _claim(tick.items, entry, tick.now) if task is not None and at in instants(task, zone) else None
    if claim is None or task is None:
        tick.report.skipped += 1
        return None, _due(_advance(tick.items, entry, task, at, zone), tick.now)
    if tick.on_claimed is not None:
        tick.on_claimed(entry)
    return task, _due(_advance(tick.items, entry, task, at, zone), tick.now)


def _record_round(tick: _Tick, entry: Item, round_: int, failures: dict[str, str]) -> None:
    """After round `round_` of an occurrence: the claim's status, and the retry entry kept for
    the channels that failed (moved to the next delay) or removed."""
    claim_key, retry_key = _occurrence_keys(entry)
    last = round_ >= len(RETRY_DELAYS)
    status = "delivered" if not failures else ("failed" if last else "retrying")
    follow_up: Put | Delete
    if failures and not last:
        follow_up = Put(retry_item(entry, round_ + 1, tick.now + RETRY_DELAYS[round_], sorted(failures)))
    else:
        follow_up = Delete(retry_key)
    claim = Update(claim_key, set={"status": status, "failures": [f"{c}: {r}" for c, r in failures.items()],
                                   "rounds": round_ + 1})  # fmt: skip
    tick.items.transact([claim, follow_up])
    tick.recorded.add(claim_key)
    if failures:
        tick.report.failed += 1
        tick.report.failures += [f"{channel_id}: {reason}" for channel_id, reason in failures.items()]
    else:
        tick.report.delivered += 1


def _occurrence_keys(entry: Item) -> tuple[tuple[str, str], tuple[str, str]]:
    """The claim's and the retry entry's keys of the occurrence `entry` names."""
    partition, occurrence = user_partition(str(entry["userId"])), f"{entry['taskId']}#{entry['at']}"
    return (partition, CLAIM_PREFIX + occurrence), (partition, RETRY_PREFIX + occurrence)


async def _retry(tick: _Tick, entry: Item) -> None:
    """A retry entry whose minute has come: send the occurrence again to the channels that have
    not taken it, if its task still has that reminder; the round is claimed first."""
    if parse_timestamp(str(entry["retryAt"]), "retryAt") > tick.now:
        return
    round_ = int(entry["round"])
    claim_key, key = _occurrence_keys(entry)
    guard = Condition(equals={"round": round_})
    task, zone = tick.task_of(entry), tick.zone_of(str(entry["userId"]))
    if task is None or parse_timestamp(str(entry["at"]), "at") not in instants(task, zone):
        # deleted, done, or its reminders changed
        dropped = Update(claim_key, set={"status": "dropped"}, condition=Condition(exists=True))
        with contextlib.suppress(ConditionFailed):  # another tick dropped it first
            tick.items.transact([Delete(key, guard), dropped])
        tick.report.skipped += 1
        return
    # Claim the round: move the entry to the next round's lease (or remove it after the last),
    # conditional on the round this tick read. The loser of a race sends nothing.
    try:
        if round_ < len(RETRY_DELAYS):
            lease = retry_item(entry, round_ + 1, tick.now + RETRY_DELAYS[round_], entry.get("channels"))
            tick.items.put(lease, guard)
        else:
            tick.items.delete(key, guard)
    except ConditionFailed:
        tick.report.skipped += 1
        return
    tick.report.due += 1
    tick.report.retried += 1
    only = entry.get("channels")
    await tick.send(entry, task, round_, None if only is None else set(only))


def _due(entry: Item | None, now: datetime) -> Item | None:
    return entry if entry is not None and parse_timestamp(str(entry["at"]), "at") <= now else None
