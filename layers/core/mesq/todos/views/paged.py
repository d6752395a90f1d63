"""list_todos' plain page read through the index: what the page shows, never the whole board.

A plain page is the parents at [offset, offset + limit) in traversal order (each open column's
live root tasks, column by column, then the live inbox) with their subtasks, plus every space and
open column. Each GSI2 list is sorted exactly as the traversal sorts it (`keys.py`), and its size
is a table item (`list_sizes.py`), so a page reads:
- the structure (settings, slugs, spaces, tags, columns: `state.load_partial`, two Queries);
- the column and inbox sizes (one range Query): where each list's part of the page starts, and
  the page's `totalCount`;
- for each list the page overlaps, one Query of at most `skip + limit` entries (`skip`: how far
  into that list the offset falls, 0 for every list after the first; so a deep offset inside one
  huge column is a bounded pass over that column's head);
- the subtask sizes of the page's root tasks (one BatchGetItem) and one Query per root task that
  has subtasks.

GSI2 is eventually consistent on DynamoDB while the sizes are read strongly: right after a write
a page may show a list one write behind its count (the next read agrees).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...kernel.ports.storage import ItemStore
from ...store.paging import walk
from ..keys import INDEX, column_list, inbox_list, live, subtask_list
from ..list_sizes import board_sizes, subtask_sizes
from .listing import ListOptions, Window, plain_page
from .traversal import Board, Record, Scope, order_key, scope_of


def plain_board_page(
    items: ItemStore, user_id: str, structure: Board, *, include_inbox: bool, space_ids: frozenset[str] | None,
    options: ListOptions,
) -> dict[str, Any]:  # fmt: skip
    """`structure`: the board's spaces and columns (public shapes) and the record views, no tasks."""
    meta = scope_of(structure, space_ids=space_ids, include_inbox=False)
    inbox = inbox_list(user_id)
    lists = [column_list(user_id, str(c["id"])) for c in meta.columns] + ([inbox] if include_inbox else [])
    sizes = board_sizes(items, user_id, lists)
    parents = [
        ("inbox" if partition == inbox else "task", record)
        for partition, record in list_window(items, lists, sizes, options.offset, options.limit)
    ]
    roots = [record for kind, record in parents if kind == "task"]
    scope = Scope(
        spaces=meta.spaces,
        columns=meta.columns,
        root_tasks=roots,
        subtasks=_subtasks(items, user_id, [str(r["id"]) for r in roots]),
        inbox_items=[record for kind, record in parents if kind == "inbox"],
        board=structure,
    )
    return plain_page(scope, Window(parents, sum(sizes.values())), options)


def list_window(
    items: ItemStore, lists: Sequence[str], sizes: Mapping[str, int], offset: int, limit: int
) -> list[tuple[str, Record]]:
    """The live records [offset, offset + limit) of the GSI2 `lists` read one after the other, each
    with its list: a list wholly before the offset is skipped by its size, the one the offset
    falls in is read from its head."""
    found: list[tuple[str, Record]] = []
    start = 0
    for partition in lists:
        wanted = limit - len(found)
        if wanted <= 0:
            break
        if start + sizes[partition] > offset:
            skip = max(offset - start, 0)
            # Index entries are whole items (projection ALL); the views pick the public fields.
            head = list(walk(items, partition, index=INDEX, limit=skip + wanted))[skip:]
            found += [(partition, record) for record in head[:wanted] if live(record)]
        start += sizes[partition]
    return found


def live_subtasks(items: ItemStore, user_id: str, root_id: str) -> list[Record]:
    """A root task's live subtasks in order (its GSI2 subtask list)."""
    return sorted((s for s in walk(items, subtask_list(user_id, root_id), index=INDEX) if live(s)), key=order_key)


def _subtasks(items: ItemStore, user_id: str, root_ids: list[str]) -> dict[str, list[Record]]:
    """root id -> its live subtasks in order; a task whose list is sized empty costs no Query."""
    sizes = subtask_sizes(items, user_id, root_ids)
    found: dict[str, list[Record]] = {}
    for root_id in root_ids:
        if sizes.get(root_id) == 0:
            found[root_id] = []
            continue
        found[root_id] = live_subtasks(items, user_id, root_id)
    return found
