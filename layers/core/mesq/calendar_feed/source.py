"""The todo records a feed shows, read from the user's own partition in one paginated pass (the
same bounded read the todo views make): root tasks and subtasks (`task`) and inbox items
(`inbox`)."""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore
from ..store.paging import walk
from ..todos.keys import KIND_PREFIX, record_of

_KINDS = {"task": KIND_PREFIX["task"], "inbox": KIND_PREFIX["inbox"]}


def dated_records(items: ItemStore, user_id: str) -> Iterator[tuple[str, Item]]:
    """The records with a due, but the subtasks of a trashed task (trashing a task leaves its
    subtasks' own `deletedAt` unset: they are in the trash with it, not on any board)."""
    for kind, prefix in _KINDS.items():
        dated: list[Item] = []
        trashed: set[str] = set()
        for item in walk(items, user_partition(user_id), prefix=prefix):
            record = record_of(item)
            if record.get("deletedAt") is not None:
                trashed.add(str(record["id"]))
            if record.get("due"):
                dated.append(record)
        for record in dated:
            if str(record.get("parentId") or "") not in trashed:
                yield kind, record
