"""`run_due_reminder_tick(now)`: deliver every reminder that is due, each exactly once
(docs/contract.md §12). Run every minute by functions/scheduler and by `mesq serve`'s loop.

1. The buckets: from the cursor item (`REMINDERS#CURSOR` / `tick`: the last processed minute)
   up to now's minute, at most `MAX_LOOKBACK` back; each bucket is one GSI2 query of the index
   `todos/reminder_schedule.py` keeps (never a scan of users).
2. Each index entry due by now: re-read the task; if the instant still is one of its reminders,
   CLAIM the occurrence with a conditional put of `U#<user>` / `REMIND#SENT#<taskId>#<at>`
   (exists=False). Only the tick whose claim succeeds delivers, so two overlapping ticks (two
   processes, two Lambda invocations) send it once.
3. Delivery to each channel of the user (delivery.py: signed, retried with backoff), the outcome
   recorded on the channel and on the claim.
4. The entry moves to the task's next instant (conditional on it still naming this one, so a
   concurrent task write wins), or is deleted; the cursor moves to now's minute (re-reading that
   minute next time is harmless: claims deduplicate).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from ..sealing.ports import Sealer, SealingError
from ..store.paging import walk
from ..store.ports import Condition, ConditionFailed, Item, ItemStore, Update
from ..timestamps import format_timestamp, parse_timestamp
from ..todos import keys as todo_keys
from ..todos.reminder_schedule import INDEX_PREFIX, bucket, bucket_partition, index_item, instants, next_instant
from . import channels
from .delivery import BACKOFF_SECONDS, send_webhook

CURSOR_KEY = ("REMINDERS#CURSOR", "tick")
MAX_LOOKBACK = timedelta(hours=24)
FIRST_LOOKBACK = timedelta(minutes=60)
CLAIM_PREFIX = "REMIND#SENT#"
CLAIM_DAYS = 30  # claims expire (ttl) long after their minute can be re-read


@dataclass
class TickReport:
    buckets: int = 0
    due: int = 0
    delivered: int = 0
    failed: int = 0
    skipped: int = 0  # claimed by another tick, or no longer a reminder of its task
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"buckets": self.buckets, "due": self.due, "delivered": self.delivered, "failed": self.failed,
                "skipped": self.skipped}  # fmt: skip


def _minutes(start: datetime, end: datetime) -> Iterator[datetime]:
    moment = start.replace(second=0, microsecond=0)
    while moment <= end:
        yield moment
        moment += timedelta(minutes=1)


def _first_bucket(items: ItemStore, now: datetime) -> datetime:
    cursor = items.get(CURSOR_KEY)
    earliest = now - MAX_LOOKBACK
    if cursor is None:
        return now - FIRST_LOOKBACK
    last = datetime.strptime(str(cursor["bucket"]), "%Y-%m-%dT%H:%M").replace(tzinfo=UTC)
    return max(last, earliest)


def delivery_id(user_id: str, task_id: str, at: str) -> str:
    """Stable for one reminder occurrence: receivers may drop duplicates by it."""
    return hashlib.sha256(f"{user_id}\0{task_id}\0{at}".encode()).hexdigest()[:32]


def _payload(entry: Item, task: Item, now: datetime) -> dict[str, Any]:
    return {
        "type": "todo.reminder",
        "id": delivery_id(str(entry["userId"]), str(entry["taskId"]), str(entry["at"])),
        "remindAt": entry["at"],
        "sentAt": format_timestamp(now),
        "task": {name: task.get(name) for name in ("id", "title", "due", "timezone", "spaceId")},
    }


def _claim(items: ItemStore, entry: Item, now: datetime) -> Item | None:
    """The claim item when this tick won the occurrence, else None."""
    claim: Item = {
        "pk": entry["pk"],
        "sk": f"{CLAIM_PREFIX}{entry['taskId']}#{entry['at']}",
        "status": "claimed",
        "claimedAt": format_timestamp(now),
        "ttl": int((now + timedelta(days=CLAIM_DAYS)).timestamp()),
    }
    try:
        items.put(claim, Condition(exists=False))
    except ConditionFailed:
        return None
    return claim


def _advance(items: ItemStore, entry: Item, task: Item | None, at: datetime) -> Item | None:
    """Point the entry at the task's next instant; the new entry, or None (deleted, or the task
    was written meanwhile and re-indexed itself)."""
    following = next_instant(task, at)
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


def deliver(
    items: ItemStore,
    sealer: Sealer,
    user_id: str,
    payload: dict[str, Any],
    *,
    client: httpx.Client,
    backoff: tuple[float, ...] = BACKOFF_SECONDS,
    channel_id: str | None = None,
) -> list[str]:
    """Send `payload` to every channel of the user (or only to `channel_id`); the failure
    reasons (empty = all delivered)."""
    failures: list[str] = []
    for record in channels.channel_records(items, user_id):
        if channel_id is not None and record["id"] != channel_id:
            continue
        now = format_timestamp(datetime.now(UTC))
        try:
            channel = channels.opened(sealer, user_id, record)
        except SealingError:
            failure: dict[str, Any] | None = {"at": now, "attempts": 0, "reason": "secret unreadable"}
        else:
            failure = send_webhook(channel, payload, client=client, backoff=backoff)
        channels.record_outcome(items, user_id, str(record["id"]), failure, now)
        if failure is not None:
            failures.append(f"{record['id']}: {failure['reason']}")
    return failures


def run_due_reminder_tick(
    items: ItemStore,
    sealer: Sealer,
    now: datetime,
    *,
    client: httpx.Client | None = None,
    backoff: tuple[float, ...] = BACKOFF_SECONDS,
    on_claimed: Callable[[Item], None] | None = None,
) -> TickReport:
    """One tick at `now` (aware). `on_claimed` lets tests widen the race window."""
    report = TickReport()
    own_client = client is None
    http = client or httpx.Client(follow_redirects=False)
    try:
        for minute in _minutes(_first_bucket(items, now), now):
            report.buckets += 1
            for entry in walk(items, bucket_partition(minute), index="gsi2"):
                current: Item | None = entry
                while current is not None and str(current.get("sk", "")).startswith(INDEX_PREFIX):
                    # a late tick finds several instants of one task due: handle each in turn
                    current = _handle(items, sealer, current, now, http, backoff, on_claimed, report)
        items.put({"pk": CURSOR_KEY[0], "sk": CURSOR_KEY[1], "bucket": bucket(now)})
    finally:
        if own_client:
            http.close()
    return report


def _handle(
    items: ItemStore,
    sealer: Sealer,
    entry: Item,
    now: datetime,
    http: httpx.Client,
    backoff: tuple[float, ...],
    on_claimed: Callable[[Item], None] | None,
    report: TickReport,
) -> Item | None:
    """Deliver one index entry if due; the entry's next form when that is due too, else None."""
    at = parse_timestamp(str(entry["at"]), "at")
    if at > now:
        return None
    report.due += 1
    user_id, task_id = str(entry["userId"]), str(entry["taskId"])
    stored = items.get(todo_keys.task_key(user_id, task_id))
    task = todo_keys.record_of(stored) if stored is not None else None
    claim = _claim(items, entry, now) if task is not None and at in instants(task) else None
    if claim is None or task is None:
        report.skipped += 1
        return _due(_advance(items, entry, task, at), now)
    if on_claimed is not None:
        on_claimed(entry)
    failures = deliver(items, sealer, user_id, _payload(entry, task, now), client=http, backoff=backoff)
    items.update(
        Update(
            (str(claim["pk"]), str(claim["sk"])),
            set={"status": "failed" if failures else "delivered", "failures": failures},
        )
    )
    if failures:
        report.failed += 1
        report.failures += failures
    else:
        report.delivered += 1
    return _due(_advance(items, entry, task, at), now)


def _due(entry: Item | None, now: datetime) -> Item | None:
    return entry if entry is not None and parse_timestamp(str(entry["at"]), "at") <= now else None
