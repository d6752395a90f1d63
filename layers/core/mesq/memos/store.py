"""Memo persistence: the stored item, the counters and the all-or-nothing writes (the keys:
keys.py).

Every write of a memo is one transaction: the memo with its revision condition, the counter
deltas and, for creates, the idempotency record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Condition, Item, ItemStore, Put, Update, WriteOp
from ..store.paging import walk
from .keys import MEMO_PREFIX, STATS_SK, TAG_PREFIX, memo_key, timeline_partition

STATUSES = ("NORMAL", "ARCHIVED", "DELETED")
STAT_FIELDS = ("normal", "archived", "deleted", "pinned", "untagged")


def with_index_keys(user_id: str, memo: Item) -> Item:
    """The stored item: the memo plus its keys (derived, never stored separately)."""
    pk, sk = memo_key(user_id, memo["id"])
    return {
        **memo,
        "pk": pk,
        "sk": sk,
        "gsi1pk": timeline_partition(user_id, memo["status"]),
        "gsi1sk": f"{1 if memo['pinned'] else 0}#{memo['createdAt']}#{memo['id']}",
    }


def _contributions(memo: Item | None) -> Counter[str]:
    """What one memo adds to the counters (tags, pinned, untagged count NORMAL memos only)."""
    counts: Counter[str] = Counter()
    if memo is None:
        return counts
    counts[memo["status"].lower()] += 1
    if memo["status"] == "NORMAL":
        if memo["pinned"]:
            counts["pinned"] += 1
        if not memo["tags"]:
            counts["untagged"] += 1
        for path in memo["tagPaths"]:
            counts[f"tag:{path}"] += 1
    return counts


def counter_ops(user_id: str, before: Item | None, after: Item | None) -> list[WriteOp]:
    delta = _contributions(after)
    delta.subtract(_contributions(before))
    partition = user_partition(user_id)
    stats = {name: delta[name] for name in STAT_FIELDS if delta[name]}
    ops: list[WriteOp] = []
    if stats:
        ops.append(Update(key=(partition, STATS_SK), add=stats))
    for name, amount in sorted(delta.items()):
        if name.startswith("tag:") and amount:
            ops.append(Update(key=(partition, TAG_PREFIX + name[4:]), add={"count": amount}))
    return ops


def write_memo(
    items: ItemStore,
    user_id: str,
    before: Item | None,
    after: Item,
    extra: Sequence[WriteOp] = (),
    *,
    counters: Sequence[WriteOp] | None = None,
) -> list[WriteOp]:
    """Store `after` in place of `before` (None = create) with counters (`counter_ops`, unless
    the caller computed them already), atomically; returns the ops it committed.

    Raises ConditionFailed with index 0 when the memo changed (or exists) meanwhile.
    """
    condition = Condition(exists=False) if before is None else Condition(equals={"revision": before["revision"]})
    ops: list[WriteOp] = [Put(with_index_keys(user_id, after), condition)]
    ops += counter_ops(user_id, before, after) if counters is None else counters
    ops += extra
    if len(ops) > MAX_TRANSACTION_OPS:  # an edit replacing nearly every tag while it adds files
        raise ValidationError(
            "this change touches too many tags and attachments at once (%(count)s writes; one change may have at "
            "most %(max)s): save the new tags and the new files in two edits",
            count=len(ops),
            max=MAX_TRANSACTION_OPS,
        )
    items.transact(ops)
    return ops


def read_memo(items: ItemStore, user_id: str, memo_id: str) -> Item | None:
    return items.get(memo_key(user_id, memo_id))


def read_stats(items: ItemStore, user_id: str) -> dict[str, int]:
    stats = items.get((user_partition(user_id), STATS_SK)) or {}
    return {name: int(stats.get(name, 0)) for name in STAT_FIELDS}


def read_tag_counts(items: ItemStore, user_id: str) -> dict[str, int]:
    # Counters of tags no longer used stay at 0 (a transaction cannot delete what it ADDs to).
    return {
        item["sk"][len(TAG_PREFIX) :]: int(item["count"])
        for item in walk(items, user_partition(user_id), prefix=TAG_PREFIX)
        if item.get("count", 0) > 0
    }


def timeline_entries(items: ItemStore, user_id: str, status: str, limit: int | None = None) -> Iterator[Item]:
    """Index entries of one status, pinned first then newest created, reading only what is used."""
    return walk(items, timeline_partition(user_id, status), index="gsi1", descending=True, limit=limit)


def all_memos(items: ItemStore, user_id: str) -> Iterator[Item]:
    """Every memo of the user with its content: the bounded pass literal search needs."""
    return walk(items, user_partition(user_id), prefix=MEMO_PREFIX)


def fetch_memos(items: ItemStore, user_id: str, memo_ids: Sequence[str]) -> dict[str, Item]:
    found = items.batch_get([memo_key(user_id, memo_id) for memo_id in memo_ids])
    return {item["id"]: item for item in found}
