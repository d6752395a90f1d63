"""query_todos edge rules found in review: dates at the calendar's ends never crash a query,
date-only dues without a zone start their day where the caller's week does, the page wrapper's
worst case stays inside the budget, and RESPONSE_TOO_LARGE always says what can still help."""

from __future__ import annotations

import pytest

from mesq.kernel.errors import ResponseTooLarge
from mesq.todos.views.budget import RESPONSE_BUDGET_CHARACTERS, json_size, response_too_large
from mesq.todos.views.listing import ListOptions, list_todos
from mesq.todos.views.query import TodoQuery, floating_zone, parse_bounds, query_todos
from mesq.todos.views.traversal import scope_of
from tests.todos.views.test_views_query import _task, board


def test_first_day_of_the_calendar_east_of_utc_does_not_crash_a_date_query(rest, todo_account):
    client = rest(todo_account)
    created = client.call(
        "create_todo_task", title="ancient", due={"type": "date", "date": "0001-01-01"}, timezone="Asia/Shanghai"
    )
    assert created.status_code == 201, created.text
    later = client.call("query_todos", dueAfter="2026-01-01T00:00:00Z")
    assert later.status_code == 200 and later.json()["data"]["items"] == []
    earlier = client.call("query_todos", dueBefore="2026-01-01T00:00:00Z")
    assert earlier.status_code == 200
    assert [item["title"] for item in earlier.json()["data"]["items"]] == ["ancient"]


@pytest.mark.parametrize(
    ("after", "before"),
    [
        ("2026-10-05T00:00:00-04:00", "2026-10-12T00:00:00-04:00"),  # a New York week
        ("2026-10-05T00:00:00+08:00", "2026-10-12T00:00:00+08:00"),  # the seed's Shanghai week
    ],
)
def test_date_only_due_without_a_zone_starts_its_day_in_the_bounds_offset(after, before):
    tasks = board(
        [
            _task("sunday_before", due={"type": "date", "date": "2026-10-04"}),
            _task("monday_this", due={"type": "date", "date": "2026-10-05"}),
            _task("monday_next", due={"type": "date", "date": "2026-10-12"}),
        ]
    )
    low, high = parse_bounds(after, before)
    query = TodoQuery(due_after=low, due_before=high, floating_zone=floating_zone(None, after, before))
    assert [item["id"] for item in query_todos(tasks, query)["items"]] == ["monday_this"]


def test_the_users_todo_zone_wins_over_the_bounds_offset():
    zone = floating_zone("Asia/Shanghai", "2026-10-05T00:00:00-04:00", None)
    assert zone is not None and getattr(zone, "key", None) == "Asia/Shanghai"


def test_no_query_page_exceeds_the_budget_even_when_cut_short():
    largest = 0
    for pad in range(1, 2500, 7):
        tasks = [_task(f"t{i:02d}", notes="n" * 2000) for i in range(25)]
        tasks[0]["title"] = "x" * pad
        data = query_todos(board(tasks), TodoQuery(include_notes=True, limit=25))
        largest = max(largest, json_size(data))
    assert 24_000 < largest <= RESPONSE_BUDGET_CHARACTERS


def test_a_board_whose_spaces_and_columns_alone_overflow_points_to_the_graph_view():
    spaces = [{"id": f"s{i}", "name": "space " + "n" * 400, "slug": f"s{i}", "position": f"a{i}"} for i in range(80)]
    data_board = board([_task("t1")])
    crowded = type(data_board)(**{**data_board.__dict__, "spaces": [*data_board.spaces, *spaces]})
    with pytest.raises(ResponseTooLarge) as raised:
        list_todos(scope_of(crowded), ListOptions())
    assert raised.value.details["hints"].get("projection") == "graph"


def test_an_error_with_no_retry_left_says_what_still_helps():
    error = response_too_large("task t1 with its notes and 0 subtasks", 30_000, hints=[])
    assert error.details["hints"] == {}
    assert "query_todos with includeNotes=true" in str(error)


def test_a_subtask_of_a_trashed_task_is_not_found_in_details(rest, todo_account):
    me = rest(todo_account)
    task = me.ok("create_todo_task", title="parent")["task"]
    sub = me.ok("create_todo_subtask", taskId=task["id"], title="child")["subtask"]
    assert me.call("get_todo_task", id=sub["id"]).status_code == 200
    me.ok("delete_todo_task", id=task["id"], expectedRevision=task["revision"])
    gone = me.call("get_todo_task", id=sub["id"])
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "NOT_FOUND"
