"""What a call's writes recorded: the change records (history/change_op.py) its transactions
committed, in commit order. A write returns its data; the records it made are here, on the `Call`,
so no one reads them back: an undo learns its revert's id, the web's Undo button the ids of the
write it offers to undo, and every write result carries its `changeIds`, `runId` and `sessionId`
(`summary`, put beside `data` by the adapters; docs/architecture.md).

`change_op` stages each record it builds; the transaction that holds the record keeps it
(`kept(ops)` after the commit). A build whose transaction failed or was retried stages records
no transaction ever holds, so they are never kept. The session the records belong to is decided
once per call (history/sessions.py) and kept here, with what must follow the first commit (the
actor's session pointer moved on: `after_commit`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .ports.storage import Item, Put, WriteOp


@dataclass
class Recorded:
    """The change records one call committed (shared by the calls `dataclasses.replace` derives
    from it: an undo's reverts are the undo's records)."""

    _staged: dict[int, Item] = field(default_factory=dict, repr=False)
    changes: list[Item] = field(default_factory=list)
    #: The call's runId (set by the invocation) and the session its records belong to (set by
    #: history/sessions.py at the first record the call builds).
    run_id: str | None = None
    session_id: str | None = None
    _after_commit: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def stage(self, change: Item) -> None:
        """A change record about to go into a transaction (by identity: its Put holds this dict)."""
        self._staged[id(change)] = change

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run `action` once, after the first transaction that keeps a record commits (it must
        not raise: the write it follows is done)."""
        self._after_commit.append(action)

    def kept(self, ops: Iterable[WriteOp]) -> None:
        """The transaction of `ops` committed: its staged change records are recorded."""
        before = len(self.changes)
        for op in ops:
            if isinstance(op, Put) and self._staged.get(id(op.item)) is op.item:
                self.changes.append(self._staged.pop(id(op.item)))
        if len(self.changes) > before:
            actions, self._after_commit = self._after_commit, []
            for action in actions:
                action()

    def newest_of(self, record_id: str) -> str | None:
        """The id of the newest change record of `record_id` this call committed (never one only
        staged: a transaction that failed holds none)."""
        return max((str(change["id"]) for change in self.changes if change["record"]["id"] == record_id), default=None)

    @property
    def change_ids(self) -> list[str]:
        return [str(change["id"]) for change in self.changes]

    def summary(self) -> dict[str, Any]:
        """What a write result carries beside its data: the ids of the change records it made
        (empty for a write that changed nothing, such as an idempotent replay), its runId and,
        when it recorded anything, its sessionId."""
        found: dict[str, Any] = {"changeIds": self.change_ids}
        run_id = self.run_id or next((str(change["runId"]) for change in self.changes), None)
        if run_id is not None:
            found["runId"] = run_id
        session_id = next((str(c["sessionId"]) for c in self.changes if c.get("sessionId")), self.session_id)
        if session_id is not None and self.changes:
            found["sessionId"] = session_id
        return found

    def since(self, count: int) -> list[Item]:
        """The records kept after the first `count` (what one part of a call recorded)."""
        return self.changes[count:]

    def __len__(self) -> int:
        return len(self.changes)
