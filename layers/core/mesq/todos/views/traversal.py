"""The board's reading order over plain records, shared by list_todos and query_todos.

Everything here is pure: it takes the public-shaped records of one user's todo snapshot (plain
dicts, camelCase, as the tools return them) and never touches storage, so property tests can
drive it with thousands of random boards quickly.

Traversal order (seed 常用读工具): spaces by position, their non-archived columns by position,
each column's live root tasks by position, then the live inbox items by position. A record's
`id` breaks ties so the order is total even when two positions are equal.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Record = dict[str, Any]
View = Callable[[Record], Record]


def order_key(record: Mapping[str, Any]) -> tuple[str, str]:
    """Positions are fractional-index strings (model.py): text order is list order."""
    return (str(record.get("position") or ""), str(record["id"]))


def is_live(record: Mapping[str, Any]) -> bool:
    """Not in the trash."""
    return not record.get("deletedAt")


def inbox_subtask_view(item: Mapping[str, Any], subtask: Mapping[str, Any]) -> Record:
    """An inbox subtask as tools expose it: it has no revision of its own, so it carries its
    parent's id and revision (the `parentRevision` every write to it needs)."""
    return {**subtask, "parentItemId": item["id"], "parentRevision": item["revision"]}


@dataclass(frozen=True)
class Board:
    """One user's todo records (all of them, trash and archived columns included).

    Tasks and inbox items may be stored records: `task_view` / `inbox_view` /
    `subtask_view` turn one into its public shape, and are applied only to the records a
    response returns (shaping thousands of records to return 200 would double a list's cost)."""

    spaces: Sequence[Record]
    columns: Sequence[Record]
    tasks: Sequence[Record]  # root tasks (parentId null) and subtasks (parentId = root id)
    inbox_items: Sequence[Record]  # with their embedded `subtasks`
    tags: Sequence[Record] = ()
    task_view: View = dict
    inbox_view: View = dict  # the item with its embedded subtasks
    subtask_view: Callable[[Record, Record], Record] = inbox_subtask_view


@dataclass(frozen=True)
class Scope:
    """The live part of a board in reading order, optionally narrowed to some spaces."""

    spaces: list[Record]
    columns: list[Record]  # non-archived columns of `spaces`, space by space
    root_tasks: list[Record]  # live root tasks of `columns`, column by column
    subtasks: dict[str, list[Record]] = field(default_factory=dict)  # root id -> live subtasks
    inbox_items: list[Record] = field(default_factory=list)
    board: Board = field(default_factory=lambda: Board((), (), (), ()))

    def inbox_subtasks(self, item: Record) -> list[Record]:
        return sorted(item.get("subtasks") or (), key=order_key)


def scope_of(board: Board, *, space_ids: Iterable[str] | None = None, include_inbox: bool = True) -> Scope:
    """`space_ids` None = every space (inbox included unless `include_inbox` is false)."""
    wanted = None if space_ids is None else set(space_ids)
    spaces = sorted((s for s in board.spaces if wanted is None or s["id"] in wanted), key=order_key)
    columns_by_space: dict[str, list[Record]] = defaultdict(list)
    for column in board.columns:
        if not column.get("archived") and is_live(column):
            columns_by_space[column["spaceId"]].append(column)
    columns = [c for s in spaces for c in sorted(columns_by_space[s["id"]], key=order_key)]

    roots_by_column: dict[str, list[Record]] = defaultdict(list)
    children: dict[str, list[Record]] = defaultdict(list)
    for task in board.tasks:
        if not is_live(task):
            continue
        if task.get("parentId"):
            children[task["parentId"]].append(task)
        else:
            roots_by_column[task.get("columnId") or ""].append(task)
    root_tasks = [t for c in columns for t in sorted(roots_by_column[c["id"]], key=order_key)]
    subtasks = {t["id"]: sorted(children[t["id"]], key=order_key) for t in root_tasks}
    inbox = sorted((i for i in board.inbox_items if is_live(i)), key=order_key) if include_inbox else []
    return Scope(
        spaces=spaces, columns=columns, root_tasks=root_tasks, subtasks=subtasks, inbox_items=inbox, board=board
    )


def without_notes(record: Mapping[str, Any]) -> Record:
    """The record minus `notes` (lists omit notes unless includeNotes); embedded inbox subtasks
    lose theirs too."""
    trimmed = {key: value for key, value in record.items() if key != "notes"}
    if isinstance(trimmed.get("subtasks"), list):
        trimmed["subtasks"] = [without_notes(sub) for sub in trimmed["subtasks"]]
    return trimmed
