"""The change records a write adds to its own transaction (so there is no change without its
record and no record without its change).

- `memo_change(call, before, after)`: the Put `memos/writes` adds to `store.write_memo`;
- `todo_changes(call, state, ops)`: what `todos/writes.apply` adds, derived from the
  transaction's own ops (like the list sizes and the reminder index, so no todo write path can
  forget it): one record per space, column, task, subtask, inbox item or tag it puts or deletes,
  the record before the change taken from the write's state (where the write read it); a tag
  deleted and another created in one write is a rename, one record under the new name.

Every record of one call shares the call's runId (a run_code run's, or one per call). An
idempotent replay never reaches the write, so it adds none.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from ..kernel.context import Call
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Condition, Delete, Item, Put, Update, WriteOp
from ..kernel.timestamps import format_timestamp, utc_now
from ..memos.store import counter_ops
from ..store.paging import walk
from ..todos.keys import KIND_PREFIX, record_of
from ..todos.state import TodoState
from .actor import actor_of
from .records import (
    HISTORY_CAP,
    TRIM_TO,
    action_of,
    change_item,
    change_key,
    change_put,
    changed_fields,
    epoch,
    member,
    new_change_id,
    record_partition,
)

#: The todo kinds with history, by sort-key prefix (slug claims, settings and sizes have none).
_TODO_PREFIXES = {KIND_PREFIX[kind]: kind for kind in ("space", "column", "task", "inbox", "tag")}


def change_op(
    call: Call,
    kind: str,
    record_id: str,
    before: Item | None,
    after: Item | None,
    members: list[Item] | None = None,
    *,
    stored: Item | None = None,
    room: int = 0,
) -> list[WriteOp]:
    """The change record of one record's change; under an undo, for the record being reverted,
    also the mark on the change it reverts (`undoneBy`), in the same transaction.

    `stored`: the record item the write puts; it gets the record's kept history size
    (`historyBytes`), and when that would pass HISTORY_CAP, up to `room` of the record's oldest
    change records are deleted in the same transaction (the change then says `olderDropped`)."""
    now = utc_now()
    names = {record_id, str((before or {}).get("name"))} if kind == "tag" else {record_id}
    undoes = call.undoes[0] if call.undoes is not None and call.undoes[1] in names else None
    item = change_item(
        user_id=call.principal.user_id,
        change_id=new_change_id(now),
        at=format_timestamp(now),
        actor=actor_of(call),
        run_id=call.run_id,
        operation=call.operation_id,
        kind=kind,
        record_id=record_id,
        before=before,
        after=after,
        expires=epoch(now + timedelta(days=call.services.deployment.history_days)),
        undoes=undoes,
        members=members,
    )
    ops: list[WriteOp] = []
    if stored is not None:
        total = int((before or {}).get("historyBytes", 0)) + int(item["size"])
        if total > HISTORY_CAP:
            total, drops = _trim(call, record_id, int(item["size"]), room, undoes)
            if drops:
                item["olderDropped"] = True
                ops += drops
        stored["historyBytes"] = total
    ops.insert(0, change_put(item))
    if undoes is not None:
        mark = {"undoneBy": item["id"]}
        ops.append(Update(key=change_key(call.principal.user_id, undoes), set=mark, condition=Condition(exists=True)))
    return ops


def _trim(call: Call, record_id: str, new_size: int, room: int, keep: str | None) -> tuple[int, list[WriteOp]]:
    """The record's history recounted (change records the TTL removed no longer count) and
    Deletes of its oldest records down to TRIM_TO, at most `room` of them (the rest go at a
    later write); never `keep`, the change an undo marks in the same transaction."""
    entries = list(walk(call.services.items, record_partition(call.principal.user_id, record_id), index="gsi2"))
    total = new_size + sum(int(entry.get("size", 0)) for entry in entries)
    drops: list[WriteOp] = []
    for entry in entries:  # oldest first
        if total <= TRIM_TO or len(drops) >= room:
            break
        if entry["id"] == keep:
            continue
        drops.append(Delete((str(entry["pk"]), str(entry["sk"]))))
        total -= int(entry.get("size", 0))
    return total, drops


def memo_change(call: Call, before: Item | None, after: Item) -> list[WriteOp]:
    """Also stamps `after` (the memo item about to be put) with its history size."""
    room = MAX_TRANSACTION_OPS - 3 - len(counter_ops(call.principal.user_id, before, after))
    return change_op(call, "memo", str(after["id"]), before, after, stored=after, room=room)


def _todo_target(sk: str) -> tuple[str, str] | None:
    for prefix, kind in _TODO_PREFIXES.items():
        if sk.startswith(prefix):
            return kind, sk.removeprefix(prefix)
    return None


def _before(state: TodoState, kind: str, ident: str) -> Item | None:
    found = {
        "space": state.spaces, "column": state.columns, "task": state.tasks, "inbox": state.inbox, "tag": state.tags,
    }[kind].get(ident)  # fmt: skip
    return None if found is None else dict(found)


def _public_kind(kind: str, record: Item | None) -> str:
    return "subtask" if kind == "task" and record is not None and record.get("parentId") else kind


#: Room left in a todo transaction for what `writes.apply` adds after the changes (a create's
#: idempotency claim) and an undo's mark on the change it reverts.
_RESERVED = 2


def todo_changes(call: Call, state: TodoState, ops: Sequence[WriteOp]) -> list[WriteOp]:
    """One change record per record written (a moved task's subtasks as members of its change);
    when they would not fit the transaction beside `ops`, one record for the first with the
    others as its `members`."""
    everything = _todo_written(state, ops)
    written, members = _moved_with_subtasks(everything)
    if len(ops) + len(written) + _RESERVED <= MAX_TRANSACTION_OPS:
        changes: list[WriteOp] = []
        for index, (kind, ident, before, after, stored) in enumerate(written):
            room = MAX_TRANSACTION_OPS - _RESERVED - len(ops) - len(changes) - (len(written) - index)
            packed = members.get(ident)
            changes += change_op(call, kind, ident, before, after, packed, stored=stored, room=max(0, room))
        return changes
    (kind, ident, before, after, _stored), *rest = everything
    return change_op(call, kind, ident, before, after, [member(*entry[:4]) for entry in rest])


def _moved_with_subtasks(written: list[Written]) -> tuple[list[Written], dict[str, list[Item]]]:
    """The entries without the subtasks of a task the same write moves, and those subtasks as
    `member`s by task id: undoing the move takes them back with it (a move to another space
    rewrites each subtask's spaceId)."""
    moved = {
        ident
        for kind, ident, before, after, _stored in written
        if kind == "task" and action_of(kind, before, after, changed_fields(kind, before, after)) == "move"
    }
    members: dict[str, list[Item]] = {}
    kept: list[Written] = []
    for entry in written:
        kind, ident, before, after, _stored = entry
        parent = str((after or before or {}).get("parentId") or "")
        if kind == "subtask" and parent in moved:
            members.setdefault(parent, []).append(member(kind, ident, before, after))
        else:
            kept.append(entry)
    return kept, members


Written = tuple[str, str, Item | None, Item | None, Item | None]


def _todo_written(state: TodoState, ops: Sequence[WriteOp]) -> list[Written]:
    """(kind, id, before, after, the item put) of each record the ops write."""
    changes: list[Written] = []
    for op in ops:
        if isinstance(op, Put):
            target = _todo_target(str(op.item["sk"]))
            if target is None:
                continue
            kind, ident = target
            is_new = op.condition is not None and op.condition.exists is False
            before = None if is_new else _before(state, kind, ident)
            after = record_of(op.item)
            changes.append((_public_kind(kind, after), ident, before, after, op.item))
        elif isinstance(op, Delete):
            target = _todo_target(op.key[1])
            if target is None:
                continue
            kind, ident = target
            before = _before(state, kind, ident)
            changes.append((_public_kind(kind, before), ident, before, None, None))
    return _renamed_tag(changes)


def _renamed_tag(changes: list[Written]) -> list[Written]:
    """A tag's delete and another tag's create in one write are its rename (update_todo_tag moves
    the record to its new key): one change of the tag under its new name, `name` among its fields,
    so undo can rename it back."""
    gone = [entry for entry in changes if entry[0] == "tag" and entry[3] is None]
    new = [entry for entry in changes if entry[0] == "tag" and entry[2] is None]
    if len(gone) != 1 or len(new) != 1:
        return changes
    (_kind, _old, before, _after, _stored), (_kind, ident, _before, after, stored) = gone[0], new[0]
    renamed: Written = ("tag", ident, before, after, stored)
    return [renamed if entry is new[0] else entry for entry in changes if entry is not gone[0]]
