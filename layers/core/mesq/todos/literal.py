"""What search holds of the todo records (the engines in mesq/search, handed these through
application/registries.py):

- `LITERAL` (query_todos' `query`, search/literal_store.py): one row per live root task (in its
  column's list) with the text of the task and of every subtask it has, and one per live inbox
  item with its subtasks' text: the row only names candidates (a superset: a subtask moved away
  leaves its text behind until the next rebuild), and the pure query decides each record exactly.
  A row counts against the list sizes (list_sizes.py): the columns' live root tasks plus the live
  inbox;
- `DOCUMENTS` (the AI index, search/indexer.py): a task or subtask not in the trash (title +
  notes), an inbox item not in the trash (title + notes + its subtasks' titles).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore
from ..search import pointers
from ..search.documents import Doc, DocumentSource, Kind, joined
from ..search.literal_kind import Changes, LiteralKind, Row, by_key, fold
from ..store.paging import walk
from . import keys

TASK_PREFIX = keys.KIND_PREFIX["task"]
INBOX_PREFIX = keys.KIND_PREFIX["inbox"]
TASK_ROW, INBOX_ROW = "task:", "inbox:"


def _todo_text(records: Iterable[Item]) -> str:
    # Each title and notes folded on its own (as query.py folds them), one per line: the joins
    # only add candidates, never lose one (every bigram of a field is in the text).
    return "\n".join(fold(str(r.get(name) or "")) for r in records for name in ("title", "notes"))


def _is_root_row(user_id: str, task: Item) -> bool:
    """A live root task in a column's list: what a column's list size counts."""
    listed = keys.list_of(user_id, "task", task)
    return listed is not None and listed.startswith(keys.column_list(user_id, ""))


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
        if keys.list_of(user_id, "inbox", item) is not None:
            yield inbox_row(item)


def _todo_changes(items: ItemStore, user_id: str, sort_keys: Sequence[str]) -> Changes:
    """A changed task re-makes its own row (or removes it) and its parent's; the parent's
    subtasks come from their list (GSI2, trashed ones too) plus the changed ones read by key, so
    a list index that lags the table cannot drop the new text."""
    upserts: list[Row] = []
    removed: list[str] = []
    found = by_key(items, user_id, sort_keys)
    roots: set[str] = set()
    changed_subtasks: dict[str, list[Item]] = defaultdict(list)
    for key in sort_keys:
        item = found.get(key)
        if key.startswith(INBOX_PREFIX):
            if item is not None and keys.list_of(user_id, "inbox", item) is not None:
                upserts.append(inbox_row(item))
            else:
                removed.append(INBOX_ROW + key.removeprefix(INBOX_PREFIX))
            continue
        roots.add(key.removeprefix(TASK_PREFIX))
        if item is not None and item.get("parentId") is not None:
            roots.add(str(item["parentId"]))
            changed_subtasks[str(item["parentId"])].append(item)
    parents = by_key(items, user_id, [TASK_PREFIX + ident for ident in sorted(roots)])
    for ident in sorted(roots):
        root = parents.get(TASK_PREFIX + ident)
        if root is None or not _is_root_row(user_id, root):
            removed.append(TASK_ROW + ident)
            continue
        listed = walk(items, keys.subtask_list(user_id, ident), index=keys.INDEX)
        subtasks = {str(s["id"]): s for s in listed}
        subtasks.update((str(s["id"]), s) for s in changed_subtasks.get(ident, ()))
        upserts.append(task_row(root, subtasks.values()))
    return upserts, removed


def _row_key(row_id: str) -> str:
    if row_id.startswith(INBOX_ROW):
        return INBOX_PREFIX + row_id.removeprefix(INBOX_ROW)
    return TASK_PREFIX + row_id.removeprefix(TASK_ROW)


LITERAL = LiteralKind(
    name="todo", pointer_sk=pointers.LITERAL["todo"], blob_stem="literal-todo", prefixes=(TASK_PREFIX, INBOX_PREFIX),
    order=lambda row: row.id, descending=True, all_rows=_todo_rows, changed=_todo_changes, sort_key=_row_key,
)  # fmt: skip


def _todo_doc(kind: Kind) -> DocumentSource:
    def doc(item: Item) -> Doc | None:
        if item.get("deletedAt") is not None:
            return None
        subtasks = [sub.get("title") for sub in item.get("subtasks", []) if isinstance(sub, dict)]
        text = joined(item.get("title"), item.get("notes"), *subtasks)
        return Doc(kind, item["id"], text, {"createdAt": item.get("createdAt")})

    prefix = TASK_PREFIX if kind == "todo_task" else INBOX_PREFIX
    return DocumentSource(prefix, kind, doc)


DOCUMENTS = (_todo_doc("todo_task"), _todo_doc("inbox_item"))
