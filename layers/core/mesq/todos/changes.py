"""The todo records' part of the change history: what `writes.apply` adds to every todo
transaction, derived from the transaction's own ops (like the list sizes and the reminder index,
so no todo write path can forget it): one change record (`history.change_op`) per space, column,
task, subtask, inbox item or tag it puts or deletes, the record before the change taken from the
write's state (where the write read it); a tag deleted and another created in one write is a
rename, one record under the new name; what goes with another record of the same write (a moved
task's subtasks, a removed space's columns) is a `member` of that record's change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from ..history.change_op import change_op, recent_changes
from ..history.records import LINKS, action_of, changed_fields, links, member
from ..history.timeline import register_record_key
from ..kernel.context import Call
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Delete, Item, Key, Put, WriteOp
from .keys import KIND_PREFIX, Kind, key, record_of
from .state import TodoState

#: The todo kinds with history, by sort-key prefix (slug claims, settings and sizes have none).
_TODO_PREFIXES = {KIND_PREFIX[kind]: kind for kind in ("space", "column", "task", "inbox", "tag")}


def _key_of(kind: Kind) -> Callable[[str, str], Key]:
    return lambda user_id, ident: key(user_id, kind, ident)


# Each record's item heads its chain of changes (history/timeline.py); a subtask is a task item.
for _history_kind, _item_kind in (("space", "space"), ("column", "column"), ("task", "task"), ("subtask", "task"),
                                  ("inbox", "inbox"), ("tag", "tag")):  # fmt: skip
    register_record_key(_history_kind, _key_of(cast(Kind, _item_kind)))


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
    """One change record per record written (a moved task's subtasks and a removed space's
    columns as members of its change); when they would not fit the transaction beside `ops`, one
    record for the first with the others as its `members`."""
    everything = _todo_written(state, ops)
    written, members = _carried(everything, undoing=call.undoes is not None)
    if len(ops) + len(written) + _RESERVED <= MAX_TRANSACTION_OPS:
        changes: list[WriteOp] = []
        heads = _heads(written)
        items: dict[str, list[Item]] = {}
        for index, (kind, ident, before, after, stored) in enumerate(written):
            room = MAX_TRANSACTION_OPS - _RESERVED - len(ops) - len(changes) - (len(written) - index)
            packed = members.get(ident)
            made = change_op(
                call, kind, ident, before, after, packed, stored=stored, room=max(0, room), earlier=heads.get(ident, ())
            )
            changes += made
            heads[ident] = _newest_links(made)
            items.setdefault(ident, []).extend([stored] if stored is not None else [])
        for ident, stored_items in items.items():  # each record's item names its newest changes
            for stored in stored_items:
                stored["recentChanges"] = heads[ident]
        return changes
    (kind, ident, before, after, stored), *rest = everything
    return change_op(call, kind, ident, before, after, [member(*entry[:4]) for entry in rest], stored=stored)


def _newest_links(made: list[WriteOp]) -> list[str]:
    """The record's newest changes after `change_op`'s: its change record (put first among its
    ops) and the ones that record links to."""
    first = made[0]
    assert isinstance(first, Put)
    return [str(first.item["id"]), *links(first.item.get("priors"))][:LINKS]


def _heads(written: list[Written]) -> dict[str, list[str]]:
    """The newest changes each record's items named before this write, by record id: a record
    written under two kinds at once (an inbox item moved to the board: removed as an inbox item,
    created as a task) goes on with one chain, each of its changes in this write linked to the
    ones before (history/change_op.py)."""
    heads: dict[str, list[str]] = {}
    for kind, ident, before, _after, _stored in written:
        named = recent_changes(kind, ident, before)
        if named and named[0] > heads.get(ident, [""])[0]:
            heads[ident] = named
    return heads


def _carried(written: list[Written], *, undoing: bool = False) -> tuple[list[Written], dict[str, list[Item]]]:
    """The entries without the records that go with another record of the same write, and those
    as `member`s by that record's id:
    - a moved task's subtasks: undoing the move takes them back with it (a move to another space
      rewrites each subtask's spaceId);
    - a removed space's columns (delete_todo_space, and the undo that removes a space its run or
      session made once it is empty, todos/revert.py): one removal, as a person reads it. Under an
      undo only the space's change can name what it `undoes`; columns' removals of their own
      would read on /activity as deletions apart from the undo;
    - under an undo (`undoing`), a space's columns brought back with it (the redo of that removal,
      todos/revert.py): one re-creation, which its own undo removes again. A space a person
      creates keeps one change per column, as before."""
    moved = {
        ident
        for kind, ident, before, after, _stored in written
        if kind == "task" and action_of(kind, before, after, changed_fields(kind, before, after)) == "move"
    }
    whole_spaces = {ident for kind, ident, _before, after, _stored in written if kind == "space" and after is None}
    if undoing:
        whole_spaces |= {
            ident for kind, ident, before, _after, _stored in written if kind == "space" and before is None
        }
    members: dict[str, list[Item]] = {}
    kept: list[Written] = []
    for entry in written:
        kind, ident, before, after, _stored = entry
        carrier = _carrier(kind, before, after, moved, whole_spaces)
        if carrier is None:
            kept.append(entry)
        else:
            members.setdefault(carrier, []).append(member(kind, ident, before, after))
    return kept, members


def _carrier(kind: str, before: Item | None, after: Item | None, moved: set[str], whole_spaces: set[str]) -> str | None:
    """The id of the record whose change this one is a member of (None: a change of its own)."""
    if kind == "subtask":
        parent = str((after or before or {}).get("parentId") or "")
        return parent if parent in moved else None
    if kind == "column" and (after is None or before is None):
        space = str((before or after or {}).get("spaceId") or "")
        return space if space in whole_spaces else None
    return None


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
