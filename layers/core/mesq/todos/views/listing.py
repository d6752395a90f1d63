"""list_todos: the board as pages of whole parents, or as flat collections (projection=graph).

Pure functions over a `traversal.Scope`; views/paged.py and views/graph_paged.py read a page's
`Window` / `GraphWindows` from the store, and the whole-snapshot path (tests' oracle) takes them
from a whole scope. The contracts (seed 常用读工具):

plain   `limit` (default 200; `maxItems` wins over it) caps the parents of a page: root tasks and
        inbox items together, in traversal order. Spaces and columns (metadata) and the subtasks
        of a returned parent are not counted and never cut. The page holds as many WHOLE parents
        as fit the 25,000-character budget: a parent with its subtasks is either on the page or
        left for the next one. `totalCount` = all parents, `returnedCount` = parents on this page;
        `nextOffset` advances by what was returned. An out-of-range page is empty and keeps the
        totals.
graph   six flat collections (spaces, columns, tasks, subtasks, inboxItems, inboxSubtasks), each
        sliced at the same `offset` with one common `step` <= limit, smaller when the budget needs
        it; `nextOffset` = offset + step. Counts are sums over the collections, not task counts.

Both: notes are omitted unless `includeNotes`; when a single parent (plain) or one step (graph)
is over budget on its own the call fails with RESPONSE_TOO_LARGE and hints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Literal

from ...kernel.pages import always, behind_nonempty, page
from ...kernel.response_budget import RESPONSE_BUDGET_CHARACTERS, item_cost, json_size
from .budget import response_too_large
from .traversal import Record, Scope, without_notes

DEFAULT_LIMIT = 200
Projection = Literal["plain", "graph"]
COLLECTIONS = ("spaces", "columns", "tasks", "subtasks", "inboxItems", "inboxSubtasks")


@dataclass(frozen=True)
class ListOptions:
    offset: int = 0
    limit: int = DEFAULT_LIMIT
    include_notes: bool = False
    projection: Projection = "plain"
    budget: int = RESPONSE_BUDGET_CHARACTERS


def effective_limit(limit: int | None, max_items: int | None) -> int:
    """`maxItems` wins over `limit`; both omitted -> the default."""
    if max_items is not None:
        return max_items
    return limit if limit is not None else DEFAULT_LIMIT


def list_todos(scope: Scope, options: ListOptions) -> dict[str, Any]:
    if options.projection == "graph":
        return _graph(scope, options)
    return _plain(scope, options)


# -- shared ------------------------------------------------------------------------------------


def _trim(record: Record, include_notes: bool) -> Record:
    return record if include_notes else without_notes(record)


def _task(scope: Scope, record: Record, include_notes: bool) -> Record:
    return _trim(scope.board.task_view(record), include_notes)


def _inbox_item(scope: Scope, item: Record, include_notes: bool) -> Record:
    """An inbox item without its embedded subtasks (lists carry them in `inboxSubtasks`, like
    root tasks' subtasks in `subtasks`)."""
    shown = scope.board.inbox_view(item)
    return _trim({key: value for key, value in shown.items() if key != "subtasks"}, include_notes)


def _inbox_subtask(scope: Scope, item: Record, sub: Record, include_notes: bool) -> Record:
    return _trim(scope.board.subtask_view(item, sub), include_notes)


def _data(
    projection: Projection, scope_meta: Mapping[str, list[Record]], page: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    data: dict[str, Any] = {"projection": projection}
    for name in COLLECTIONS:
        data[name] = scope_meta.get(name, [])
    data["page"] = page
    data["totalCount"] = page["totalCount"]
    data["returnedCount"] = page["returned"]
    data.update(extra)
    return data


# -- plain -------------------------------------------------------------------------------------

_Unit = tuple[str, Record, str, list[Record]]  # (parent collection, parent, child collection, children)


def _units(scope: Scope) -> list[tuple[str, Record]]:
    return [("task", t) for t in scope.root_tasks] + [("inbox", i) for i in scope.inbox_items]


def _render(kind: str, record: Record, scope: Scope, include_notes: bool) -> _Unit:
    if kind == "task":
        children = [_task(scope, sub, include_notes) for sub in scope.subtasks.get(record["id"], [])]
        return ("tasks", _task(scope, record, include_notes), "subtasks", children)
    children = [_inbox_subtask(scope, record, sub, include_notes) for sub in scope.inbox_subtasks(record)]
    return ("inboxItems", _inbox_item(scope, record, include_notes), "inboxSubtasks", children)


def _assemble(units: Sequence[_Unit], scope: Scope, page: dict[str, Any]) -> dict[str, Any]:
    collections: dict[str, list[Record]] = {"spaces": list(scope.spaces), "columns": list(scope.columns)}
    for parent_name, parent, child_name, children in units:
        collections.setdefault(parent_name, []).append(parent)
        collections.setdefault(child_name, []).extend(children)
    return _data("plain", collections, page)


@dataclass(frozen=True)
class Window:
    """The parents a plain page may hold (those at [offset, offset + limit) in traversal order)
    and how many parents the whole scope has: all a plain page needs besides the metadata, so
    it can be read from the store without reading the board (views/paged.py)."""

    parents: list[tuple[str, Record]]  # ("task" | "inbox", record)
    total: int


def _plain(scope: Scope, options: ListOptions) -> dict[str, Any]:
    parents = _units(scope)
    return plain_page(scope, Window(parents[options.offset : options.offset + options.limit], len(parents)), options)


def plain_page(scope: Scope, window_of: Window, options: ListOptions) -> dict[str, Any]:
    """The plain page of `window_of`; `scope` supplies the metadata (spaces, columns), the
    subtasks of the window's root tasks and the record views."""
    offset, limit, budget = options.offset, options.limit, options.budget
    window, total = window_of.parents, window_of.total

    def page_for(count: int) -> dict[str, Any]:
        return page(offset, limit, count, total, has_more=behind_nonempty)

    # The page's cost is the metadata plus each whole parent (with its subtasks); the estimate
    # is an upper bound (item_cost counts a comma for every element) and is checked exactly below.
    base = json_size(_assemble([], scope, page(offset, limit, limit, total, has_more=always)))
    if base > budget:
        # Every plain page carries all spaces and open columns; the graph view pages them too.
        raise response_too_large(
            "the board's spaces and columns", base, hints=[*_hints(options), "projection"], budget=budget
        )
    used, units = base, list[_Unit]()
    for kind, record in window:
        unit = _render(kind, record, scope, options.include_notes)
        cost = item_cost(unit[1]) + sum(item_cost(child) for child in unit[3])
        if used + cost > budget:
            # The estimate reserves a `nextOffset` the last parent's page does not have: a first
            # parent is refused only when its page, measured exactly, is over budget.
            if not units and json_size(_assemble([unit], scope, page_for(1))) > budget:
                raise _parent_too_large(unit, base + cost, options, base)
            if not units:
                units.append(unit)
            break
        used += cost
        units.append(unit)
    data = _assemble(units, scope, page_for(len(units)))
    # The estimate over-counts, so this only runs if the page numbers outgrew their placeholder.
    while json_size(data) > budget and len(units) > 1:
        units.pop()
        data = _assemble(units, scope, page_for(len(units)))
    if units and json_size(data) > budget:
        raise _parent_too_large(units[0], json_size(data), options, base)
    return data


def _hints(options: ListOptions) -> list[str]:
    """The retries that can help. Never `limit`: a page already shrinks to the whole records that
    fit, so the record that fails alone would fail at limit=1 too."""
    return ["includeNotes"] if options.include_notes else []


def _parent_too_large(unit: _Unit, size: int, options: ListOptions, context: int) -> Exception:
    parent_name, parent, _, children = unit
    what = "task" if parent_name == "tasks" else "inbox item"
    # A parent's subtasks are never cut in the plain view; the graph view pages them separately.
    shared = (
        f" (plus {context} characters of spaces and columns that every plain page carries)"
        if context > options.budget // 2
        else ""
    )
    return response_too_large(
        f"{what} {parent['id']} with its {len(children)} subtasks{shared}",
        size,
        hints=[*_hints(options), "projection"],
        budget=options.budget,
        record_id=str(parent["id"]),
    )


# -- graph -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphWindows:
    """What a graph page needs besides the metadata (spaces, columns): the size of each record
    collection and its records at [offset, offset + limit) in traversal order, as stored, so it
    can be read from the store without reading the board (views/graph_paged.py)."""

    totals: Mapping[str, int]  # tasks, subtasks, inboxItems, inboxSubtasks
    tasks: list[Record]
    subtasks: list[Record]
    inbox_items: list[Record]
    inbox_subtasks: list[tuple[Record, Record]]  # (its inbox item, the subtask)


def graph_windows(scope: Scope, offset: int, limit: int) -> GraphWindows:
    """The windows of a whole scope (the snapshot path)."""
    window = slice(offset, offset + limit)
    subtasks = [s for t in scope.root_tasks for s in scope.subtasks.get(t["id"], [])]
    inbox_subtasks = [(i, s) for i in scope.inbox_items for s in scope.inbox_subtasks(i)]
    totals = {
        "tasks": len(scope.root_tasks),
        "subtasks": len(subtasks),
        "inboxItems": len(scope.inbox_items),
        "inboxSubtasks": len(inbox_subtasks),
    }
    return GraphWindows(
        totals, scope.root_tasks[window], subtasks[window], scope.inbox_items[window], inbox_subtasks[window]
    )


def _flat_collections(
    scope: Scope, windows: GraphWindows, offset: int, limit: int, include_notes: bool
) -> dict[str, tuple[int, list[Record]]]:
    """Per collection: its size and the records of the window [offset, offset + limit), shaped.
    Only the window is shaped: a page never needs more than `limit` records of a collection."""
    window = slice(offset, offset + limit)
    totals = windows.totals
    return {
        "spaces": (len(scope.spaces), list(scope.spaces[window])),
        "columns": (len(scope.columns), list(scope.columns[window])),
        "tasks": (totals["tasks"], [_task(scope, t, include_notes) for t in windows.tasks[:limit]]),
        "subtasks": (totals["subtasks"], [_task(scope, t, include_notes) for t in windows.subtasks[:limit]]),
        "inboxItems": (
            totals["inboxItems"],
            [_inbox_item(scope, i, include_notes) for i in windows.inbox_items[:limit]],
        ),
        "inboxSubtasks": (
            totals["inboxSubtasks"],
            [_inbox_subtask(scope, i, s, include_notes) for i, s in windows.inbox_subtasks[:limit]],
        ),
    }


def _graph(scope: Scope, options: ListOptions) -> dict[str, Any]:
    return graph_page(scope, graph_windows(scope, options.offset, options.limit), options)


def graph_page(scope: Scope, windows: GraphWindows, options: ListOptions) -> dict[str, Any]:
    """The graph page of `windows`; `scope` supplies the metadata (spaces, columns) and the
    record views (its record lists are not read)."""
    offset, limit, budget = options.offset, options.limit, options.budget
    flat = _flat_collections(scope, windows, offset, limit, options.include_notes)
    totals = {name: size for name, (size, _) in flat.items()}
    records_of = {name: records for name, (_, records) in flat.items()}
    total = sum(totals.values())
    longest = max(totals.values(), default=0)

    def build(step: int) -> dict[str, Any]:
        sliced = {name: records[:step] for name, records in records_of.items()}
        returned = sum(len(records) for records in sliced.values())
        counts = {name: {"totalCount": totals[name], "returned": len(sliced[name])} for name in COLLECTIONS}
        wrapper = page(offset, limit, returned, total, step=step, has_more=lambda o, _limit, s, _total: o + s < longest)
        return _data("graph", sliced, wrapper, step=step, collections=counts)

    if offset >= longest:  # out of range (or an empty board): empty, totals kept
        return build(limit)
    # Cost of a step = base + the first `step` elements of every collection: prefix sums give the
    # largest step that fits without serializing every candidate; exact check afterwards.
    base = json_size(build(0)) + len(str(offset + limit)) + len(',"nextOffset":')
    prefix = [0] * (limit + 1)
    for records in records_of.values():
        running = list(accumulate(item_cost(r) for r in records))
        for index in range(1, limit + 1):
            prefix[index] += running[min(index, len(running)) - 1] if running else 0
    # At least 1: the estimate over-counts slightly, so the exact check below decides.
    step = max((s for s in range(1, limit + 1) if base + prefix[s] <= budget), default=1)
    data = build(step)
    while json_size(data) > budget and step > 1:
        step -= 1
        data = build(step)
    if json_size(data) > budget:
        raise response_too_large(
            f"one record of each collection at offset {offset}",
            json_size(data),
            hints=_hints(options),
            budget=budget,
        )
    return data


def parents_in_order(scope: Scope) -> Iterable[str]:
    """Ids of every parent in traversal order (what plain pages walk through)."""
    return [record["id"] for _, record in _units(scope)]
