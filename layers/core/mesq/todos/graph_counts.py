"""The counts the graph projection of list_todos needs beside the list sizes: how many live
subtasks the live root tasks of a column hold, and how many subtasks the live inbox items embed.
No list size says either (a task's subtask-list size counts its trashed subtasks too, and an
inbox item's subtasks live inside the item).

Items (pk `U#<user>`, under the list sizes' `TODO#COUNT#` prefix, so the snapshot never reads
them, after `TODO#COUNT#SUB#`, so `list_sizes.board_sizes` never does either):
- `TODO#COUNT#TREE#COL#<columnId>` {live, version}: the live subtasks of the column's live root
  tasks; `version` grows by one with every change;
- `TODO#COUNT#TREE#ROOT#<taskId>` {live}: a root task's live subtasks (wherever the task is);
- `TODO#COUNT#TREE#INBOX` {live}: the subtasks embedded in the live inbox items.

Offers:
- `count_ops(items, user_id, state, ops)`: like `list_sizes.size_ops`, derived from a todo
  transaction's own ops (`writes.apply` adds them, so no write path can forget them): the ops
  with the root guards merged in, and the count writes. Conditioned so concurrent writers cannot
  drift: a subtask that changes liveness under a root it did not write checks the root's
  `columnId`/`deletedAt` (the column it counted into is still the root's); a root leaving a
  column conditions that column's count on its `version` (every live-subtask change of a root
  in the column bumped it, so the live count it moved is still the root's; a batch moving 50
  roots adds one write per column, none per root); a trashed root
  coming back conditions its own count on the value it moved. A count not there yet (a board
  written before these counts) is counted from the index and put with `exists=False`: every
  write that changes what a count counts writes that count item (with a condition), so an absent
  item means no write of this code changed it, and of two seeders only one Put succeeds. A failed
  condition of these ops makes `writes.apply` rebuild the write (`is_count_op`);
- `column_counts(items, user_id, column_ids)`, `root_counts(...)`, `inbox_subtask_count(...)`:
  the reads of the graph page, counting (and seeding) what a board written before them lacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..kernel.keys import user_partition
from ..kernel.ports.storage import (
    MAX_TRANSACTION_OPS,
    Check,
    Condition,
    Delete,
    Item,
    ItemStore,
    Key,
    Put,
    Update,
    WriteOp,
)
from ..store.each import write_each
from ..store.paging import walk
from .keys import INDEX, KIND_PREFIX, SIZE_PREFIX, column_list, inbox_list, live, record_of, subtask_list, task_key
from .list_sizes import is_new, seed, subtask_sizes
from .state import TodoState

TREE_PREFIX = SIZE_PREFIX + "TREE#"
_COLUMN = TREE_PREFIX + "COL#"
_ROOT = TREE_PREFIX + "ROOT#"
_INBOX = TREE_PREFIX + "INBOX"


def column_count_key(user_id: str, column_id: str) -> Key:
    return (user_partition(user_id), _COLUMN + column_id)


def root_count_key(user_id: str, task_id: str) -> Key:
    return (user_partition(user_id), _ROOT + task_id)


def inbox_count_key(user_id: str) -> Key:
    return (user_partition(user_id), _INBOX)


def placed(record: Item | None) -> str | None:
    """The column whose count a root task's live subtasks are in (None: trashed, or no root)."""
    if record is None or record.get("parentId") is not None or not live(record):
        return None
    return str(record["columnId"]) if record.get("columnId") else None


def embedded(record: Item | None) -> int:
    """The subtasks an inbox item adds to the inbox count (a trashed item adds none)."""
    return len(record.get("subtasks") or ()) if record is not None and live(record) else 0


def _item(key: Key, **values: int) -> Item:
    return {"pk": key[0], "sk": key[1], **values}


# -- counting (the seeding pass) ----------------------------------------------------------------


def count_root(items: ItemStore, user_id: str, task_id: str) -> int:
    return sum(1 for sub in walk(items, subtask_list(user_id, task_id), index=INDEX) if live(sub))


def root_counts(
    items: ItemStore, user_id: str, task_ids: Sequence[str], counted: dict[str, int] | None = None
) -> dict[str, int]:
    """task id -> its live subtasks: its count item, else 0 when its subtask list is sized empty,
    else counted from its list (those also land in `counted`, for seeding)."""
    keys = [root_count_key(user_id, ident) for ident in task_ids]
    found = {str(item["sk"]).removeprefix(_ROOT): int(item["live"]) for item in items.batch_get(keys)} if keys else {}
    missing = [ident for ident in task_ids if ident not in found]
    sizes = subtask_sizes(items, user_id, missing)
    for ident in missing:
        found[ident] = 0 if sizes.get(ident) == 0 else count_root(items, user_id, ident)
        if counted is not None and sizes.get(ident) != 0:
            counted[ident] = found[ident]
    return found


