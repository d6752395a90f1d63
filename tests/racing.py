"""A store wrapper for races: the next transaction first lets a concurrent write land between
the write's reads and its commit."""

from __future__ import annotations

from typing import Any

from mesq.kernel.ports.storage import ItemStore, WriteOp


class Racing:
    """The store, except that the next transaction first runs `race` (a concurrent write landing
    between the write's reads and its commit)."""

    def __init__(self, inner: ItemStore) -> None:
        self.inner = inner
        self.race: Any = None

    def transact(self, ops: list[WriteOp]) -> None:
        race, self.race = self.race, None
        if race is not None:
            race()
        self.inner.transact(ops)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
