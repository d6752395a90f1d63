"""`write_each`: independent conditioned writes, all in one transaction when none of their
conditions fails, else one by one, skipping those whose condition fails.

For batches whose writes do not depend on each other (an import's Puts of absent records, a
backfill's Updates at a read revision, seeding counts that may already exist): the common case
costs one transaction, and one write that meets a changed item does not stop the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernel.ports.storage import MAX_TRANSACTION_BYTES, ConditionFailed, ItemStore, Put, Update, transaction_bytes


def write_each(items: ItemStore, ops: Sequence[Put | Update]) -> int:
    """How many of `ops` were written (the rest met a failed condition). Long items go in more
    than one transaction: DynamoDB takes at most 4 MB in one (an archive's 100 memos at the
    content limit, or their change records, are several times that)."""
    return sum(_write_chunk(items, chunk) for chunk in _chunks(ops))


def _chunks(ops: Sequence[Put | Update]) -> list[Sequence[Put | Update]]:
    chunks: list[Sequence[Put | Update]] = []
    start, used = 0, 0
    for position, op in enumerate(ops):
        size = transaction_bytes([op])
        if position > start and used + size > MAX_TRANSACTION_BYTES:
            chunks.append(ops[start:position])
            start, used = position, 0
        used += size
    if start < len(ops):
        chunks.append(ops[start:])
    return chunks


def _write_chunk(items: ItemStore, ops: Sequence[Put | Update]) -> int:
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
