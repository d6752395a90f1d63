"""query_todos' board read through the due/priority/status index (`todos/due_index.py`) instead of
the whole snapshot, when the query narrows by something the index is keyed by.

`narrowed(query)`: a priority, a due bound, `overdue: true` or `status: done`. A query narrowed
by nothing else (open or all, tags, text alone) needs most of the board anyway and reads the
snapshot as before, and so does a narrowed query while its board's backfill is unfinished
(`due_index.ensure_indexed`). `indexed_query` builds a `traversal.Board` holding every record the pure
query could match and what deciding it needs: the index's candidate tasks, the parents of their
subtasks (read by key), the live inbox (its GSI2 list; none under a space filter, which excludes
inbox records) and the structure. A candidate is its cover (`keys.covered_record`: what its index
sort key says of it, enough to filter and order by everything but tags and text), so
`indexed_query` reads by key only the page's records (`query_todos(..., records_of)`); a tags or
text filter, or a cover missing (too long for a sort key), reads those candidates' records.
`views/query.py` filters it exactly as it filters the snapshot, so the answers are the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...kernel.ports.storage import ItemStore
from ..due_index import day_range, entries, tasks_by_id
from ..keys import UNDATED
from ..state import TodoState
from .query import TodoQuery, query_todos
from .text_candidates import TextCandidates, narrow
from .traversal import Board, Record

_STATUSES: dict[str, tuple[bool, ...]] = {"open": (False,), "done": (True,), "all": (False, True)}


def narrowed(query: TodoQuery) -> bool:
    return query.priorities is not None or query.has_date_filter or query.overdue is True or query.status == "done"


def _days(query: TodoQuery) -> tuple[str | None, str | None] | None:
    """The index's day range of the query: its due bounds, cut at today for `overdue: true`."""
    days = day_range(query.due_after, query.due_before) if query.has_date_filter else None
    if query.overdue is True and query.now is not None:
        end = day_range(None, query.now)[1]  # an overdue due is on or before today's UTC date
        start, bound = days if days is not None else (None, UNDATED)
        days = (start, min(end or UNDATED, bound or UNDATED))
    return days


def indexed_query(
    items: ItemStore,
    user_id: str,
    state: TodoState,
    structure: Board,
    query: TodoQuery,
    *,
    read_records: bool = False,
    within: TextCandidates | None = None,
) -> dict[str, Any]:
    """query_todos' answer through the index. `structure`: the board's spaces, columns and views
    without records (`board_of(..., records=False)`); `state`: a partial state (its live inbox is
    read from GSI2). The board must be indexed (`due_index.ensure_indexed`). `read_records`: read
    every candidate's record as the path before the covers did (the bench's comparison). `within`:
    the literal todo index's candidates of a `query` text (text_candidates.py): only those are read."""
    tasks, covered = _candidate_tasks(items, user_id, query, read_records=read_records, within=within)
    inbox = state.live_inbox() if query.space_ids is None else []
    board = replace(structure, tasks=tasks, inbox_items=inbox)
    if within is not None:
        board = narrow(board, within)
    by_id = {str(task["id"]): task for task in board.tasks}

    def records_of(ids: list[str]) -> dict[str, Record]:
        whole = {ident: by_id[ident] for ident in ids if ident not in covered}
        whole.update((str(t["id"]), t) for t in tasks_by_id(items, user_id, [i for i in ids if i in covered]))
        return whole

    return query_todos(board, query, records_of)


def _candidate_tasks(
    items: ItemStore, user_id: str, query: TodoQuery, *, read_records: bool, within: TextCandidates | None
) -> tuple[list[Record], set[str]]:
    """The tasks the pure query filters, and the ids of those that are covers only (the part of
    the record the index entry holds, `keys.covered_record`): every other task is its whole
    record, read by key (the subtasks' parents, the candidates without a cover, and every
    candidate when the query filters by tags or text, which no cover holds)."""
    # overdue: true holds only open records (a done one is never overdue).
    statuses = _STATUSES[query.status] if query.overdue is not True else (False,)
    if query.overdue is True and query.status == "done":
        statuses = ()
    priorities = sorted(query.priorities) if query.priorities is not None else None
    # One entry per task (an eventually consistent GSI may show a moved task in two partitions).
    found = list(dict(entries(items, user_id, statuses=statuses, priorities=priorities, days=_days(query))).items())
    if within is not None:
        found = [(ident, cover) for ident, cover in found if ident in within.task_ids]
    whole = read_records or bool(query.tags) or bool(query.query)
    covers = [] if whole else [cover for _, cover in found if cover is not None]
    tasks = covers + tasks_by_id(items, user_id, [ident for ident, cover in found if whole or cover is None])
    known = {str(task["id"]) for task in tasks}
    parents = [str(t["parentId"]) for t in tasks if t.get("parentId") and str(t["parentId"]) not in known]
    tasks += tasks_by_id(items, user_id, parents)
    return tasks, {str(cover["id"]) for cover in covers}
