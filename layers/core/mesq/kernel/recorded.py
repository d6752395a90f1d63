"""What a call's writes recorded: the change records (history/change_op.py) its transactions
committed, in commit order. A write returns its data; the records it made are here, on the `Call`,
so no one reads them back: an undo learns its revert's id, the web's Undo button the ids of the
write it offers to undo, and every write result can carry its `changeIds` (docs/architecture.md).

`change_op` stages each record it builds; the transaction that holds the record keeps it
(`kept(ops)` after the commit). A build whose transaction failed or was retried stages records
no transaction ever holds, so they are never kept."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .ports.storage import Item, Put, WriteOp


@dataclass
class Recorded:
    """The change records one call committed (shared by the calls `dataclasses.replace` derives
    from it: an undo's reverts are the undo's records)."""

    _staged: dict[int, Item] = field(default_factory=dict, repr=False)
    changes: list[Item] = field(default_factory=list)

    def stage(self, change: Item) -> None:
        """A change record about to go into a transaction (by identity: its Put holds this dict)."""
        self._staged[id(change)] = change

    def kept(self, ops: Iterable[WriteOp]) -> None:
        """The transaction of `ops` committed: its staged change records are recorded."""
        for op in ops:
            if isinstance(op, Put) and self._staged.get(id(op.item)) is op.item:
                self.changes.append(self._staged.pop(id(op.item)))

    @property
    def change_ids(self) -> list[str]:
        return [str(change["id"]) for change in self.changes]

    def since(self, count: int) -> list[Item]:
        """The records kept after the first `count` (what one part of a call recorded)."""
        return self.changes[count:]

    def __len__(self) -> int:
        return len(self.changes)