def count_column(items: ItemStore, user_id: str, column_id: str, counted: dict[str, int] | None = None) -> int:
    """The live subtasks of the column's live root tasks, counted from the index (the roots in
    chunks, their counts as `root_counts` reads them)."""
    total, chunk = 0, list[str]()
    for entry in walk(items, column_list(user_id, column_id), index=INDEX, keys_only=True):  # live roots only
        chunk.append(str(entry["sk"]).removeprefix(KIND_PREFIX["task"]))
        if len(chunk) == 100:
            total += sum(root_counts(items, user_id, chunk, counted).values())
            chunk = []
    return total + (sum(root_counts(items, user_id, chunk, counted).values()) if chunk else 0)


def _seed_roots(items: ItemStore, user_id: str, counted: dict[str, int]) -> None:
    """The root counts a column's counting pass had to count from their lists, put (each only if
    still absent: one a write put meanwhile is the write's), so later pages skip roots by key."""
    puts = [Put(_item(root_count_key(user_id, ident), live=n), Condition(exists=False)) for ident, n in counted.items()]
    for first in range(0, len(puts), MAX_TRANSACTION_OPS):
        write_each(items, puts[first : first + MAX_TRANSACTION_OPS])


def count_inbox(items: ItemStore, user_id: str) -> int:
    return sum(embedded(item) for item in walk(items, inbox_list(user_id), index=INDEX))


def column_counts(items: ItemStore, user_id: str, column_ids: Sequence[str]) -> dict[str, int]:
    """column id -> its count (one BatchGetItem), seeding the columns a board never counted."""
    keys = [column_count_key(user_id, ident) for ident in column_ids]
    found = {str(item["sk"]).removeprefix(_COLUMN): int(item["live"]) for item in items.batch_get(keys)} if keys else {}
    for ident, key in zip(column_ids, keys, strict=True):
        if ident not in found:
            roots: dict[str, int] = {}
            seeded = _item(key, live=count_column(items, user_id, ident, roots), version=0)
            _seed_roots(items, user_id, roots)
            found[ident] = seed(items, seeded, "live")
    return found


def inbox_subtask_count(items: ItemStore, user_id: str) -> int:
    key = inbox_count_key(user_id)
    found = items.get(key)
    if found is not None:
        return int(found["live"])
    return seed(items, _item(key, live=count_inbox(items, user_id)), "live")


# -- the writes a transaction implies ------------------------------------------------------------


def is_count_op(op: WriteOp | None, derived: Iterable[WriteOp], fresh: TodoState) -> bool:
    """Whether a failed op is one of `count_ops`' (then the write is rebuilt, not refused). A
    guard merged into the write's own Check (`_Merged`: "the root is live") that failed because
    the root went to the trash is the write's failure (answered as before the counts)."""
    if op is None or not any(op is mine for mine in derived):
        return False
    if isinstance(op, _Merged):
        root = fresh.task(op.key[1].removeprefix(KIND_PREFIX["task"]))
        return root is not None and live(root)
    return True


class _Merged(Check):
    """A write's own Check on a root with a guard's conditions added."""


