"""list_todos' graph pages read through the graph counts (views/graph_paged.py,
todos/graph_counts.py) over real SQLite: after any sequence of todo writes every count equals a
recount from the snapshot, and every graph page equals the page the whole-snapshot path (kept
here as the oracle) computes, at several offsets, limits, budgets and space filters; a page
never reads the task or inbox ranges; a board written before the counts is counted on first use;
writers racing on one root do not make the counts drift."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.kernel.errors import MesqError
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import Delete, ItemStore
from mesq.store.paging import walk
from mesq.todos import state as todo_state
from mesq.todos.graph_counts import TREE_PREFIX, column_count_key, inbox_count_key, placed, root_count_key
from mesq.todos.keys import live
from mesq.todos.views.graph_paged import graph_board_page
from mesq.todos.views.listing import ListOptions, list_todos
from mesq.todos.views.operations import board_of
from mesq.todos.views.traversal import scope_of
from mesq.wiring.services import Services
from tests.hypothesis_lanes import examples
from tests.racing import Racing
from tests.todos.board.test_board_transactions import dynamo_services  # noqa: F401  (fixture)
from tests.todos.board.test_board_write_reads import Reads, caller
from tests.todos.views.test_views_paged_store import Run
from tests.todos.views.test_views_paged_store import _act as _board_act

ACTION_NAMES = ["task", "task", "subtask", "subtask", "subtask", "drop_subtask", "move", "delete", "restore",
                "restore", "complete", "inbox", "inbox_subtask", "drop_inbox_subtask", "file", "drop_inbox",
                "archive", "column", "space", "drop_column", "drop_space", "duplicate", "batch_move",
                "done_column"]  # fmt: skip
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(ACTION_NAMES),
        st.integers(0, 50),
        st.integers(0, 50),
    ),
    max_size=30,
)  # fmt: skip


def _act(run: Run, action: str, a: int, b: int) -> None:
    """The plain-page test's writes, plus the subtask and inbox-subtask ones the graph counts."""
    if action not in {"drop_subtask", "inbox_subtask", "drop_inbox_subtask", "drop_space", "done_column"}:
        return _board_act(run, action, a, b)
    board = run("list_todos", limit=1000, projection="graph")
    spaces = run("list_todo_spaces")

    def pick(records: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
        return records[index % len(records)] if records else None

    try:
        subtask, item = pick(board["subtasks"], a), pick(board["inboxItems"], a)
        inbox_subtask, column = pick(board["inboxSubtasks"], b), pick(spaces["columns"], b)
        space = pick(spaces["spaces"], b)
        if action == "drop_subtask" and subtask is not None:
            run("delete_todo_subtask", id=subtask["id"], expectedRevision=subtask["revision"])
        elif action == "inbox_subtask" and item is not None:
            run("create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=item["revision"], title=f"x{b}")
        elif action == "drop_inbox_subtask" and inbox_subtask is not None:
            run("delete_todo_inbox_subtask", parentItemId=inbox_subtask["parentItemId"],
                parentRevision=inbox_subtask["parentRevision"], subtaskId=inbox_subtask["id"])  # fmt: skip
        elif action == "drop_space" and space is not None and len(spaces["spaces"]) > 1:
            run("delete_todo_space", spaceId=space["id"], expectedRevision=space["revision"])
        elif action == "done_column" and column is not None:
            run("update_todo_column", columnId=column["id"], expectedRevision=column["revision"], done=True)
    except MesqError:
        pass
    return None


def assert_counts_match_a_recount(items: ItemStore, user_id: str) -> None:
    """Every count item there is equals the snapshot's number (absent ones are counted on use)."""
    state = todo_state.load_state(items, user_id)
    tasks = state.every_task()
    live_under: dict[str, int] = {}
    for task in tasks:
        if task.get("parentId") is not None and live(task):
            live_under[task["parentId"]] = live_under.get(task["parentId"], 0) + 1
    per_column: dict[str, int] = {}
    for task in tasks:
        column = placed(task)
        if column is not None:
            per_column[column] = per_column.get(column, 0) + live_under.get(task["id"], 0)
    stored = {str(i["sk"]): i for i in walk(items, user_partition(user_id), prefix=TREE_PREFIX)}
    for column_id in state.columns:
        found = stored.pop(column_count_key(user_id, column_id)[1], None)
        assert found is None or found["live"] == per_column.get(column_id, 0), column_id
    for task in tasks:
        found = stored.pop(root_count_key(user_id, task["id"])[1], None)
        assert found is None or found["live"] == live_under.get(task["id"], 0), task["id"]
    found = stored.pop(inbox_count_key(user_id)[1], None)
    assert found is None or found["live"] == sum(len(i.get("subtasks") or ()) for i in state.live_inbox())
    assert not stored  # no count of a column that is gone


def _oracle(items: ItemStore, user_id: str, space_ids: frozenset[str] | None, inbox: bool, options: ListOptions) -> Any:
    """The graph page as it was computed before: from the whole snapshot."""
    state = todo_state.load_state(items, user_id)
    try:
        return list_todos(scope_of(board_of(state), space_ids=space_ids, include_inbox=inbox), options)
    except MesqError as error:
        return error


def _assert_graph_pages_match_the_snapshot(services: Services, user_id: str, data: st.DataObject) -> None:
    items = services.items
    spaces = sorted(todo_state.load_partial(items, user_id).spaces)
    for _ in range(5):
        space = data.draw(st.sampled_from([None, *spaces]))
        space_ids = None if space is None else frozenset({space})
        include_inbox = data.draw(st.booleans())
        options = ListOptions(
            offset=data.draw(st.integers(0, 14)),
            limit=data.draw(st.integers(1, 9)),
            include_notes=data.draw(st.booleans()),
            projection="graph",
            budget=data.draw(st.sampled_from([2500, 6000, 25_000])),
        )
        expected = _oracle(items, user_id, space_ids, include_inbox, options)
        structure = board_of(todo_state.load_partial(items, user_id), records=False)
        try:
            paged = graph_board_page(items, user_id, structure, include_inbox=include_inbox,
                                     space_ids=space_ids, options=options)  # fmt: skip
        except MesqError as error:
            assert isinstance(expected, MesqError) and error.details == expected.details
        else:
            assert paged == expected


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(actions=ACTIONS, data=st.data())
def test_counts_follow_every_write_and_graph_pages_equal_the_snapshot(services: Services, actions, data) -> None:
    user_id = "g" + uuid.uuid4().hex[:10]
    run = caller(services, user_id)
    run("list_todo_spaces")  # the default space
    for action, a, b in actions:
        _act(run, action, a, b)
        if data.draw(st.integers(0, 5)) == 0:  # now and then a read seeds what is not counted yet
            run("list_todos", projection="graph", limit=3)
    assert_counts_match_a_recount(services.items, user_id)
    _assert_graph_pages_match_the_snapshot(services, user_id, data)
    assert_counts_match_a_recount(services.items, user_id)
    # and through the operation itself (the default budget and limit)
    expected = _oracle(services.items, user_id, None, True, ListOptions(offset=2, limit=4, projection="graph"))
    assert run("list_todos", projection="graph", offset=2, limit=4) == expected


def _board(run: Run, roots: int) -> list[dict[str, Any]]:
    tasks = [run("create_todo_task", title=f"t{n}")["task"] for n in range(roots)]
    for task in tasks[::3]:
        run("create_todo_subtask", taskId=task["id"], title="s1")
        run("create_todo_subtask", taskId=task["id"], title="s2")
    run("create_todo_inbox_item", title="i", subtasks=[{"title": "is"}, {"title": "is2"}])
    return tasks


def test_a_graph_page_reads_what_it_shows_not_the_board(services: Services) -> None:
    reads = Reads(services.items)
    run = caller(replace(services, items=reads), "r1")  # type: ignore[arg-type]
    _board(run, 30)
    run("list_todos", projection="graph", limit=1)  # counts every list once (the board is new)
    reads.reset()
    page = run("list_todos", projection="graph", limit=3)
    assert not reads.read_a_bulk_range()  # never the TODO#TASK# / TODO#INBOX# ranges
    assert page["collections"]["subtasks"]["totalCount"] == 20 and len(page["subtasks"]) == 3
    assert page["collections"]["inboxSubtasks"]["totalCount"] == 2
    # the first column's head, the subtask lists of the two roots the window covers, the inbox
    assert len(reads.index_queries) <= 5


def test_a_board_written_before_the_counts_is_counted_on_first_use(services: Services) -> None:
    run = caller(services, "legacy")
    tasks = _board(run, 10)
    run("delete_todo_task", id=tasks[3]["id"], expectedRevision=tasks[3]["revision"])
    for item in list(walk(services.items, user_partition("legacy"), prefix=TREE_PREFIX)):
        services.items.transact([Delete((str(item["pk"]), str(item["sk"])))])
    options = ListOptions(offset=1, limit=4, projection="graph")
    expected = _oracle(services.items, "legacy", None, True, options)
    assert run("list_todos", projection="graph", offset=1, limit=4) == expected
    assert_counts_match_a_recount(services.items, "legacy")
    # Writes on roots and columns never counted count them once in their own transaction.
    columns = run("list_todo_spaces")["columns"]
    moved = run("get_todo_task", id=tasks[6]["id"])["task"]
    run("move_todo_task", id=moved["id"], expectedRevision=moved["revision"], columnId=columns[1]["id"])
    run("create_todo_subtask", taskId=tasks[9]["id"], title="late")
    restored = run("list_todo_trash")["items"][0]
    run("restore_todo_item", id=restored["id"], expectedRevision=restored["revision"])
    run("create_todo_inbox_item", title="j", subtasks=[{"title": "js"}])
    assert_counts_match_a_recount(services.items, "legacy")
    for offset in (0, 3, 7):
        options = ListOptions(offset=offset, limit=3, projection="graph")
        assert run("list_todos", projection="graph", offset=offset, limit=3) == _oracle(
            services.items, "legacy", None, True, options
        )


def test_writers_racing_on_one_root_do_not_drift(services: Services) -> None:
    racing = Racing(services.items)
    mine, theirs = caller(replace(services, items=racing), "race"), caller(services, "race")  # type: ignore[arg-type]
    root = mine("create_todo_task", title="root")["task"]
    mine("create_todo_subtask", taskId=root["id"], title="s0")
    mine("list_todos", projection="graph")  # every count there
    columns = mine("list_todo_spaces")["columns"]

    def current() -> dict[str, Any]:
        return theirs("get_todo_task", id=root["id"])["task"]

    # A subtask created while the root moves away: its guard fails, it is rebuilt in the new column.
    racing.race = lambda: theirs("move_todo_task", id=root["id"], expectedRevision=current()["revision"],
                                 columnId=columns[1]["id"])  # fmt: skip
    mine("create_todo_subtask", taskId=root["id"], title="s1")
    assert_counts_match_a_recount(services.items, "race")
    # A root moved while a subtask lands under it: the column's version changed, the move is rebuilt.
    racing.race = lambda: theirs("create_todo_subtask", taskId=root["id"], title="s2")
    mine("move_todo_task", id=root["id"], expectedRevision=current()["revision"], columnId=columns[2]["id"])
    assert_counts_match_a_recount(services.items, "race")
    # The root trashed while one of its subtasks is trashed on its own by another writer.
    subtasks = theirs("get_todo_task", id=root["id"])["subtasks"]
    racing.race = lambda: theirs("delete_todo_subtask", id=subtasks[0]["id"], expectedRevision=subtasks[0]["revision"])
    mine("delete_todo_task", id=root["id"], expectedRevision=current()["revision"])
    assert_counts_match_a_recount(services.items, "race")
    [trashed] = [e for e in theirs("list_todo_trash")["items"] if e["id"] == root["id"]]
    mine("restore_todo_item", id=root["id"], expectedRevision=trashed["revision"])
    assert_counts_match_a_recount(services.items, "race")
    page = mine("list_todos", projection="graph")
    assert page["collections"]["subtasks"]["totalCount"] == 2
    assert page == _oracle(services.items, "race", None, True, ListOptions(projection="graph"))
    # A subtask created while its root goes to the trash is refused as before the counts.
    racing.race = lambda: theirs("delete_todo_task", id=root["id"], expectedRevision=current()["revision"])
    with pytest.raises(MesqError) as refused:
        mine("create_todo_subtask", taskId=root["id"], title="late")
    assert refused.value.code == "CONFLICT" and "moved to the trash meanwhile" in refused.value.message
    assert_counts_match_a_recount(services.items, "race")
    # A subtask trashed while its root goes to the trash: the guard fails, the write is rebuilt
    # against the trashed root (allowed, as before the counts) and counts under no column.
    [trashed] = [e for e in theirs("list_todo_trash")["items"] if e["id"] == root["id"]]
    mine("restore_todo_item", id=root["id"], expectedRevision=trashed["revision"])
    subtask = theirs("get_todo_task", id=root["id"])["subtasks"][0]
    racing.race = lambda: theirs("delete_todo_task", id=root["id"], expectedRevision=current()["revision"])
    deleted = mine("delete_todo_subtask", id=subtask["id"], expectedRevision=subtask["revision"])
    assert deleted["subtask"]["deletedAt"] is not None
    assert_counts_match_a_recount(services.items, "race")


def test_a_full_batch_into_the_done_column_adds_no_write_per_task(services: Services) -> None:
    """Roots leaving a column take their counts along under that column's version: a batch of 50
    completions moving into the done column fits its transaction, on a board never counted too."""
    run = caller(services, "batch")
    tasks = _board(run, 50)
    columns = run("list_todo_spaces")["columns"]
    run("update_todo_column", columnId=columns[2]["id"], expectedRevision=columns[2]["revision"], done=True)
    for item in list(walk(services.items, user_partition("batch"), prefix=TREE_PREFIX)):
        services.items.transact([Delete((str(item["pk"]), str(item["sk"])))])
    done = run("batch_update_todo_tasks", updates=[{"id": t["id"], "expectedRevision": 1, "done": True} for t in tasks])
    assert all(t["columnId"] == columns[2]["id"] for t in done["tasks"])
    assert_counts_match_a_recount(services.items, "batch")
    page = run("list_todos", projection="graph", limit=5)
    assert page == _oracle(services.items, "batch", None, True, ListOptions(limit=5, projection="graph"))
    assert page["collections"]["subtasks"]["totalCount"] == 34


def test_counts_and_graph_pages_on_dynamodb(dynamo_services: Services) -> None:  # noqa: F811
    import random

    rng = random.Random(7)
    run = caller(dynamo_services, "dyn")
    names = [name for name in ACTION_NAMES if name not in {"space", "drop_space"}]
    for _ in range(25):
        _act(run, rng.choice(names), rng.randrange(50), rng.randrange(50))
    assert_counts_match_a_recount(dynamo_services.items, "dyn")
    for offset, limit in ((0, 4), (2, 3), (6, 5)):
        options = ListOptions(offset=offset, limit=limit, projection="graph")
        expected = _oracle(dynamo_services.items, "dyn", None, True, options)
        assert run("list_todos", projection="graph", offset=offset, limit=limit) == expected
