"""query_todos' `query` text through the literal todo index (todos/literal.py `LITERAL`): the ids of
the records whose text may contain it, a candidate source beside the due index (indexed.py).

`text_candidates` answers None when the index cannot (no `query`, nothing keeps the index in step
with the writes, no index yet, or its row count disagrees with the column and inbox list sizes:
writes it has not seen); the caller then reads as before. Otherwise it names the candidate root
tasks with every subtask they hold, and the candidate inbox items. `text_board` reads just those
by key onto the structure; `narrow` keeps only them on a board read otherwise (the due index's),
with the parents their subtasks need. The pure query (query.py) then filters exactly as it filters
the snapshot: a candidate is never taken for a match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...kernel.context import Services
from ...kernel.keys import user_partition
from ...kernel.ports.storage import ItemStore
from ...search.literal_kind import needle as literal_needle
from ...store.paging import walk
from ..due_index import tasks_by_id
from ..keys import SIZE_PREFIX, SUBTASK_SIZE_PREFIX, inbox_key, record_of
from ..literal import INBOX_ROW, LITERAL, TASK_ROW
from .query import TodoQuery
from .traversal import Board


@dataclass(frozen=True)
class TextCandidates:
    task_ids: frozenset[str]  # candidate root tasks and every subtask of theirs
    inbox_ids: frozenset[str]


def listed_records(items: ItemStore, user_id: str) -> int:
    """The live root tasks of every column plus the live inbox items, from their list sizes (one
    range Query): the rows the todo literal index holds when it is in step."""
    sizes = walk(items, user_partition(user_id), start=SIZE_PREFIX, end=SUBTASK_SIZE_PREFIX)
    return sum(int(item["count"]) for item in sizes)


def text_candidates(services: Services, user_id: str, query: TodoQuery) -> TextCandidates | None:
    if not query.query or not services.search.follows_writes:
        return None
    from ...search.literal_store import current  # numpy: with the first text query

    index = current(services, user_id, listed_records(services.items, user_id), LITERAL)
    if index is None:
        return None
    needle = literal_needle(query.query)
    tasks: set[str] = set()
    inbox: set[str] = set()
    for row in index.matching(needle, lambda _fields, text: needle in text):
        if row.id.startswith(TASK_ROW):
            tasks.add(row.id.removeprefix(TASK_ROW))
            tasks.update(row.fields["subtasks"])
        else:
            inbox.add(row.id.removeprefix(INBOX_ROW))
    return TextCandidates(frozenset(tasks), frozenset(inbox))


def text_board(items: ItemStore, user_id: str, structure: Board, candidates: TextCandidates) -> Board:
    """`structure` (`board_of(..., records=False)`) with the candidates' records read by key."""
    tasks = tasks_by_id(items, user_id, sorted(candidates.task_ids))
    inbox_keys = [inbox_key(user_id, ident) for ident in sorted(candidates.inbox_ids)]
    inbox = [record_of(item) for item in items.batch_get(inbox_keys)] if inbox_keys else []
    return replace(structure, tasks=tasks, inbox_items=inbox)


def narrow(board: Board, candidates: TextCandidates) -> Board:
    """Only the candidates of `board` (and the parents of the subtasks kept: the query needs them
    to place a subtask)."""
    kept = [task for task in board.tasks if str(task["id"]) in candidates.task_ids]
    parents = {str(task["parentId"]) for task in kept if task.get("parentId")}
    tasks = [task for task in board.tasks if str(task["id"]) in candidates.task_ids or str(task["id"]) in parents]
    inbox = [item for item in board.inbox_items if str(item["id"]) in candidates.inbox_ids]
    return replace(board, tasks=tasks, inbox_items=inbox)
