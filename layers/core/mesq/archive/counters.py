"""The counters of an account recomputed from its records, at the end of every import
(docs/archive.md "Import"): an archive's counters are never imported, and an import cut short,
then written to, then finished, must still leave counters that match the records exactly.

- memo counters (`STATS#MEMO`) and tag counters (`MEMOTAG#<path>`): every memo's contribution
  (`memos.store.counter_ops`' own rule), put conditioned on the values read before the pass,
  so a memo write that lands during the pass makes the pass run again;
- the attachment usage (`STATS#ATTACHMENTS`): the sum of the attachment records, the same way;
- the todo list sizes (`TODO#COUNT#...`): each list counted from the records' own list keys;
  the graph counts (`TODO#COUNT#TREE#...`) deleted, so the graph page counts and seeds each
  (`todos/graph_counts.py`: an absent count is always counted from the index).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..attachments.paths import NAMESPACES
from ..attachments.store import USAGE_SK
from ..kernel.keys import user_partition
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Condition, ConditionFailed, Item, ItemStore, Put
from ..memos import store as memo_store
from ..memos.keys import STATS_SK, TAG_PREFIX
from ..store.each import write_each
from ..store.paging import walk
from ..todos.graph_counts import TREE_PREFIX
from ..todos.keys import KIND_PREFIX, SIZE_PREFIX, column_list, size_key, subtask_list

ATTEMPTS = 3


def _guard(old: Item | None, fields: tuple[str, ...]) -> Condition:
    if old is None:
        return Condition(exists=False)
    return Condition(equals={name: old[name] for name in fields if name in old})


def _put_all(items: ItemStore, puts: list[Put]) -> bool:
    """Every put, each under its own condition; False when one of them failed."""
    ok = True
    for first in range(0, len(puts), MAX_TRANSACTION_OPS):
        chunk = puts[first : first + MAX_TRANSACTION_OPS]
        ok = write_each(items, list(chunk)) == len(chunk) and ok
    return ok


def _countable(memo: Item) -> bool:
    return (
        memo.get("status") in memo_store.STATUSES
        and isinstance(memo.get("pinned"), bool)
        and isinstance(memo.get("tags"), list)
        and isinstance(memo.get("tagPaths"), list)
    )


def _memo_counters(items: ItemStore, user_id: str) -> bool:
    partition = user_partition(user_id)
    stats_old = items.get((partition, STATS_SK))
    tags_old = {str(item["sk"]): item for item in walk(items, partition, prefix=TAG_PREFIX)}
    counts: Counter[str] = Counter()
    for memo in memo_store.all_memos(items, user_id):
        if _countable(memo):  # one no write of ours makes (repair-imports reports it) counts nowhere
            counts.update(memo_store._contributions(memo))
    stats = {name: counts[name] for name in memo_store.STAT_FIELDS if counts[name] or name in (stats_old or {})}
    puts = [Put({"pk": partition, "sk": STATS_SK, **stats}, _guard(stats_old, memo_store.STAT_FIELDS))]
    tags = {TAG_PREFIX + name[4:]: amount for name, amount in counts.items() if name.startswith("tag:")}
    for sk in sorted(set(tags) | set(tags_old)):
        old = tags_old.get(sk)
        if old is None or int(old.get("count", 0)) != tags.get(sk, 0):
            puts.append(Put({"pk": partition, "sk": sk, "count": tags.get(sk, 0)}, _guard(old, ("count",))))
    return _put_all(items, puts)


def _attachment_usage(items: ItemStore, user_id: str) -> bool:
    partition = user_partition(user_id)
    old = items.get((partition, USAGE_SK))
    total = count = 0
    for namespace in NAMESPACES:
        for record in walk(items, partition, prefix=namespace.record_prefix):
            total += int(record.get("fileSize", 0))
            count += 1
    usage: dict[str, Any] = {"pk": partition, "sk": USAGE_SK, "bytes": total, "count": count}
    return _put_all(items, [Put(usage, _guard(old, ("bytes", "count")))])


def _todo_counts(items: ItemStore, user_id: str) -> bool:
    """Each GSI2 list's size counted from the records' own list keys (every column's and root
    task's list, sized 0 when empty, and every list a size item exists for or a record is in); the graph counts
    deleted (the graph page counts and seeds each when it next needs it)."""
    partition = user_partition(user_id)
    old = {str(item["sk"]): item for item in walk(items, partition, prefix=SIZE_PREFIX)}
    counts: Counter[str] = Counter()
    for prefix in (KIND_PREFIX["column"], KIND_PREFIX["task"], KIND_PREFIX["inbox"]):
        for record in walk(items, partition, prefix=prefix):
            if prefix == KIND_PREFIX["column"]:  # a new column, or root task, is sized 0 at once
                counts[size_key(user_id, column_list(user_id, str(record["id"])))[1]] += 0
            elif prefix == KIND_PREFIX["task"] and record.get("parentId") is None:
                counts[size_key(user_id, subtask_list(user_id, str(record["id"])))[1]] += 0
            if prefix != KIND_PREFIX["column"] and record.get("gsi2pk"):
                counts[size_key(user_id, str(record["gsi2pk"]))[1]] += 1
    puts = []
    for sk in sorted(set(counts) | {sk for sk in old if not sk.startswith(TREE_PREFIX)}):
        if sk not in old or int(old[sk].get("count", 0)) != counts[sk]:
            puts.append(Put({"pk": partition, "sk": sk, "count": counts[sk]}, _guard(old.get(sk), ("count",))))
    for sk in old:
        if sk.startswith(TREE_PREFIX):
            items.delete((partition, sk))
    return _put_all(items, puts)


def rebuild_counters(items: ItemStore, user_id: str) -> None:
    """Every derived counter of `user_id` recomputed from the records (see the module docstring).
    A counter a concurrent write changed during its pass makes that pass run again (at most
    ATTEMPTS times; then the last write's counters are kept, as a normal write would)."""
    for rebuild in (_memo_counters, _attachment_usage, _todo_counts):
        for _attempt in range(ATTEMPTS):
            try:
                if rebuild(items, user_id):
                    break
            except ConditionFailed:
                continue


__all__ = ["rebuild_counters"]
