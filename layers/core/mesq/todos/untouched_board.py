"""An untouched board: the default space, its columns, their zero list sizes, the settings and the
slug claim that the first todo read of an account creates (`writes.ensure_default_space`), with no
task and no inbox item in it.

`removal(items, user_id, own_sks)`: when the records `own_sks` are such a board and nothing more,
the Deletes that take it away, each conditioned on what makes the board empty (every column
size still 0, every other record still there), so a task written meanwhile makes the transaction
fail instead of losing it; None otherwise. An account import uses it so that an account whose
only data is the board its first visit to Todos made can take an archive's board in its place.
"""

from __future__ import annotations

from collections.abc import Collection

from ..kernel.keys import user_partition
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Condition, Delete, ItemStore
from .keys import KIND_PREFIX, SETTINGS_SK, SIZE_PREFIX

#: The counters an empty board may hold (list sizes of its columns and inbox, and the graph
#: counts), each with the attribute that must still be 0.
_ZERO_COUNTERS = {
    SIZE_PREFIX + "COL#": "count",
    SIZE_PREFIX + "INBOX": "count",
    SIZE_PREFIX + "TREE#COL#": "live",
    SIZE_PREFIX + "TREE#INBOX": "live",
}
_STRUCTURE = (KIND_PREFIX["space"], KIND_PREFIX["column"], KIND_PREFIX["slug"], SETTINGS_SK)


def _zero_field(sk: str) -> str | None:
    return next((field for prefix, field in _ZERO_COUNTERS.items() if sk.startswith(prefix)), None)


def removal(items: ItemStore, user_id: str, own_sks: Collection[str]) -> list[Delete] | None:
    if not own_sks or len(own_sks) > MAX_TRANSACTION_OPS:
        return None
    counters = {sk: field for sk in own_sks if (field := _zero_field(sk)) is not None}
    if any(not sk.startswith(_STRUCTURE) for sk in own_sks if sk not in counters):
        return None
    owner = user_partition(user_id)
    found = items.batch_get([(owner, sk) for sk in counters])
    if len(found) != len(counters) or any(int(item.get(counters[str(item["sk"])], 0)) != 0 for item in found):
        return None
    present = Condition(exists=True)
    return [
        Delete((owner, sk), Condition(equals={counters[sk]: 0}) if sk in counters else present)
        for sk in sorted(own_sks)
    ]


__all__ = ["removal"]
