"""`write_each`: independent conditioned writes, all in one transaction when none of their
conditions fails, else one by one, skipping those whose condition fails.

For batches whose writes do not depend on each other (an import's Puts of absent records, a
backfill's Updates at a read revision, seeding counts that may already exist): the common case
costs one transaction, and one write that meets a changed item does not stop the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernel.ports.storage import ConditionFailed, ItemStore, Put, Update


def write_each(items: ItemStore, ops: Sequence[Put | Update]) -> int:
    """How many of `ops` were written (the rest met a failed condition)."""
    if not ops:
        return 0
    try:
        items.transact(list(ops))
        return len(ops)
    except ConditionFailed:
        pass
    written = 0
    for op in ops:
        try:
            if isinstance(op, Put):
                items.put(op.item, op.condition)
            else:
                items.update(op)
            written += 1
        except ConditionFailed:
            continue
    return written


__all__ = ["write_each"]
