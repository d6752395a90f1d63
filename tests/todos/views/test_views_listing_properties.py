"""Property tests of list_todos over random boards (pure functions, no storage): plain pages visit
every parent once in traversal order with all its subtasks, no page exceeds the budget, totals
stay constant, graph pages partition every collection, and RESPONSE_TOO_LARGE is raised only when
one parent (or one graph step) alone is over budget."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.kernel.errors import ResponseTooLarge
from mesq.kernel.pages import behind_nonempty
from mesq.kernel.pages import page as page_object
from mesq.todos.views.budget import json_size
from mesq.todos.views.listing import COLLECTIONS, ListOptions, effective_limit, list_todos, parents_in_order
from mesq.todos.views.traversal import Board, Scope, scope_of
from tests.hypothesis_lanes import examples
from tests.todos.random_boards import boards

BUDGETS = st.sampled_from([2500, 4000, 8000, 25_000])
LIMITS = st.integers(1, 12)
SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walk(scope: Scope, options: ListOptions) -> tuple[list[dict[str, Any]], ResponseTooLarge | None]:
    pages: list[dict[str, Any]] = []
    offset = options.offset
    for _ in range(10_000):
        try:
            page = list_todos(scope, ListOptions(**{**options.__dict__, "offset": offset}))
        except ResponseTooLarge as error:
            return pages, error
        pages.append(page)
        if not page["page"]["hasMore"]:
            return pages, None
        offset = page["page"]["nextOffset"]
    raise AssertionError("paging did not end")


def _parent_ids(page: dict[str, Any]) -> list[str]:
    return [t["id"] for t in page["tasks"]] + [i["id"] for i in page["inboxItems"]]


@SETTINGS
@given(board=boards(), budget=BUDGETS, limit=LIMITS, include_notes=st.booleans())
def test_plain_pages_visit_every_parent_once_in_order_within_budget(
    board: Board, budget: int, limit: int, include_notes: bool
) -> None:
    scope = scope_of(board)
    options = ListOptions(limit=limit, include_notes=include_notes, budget=budget)
    pages, error = _walk(scope, options)
    expected = list(parents_in_order(scope))
    seen = [pid for page in pages for pid in _parent_ids(page)]
    for page in pages:
        assert json_size(page) <= budget
        assert page["page"]["totalCount"] == page["totalCount"] == len(expected)
        assert page["returnedCount"] == page["page"]["returned"] == len(_parent_ids(page)) <= limit
        assert page["spaces"] == scope.spaces and page["columns"] == scope.columns  # metadata on every page
        # Subtasks of a returned parent are never cut, and only those of returned parents appear.
        returned_tasks = [t["id"] for t in page["tasks"]]
        assert [s["id"] for s in page["subtasks"]] == [s["id"] for tid in returned_tasks for s in scope.subtasks[tid]]
        inbox_ids = [i["id"] for i in page["inboxItems"]]
        by_id = {i["id"]: i for i in scope.inbox_items}
        assert [s["id"] for s in page["inboxSubtasks"]] == [
            s["id"] for iid in inbox_ids for s in scope.inbox_subtasks(by_id[iid])
        ]
        assert all(s["parentItemId"] in inbox_ids for s in page["inboxSubtasks"])
        if not include_notes:
            assert not any(
                "notes" in r for name in ("tasks", "subtasks", "inboxItems", "inboxSubtasks") for r in page[name]
            )
    if error is None:
        assert seen == expected
    else:
        # Stopped only because the next parent alone does not fit: everything before it was seen.
        assert seen == expected[: len(seen)]
        assert error.details["sizeCharacters"] > budget
        assert error.details["recordId"] == expected[len(seen)]
        # The failing parent alone, on the page the failing request would have returned (its own
        # offset and limit: the page numbers are part of the budget), is really over budget.
        single = ListOptions(offset=len(seen), limit=1, include_notes=include_notes, budget=10**9)
        alone = list_todos(scope, single)
        alone["page"] = page_object(len(seen), limit, 1, len(expected), has_more=behind_nonempty)
        assert json_size(alone) > budget


@SETTINGS
@given(board=boards(), budget=BUDGETS, limit=LIMITS, include_notes=st.booleans())
def test_graph_pages_partition_every_collection(board: Board, budget: int, limit: int, include_notes: bool) -> None:
    scope = scope_of(board)
    full = list_todos(scope, ListOptions(projection="graph", limit=10_000, include_notes=include_notes, budget=10**9))
    pages, error = _walk(
        scope, ListOptions(projection="graph", limit=limit, include_notes=include_notes, budget=budget)
    )
    total = sum(len(full[name]) for name in COLLECTIONS)
    offset = 0
    for page in pages:
        assert json_size(page) <= budget
        assert page["page"]["totalCount"] == page["totalCount"] == total
        assert 1 <= page["step"] <= limit
        assert page["page"]["offset"] == offset
        assert page["page"]["returned"] == sum(len(page[name]) for name in COLLECTIONS)
        for name in COLLECTIONS:
            assert page[name] == full[name][offset : offset + page["step"]]
            assert page["collections"][name]["totalCount"] == len(full[name])
        if page["page"]["hasMore"]:
            assert page["page"]["nextOffset"] == offset + page["step"]
            offset = page["page"]["nextOffset"]
    if error is None:
        longest = max((len(full[name]) for name in COLLECTIONS), default=0)
        assert offset + (pages[-1]["step"] if longest else 0) >= longest
        for name in COLLECTIONS:  # concatenation of the pages == the collection, nothing twice
            assert [r for p in pages for r in p[name]] == full[name]
    else:
        assert error.details["sizeCharacters"] > budget


@SETTINGS
@given(board=boards(big_notes=40), extra=st.integers(0, 5), projection=st.sampled_from(["plain", "graph"]))
def test_out_of_range_pages_are_empty_and_keep_totals(board: Board, extra: int, projection: str) -> None:
    scope = scope_of(board)
    first = list_todos(scope, ListOptions(projection=projection, budget=10**9))  # type: ignore[arg-type]
    longest = max(len(first[name]) for name in COLLECTIONS) if projection == "graph" else first["totalCount"]
    page = list_todos(scope, ListOptions(offset=longest + extra, projection=projection))  # type: ignore[arg-type]
    assert page["totalCount"] == first["totalCount"]
    assert page["page"]["returned"] == page["returnedCount"] == 0
    assert page["page"]["hasMore"] is False and "nextOffset" not in page["page"]
    assert page["tasks"] == page["inboxItems"] == page["subtasks"] == []


def _big_board(notes: int, subtasks: int) -> Board:
    task = {
        "id": "t1",
        "spaceId": "s1",
        "columnId": "c1",
        "parentId": None,
        "title": "big",
        "notes": "n" * notes,
        "position": "a0",
        "revision": 1,
        "updatedAt": "2026-11-01T00:00:00.000000Z",
    }
    small = {**task, "id": "t2", "notes": "", "position": "a1"}
    subs = [
        {**task, "id": f"st{i:02d}", "columnId": None, "parentId": "t1", "notes": "", "title": "x" * 400}
        for i in range(subtasks)
    ]
    return Board(
        spaces=[{"id": "s1", "position": "a0"}],
        columns=[{"id": "c1", "spaceId": "s1", "position": "a0", "archived": False}],
        tasks=[task, small, *subs],
        inbox_items=[],
    )


def test_one_parent_over_budget_is_response_too_large_with_hints() -> None:
    scope = scope_of(_big_board(notes=30_000, subtasks=0))
    with pytest.raises(ResponseTooLarge) as caught:
        list_todos(scope, ListOptions(include_notes=True))
    assert caught.value.code == "RESPONSE_TOO_LARGE"
    assert caught.value.details["hints"] == {"includeNotes": False, "projection": "graph"}
    assert caught.value.details["recordId"] == "t1"
    assert "does not mean there are no tasks" in caught.value.message
    # Without notes the same board lists fine, both parents on one page.
    page = list_todos(scope, ListOptions())
    assert [t["id"] for t in page["tasks"]] == ["t1", "t2"]


def test_a_parent_whose_subtasks_are_over_budget_is_never_cut() -> None:
    scope = scope_of(_big_board(notes=0, subtasks=70))  # 70 * ~560 characters
    with pytest.raises(ResponseTooLarge) as caught:
        list_todos(scope, ListOptions())
    assert caught.value.details["hints"] == {"projection": "graph"}
    # The graph projection pages the subtasks apart from their parent.
    pages, error = _walk(scope, ListOptions(projection="graph"))
    assert error is None
    assert [s["id"] for p in pages for s in p["subtasks"]] == [f"st{i:02d}" for i in range(70)]


def test_budget_drops_whole_parents_and_the_next_page_continues() -> None:
    board = _big_board(notes=15_000, subtasks=0)
    board.tasks[1]["notes"] = "m" * 15_000  # type: ignore[index]
    scope = scope_of(board)
    first = list_todos(scope, ListOptions(include_notes=True))
    assert [t["id"] for t in first["tasks"]] == ["t1"]
    assert first["page"] == {
        "offset": 0,
        "limit": 200,
        "returned": 1,
        "totalCount": 2,
        "hasMore": True,
        "nextOffset": 1,
    }
    second = list_todos(scope, ListOptions(offset=1, include_notes=True))
    assert [t["id"] for t in second["tasks"]] == ["t2"] and second["page"]["hasMore"] is False
    assert second["tasks"][0]["notes"] == "m" * 15_000  # whole record, never cut


def test_a_last_parent_that_fits_exactly_is_returned_not_refused() -> None:
    # The page estimate reserves room for `nextOffset`; the last parent's page has none, so a
    # parent that fits only without it must still be returned (the exact size decides).
    scope = scope_of(_big_board(notes=0, subtasks=0))
    last = ListOptions(offset=1, limit=9)
    exact = json_size(list_todos(scope, last))
    fitted = list_todos(scope, ListOptions(offset=1, limit=9, budget=exact))
    assert [t["id"] for t in fitted["tasks"]] == ["t2"] and fitted["page"]["hasMore"] is False
    with pytest.raises(ResponseTooLarge):
        list_todos(scope, ListOptions(offset=1, limit=9, budget=exact - 1))


def test_max_items_wins_over_limit() -> None:
    assert effective_limit(None, None) == 200
    assert effective_limit(5, None) == 5
    assert effective_limit(5, 2) == 2
    assert effective_limit(None, 7) == 7
