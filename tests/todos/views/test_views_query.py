"""query_todos over a hand-made board (pure functions): every filter, the date rules, order,
notes previews and paging. The seed's Shanghai-week example is the date test's core."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.kernel.errors import ResponseTooLarge, ValidationError
from mesq.todos.views.budget import json_size
from mesq.todos.views.query import TodoQuery, parse_bounds, query_todos
from mesq.todos.views.traversal import Board

T0 = "2026-11-01T00:00:00.000000Z"


def _task(ident: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": ident,
        "spaceId": "s1",
        "columnId": "c1",
        "parentId": None,
        "title": ident,
        "notes": "",
        "priority": "none",
        "tags": [],
        "due": None,
        "timezone": None,
        "recurrence": None,
        "reminders": [],
        "attachments": [],
        "done": False,
        "completedAt": None,
        "position": "a0",
        "revision": 1,
        "createdAt": T0,
        "updatedAt": T0,
        "deletedAt": None,
    }
    record.update(fields)
    return record


def _inbox(ident: str, subtasks: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    record = _task(ident, **fields)
    for key in ("spaceId", "columnId", "parentId"):
        del record[key]
    record["subtasks"] = subtasks or []
    return record


def _sub(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "title": ident, "notes": "", "isDone": False, "position": "a0", "attachments": [], **fields}


SPACES = [{"id": "s1", "position": "a0"}, {"id": "s2", "position": "a1"}]
COLUMNS = [
    {"id": "c1", "spaceId": "s1", "position": "a0", "archived": False},
    {"id": "c2", "spaceId": "s1", "position": "a1", "archived": True},
    {"id": "c3", "spaceId": "s2", "position": "a0", "archived": False},
]


def board(tasks: list[dict[str, Any]], inbox: list[dict[str, Any]] | None = None) -> Board:
    return Board(spaces=SPACES, columns=COLUMNS, tasks=tasks, inbox_items=inbox or [])


def _query(**query: Any) -> TodoQuery:
    if "priority" in query:  # one priority, as the tool also takes it
        query["priorities"] = frozenset({query.pop("priority")})
    return TodoQuery(**query)


def ids(board_: Board, **query: Any) -> list[str]:
    return [item["id"] for item in query_todos(board_, _query(**query))["items"]]


def between(after: str | None, before: str | None, **query: Any) -> TodoQuery:
    due_after, due_before = parse_bounds(after, before)
    return _query(due_after=due_after, due_before=due_before, **query)


def test_seed_shanghai_week_example() -> None:
    sh = "Asia/Shanghai"
    b = board(
        [
            _task("mon-date", priority="high", due={"type": "date", "date": "2026-10-05"}, timezone=sh),
            _task("sun-date", priority="high", due={"type": "date", "date": "2026-10-11"}, timezone=sh),
            _task("next-mon", priority="high", due={"type": "date", "date": "2026-10-12"}, timezone=sh),
            _task("prev-sun", priority="high", due={"type": "date", "date": "2026-10-04"}, timezone=sh),
            _task("start-edge", priority="high", due={"type": "datetime", "at": "2026-10-04T16:00:00Z"}),
            _task("end-edge", priority="high", due={"type": "datetime", "at": "2026-10-12T00:00:00+08:00"}),
            _task("late-sun", priority="high", due={"type": "datetime", "at": "2026-10-11T23:59:59+08:00"}),
            _task("low", priority="low", due={"type": "date", "date": "2026-10-07"}, timezone=sh),
            _task("done", priority="high", done=True, due={"type": "date", "date": "2026-10-07"}, timezone=sh),
            _task("no-due", priority="high"),
            _task(
                "sub",
                parentId="mon-date",
                columnId=None,
                priority="high",
                due={"type": "date", "date": "2026-10-06"},
                timezone=sh,
            ),
        ],
        [_inbox("inbox-high", priority="high", due={"type": "datetime", "at": "2026-10-08T09:00:00+08:00"})],
    )
    # The seed's arguments, exactly.
    arguments = {
        "priority": "high",
        "status": "open",
        "dueAfter": "2026-10-05T00:00:00+08:00",
        "dueBefore": "2026-10-12T00:00:00+08:00",
    }
    query = between(arguments["dueAfter"], arguments["dueBefore"], priority="high", status="open")
    found = query_todos(b, query)
    assert sorted(item["id"] for item in found["items"]) == [
        "inbox-high",
        "late-sun",
        "mon-date",
        "start-edge",
        "sub",
        "sun-date",
    ]
    assert found["page"]["totalCount"] == 6  # the subtask counts on its own
    by_id = {item["id"]: item for item in found["items"]}
    # Original due semantics are kept, with where each record sits.
    assert by_id["mon-date"]["due"] == {"type": "date", "date": "2026-10-05"}
    assert by_id["mon-date"]["timezone"] == sh
    assert by_id["sub"]["kind"] == "subtask" and by_id["sub"]["parentId"] == "mon-date"
    assert by_id["sub"]["columnId"] == "c1" and by_id["sub"]["spaceId"] == "s1"
    assert by_id["inbox-high"]["kind"] == "inboxItem" and by_id["inbox-high"]["spaceId"] is None


def test_date_only_due_without_timezone_is_the_start_of_the_utc_day() -> None:
    b = board([_task("d", due={"type": "date", "date": "2026-10-05"})])
    # 2026-10-05T00:00Z = 08:00 in Shanghai.
    assert ids(b, **between("2026-10-05T08:00:00+08:00", None).__dict__) == ["d"]
    assert ids(b, **between("2026-10-05T08:00:01+08:00", None).__dict__) == []
    assert ids(b, **between(None, "2026-10-05T00:00:00Z").__dict__) == []  # exclusive upper bound
    assert ids(b, **between(None, "2026-10-05T00:00:00.000001Z").__dict__) == ["d"]


def test_unknown_task_timezone_falls_back_to_utc() -> None:
    b = board([_task("d", due={"type": "date", "date": "2026-10-05"}, timezone="Mars/Olympus")])
    assert ids(b, **between("2026-10-05T00:00:00Z", "2026-10-05T00:00:01Z").__dict__) == ["d"]


def test_bounds_validation_and_equal_bounds() -> None:
    with pytest.raises(ValidationError, match="dueAfter must not be after dueBefore"):
        parse_bounds("2026-10-06T00:00:00Z", "2026-10-05T00:00:00Z")
    with pytest.raises(ValidationError, match="dueBefore"):
        parse_bounds(None, "2026-10-05")  # no time, no offset
    b = board([_task("d", due={"type": "datetime", "at": "2026-10-05T00:00:00Z"})])
    assert ids(b, **between("2026-10-05T00:00:00Z", "2026-10-05T00:00:00Z").__dict__) == []


def test_recurring_root_tasks_are_dated_by_their_earliest_unfinished_occurrence() -> None:
    """The current due of a recurring task is its earliest unfinished occurrence (completing one
    moves the due on, todos/recurrence.py); completed occurrences in its history and reminder
    times do not date it."""
    history = [{"due": {"type": "date", "date": "2026-10-01"}, "completedAt": T0}]
    reminders = [{"type": "absolute", "at": "2026-10-20T09:00:00+08:00"}]
    b = board(
        [
            _task(
                "rec",
                recurrence="FREQ=WEEKLY",
                occurrences=history,
                reminders=reminders,
                due={"type": "date", "date": "2026-10-08"},
                timezone="Asia/Shanghai",
            ),
        ]
    )
    assert ids(b, **between("2026-10-08T00:00:00+08:00", "2026-10-09T00:00:00+08:00").__dict__) == ["rec"]
    assert ids(b, **between("2026-10-01T00:00:00+08:00", "2026-10-02T00:00:00+08:00").__dict__) == []
    assert ids(b, **between("2026-10-20T00:00:00+08:00", "2026-10-21T00:00:00+08:00").__dict__) == []


def test_no_due_records_and_inbox_subtasks_are_excluded_by_date_filters() -> None:
    b = board([_task("no-due")], [_inbox("i", [_sub("is")], due={"type": "date", "date": "2026-10-05"})])
    assert ids(b, **between("2026-01-01T00:00:00Z", None).__dict__) == ["i"]
    assert sorted(ids(b)) == ["i", "is", "no-due"]


def test_status_filter() -> None:
    b = board([_task("open"), _task("closed", done=True)], [_inbox("i", [_sub("s-open"), _sub("s-done", isDone=True)])])
    assert sorted(ids(b)) == ["i", "open", "s-open"]  # default: open
    assert sorted(ids(b, status="done")) == ["closed", "s-done"]
    assert sorted(ids(b, status="all")) == ["closed", "i", "open", "s-done", "s-open"]


def test_query_is_a_case_insensitive_literal_over_title_and_notes() -> None:
    b = board(
        [
            _task("t1", title="Buy MILK"),
            _task("t2", notes="remember the milk."),
            _task("t3", title="a.b literal"),
            _task("t4", title="axb"),
            _task("t5", title="something else"),
        ],
        [_inbox("i", [_sub("is", title="Milk run")])],
    )
    assert sorted(ids(b, query="milk")) == ["is", "t1", "t2"]
    assert ids(b, query="a.b") == ["t3"]  # not a pattern


def test_priority_and_tags_filters() -> None:
    b = board(
        [
            _task("both", priority="high", tags=["work", "urgent"]),
            _task("work-only", priority="high", tags=["work"]),
            _task("child-tag", priority="high", tags=["work/x"]),
            _task("low", priority="low", tags=["work", "urgent"]),
            _task("home", tags=["家/装修"]),
            _task("workshop", tags=["workshop"]),
        ],
        [_inbox("i", [_sub("is")], priority="high", tags=["work"])],
    )
    assert sorted(ids(b, priority="high")) == ["both", "child-tag", "i", "work-only"]
    assert sorted(ids(b, tags=("work", "urgent"))) == ["both", "low"]  # all of them
    # A tag matches itself and the tags below it, as memo tag filters do: work/x is within work,
    # workshop is not (a path, not a prefix of characters).
    assert sorted(ids(b, tags=("work",))) == ["both", "child-tag", "i", "low", "work-only"]
    assert ids(b, tags=("work/x",)) == ["child-tag"]
    assert ids(b, tags=("家",)) == ["home"] and ids(b, tags=("家/装修",)) == ["home"] and ids(b, tags=("装修",)) == []
    assert ids(b, priority="high", tags=("urgent",)) == ["both"]


def test_space_filter_keeps_that_space_and_drops_the_inbox() -> None:
    b = board(
        [
            _task("in-s1"),
            _task("in-s2", spaceId="s2", columnId="c3"),
            _task("sub-s2", spaceId="s2", columnId=None, parentId="in-s2"),
        ],
        [_inbox("i")],
    )
    assert sorted(ids(b, space_ids=frozenset({"s2"}))) == ["in-s2", "sub-s2"]
    assert sorted(ids(b)) == ["i", "in-s1", "in-s2", "sub-s2"]


def test_trash_archived_columns_and_orphans_are_excluded() -> None:
    b = board(
        [
            _task("live"),
            _task("trashed", deletedAt=T0),
            _task("archived", columnId="c2"),
            _task("sub-of-trashed", columnId=None, parentId="trashed"),
            _task("sub-of-archived", columnId=None, parentId="archived"),
            _task("sub-of-missing", columnId=None, parentId="nope"),
            _task("trashed-sub", columnId=None, parentId="live", deletedAt=T0),
            _task("live-sub", columnId=None, parentId="live"),
        ],
        [_inbox("gone", [_sub("gone-sub")], deletedAt=T0), _inbox("here", [_sub("here-sub")])],
    )
    assert sorted(ids(b, status="all")) == ["here", "here-sub", "live", "live-sub"]


def test_order_is_updated_desc_then_kind_then_id() -> None:
    b = board(
        [
            _task("b", updatedAt="2026-11-02T00:00:00.000000Z"),
            _task("a", updatedAt="2026-11-02T00:00:00.000000Z"),
            _task("sub", parentId="a", columnId=None, updatedAt="2026-11-02T00:00:00.000000Z"),
            _task("newest", updatedAt="2026-11-03T00:00:00.000000Z"),
        ],
        [_inbox("i", [_sub("isub")], updatedAt="2026-11-02T00:00:00.000000Z")],
    )
    # Same updatedAt: inboxItem < inboxSubtask < subtask < task (kind ascending), then id.
    assert ids(b) == ["newest", "i", "isub", "sub", "a", "b"]


def test_items_carry_revision_or_parent_revision() -> None:
    b = board([_task("t", revision=4)], [_inbox("i", [_sub("is")], revision=7)])
    items = {item["id"]: item for item in query_todos(b, TodoQuery())["items"]}
    assert items["t"]["revision"] == 4 and "parentRevision" not in items["t"]
    assert items["is"]["parentRevision"] == 7 and items["is"]["parentId"] == "i"
    assert "revision" not in items["is"] and "completedAt" not in items["is"]


def test_include_notes_gives_previews() -> None:
    b = board([_task("long", notes="x" * 2500), _task("short", notes="hi")])
    items = {item["id"]: item for item in query_todos(b, TodoQuery(include_notes=True))["items"]}
    assert items["long"]["notes"] == "x" * 2000 and items["long"]["notesTruncated"] is True
    assert items["short"]["notes"] == "hi" and items["short"]["notesTruncated"] is False
    plain = query_todos(b, TodoQuery())["items"]
    assert not any("notes" in item or "notesTruncated" in item for item in plain)


def test_paging_counts_every_record_and_the_budget_may_return_fewer() -> None:
    tasks = [_task(f"t{i:02d}", notes="n" * 1900) for i in range(30)]
    b = board(tasks)
    first = query_todos(b, TodoQuery(include_notes=True, limit=25))
    assert first["page"]["limit"] == 25 and first["page"]["totalCount"] == 30
    returned = first["page"]["returned"]
    assert 0 < returned < 25 and json_size(first) <= 25_000  # ~2,300 characters per item
    seen, offset = [], 0
    while True:
        page = query_todos(b, TodoQuery(include_notes=True, limit=25, offset=offset))
        seen += [item["id"] for item in page["items"]]
        assert page["page"]["totalCount"] == 30 and json_size(page) <= 25_000
        if not page["page"]["hasMore"]:
            break
        offset = page["page"]["nextOffset"]
    assert seen == sorted(t["id"] for t in tasks)  # same updatedAt: by id, each exactly once
    out_of_range = query_todos(b, TodoQuery(offset=99))
    assert out_of_range["items"] == [] and out_of_range["page"]["totalCount"] == 30
    assert out_of_range["page"]["hasMore"] is False


def test_one_item_over_budget_is_response_too_large() -> None:
    b = board([_task("t", title="x" * 500, notes="y" * 2000)])
    with pytest.raises(ResponseTooLarge) as caught:
        query_todos(b, TodoQuery(include_notes=True, budget=2000))
    assert caught.value.details["hints"] == {"includeNotes": False}
    assert query_todos(b, TodoQuery(budget=2000))["page"]["returned"] == 1