def count_ops(
    items: ItemStore, user_id: str, state: TodoState, ops: Sequence[WriteOp]
) -> tuple[list[WriteOp], list[WriteOp]]:
    """(`ops` with the root guards merged in and the count writes appended, the ops that are this
    module's: guards and count writes, for `is_count_op`)."""
    task_prefix, inbox_prefix, column_prefix = KIND_PREFIX["task"], KIND_PREFIX["inbox"], KIND_PREFIX["column"]
    subtask_delta: dict[str, int] = {}
    roots: dict[str, tuple[Item | None, Item | None]] = {}  # root written here -> (before, after)
    inbox_delta = 0
    created: set[str] = set()
    dropped: set[str] = set()
    written_keys: set[Key] = set()
    for op in ops:
        if isinstance(op, Put | Delete):
            sk = str(op.item["sk"]) if isinstance(op, Put) else op.key[1]
            new = isinstance(op, Put) and is_new(op)
            after = record_of(op.item) if isinstance(op, Put) else None
            if sk.startswith(task_prefix):
                ident = sk.removeprefix(task_prefix)
                written_keys.add(task_key(user_id, ident))
                before = None if new else state.tasks.get(ident)
                for record, sign in ((before, -1), (after, 1)):
                    if record is not None and record.get("parentId") is not None and live(record):
                        parent = str(record["parentId"])
                        subtask_delta[parent] = subtask_delta.get(parent, 0) + sign
                root_before = before if before is not None and before.get("parentId") is None else None
                root_after = after if after is not None and after.get("parentId") is None else None
                if root_before is not None or root_after is not None:
                    roots[ident] = (root_before, root_after)
            elif sk.startswith(inbox_prefix):
                before = None if new else state.inbox.get(sk.removeprefix(inbox_prefix))
                inbox_delta += embedded(after) - embedded(before)
            elif sk.startswith(column_prefix) and (new or isinstance(op, Delete)):
                (created if new else dropped).add(sk.removeprefix(column_prefix))

    guards: dict[Key, dict[str, object]] = {}
    column_delta: dict[str, int] = {}
    versioned: set[str] = set()  # columns a root leaves: their count's version is the condition
    root_writes: list[WriteOp] = []
    changes: list[tuple[str, Item | None, Item | None, int]] = []
    for ident in sorted(set(subtask_delta) | set(roots)):
        delta = subtask_delta.get(ident, 0)
        if ident in roots:
            before, after = roots[ident]
        else:
            before = after = state.task(ident)
            if before is None or before.get("parentId") is not None:
                continue  # subtasks of no root task: in no count
        if placed(before) == placed(after) and delta == 0:
            continue
        if ident not in roots and delta:
            guards[task_key(user_id, ident)] = {
                name: before[name] for name in ("columnId", "deletedAt") if before is not None and name in before
            }
        changes.append((ident, before, after, delta))

    counted = [ident for ident, before, _after, _delta in changes if before is not None]
    current = _current(items, [root_count_key(user_id, ident) for ident in counted])
    for ident, before, after, delta in changes:
        key = root_count_key(user_id, ident)
        moved = placed(before) != placed(after)
        if before is None:  # a new root (or a subtask turned root): nothing under it yet
            held = 0
            root_writes.append(Put(_item(key, live=delta), Condition(exists=False)))
        elif key in current:
            held = int(current[key]["live"])
            back = moved and placed(before) is None  # a trashed root restored: its count is the condition
            if delta or back:
                condition = Condition(equals={"live": held}) if back else Condition(exists=True)
                root_writes.append(Update(key, add={"live": delta}, condition=condition))
        else:  # never counted: count it now; a root leaving a column needs no count written (the
            # column's version guards the number it takes along), any other change seeds it
            held = count_root(items, user_id, ident)
            if delta or (moved and placed(before) is None):
                root_writes.append(Put(_item(key, live=held + delta), Condition(exists=False)))
        if moved:
            if placed(before) is not None:
                column = str(placed(before))
                column_delta[column] = column_delta.get(column, 0) - held
                versioned.add(column)
            if placed(after) is not None:
                column = str(placed(after))
                column_delta[column] = column_delta.get(column, 0) + held + delta
        elif placed(before) is not None:
            column = str(placed(before))
            column_delta[column] = column_delta.get(column, 0) + delta

    column_writes: list[WriteOp] = []
    touched = sorted({c for c, d in column_delta.items() if d} | versioned | created | dropped)
    existing = _current(items, [column_count_key(user_id, c) for c in touched if c not in created | dropped])
    for column in touched:
        key, delta = column_count_key(user_id, column), column_delta.get(column, 0)
        if column in dropped:
            column_writes.append(Delete(key))
        elif column in created:
            column_writes.append(Put(_item(key, live=delta, version=0), Condition(exists=False)))
        elif key in existing:
            version = int(existing[key].get("version", 0))
            condition = Condition(equals={"version": version}) if column in versioned else Condition(exists=True)
            column_writes.append(Update(key, add={"live": delta, "version": 1}, condition=condition))
        else:
            seeded = count_column(items, user_id, column)
            column_writes.append(Put(_item(key, live=seeded + delta, version=1), Condition(exists=False)))

    inbox_writes: list[WriteOp] = []
    if inbox_delta:
        key = inbox_count_key(user_id)
        if items.get(key) is not None:
            inbox_writes.append(Update(key, add={"live": inbox_delta}, condition=Condition(exists=True)))
        else:
            seeded = count_inbox(items, user_id)
            inbox_writes.append(Put(_item(key, live=seeded + inbox_delta), Condition(exists=False)))

    merged, guard_ops = _with_guards(ops, guards, written_keys)
    writes = root_writes + column_writes + inbox_writes
    return merged + writes, guard_ops + writes


def _current(items: ItemStore, keys: list[Key]) -> dict[Key, Item]:
    return {(str(item["pk"]), str(item["sk"])): item for item in items.batch_get(keys)} if keys else {}


def _with_guards(
    ops: Sequence[WriteOp], guards: dict[Key, dict[str, object]], written: set[Key]
) -> tuple[list[WriteOp], list[WriteOp]]:
    """A guard on a root the write already checks is merged into that Check (one transaction may
    hold one op per item); the others become Checks of their own."""
    merged: list[WriteOp] = []
    mine: list[WriteOp] = []
    for op in ops:
        if isinstance(op, Check) and op.key in guards:
            equals = {**op.condition.equals, **guards.pop(op.key)}
            op = _Merged(op.key, Condition(exists=op.condition.exists, equals=equals))
            mine.append(op)
        merged.append(op)
    for key, equals in guards.items():
        if key not in written:
            check = Check(key, Condition(exists=True, equals=equals))
            merged.append(check)
            mine.append(check)
    return merged, mine
