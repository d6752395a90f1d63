"""list_todos' plain pages read through the index (views/paged.py) over real stores: after any
sequence of board writes every list's size item equals its GSI2 list, and every page equals the
page the pure view computes from the whole snapshot (same records, order, totals, budget cuts);
a page reads the structure, the sizes and the lists it shows, never the task or inbox ranges;
boards written before sizes existed are sized on first use (SQLite and DynamoDB/moto)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.kernel.errors import MesqError
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import Delete
from mesq.store.paging import walk
from mesq.todos import keys as todo_keys
from mesq.todos import state as todo_state
from mesq.todos.graph_counts import TREE_PREFIX
from mesq.todos.list_sizes import count_list
from mesq.todos.views.listing import ListOptions, list_todos
from mesq.todos.views.operations import board_of
from mesq.todos.views.paged import plain_board_page
from mesq.todos.views.traversal import scope_of
from mesq.wiring.services import Services
from tests.hypothesis_lanes import examples
from tests.todos.board.test_board_transactions import dynamo_services  # noqa: F401  (fixture)
from tests.todos.board.test_board_write_reads import Reads, caller

Run = Callable[..., dict[str, Any]]
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            ["task", "task", "task", "subtask", "move", "delete", "restore", "complete", "inbox", "file",
             "drop_inbox", "archive", "column", "space", "drop_column", "duplicate", "batch_move"]
        ),
        st.integers(0, 50),
        st.integers(0, 50),
    ),
    max_size=30,
)  # fmt: skip


def _act(run: Run, action: str, a: int, b: int) -> None:
    """One write of a random board session; writes the board refuses (a conflict, a full
    column set) are part of the game."""
    spaces = run("list_todo_spaces")
    columns = spaces["columns"]
    state = run("list_todos", limit=1000, includeNotes=False)
    tasks, inbox = state["tasks"], state["inboxItems"]
    trash = run("list_todo_trash", limit=200)["items"]

    def pick(records: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
        return records[index % len(records)] if records else None

    task, column, item, space = pick(tasks, a), pick(columns, b), pick(inbox, a), pick(spaces["spaces"], b)
    try:
        if action == "task" and column is not None:
            run("create_todo_task", title=f"t{a}", columnId=column["id"], index=b % 3, notes="n" * (a * 40))
        elif action == "subtask" and task is not None:
            run("create_todo_subtask", taskId=task["id"], title=f"s{b}", index=a % 2)
        elif action == "move" and task is not None and column is not None:
            run("move_todo_task", id=task["id"], expectedRevision=task["revision"], columnId=column["id"], index=a % 2)
        elif action == "delete" and task is not None:
            run("delete_todo_task", id=task["id"], expectedRevision=task["revision"])
        elif action == "restore" and trash:
            entry = pick(trash, a)
            assert entry is not None
            run("restore_todo_item", id=entry["id"], expectedRevision=entry["revision"])
        elif action == "complete" and task is not None:
            run("complete_todo_task", id=task["id"], expectedRevision=task["revision"])
        elif action == "inbox":
            run("create_todo_inbox_item", title=f"i{a}", subtasks=[{"title": f"is{n}"} for n in range(b % 3)])
        elif action == "file" and item is not None and column is not None:
            run(
                "move_todo_inbox_item_to_board", id=item["id"], expectedRevision=item["revision"], columnId=column["id"]
            )
        elif action == "drop_inbox" and item is not None:
            run("delete_todo_inbox_item", id=item["id"], expectedRevision=item["revision"])
        elif action == "archive" and column is not None:
            run("update_todo_column", columnId=column["id"], expectedRevision=column["revision"], archived=a % 2 == 0)
        elif action == "column" and space is not None:
            run("create_todo_column", name=f"c{a}", spaceId=space["id"], index=b % 2)
        elif action == "space":
            run("create_todo_space", name=f"space {a}", columns=["one", "two"])
        elif action == "drop_column" and column is not None:
            run("delete_todo_column", columnId=column["id"], expectedRevision=column["revision"])
        elif action == "duplicate" and task is not None:
            run("duplicate_todo_task", id=task["id"])
        elif action == "batch_move" and len(tasks) > 1 and column is not None:
            chosen = tasks[: 1 + a % 3]
            updates = [{"id": t["id"], "expectedRevision": t["revision"], "done": b % 2 == 0} for t in chosen]
            run("batch_update_todo_tasks", updates=updates)
    except MesqError:
        pass


def _assert_sizes_match_lists(services: Services, user_id: str) -> None:
    items = services.items
    sized = {
        todo_keys.list_of_size(user_id, str(i["sk"])): int(i["count"])
        for i in walk(items, user_partition(user_id), prefix=todo_keys.SIZE_PREFIX)
        if not str(i["sk"]).startswith(TREE_PREFIX)  # the graph counts (test_views_graph_paged.py)
    }
    for partition, size in sized.items():
        assert size == count_list(items, partition), partition
    state = todo_state.load_state(items, user_id)
    for column_id in state.columns:  # every column is sized from its creation on
        assert todo_keys.column_list(user_id, column_id) in sized


def _assert_pages_match_the_snapshot(run: Run, services: Services, user_id: str, data: st.DataObject) -> None:
    state = todo_state.load_state(services.items, user_id)
    structure = board_of(todo_state.load_partial(services.items, user_id), records=False)
    for _ in range(4):
        space = data.draw(st.sampled_from([None, *sorted(state.spaces)]))
        space_ids = None if space is None else frozenset({space})
        include_inbox = data.draw(st.booleans())
        options = ListOptions(
            offset=data.draw(st.integers(0, 12)),
            limit=data.draw(st.integers(1, 8)),
            include_notes=data.draw(st.booleans()),
            budget=data.draw(st.sampled_from([3000, 6000, 25_000])),
        )
        scope = scope_of(board_of(state), space_ids=space_ids, include_inbox=include_inbox)
        try:
            expected: dict[str, Any] | MesqError = list_todos(scope, options)
        except MesqError as error:
            expected = error
        try:
            paged = plain_board_page(services.items, user_id, structure, include_inbox=include_inbox,
                                     space_ids=space_ids, options=options)  # fmt: skip
        except MesqError as error:
            assert isinstance(expected, MesqError) and error.details == expected.details
        else:
            assert paged == expected
    # and through the operation itself (the default budget)
    scope = scope_of(board_of(state))
    assert run("list_todos", offset=1, limit=4) == list_todos(scope, ListOptions(offset=1, limit=4))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(actions=ACTIONS, data=st.data())
def test_sizes_follow_every_write_and_pages_equal_the_snapshot(services: Services, actions, data) -> None:
    user_id = "p" + uuid.uuid4().hex[:10]
    run = caller(services, user_id)
    run("list_todo_spaces")  # the default space
    for action, a, b in actions:
        _act(run, action, a, b)
    _assert_sizes_match_lists(services, user_id)
    _assert_pages_match_the_snapshot(run, services, user_id, data)


def _board(run: Run, roots: int) -> list[dict[str, Any]]:
    tasks = [run("create_todo_task", title=f"t{n}")["task"] for n in range(roots)]
    for task in tasks[::3]:
        run("create_todo_subtask", taskId=task["id"], title="s")
    run("create_todo_inbox_item", title="i", subtasks=[{"title": "is"}])
    return tasks


def test_a_page_reads_what_it_shows_not_the_board(services: Services) -> None:
    reads = Reads(services.items)
    run = caller(replace(services, items=reads), "r1")  # type: ignore[arg-type]
    _board(run, 30)
    reads.reset()
    page = run("list_todos", limit=5)
    assert [t["title"] for t in page["tasks"]] == [f"t{n}" for n in range(5)] and page["totalCount"] == 31
    assert not reads.read_a_bulk_range()  # never the TODO#TASK# / TODO#INBOX# ranges
    column = todo_keys.column_list("r1", page["columns"][0]["id"])
    # the one column the page overlaps, and the lists of the two shown tasks that have subtasks
    assert sorted(reads.index_queries) == sorted([column, *(todo_keys.subtask_list("r1", t["id"]) for t in
                                                            page["tasks"] if t["title"] in ("t0", "t3"))])  # fmt: skip


def test_a_board_written_before_sizes_is_sized_on_first_use(services: Services) -> None:
    run = caller(services, "legacy")
    tasks = _board(run, 7)
    expected = run("list_todos", limit=3, offset=2)
    for item in list(walk(services.items, user_partition("legacy"), prefix=todo_keys.SIZE_PREFIX)):
        services.items.transact([Delete((str(item["pk"]), str(item["sk"])))])
    # A write into an unsized list counts it once and sizes it in its own transaction...
    run("create_todo_subtask", taskId=tasks[1]["id"], title="late")
    run("create_todo_task", title="t7")
    _assert_sizes_match_lists_of(services, "legacy", [todo_keys.subtask_list("legacy", tasks[1]["id"])])
    # ...and a read sizes the columns and the inbox it needs.
    page = run("list_todos", limit=3, offset=2)
    assert page["totalCount"] == expected["totalCount"] + 1
    assert [t["id"] for t in page["tasks"]] == [t["id"] for t in expected["tasks"]]
    _assert_sizes_match_lists(services, "legacy")


def _assert_sizes_match_lists_of(services: Services, user_id: str, partitions: list[str]) -> None:
    for partition in partitions:
        size = services.items.get(todo_keys.size_key(user_id, partition))
        assert size is not None and size["count"] == count_list(services.items, partition)


@pytest.mark.parametrize("seed", range(3))
def test_sizes_and_pages_on_dynamodb(dynamo_services: Services, seed: int) -> None:  # noqa: F811
    import random

    rng = random.Random(seed)
    run = caller(dynamo_services, f"d{seed}")
    for _ in range(25):
        _act(run, rng.choice(ACTION_NAMES), rng.randrange(50), rng.randrange(50))
    _assert_sizes_match_lists(dynamo_services, f"d{seed}")
    state = todo_state.load_state(dynamo_services.items, f"d{seed}")
    for offset in (0, 2, 5):
        expected = list_todos(scope_of(board_of(state)), ListOptions(offset=offset, limit=3))
        assert run("list_todos", offset=offset, limit=3) == expected


ACTION_NAMES = ["task", "task", "subtask", "move", "delete", "restore", "complete", "inbox", "file", "drop_inbox",
                "archive", "column", "drop_column", "duplicate"]  # fmt: skip


def test_task_details_read_the_task_not_the_board(services: Services) -> None:
    reads = Reads(services.items)
    run = caller(replace(services, items=reads), "g1")  # type: ignore[arg-type]
    tasks = _board(run, 12)
    expected = todo_state.load_state(services.items, "g1")
    reads.reset()
    detail = run("get_todo_task", id=tasks[0]["id"], includeContext=True)
    assert not reads.read_a_bulk_range()
    assert [s["title"] for s in detail["subtasks"]] == ["s"]
    assert detail["inbox"]["totalCount"] == len(expected.live_inbox()) == 1
    assert detail["task"]["id"] == tasks[0]["id"]
