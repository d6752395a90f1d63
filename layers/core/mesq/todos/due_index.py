"""The due/priority/status index of tasks: which tasks a narrowed `query_todos` must look at,
and the backfill that puts boards written before the index into it.

The index is GSI1 on the task records themselves (`keys.due_partition` / `keys.due_day`, set by
`keys.stored` on every write), so it is written in the task's own Put: no extra transaction op,
never out of step with the record, nothing a write path can forget. A query reads, per status
and priority it asks for, one GSI1 range of days (`day_range`: one day wider at the start and two
at the end than the bounds' UTC dates, because a date-only due's instant depends on a zone), keys
only (SQLite then answers from its index alone). The sort key's cover (`keys.due_cover`: the
parent, column, space, due, zone and updatedAt of the task) is what the filter and the order need
besides the partition's status and priority, so `views/indexed.py` reads by key only the page's
records, the parents of the subtasks it found (a subtask lives or dies with its parent, whose
column may be archived) and, for a tags or text filter, every candidate (what it matches on is
not in the key). The pure `views/query.py` filters that superset exactly, so the answer is the
snapshot scan's.

Boards written before the index: their tasks carry no GSI1 keys until rewritten. The marker
item `U#<user>` / `TODOIX#DUE` says every task of the board is in the index; `ensure_indexed`
(called by the first narrowed `query_todos` of a board, at most LAZY_REWRITES task rewrites per
request, answering from the snapshot until it is done; and by `mesq todos index` for every user
ahead of time, without a limit) backfills when it is missing: every task record whose GSI1 keys are not
what `keys.stored` would write gets an Update of just those keys, conditioned on the revision it
was read at (a record changed meanwhile was rewritten by a write, which set its keys itself), and
then the marker is put. Re-running it rewrites nothing (every key already matches). An account
import gives every task the keys of `keys.stored` itself (archive/records.py), so it keeps the
marker.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from ..kernel.keys import user_partition
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Condition, Item, ItemStore, Update
from ..kernel.timestamps import now_timestamp
from ..store.each import write_each
from ..store.paging import walk
from .keys import (
    DUE_INDEX,
    KIND_PREFIX,
    UNDATED,
    covered_record,
    due_keys_of,
    due_partition,
    prefix_range,
    record_of,
    task_key,
)
from .model import PRIORITIES

MARKER_SK = "TODOIX#DUE"
#: The marker's version: a change of what the index holds bumps it, so boards are backfilled again
#: (2: the sort key's cover, `keys.due_cover`; boards marked 1 hold `<day>#<id>` keys).
VERSION = 2
#: Task records one query request may give their keys (10 transactions): past that the request
#: answers from the snapshot and leaves the rest to the next one (a Lambda's time is bounded).
LAZY_REWRITES = 1000


# -- reading -----------------------------------------------------------------------------------


def day_range(after: datetime | None, before: datetime | None) -> tuple[str | None, str | None]:
    """The sort-key range [start, end) holding every task whose due can fall in [after, before):
    a datetime due's day is its UTC date; a date-only due D starts between D-1 10:00 and D 12:00
    UTC (zones run from -12 to +14 hours), so its UTC date is D-1 or D and D lies in
    [date(after), date(before) + 1]. None: that side is open (an end of None still stops before
    UNDATED, which sorts after every date)."""
    start = after.astimezone(UTC).date().isoformat() if after is not None else None
    if before is None:
        return start, UNDATED
    try:
        end = (before.astimezone(UTC).date() + timedelta(days=2)).isoformat()
    except OverflowError:
        end = UNDATED
    return start, end


def entries(
    items: ItemStore,
    user_id: str,
    *,
    statuses: Iterable[bool],
    priorities: Iterable[str] | None,
    days: tuple[str | None, str | None] | None,
) -> list[tuple[str, Item | None]]:
    """(id, covered record) of the live tasks in the index partitions of `statuses` (done flags)
    x `priorities` (None: every priority), within `days` (None: dated or not). The covered record
    (`keys.covered_record`) is what the entry's keys say of the task; None when they say nothing
    (a cover too long for a sort key, or a key written before covers)."""
    found: list[tuple[str, Item | None]] = []
    start, end = days if days is not None else (None, None)
    for done in statuses:
        for priority in priorities if priorities is not None else PRIORITIES:
            partition = due_partition(user_id, done, priority)
            for entry in walk(items, partition, index=DUE_INDEX, start=start, end=end, keys_only=True):
                ident = str(entry["sk"]).removeprefix(KIND_PREFIX["task"])
                found.append((ident, covered_record(ident, done, priority, str(entry["gsi1sk"]))))
    return found


def tasks_by_id(items: ItemStore, user_id: str, ids: Sequence[str]) -> list[Item]:
    """The records of `ids` that exist (BatchGetItem; each adapter chunks it by its own limit)."""
    unique = list(dict.fromkeys(ids))
    return (
        [record_of(item) for item in items.batch_get([task_key(user_id, ident) for ident in unique])] if unique else []
    )


# -- the marker and the backfill ---------------------------------------------------------------


def marker_key(user_id: str) -> tuple[str, str]:
    return (user_partition(user_id), MARKER_SK)


def is_indexed(items: ItemStore, user_id: str) -> bool:
    found = items.get(marker_key(user_id))
    return found is not None and found.get("version") == VERSION


def ensure_indexed(items: ItemStore, user_id: str, max_rewrites: int | None = LAZY_REWRITES) -> bool:
    """Whether the board is indexed, backfilling it first when its marker is missing. A request
    rewrites at most `max_rewrites` tasks (None: no limit): a big board written before the index
    then answers from the snapshot while later requests (or `mesq todos index`) finish it."""
    if is_indexed(items, user_id):
        return True
    return _backfill(items, user_id, max_rewrites)[1]


def backfill(items: ItemStore, user_id: str) -> int:
    """Put every task of the board into the index, then the marker; returns how many task
    records it rewrote (0 on a board already indexed). Safe to re-run and to run beside writes."""
    return _backfill(items, user_id, None)[0]


def _backfill(items: ItemStore, user_id: str, max_rewrites: int | None) -> tuple[int, bool]:
    """(tasks rewritten, whether the board is now indexed and marked)."""
    partition = user_partition(user_id)
    start, end = prefix_range(KIND_PREFIX["task"])
    pending: list[Update] = []
    rewritten = 0
    for item in walk(items, partition, start=start, end=end):
        if max_rewrites is not None and rewritten + len(pending) >= max_rewrites:
            return rewritten + write_each(items, pending), False
        update = _key_update(user_id, item)
        if update is not None:
            pending.append(update)
        if len(pending) == MAX_TRANSACTION_OPS:
            rewritten += write_each(items, pending)
            pending = []
    rewritten += write_each(items, pending)
    pk, sk = marker_key(user_id)
    items.put({"pk": pk, "sk": sk, "version": VERSION, "indexedAt": now_timestamp()})
    return rewritten, True


def _key_update(user_id: str, item: Item) -> Update | None:
    """The Update that gives a stored task the due-index keys `keys.stored` would write, or None
    when it has them."""
    wanted = due_keys_of(user_id, record_of(item))
    current = {name: item[name] for name in ("gsi1pk", "gsi1sk") if name in item}
    if current == wanted:
        return None
    key = (str(item["pk"]), str(item["sk"]))
    condition = Condition(equals={"revision": item.get("revision")})
    if wanted:
        return Update(key, set=wanted, condition=condition)
    return Update(key, remove=("gsi1pk", "gsi1sk"), condition=condition)


__all__ = [
    "LAZY_REWRITES",
    "MARKER_SK",
    "VERSION",
    "backfill",
    "day_range",
    "ensure_indexed",
    "entries",
    "is_indexed",
    "marker_key",
    "tasks_by_id",
]
