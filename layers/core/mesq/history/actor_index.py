"""The change records by actor (GSI3, `records.actor_index_keys`), and the backfill that puts
records written before that index into it.

Change records written since 2026-12-07 carry no index keys at all (records.py: an actor's are
read through the session log), and are never given any here. Records written before that carry
their GSI3 keys in their own Put; records written before GSI3 carry none: the marker item `U#<user>` / `CHANGEIX#ACTOR`
says every change record of the user has them. `ensure_indexed` (called by the first
`list_changes {actor}` / `undo_changes {actor}` of a user, at most LAZY_REWRITES record updates
per request, the history then read the old way, by a pass over the user's changes, until it is
done; and by `mesq history index` for every user ahead of time, without a limit) gives each
record without them an Update of just those keys, conditioned on the record still existing (a
record the retention TTL or a purge removed meanwhile is skipped), then puts the marker.
Re-running it rewrites nothing. An account import rebuilds each change record's keys, GSI3's
included (`archive/records.py`), so it leaves the marker true.
"""

from __future__ import annotations

from ..kernel.keys import user_partition
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Condition, ItemStore, Key, Update
from ..kernel.timestamps import now_timestamp
from ..store.each import write_each
from ..store.paging import walk
from .records import CHANGE_PREFIX, actor_index_keys

MARKER_SK = "CHANGEIX#ACTOR"
VERSION = 1
#: Change records one request may give their keys (10 transactions): past that the request reads
#: the history the old way and leaves the rest to the next one (a Lambda's time is bounded).
LAZY_REWRITES = 1000


def marker_key(user_id: str) -> Key:
    return (user_partition(user_id), MARKER_SK)


def is_indexed(items: ItemStore, user_id: str) -> bool:
    marker = items.get(marker_key(user_id))
    return marker is not None and marker.get("version") == VERSION


def ensure_indexed(items: ItemStore, user_id: str, max_rewrites: int | None = LAZY_REWRITES) -> bool:
    """Whether the user's changes can be read by actor through GSI3 (backfilling first, at most
    `max_rewrites` records, when the marker is missing)."""
    if is_indexed(items, user_id):
        return True
    return _backfill(items, user_id, max_rewrites)[1]


def backfill(items: ItemStore, user_id: str) -> int:
    """Give every change record of the user its GSI3 keys, then put the marker; returns how
    many records it updated (0 when all had them). Safe to re-run and to run beside writes."""
    return _backfill(items, user_id, None)[0]


def _backfill(items: ItemStore, user_id: str, max_rewrites: int | None) -> tuple[int, bool]:
    """(records updated, whether every record now has its keys and the marker is put)."""
    pending: list[Update] = []
    updated = 0
    for item in walk(items, user_partition(user_id), prefix=CHANGE_PREFIX):
        if "gsi2pk" not in item:
            continue  # written without index entries (records.py): read by actor through the session log
        keys = actor_index_keys(user_id, item)
        if not keys or all(item.get(name) == value for name, value in keys.items()):
            continue
        if max_rewrites is not None and updated + len(pending) >= max_rewrites:
            return updated + write_each(items, pending), False
        pending.append(Update(key=(str(item["pk"]), str(item["sk"])), set=keys, condition=Condition(exists=True)))
        if len(pending) == MAX_TRANSACTION_OPS:
            updated += write_each(items, pending)
            pending = []
    updated += write_each(items, pending)
    pk, sk = marker_key(user_id)
    items.put({"pk": pk, "sk": sk, "version": VERSION, "indexedAt": now_timestamp()})
    return updated, True


__all__ = ["LAZY_REWRITES", "backfill", "ensure_indexed", "is_indexed", "marker_key"]
