"""A reading writer that dies between chunks: run as a subprocess by test_crash_safety.py.

    python -m tests.reading.crash_writer '<json spec>'

It opens the spec's store (SQLite file or DynamoDB Local table), runs a sync or an import of
`shelf(version)`, and SIGKILLs itself right after the store commits transaction number
`killAfter`: no `finally`, no flush, nothing of Python's shutdown runs, as in a power cut.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.kernel.ports.storage import ItemStore, WriteOp
from mesq.reading.importer import import_snapshots
from mesq.reading.model import BookSnapshot, Skipped, UpstreamBook, UpstreamNote
from mesq.reading.sync import sync_user

NOTES = 250
SHIFT = 50  # version 2 drops the first SHIFT notes of version 1 and adds SHIFT new ones
NOW = "2026-03-02T00:00:00.000000Z"


def shelf(version: int) -> list[BookSnapshot]:
    """One large book (several transactions per merge) and one small one, at `version`."""
    first = (version - 1) * SHIFT
    big = tuple(
        UpstreamNote(
            note_type="highlight" if index % 3 else "note",
            external_id=f"n{index}",
            content=f"passage {index} as of version {version}",
            created_at=f"2026-01-01T00:{index // 60 % 60:02d}:{index % 60:02d}.000000Z",
            chapter_index=index // 40,
            position=index,
        )
        for index in range(first, first + NOTES)
    )
    small = (UpstreamNote("highlight", "s1", f"a short book, version {version}", "2026-01-02T00:00:00.000000Z"),)
    return [
        BookSnapshot(UpstreamBook("big", "A Long Book", "Ann Author", mark=f"mark-{version}"), big),
        BookSnapshot(UpstreamBook("small", "A Short Book", mark=f"mark-{version}"), small),
    ]


def as_file(snapshots: list[BookSnapshot]) -> list[BookSnapshot]:
    """A file import's snapshots carry no upstream mark."""
    return [BookSnapshot(dataclasses.replace(s.book, mark=None), s.notes) for s in snapshots]


class ShelfProvider:
    """The reading provider port answering from `shelf(version)`."""

    def __init__(self, version: int) -> None:
        self.snapshots = {snapshot.book.external_id: snapshot for snapshot in shelf(version)}
        self.notices: list[str] = []
        self.skipped: list[Skipped] = []

    def books(self) -> list[UpstreamBook]:
        return [snapshot.book for snapshot in self.snapshots.values()]

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        return list(self.snapshots[book.external_id].notes)

    def close(self) -> None:
        pass


class DyingStore:
    """The store, killed by the OS right after its `kill_after`-th committed transaction."""

    def __init__(self, items: ItemStore, kill_after: int) -> None:
        self._items = items
        self._left = kill_after

    def transact(self, ops: list[WriteOp]) -> None:
        self._items.transact(ops)
        self._left -= 1
        if self._left == 0:
            os.kill(os.getpid(), signal.SIGKILL)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._items, name)


def open_store(spec: dict[str, Any]) -> ItemStore:
    if spec["backend"] == "sqlite":
        from mesq.adapters.store.sqlite import SQLiteItemStore

        return SQLiteItemStore(Path(spec["path"]))
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    return DynamoDBItemStore(spec["table"], endpoint_url=spec["endpoint"], region=spec["region"])


def write(items: ItemStore, spec: dict[str, Any]) -> None:
    version = spec["version"]
    if spec["mode"] == "import":
        import_snapshots(items, spec["userId"], as_file(shelf(version)), NOW)
        return
    sealer = LocalKeySealer(Path(spec["keyFile"]))
    sync_user(items, sealer, spec["userId"], lambda _credential, _deadline: ShelfProvider(version), lambda: NOW)


def main() -> None:
    spec = json.loads(sys.argv[1])
    items = open_store(spec)
    write(DyingStore(items, spec["killAfter"]), spec)  # type: ignore[arg-type]
    sys.exit("the writer was meant to be killed before it finished")


if __name__ == "__main__":
    main()
