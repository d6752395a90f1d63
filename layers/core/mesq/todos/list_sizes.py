"""The size of every GSI2 list (a column's live root tasks, a task's subtasks, the live inbox),
kept as one small item per list (`keys.size_key`) so a board read knows where each column's
page starts, and the board's total, without reading the board.

Offers:
- `size_ops(user_id, before_of, ops, seeded)`: the size writes a todo transaction needs, derived
  from its own ops (`writes.apply` appends them, like the reminder index, so no write path can
  forget them): for every task / inbox record it puts or deletes, the list it leaves and the list
  it joins; a new column or root task creates its list's size (Put, must be absent), a deleted
  column or removed root task drops it, and any other change is an atomic add on a size that
  must exist. A list with no size item yet (a board written before sizes existed) fails that
  condition; `writes.apply` then counts the list once (`count_list`) and retries with the size
  seeded in `seeded` (a Put that must still be absent, so two seeders cannot both win);
- `count_list(items, partition)`: the items of one GSI2 list, counted by walking it (the seeding
  pass, bounded by that one list);
- `board_sizes(items, user_id)`: the column and inbox sizes (one range Query), seeding the ones a
  board written before sizes existed lacks;
- `subtask_sizes(items, user_id, task_ids)`: the subtask-list sizes of some root tasks (one
  BatchGetItem); a task missing here may still have subtasks (its list was never sized);
- `column_sizes(items, user_id, column_ids)`: the live root tasks of some columns from their size
  items (one strongly consistent BatchGetItem: the emptiness checks of column and space deletes),
  or None when one of them was never sized (the caller then counts from the table).

Why the seeding is safe: every write that changes a list also touches its size item (with a
condition), so a size item is absent only while no write of this code has changed the list; a
seeding Put that must find it absent therefore counts a list that no concurrent write of this
code changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Condition, ConditionFailed, Delete, Item, ItemStore, Key, Put, Update, WriteOp
from ..store.paging import walk
from .keys import (
    INDEX,
    KIND_PREFIX,
    SIZE_PREFIX,
    SUBTASK_SIZE_PREFIX,
    Kind,
    column_list,
    list_of,
    list_of_size,
    size_key,
    subtask_list,
)

#: (kind, id) -> the record as it was before the transaction (None: new).
BeforeOf = Callable[[Kind, str], Item | None]
_LISTED: dict[str, Kind] = {KIND_PREFIX["task"]: "task", KIND_PREFIX["inbox"]: "inbox"}


def _listed_kind(sk: str) -> tuple[Kind, str] | None:
    for prefix, kind in _LISTED.items():
        if sk.startswith(prefix):
            return kind, sk.removeprefix(prefix)
    return None


def is_new(op: Put) -> bool:
    """A Put that creates its item (conditioned on its absence)."""
    return op.condition is not None and op.condition.exists is False


def size_ops(user_id: str, before_of: BeforeOf, ops: Iterable[WriteOp], seeded: dict[str, int]) -> list[WriteOp]:
    deltas: dict[str, int] = {}
    created: set[str] = set()
    dropped: set[str] = set()

    def move(old: str | None, new: str | None) -> None:
        if old == new:
            return
        if old is not None:
            deltas[old] = deltas.get(old, 0) - 1
        if new is not None:
            deltas[new] = deltas.get(new, 0) + 1

    for op in ops:
        sk = str(op.item["sk"]) if isinstance(op, Put) else op.key[1] if isinstance(op, Delete) else ""
        listed = _listed_kind(sk)
        if isinstance(op, Put) and listed is not None:
            kind, ident = listed
            before = None if is_new(op) else before_of(kind, ident)
            if before is None and not is_new(op):
                raise RuntimeError(f"a todo write replaced {kind} {ident} without reading it first")
            move(list_of(user_id, kind, before), op.item.get("gsi2pk"))
            if kind == "task" and is_new(op) and op.item.get("parentId") is None:
                created.add(subtask_list(user_id, ident))
        elif isinstance(op, Delete) and listed is not None:
            kind, ident = listed
            before = before_of(kind, ident)
            if before is None:
                raise RuntimeError(f"a todo write deleted {kind} {ident} without reading it first")
            move(list_of(user_id, kind, before), None)
            if kind == "task" and before is not None and before.get("parentId") is None:
                dropped.add(subtask_list(user_id, ident))
        elif isinstance(op, Put) and sk.startswith(KIND_PREFIX["column"]) and is_new(op):
            created.add(column_list(user_id, sk.removeprefix(KIND_PREFIX["column"])))
        elif isinstance(op, Delete) and sk.startswith(KIND_PREFIX["column"]):
            dropped.add(column_list(user_id, sk.removeprefix(KIND_PREFIX["column"])))

    written: list[WriteOp] = []
    for partition in sorted(created | dropped | set(deltas)):
        key, delta = size_key(user_id, partition), deltas.get(partition, 0)
        if partition in dropped:
            written.append(Delete(key))
        elif partition in created or partition in seeded:
            start = 0 if partition in created else seeded[partition]
            written.append(Put(_size_item(key, start + delta), Condition(exists=False)))
        elif delta:
            written.append(Update(key, add={"count": delta}, condition=Condition(exists=True)))
    return written


def sized_list(user_id: str, op: WriteOp | None) -> str | None:
    """The list whose size `op` writes, if it is a size write."""
    if isinstance(op, Put):
        sk = str(op.item["sk"])
    elif isinstance(op, Update | Delete):
        sk = op.key[1]
    else:
        return None
    return list_of_size(user_id, sk) if sk.startswith(SIZE_PREFIX) else None


def _size_item(key: Key, count: int) -> Item:
    return {"pk": key[0], "sk": key[1], "count": count}


def count_list(items: ItemStore, partition: str) -> int:
    return sum(1 for _ in walk(items, partition, index=INDEX))


def seed(items: ItemStore, item: Item, field: str) -> int:
    """A counter `item` put only if still absent (a write, or another seeder, may have put it
    meanwhile); the value of `field` that holds."""
    try:
        items.put(item, Condition(exists=False))
    except ConditionFailed:
        found = items.get((str(item["pk"]), str(item["sk"])))
        return int(item[field]) if found is None else int(found[field])
    return int(item[field])


def _seed(items: ItemStore, user_id: str, partition: str) -> int:
    """The list counted once and its size written, unless a write sized it meanwhile."""
    return seed(items, _size_item(size_key(user_id, partition), count_list(items, partition)), "count")


def board_sizes(items: ItemStore, user_id: str, partitions: Sequence[str]) -> dict[str, int]:
    """The sizes of `partitions` (column and inbox lists): one range Query below the subtask
    sizes, and a seeding pass for each list never sized."""
    found = walk(items, user_partition(user_id), start=SIZE_PREFIX, end=SUBTASK_SIZE_PREFIX)
    sizes = {list_of_size(user_id, str(item["sk"])): int(item["count"]) for item in found}
    return {p: sizes[p] if p in sizes else _seed(items, user_id, p) for p in partitions}


def subtask_sizes(items: ItemStore, user_id: str, task_ids: Sequence[str]) -> dict[str, int]:
    """task id -> how many subtasks (trashed too) its list holds, for the tasks whose list is sized."""
    keys = [size_key(user_id, subtask_list(user_id, ident)) for ident in task_ids]
    found = items.batch_get(keys) if keys else []
    prefix = SUBTASK_SIZE_PREFIX
    return {str(item["sk"]).removeprefix(prefix): int(item["count"]) for item in found}


def column_sizes(items: ItemStore, user_id: str, column_ids: Sequence[str]) -> int | None:
    """How many live root tasks the columns hold together, read from their size items (table
    reads, so never behind a write); None when a column's list was never sized."""
    keys = [size_key(user_id, column_list(user_id, ident)) for ident in column_ids]
    found = items.batch_get(keys) if keys else []
    if len(found) != len(set(keys)):
        return None
    return sum(int(item["count"]) for item in found)
