"""What each literal index holds (literal_store.py stores and follows them alike): which records
become rows, each row's text and filter fields, the answer's order, and the rows a set of changed
sort keys implies.

- `MEMO` (search_memos): every memo, any status; the content folded; the list order.
- `READING` (search_reading_notes): every reading note, deleted upstream too; the folded content,
  quoted text and chapter title one after the other (`fields["cut"]` holds where each ends, so
  `reading_match` checks each field on its own, as the scan does); ascending by sort key (the
  scan's walk order).
- `TODO` (query_todos' `query`): one row per live root task (in its column's list) with the text
  of the task and of every subtask it has, and one per live inbox item with its subtasks' text:
  the row only names candidates (a superset: a subtask moved away leaves its text behind until
  the next rebuild), and the pure query decides each record exactly. A row counts against the
  list sizes (`todos/list_sizes.py`): the columns' live root tasks plus the live inbox.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore
from ..memos.filters import sort_key
from ..store.paging import walk
from ..todos import keys as todo_keys
from . import pointers
from .literal import Order, Row

#: (upserted rows, removed row ids) for some changed sort keys of the kind.
Changes = tuple[list[Row], list[str]]


@dataclass(frozen=True)
class LiteralKind:
    name: str
    #: The pointer item's sort key (the memo index keeps the name it was first stored under).
    pointer_sk: str
    #: Blob names: `search/<user hash>/<stem>-<id>.snap|.ovl`.
    blob_stem: str
    prefixes: tuple[str, ...]
    order: Order
    descending: bool
    #: Every row of a user (the rebuild).
    all_rows: Callable[[ItemStore, str], Iterable[Row]]
    #: The rows some changed sort keys (already this kind's) imply.
    changed: Callable[[ItemStore, str, Sequence[str]], Changes]
    #: Bump when a row's shape changes: an index of another format is rebuilt.
    format: int = 1

    def owns(self, sort_key_: str) -> bool:
        return sort_key_.startswith(self.prefixes)


def _by_key(items: ItemStore, user_id: str, sort_keys: Sequence[str]) -> dict[str, Item]:
    partition = user_partition(user_id)
    return {item["sk"]: item for item in items.batch_get([(partition, key) for key in sort_keys])} if sort_keys else {}


# -- memos ---------------------------------------------------------------------------------------

MEMO_PREFIX = "MEMO#"
#: What the memo filter and the list order read (memos/filters.py), kept with each row.
MEMO_FIELDS = ("sk", "status", "pinned", "tagPaths", "createdAt", "updatedAt")


def memo_row(item: Item) -> Row:
    """A stored memo as an index row: the content folded as the scan folds it."""
    fields = {name: item[name] for name in MEMO_FIELDS if name in item}
    return Row(str(item["id"]), fields, str(item["content"]).casefold())


def list_order(row: Row) -> tuple[bool, str, str]:
    """A row's place in search_memos' answer: the list order (`memos.filters.sort_key`)."""
    return sort_key(row.fields)


def _one_per_key(prefix: str, row_of: Callable[[Item], Row]) -> Callable[[ItemStore, str, Sequence[str]], Changes]:
    """Kinds whose row is one stored item: a key found is upserted, a key gone is removed."""

    def changed(items: ItemStore, user_id: str, sort_keys: Sequence[str]) -> Changes:
        found = _by_key(items, user_id, sort_keys)
        upserts = [row_of(found[key]) for key in sort_keys if key in found]
        return upserts, [key.removeprefix(prefix) for key in sort_keys if key not in found]

    return changed


MEMO = LiteralKind(
    name="memo", pointer_sk=pointers.LITERAL["memo"], blob_stem="literal", prefixes=(MEMO_PREFIX,),
    order=list_order, descending=True,
    all_rows=lambda items, user_id: map(memo_row, walk(items, user_partition(user_id), prefix=MEMO_PREFIX)),
    changed=_one_per_key(MEMO_PREFIX, memo_row),
)  # fmt: skip


# -- reading notes -------------------------------------------------------------------------------

NOTE_PREFIX = "READ#NOTE#"
#: The fields search_reading_notes matches, each on its own (reading/operations.py).
READING_FIELDS = ("content", "quotedText", "chapterTitle")


def reading_row(item: Item) -> Row:
    """A stored note: id = its sort key after the prefix (so the id order is the scan's order)."""
    parts = [str(item.get(name) or "").casefold() for name in READING_FIELDS]
    cut, end = [], 0
    for part in parts[:-1]:
        end += len(part)
        cut.append(end)
    return Row(str(item["sk"]).removeprefix(NOTE_PREFIX), {"cut": cut}, "".join(parts))


def reading_parts(fields: dict[str, Any], text: str) -> list[str]:
    """A row's folded fields again (the inverse of `reading_row`'s concatenation)."""
    bounds = [0, *fields["cut"], len(text)]
    return [text[start:end] for start, end in itertools.pairwise(bounds)]


def reading_match(needle: str, fields: dict[str, Any], text: str) -> bool:
    """The scan's predicate on a row: the folded needle inside one of the folded fields."""
    return any(needle in part for part in reading_parts(fields, text))


READING = LiteralKind(
    name="reading", pointer_sk=pointers.LITERAL["reading"], blob_stem="literal-reading", prefixes=(NOTE_PREFIX,),
    order=lambda row: row.id, descending=False,
    all_rows=lambda items, user_id: map(
        reading_row, walk(items, user_partition(user_id), start=NOTE_PREFIX, end=NOTE_PREFIX[:-1] + "$")
    ),
    changed=_one_per_key(NOTE_PREFIX, reading_row),
)  # fmt: skip


# -- todo tasks and inbox items ------------------------------------------------------------------

TASK_PREFIX = todo_keys.KIND_PREFIX["task"]
INBOX_PREFIX = todo_keys.KIND_PREFIX["inbox"]
TASK_ROW, INBOX_ROW = "task:", "inbox:"


def _todo_text(records: Iterable[Item]) -> str:
    # Each title and notes folded on its own (as query.py folds them), one per line: the joins
    # only add candidates, never lose one (every bigram of a field is in the text).
    return "\n".join(str(r.get(name) or "").casefold() for r in records for name in ("title", "notes"))


def _is_root_row(user_id: str, task: Item) -> bool:
    """A live root task in a column's list: what a column's list size counts."""
    listed = todo_keys.list_of(user_id, "task", task)
    return listed is not None and listed.startswith(todo_keys.column_list(user_id, ""))


def task_row(root: Item, subtasks: Iterable[Item]) -> Row:
    listed = list(subtasks)
    return Row(TASK_ROW + str(root["id"]), {"subtasks": [str(s["id"]) for s in listed]}, _todo_text([root, *listed]))


def inbox_row(item: Item) -> Row:
    return Row(INBOX_ROW + str(item["id"]), {}, _todo_text([item, *(item.get("subtasks") or ())]))


def _todo_rows(items: ItemStore, user_id: str) -> Iterable[Row]:
    partition = user_partition(user_id)
    roots: list[Item] = []
    subtasks: dict[str, list[Item]] = defaultdict(list)
    for task in walk(items, partition, prefix=TASK_PREFIX):
        if task.get("parentId") is not None:
            subtasks[str(task["parentId"])].append(task)
        elif _is_root_row(user_id, task):
            roots.append(task)
    yield from (task_row(root, subtasks.get(str(root["id"]), ())) for root in roots)
    for item in walk(items, partition, prefix=INBOX_PREFIX):
        if todo_keys.list_of(user_id, "inbox", item) is not None:
            yield inbox_row(item)


def _todo_changes(items: ItemStore, user_id: str, sort_keys: Sequence[str]) -> Changes:
    """A changed task re-makes its own row (or removes it) and its parent's; the parent's
    subtasks come from their list (GSI2, trashed ones too) plus the changed ones read by key, so
    a list index that lags the table cannot drop the new text."""
    upserts: list[Row] = []
    removed: list[str] = []
    found = _by_key(items, user_id, sort_keys)
    roots: set[str] = set()
    changed_subtasks: dict[str, list[Item]] = defaultdict(list)
    for key in sort_keys:
        item = found.get(key)
        if key.startswith(INBOX_PREFIX):
            if item is not None and todo_keys.list_of(user_id, "inbox", item) is not None:
                upserts.append(inbox_row(item))
            else:
                removed.append(INBOX_ROW + key.removeprefix(INBOX_PREFIX))
            continue
        roots.add(key.removeprefix(TASK_PREFIX))
        if item is not None and item.get("parentId") is not None:
            roots.add(str(item["parentId"]))
            changed_subtasks[str(item["parentId"])].append(item)
    parents = _by_key(items, user_id, [TASK_PREFIX + ident for ident in sorted(roots)])
    for ident in sorted(roots):
        root = parents.get(TASK_PREFIX + ident)
        if root is None or not _is_root_row(user_id, root):
            removed.append(TASK_ROW + ident)
            continue
        listed = walk(items, todo_keys.subtask_list(user_id, ident), index=todo_keys.INDEX)
        subtasks = {str(s["id"]): s for s in listed}
        subtasks.update((str(s["id"]), s) for s in changed_subtasks.get(ident, ()))
        upserts.append(task_row(root, subtasks.values()))
    return upserts, removed


TODO = LiteralKind(
    name="todo", pointer_sk=pointers.LITERAL["todo"], blob_stem="literal-todo", prefixes=(TASK_PREFIX, INBOX_PREFIX),
    order=lambda row: row.id, descending=True, all_rows=_todo_rows, changed=_todo_changes,
)  # fmt: skip

KINDS: tuple[LiteralKind, ...] = (MEMO, READING, TODO)


def kind_named(name: str) -> LiteralKind:
    return next(kind for kind in KINDS if kind.name == name)
