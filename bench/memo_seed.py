"""Memos written as the API stores them (index keys, stats and tag counters), but in direct
transactions of 80 memos with their counter updates summed per batch: 100k memos in seconds, not
the minutes one transaction per memo takes. Shared by the memo scale rows (run.py) and the literal
search section (literal_search.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BATCH = 80

#: (index, the time stamp) -> the memo's stored fields other than its id and bookkeeping.
MemoFields = Callable[[int, str], dict[str, Any]]


def seed_memos(items: Any, user_id: str, count: int, fields: MemoFields) -> None:
    from mesq.kernel.ports.storage import Condition, Put, Update
    from mesq.kernel.timestamps import now_timestamp
    from mesq.memos import store

    now = now_timestamp()
    for first in range(0, count, BATCH):
        ops: list[Any] = []
        counters: dict[Any, dict[str, int]] = {}
        for i in range(first, min(first + BATCH, count)):
            memo = {
                "id": f"m{i:06d}", "resources": [], "contentSource": "bench",
                "createdAt": now, "updatedAt": now, "revision": 1, **fields(i, now),
            }  # fmt: skip
            ops.append(Put(store.with_index_keys(user_id, memo), Condition(exists=False)))
            for op in store.counter_ops(user_id, None, memo):
                assert isinstance(op, Update)
                summed = counters.setdefault(op.key, {})
                for name, amount in op.add.items():
                    summed[name] = summed.get(name, 0) + amount
        ops += [Update(key=key, add=add) for key, add in counters.items()]
        items.transact(ops)
