"""A graph `list_todos` page (projection=graph) read through GSI2, the list sizes and the graph
counts (`todos/graph_counts.py`), never the whole board; the same pure page builder
(`listing.graph_page`) the whole-snapshot view uses, so the answer is the snapshot's.

What it reads: the structure (given), for the totals the column and inbox list sizes
(`list_sizes.board_sizes`, one range Query), the columns' live-subtask counts (one
BatchGetItem) and the inbox's subtask count (one GetItem); then each collection's window
[offset, offset + limit):
- tasks: as a plain page's parents: whole columns skipped by their sizes, then the GSI2 head of
  the column the offset falls in (and of the next ones until `limit`);
- subtasks: whole columns skipped by their counts; in the column the offset falls in, its root
  tasks in order (GSI2, 100 at a time) with their counts (one BatchGetItem per 100), skipping
  whole roots until the offset, then the subtask lists (GSI2) of the roots the window covers;
  a column is never read past its last counted subtask;
- inboxItems, inboxSubtasks: one walk of the live inbox list (GSI2) until both windows are full
  (or the inbox's subtasks are all behind).
So the first page reads the heads of a few lists; a deep offset reads the head of the column (or
of the inbox) it falls in: a bounded pass linear in the offset, never the board.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

from ...kernel.ports.storage import ItemStore
from ...store.paging import walk
from ..graph_counts import column_counts, inbox_subtask_count, root_counts
from ..keys import INDEX, KIND_PREFIX, column_list, inbox_list, live
from ..list_sizes import board_sizes
from .listing import GraphWindows, ListOptions, graph_page
from .paged import list_window, live_subtasks
from .traversal import Board, Record, Scope, scope_of

_ROOTS_AT_ONCE = 100  # roots whose counts one BatchGetItem reads


def graph_board_page(
    items: ItemStore, user_id: str, structure: Board, *, include_inbox: bool, space_ids: frozenset[str] | None,
    options: ListOptions,
) -> dict[str, Any]:  # fmt: skip
    """`structure`: the board's spaces and columns (public shapes) and the record views, no tasks."""
    meta = scope_of(structure, space_ids=space_ids, include_inbox=False)
    column_ids = [str(column["id"]) for column in meta.columns]
    lists = [column_list(user_id, ident) for ident in column_ids]
    inbox = inbox_list(user_id)
    sizes = board_sizes(items, user_id, lists + ([inbox] if include_inbox else []))
    counts = column_counts(items, user_id, column_ids)
    offset, limit = options.offset, options.limit
    inbox_total = sizes[inbox] if include_inbox else 0
    inbox_subtasks_total = inbox_subtask_count(items, user_id) if include_inbox else 0
    inbox_items, inbox_subtasks = _inbox_windows(
        items, user_id, meta, (inbox_total, inbox_subtasks_total), offset, limit
    )
    windows = GraphWindows(
        totals={
            "tasks": sum(sizes[partition] for partition in lists),
            "subtasks": sum(counts.values()),
            "inboxItems": inbox_total,
            "inboxSubtasks": inbox_subtasks_total,
        },
        tasks=[record for _, record in list_window(items, lists, sizes, offset, limit)],
        subtasks=_subtasks(items, user_id, column_ids, counts, offset, limit),
        inbox_items=inbox_items,
        inbox_subtasks=inbox_subtasks,
    )
    return graph_page(meta, windows, options)


def _chunks(records: Iterator[str], size: int) -> Iterator[list[str]]:
    while chunk := list(islice(records, size)):
        yield chunk


def _subtasks(
    items: ItemStore, user_id: str, column_ids: Sequence[str], counts: dict[str, int], offset: int, limit: int
) -> list[Record]:
    found: list[Record] = []
    start = 0  # traversal index of the column's first subtask
    for column in column_ids:
        count = counts[column]
        if len(found) >= limit:
            break
        if start + count > offset:
            found += _column_subtasks(items, user_id, column, count, offset - start, limit - len(found))
        start += count
    return found


def _column_subtasks(items: ItemStore, user_id: str, column: str, count: int, skip: int, wanted: int) -> list[Record]:
    """The column's live subtasks [skip, skip + wanted) (skip may be negative: from the first)."""
    found: list[Record] = []
    seen = 0  # subtasks of the roots passed so far
    # Keys only: the column's list holds only live roots, and only their ids are needed here.
    listed_roots = walk(items, column_list(user_id, column), index=INDEX, keys_only=True)
    roots = (str(entry["sk"]).removeprefix(KIND_PREFIX["task"]) for entry in listed_roots)
    for chunk in _chunks(roots, _ROOTS_AT_ONCE):
        held = root_counts(items, user_id, chunk)
        for root_id in chunk:
            if seen >= count or len(found) >= wanted:
                return found
            number = held[root_id]
            if number and seen + number > skip:
                subtasks = live_subtasks(items, user_id, root_id)
                first = max(skip - seen, 0)
                found += subtasks[first : first + wanted - len(found)]
            seen += number
        if seen >= count:
            break
    return found


def _inbox_windows(
    items: ItemStore, user_id: str, meta: Scope, totals: tuple[int, int], offset: int, limit: int
) -> tuple[list[Record], list[tuple[Record, Record]]]:
    item_total, subtask_total = totals
    inbox_items: list[Record] = []
    inbox_subtasks: list[tuple[Record, Record]] = []
    if item_total <= offset and subtask_total <= offset:
        return inbox_items, inbox_subtasks
    index = seen = 0  # live items passed, their subtasks
    for item in walk(items, inbox_list(user_id), index=INDEX):
        if not live(item):
            continue
        if offset <= index < offset + limit:
            inbox_items.append(item)
        index += 1
        subtasks = meta.inbox_subtasks(item)
        if seen + len(subtasks) > offset and len(inbox_subtasks) < limit:
            first = max(offset - seen, 0)
            inbox_subtasks += [(item, sub) for sub in subtasks[first : first + limit - len(inbox_subtasks)]]
        seen += len(subtasks)
        items_done = index >= min(offset + limit, item_total)
        subtasks_done = len(inbox_subtasks) >= limit or seen >= subtask_total
        if items_done and subtasks_done:
            break
    return inbox_items, inbox_subtasks
