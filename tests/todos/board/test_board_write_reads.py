"""Todo writes read what they touch, not the board: the structure (settings, slugs, spaces,
tags, columns), the records they change by key, and ordered lists (a column's root tasks, a
task's subtasks, the inbox) from GSI2 — never the `TODO#TASK#` / `TODO#INBOX#` ranges. And the
GSI2 lists give the same positions the whole-state snapshot gives (SQLite and DynamoDB/moto)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from mesq.application.invocation import REGISTRY
from mesq.kernel.context import Call, Principal
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore, Key, QueryPage
from mesq.todos import keys as todo_keys
from mesq.todos import state as todo_state
from mesq.wiring.services import Services
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401  (fixtures)
from tests.todos.board.test_board_transactions import dynamo_services  # noqa: F401  (fixture)
from tests.todos.conftest import TODO_SCOPES

USER = "w1"
BULK_RANGES = ("TODO#TASK#", "TODO#INBOX#")


def caller(services: Services, user_id: str) -> Callable[..., dict[str, Any]]:
    """Any registered operation (board, inbox and views alike), called directly."""
    principal = Principal(user_id=user_id, scopes=frozenset(TODO_SCOPES.split(",")), credential_id="c", kind="pat")

    def run(operation_id: str, **arguments: Any) -> dict[str, Any]:
        return REGISTRY[operation_id](
            Call(principal=principal, services=services, trace_id="t", channel="mcp"), arguments
        )

    return run


class Reads:
    """An ItemStore proxy that records every table query's range and every key read."""

    def __init__(self, inner: ItemStore) -> None:
        self.inner = inner
        self.table_queries: list[tuple[str | None, str | None, str | None]] = []
        self.index_queries: list[str] = []
        self.keys: list[Key] = []

    def query(self, partition: str, **options: Any) -> QueryPage:
        if options.get("index") is None:
            self.table_queries.append((options.get("prefix"), options.get("start"), options.get("end")))
        else:
            self.index_queries.append(partition)
        return self.inner.query(partition, **options)

    def get(self, key: Key) -> Any:
        self.keys.append(key)
        return self.inner.get(key)

    def batch_get(self, keys: Sequence[Key]) -> Any:
        self.keys += list(keys)
        return self.inner.batch_get(keys)

    def reset(self) -> None:
        self.table_queries.clear()
        self.index_queries.clear()
        self.keys.clear()

    def read_a_bulk_range(self) -> bool:
        """Did a table query cover tasks or inbox items (a prefix or range reaching into them)?"""
        for prefix, start, end in self.table_queries:
            low, high = (prefix, prefix + "\uffff") if prefix is not None else (start or "", end or "\uffff")
            if any(low <= name + "\uffff" and name < high for name in BULK_RANGES):
                return True
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def reads(services: Services) -> Reads:
    return Reads(services.items)


@pytest.fixture
def run(services: Services, reads: Reads) -> Callable[..., dict[str, Any]]:
    return caller(replace(services, items=reads), USER)  # type: ignore[arg-type]


def _column_order(items: ItemStore, column_id: str) -> list[str]:
    return [t["id"] for t in todo_state.load_state(items, USER).root_tasks(column_id)]


def _trash_subtasks(run: Any, task_id: str, count: int) -> list[dict[str, Any]]:
    """`count` subtasks of the task made and moved to the trash, oldest first (as trashed)."""
    gone = []
    for n in range(count):
        sub = run("create_todo_subtask", taskId=task_id, title=f"gone{n}")["subtask"]
        gone.append(run("delete_todo_subtask", id=sub["id"], expectedRevision=sub["revision"])["subtask"])
    return gone


def test_writes_never_read_the_task_or_inbox_range(run, reads):
    tasks = [run("create_todo_task", title=f"t{i}", tags=["a"])["task"] for i in range(6)]
    sub = run("create_todo_subtask", taskId=tasks[0]["id"], title="s")["subtask"]
    item = run("create_todo_inbox_item", title="captured")["item"]
    work = run("create_todo_space", name="Work", slug="work")["space"]
    steps: list[tuple[str, dict[str, Any]]] = [
        ("create_todo_task", {"title": "n", "index": 2}),
        ("update_todo_task", {"id": tasks[1]["id"], "expectedRevision": 1, "title": "u", "tags": ["b"]}),
        ("move_todo_task", {"id": tasks[0]["id"], "expectedRevision": 1, "spaceSlug": "work"}),
        ("complete_todo_task", {"id": tasks[2]["id"], "expectedRevision": 1}),
        ("delete_todo_task", {"id": tasks[3]["id"], "expectedRevision": 1}),
        ("restore_todo_item", {"id": tasks[3]["id"], "expectedRevision": 2}),
        ("duplicate_todo_task", {"id": tasks[4]["id"]}),
        ("update_todo_subtask", {"id": sub["id"], "expectedRevision": 2, "title": "s2"}),
        ("batch_complete_todo_tasks", {"items": [{"id": tasks[5]["id"], "expectedRevision": 1}]}),
        ("create_todo_inbox_item", {"title": "again"}),
        ("update_todo_inbox_item", {"id": item["id"], "expectedRevision": 1, "title": "edited"}),
        ("move_todo_inbox_item_to_board", {"id": item["id"], "expectedRevision": 2, "spaceId": work["id"]}),
    ]
    for operation_id, arguments in steps:
        reads.reset()
        run(operation_id, **arguments)
        assert not reads.read_a_bulk_range(), (operation_id, reads.table_queries)
        assert len(reads.table_queries) <= 2, (operation_id, reads.table_queries)  # structure + columns
        assert all(p.startswith(user_partition(USER) + "#TODO") for p in reads.index_queries), operation_id


def test_a_read_view_still_loads_the_whole_state(run, reads):
    run("create_todo_task", title="t")
    reads.reset()
    run("list_todo_trash")
    assert reads.read_a_bulk_range()  # the proxy can tell: the test above can fail


def test_positions_from_the_index_match_the_board_order(run, services):
    first = [run("create_todo_task", title=f"t{i}")["task"] for i in range(8)]
    column_id = first[0]["columnId"]
    at_three = run("create_todo_task", title="third", index=3)["task"]
    at_zero = run("create_todo_task", title="zero", index=0)["task"]
    order = _column_order(services.items, column_id)
    assert order.index(at_zero["id"]) == 0 and order.index(at_three["id"]) == 4
    moved = run("move_todo_task", id=first[7]["id"], expectedRevision=1, index=1)["task"]
    assert _column_order(services.items, column_id)[1] == moved["id"]
    copy = run("duplicate_todo_task", id=first[2]["id"])["task"]
    order = _column_order(services.items, column_id)
    assert order[order.index(first[2]["id"]) + 1] == copy["id"]
    last = run("create_todo_task", title="last")["task"]
    assert _column_order(services.items, column_id)[-1] == last["id"]


def test_trashed_tasks_leave_the_column_list_and_come_back(run, services):
    tasks = [run("create_todo_task", title=f"t{i}")["task"] for i in range(3)]
    run("delete_todo_task", id=tasks[2]["id"], expectedRevision=1)
    partition = todo_keys.column_list(USER, tasks[0]["columnId"])
    listed = services.items.query(partition, index=todo_keys.INDEX).items
    assert [i["id"] for i in listed] == [t["id"] for t in tasks[:2]]
    run("restore_todo_item", id=tasks[2]["id"], expectedRevision=2)
    listed = services.items.query(partition, index=todo_keys.INDEX).items
    assert [i["id"] for i in listed] == [t["id"] for t in tasks]
    run("create_todo_task", title="after restore")
    assert len(services.items.query(partition, index=todo_keys.INDEX).items) == 4


def test_moving_a_task_keeps_its_trashed_subtasks_listed_and_restores_them_in_its_space(run, services):
    """A move takes the live subtasks to the task's new space; a trashed one stays in its task's
    subtask list, is listed in the trash under the task's space and comes back there."""
    task = run("create_todo_task", title="t")["task"]
    subs = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"] for i in range(3)]
    run("delete_todo_subtask", id=subs[1]["id"], expectedRevision=1)
    work = run("create_todo_space", name="Work")["space"]
    moved = run("move_todo_task", id=task["id"], expectedRevision=1, spaceId=work["id"])
    assert [s["id"] for s in moved["subtasks"]] == [subs[0]["id"], subs[2]["id"]]
    assert {s["spaceId"] for s in moved["subtasks"]} == {work["id"]}
    listed = services.items.query(todo_keys.subtask_list(USER, task["id"]), index=todo_keys.INDEX).items
    assert [i["id"] for i in listed] == [s["id"] for s in subs]
    [trashed] = [e for e in run("list_todo_trash")["items"] if e["id"] == subs[1]["id"]]
    assert trashed["spaceId"] == work["id"]
    back = run("restore_todo_item", id=subs[1]["id"], expectedRevision=trashed["revision"])["subtask"]
    assert back["spaceId"] == work["id"]
    state = todo_state.load_state(services.items, USER)
    assert {state.tasks[s["id"]]["spaceId"] for s in subs} == {work["id"]}


def test_a_task_with_a_long_trash_of_subtasks_moves(run, services):
    """A move rewrote every subtask of the task, the trashed ones too, in one transaction: with 120
    in the trash it was refused ("this change needs 126 writes; one atomic change may have at most
    100"), and the task could not leave its space until its trash was emptied. It now moves the
    live ones (at most 50) and leaves the trash as it is."""
    task = run("create_todo_task", title="t")["task"]
    _trash_subtasks(run, task["id"], 120)
    live = run("create_todo_subtask", taskId=task["id"], title="live")["subtask"]
    work = run("create_todo_space", name="Work")["space"]
    moved = run("move_todo_task", id=task["id"], expectedRevision=task["revision"], spaceId=work["id"])
    assert moved["task"]["spaceId"] == work["id"]
    assert [(s["id"], s["spaceId"]) for s in moved["subtasks"]] == [(live["id"], work["id"])]


def test_stored_index_keys_are_recomputed_not_copied():
    record = {"id": "t1", "spaceId": "s", "columnId": "c", "parentId": None, "position": "a0", "deletedAt": None}
    live = todo_keys.stored(USER, "task", record)
    assert live["gsi2pk"] == todo_keys.column_list(USER, "c") and live["gsi2sk"] == "a0#t1"
    trashed = todo_keys.stored(USER, "task", {**live, "deletedAt": "2026-11-29T00:00:00.000000Z"})
    assert "gsi2pk" not in trashed and "gsi2sk" not in trashed


def test_a_partial_state_fetches_missing_records_once_and_reads_everything_explicitly(run, services, reads):
    tasks = [run("create_todo_task", title=f"t{i}")["task"] for i in range(3)]
    state = todo_state.load_partial(reads, USER)  # type: ignore[arg-type]
    reads.reset()
    assert state.task(tasks[0]["id"])["title"] == "t0"
    assert state.task("missing") is None and state.task("missing") is None
    assert len(reads.keys) == 2  # the negative answer is remembered
    assert sorted(t["id"] for t in state.every_task()) == sorted(t["id"] for t in tasks)  # reads the kind
    assert state.tasks == todo_state.load_state(services.items, USER).tasks


def test_index_write_paths_on_dynamodb(dynamo_services):  # noqa: F811
    run = caller(dynamo_services, "dyn")
    tasks = [run("create_todo_task", title=f"t{i}")["task"] for i in range(5)]
    at_two = run("create_todo_task", title="two", index=2)["task"]
    state = todo_state.load_state(dynamo_services.items, "dyn")
    order = [t["id"] for t in state.root_tasks(tasks[0]["columnId"])]
    assert order.index(at_two["id"]) == 2
    copy = run("duplicate_todo_task", id=tasks[0]["id"])["task"]
    order = [t["id"] for t in todo_state.load_state(dynamo_services.items, "dyn").root_tasks(tasks[0]["columnId"])]
    assert order[1] == copy["id"]
    subs = [run("create_todo_subtask", taskId=tasks[1]["id"], title=f"s{i}")["subtask"] for i in range(2)]
    reordered = run("reorder_todo_subtasks", taskId=tasks[1]["id"], subtaskIds=[subs[1]["id"], subs[0]["id"]])
    assert [s["id"] for s in reordered["subtasks"]] == [subs[1]["id"], subs[0]["id"]]
    first = run("create_todo_inbox_item", title="a")["item"]
    second = run("create_todo_inbox_item", title="b")["item"]
    assert first["position"] < second["position"]


def test_live_subtask_reads_never_fetch_the_trashed_ones(run, reads):
    """A task's trash has no subtask limit (add and trash, again and again), and its subtask list
    (GSI2) keeps the trashed ones. `subtasks_of` without `include_deleted` read every id of that
    list back from the table (a BatchGetItem key each, trashed too) only to drop the trashed: with
    120 in the trash, adding one subtask, reordering, duplicating or reading the task read 120+
    records by key. Now the list's own entries say which are live; only those are read by key."""
    task = run("create_todo_task", title="t")["task"]
    gone = [sub["id"] for sub in _trash_subtasks(run, task["id"], 120)]
    live = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"] for i in range(2)]
    subtask_keys = {todo_keys.task_key(USER, s["id"]) for s in live}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_todo_subtask", {"taskId": task["id"], "title": "s2"}),
        ("reorder_todo_subtasks", {"taskId": task["id"], "subtaskIds": []}),
        ("duplicate_todo_task", {"id": task["id"]}),
        ("get_todo_task", {"id": task["id"]}),
    ]
    for operation_id, arguments in calls:
        if operation_id == "reorder_todo_subtasks":
            listed = run("get_todo_task", id=task["id"])["subtasks"]
            arguments = {**arguments, "subtaskIds": [s["id"] for s in reversed(listed)]}
        reads.reset()
        answer = run(operation_id, **arguments)
        task_keys = [k for k in reads.keys if k[1].startswith("TODO#TASK#") and k[1] != f"TODO#TASK#{task['id']}"]
        assert len(task_keys) <= 3, (operation_id, len(task_keys))  # the live subtasks, never the 120 trashed
        assert subtask_keys <= set(task_keys), operation_id
        assert answer
    # the context names the 50 most recently trashed from the list's entries, reading none by key
    reads.reset()
    context = run("get_todo_task", id=task["id"], includeContext=True)
    assert len(context["trashedSubtaskIds"]) == 50 and len(context["subtasks"]) == 3
    task_keys = [k for k in reads.keys if k[1].startswith("TODO#TASK#") and k[1] != f"TODO#TASK#{task['id']}"]
    assert len(task_keys) == 3, len(task_keys)
    assert context["trashedSubtaskIds"][0] == gone[-1] and set(context["trashedSubtaskIds"]) <= set(gone)


def _structure_reads(reads: Reads) -> int:
    """How many times the write read the board's structure (`load_partial`'s settings..tasks range)."""
    return sum(1 for _prefix, start, _end in reads.table_queries if start == todo_keys.SETTINGS_SK)


@pytest.mark.parametrize("columns", [3, 45])
def test_deleting_a_space_reads_its_structure_once_a_write(run, reads, services, columns):
    """delete_todo_space loaded the partial state once to count the space's columns, then again
    in its write (and for a space past COLUMNS_PER_WRITE columns, a count before each write of
    columns and one after): 2 structure reads for a space of 3 columns, 6 for 45. The write now
    decides from the state it loaded whether it removes the next columns or the space: one read
    per transaction, the same writes (45 columns: 20, then 5, then the space with its last 20)."""
    from mesq.todos.board.spaces import COLUMNS_PER_WRITE

    space = run("create_todo_space", name="Many", columns=[f"c{i}" for i in range(min(columns, 30))])["space"]
    for index in range(30, columns):
        run("create_todo_column", spaceId=space["id"], name=f"c{index}")
    reads.reset()
    deleted = run("delete_todo_space", spaceId=space["id"], expectedRevision=space["revision"])
    assert deleted["space"]["id"] == space["id"]
    writes = 1 + -(-max(0, columns - COLUMNS_PER_WRITE) // COLUMNS_PER_WRITE)  # the column writes, then the space
    assert _structure_reads(reads) == writes, reads.table_queries
    state = todo_state.load_state(services.items, USER)
    assert space["id"] not in state.spaces and not state.columns_of(space["id"])


class LaggingSubtaskList:
    """The store with one task's subtask list (GSI2) answered as it was at `freeze`: what an
    eventually consistent index can still show a moment after a write (DynamoDB's GSIs; SQLite's
    and DynamoDB Local's answer at once)."""

    def __init__(self, inner: ItemStore, task_id: str, user_id: str) -> None:
        self.inner = inner
        self.partition = todo_keys.subtask_list(user_id, task_id)
        self.frozen: QueryPage | None = None

    def freeze(self) -> None:
        self.frozen = self.inner.query(self.partition, index=todo_keys.INDEX)
        assert self.frozen.next_key is None

    def query(self, partition: str, **options: Any) -> QueryPage:
        if self.frozen is not None and partition == self.partition and options.get("index") == todo_keys.INDEX:
            return self.frozen
        return self.inner.query(partition, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _a_move_right_after_a_restore(services: Services, user_id: str) -> None:
    run = caller(services, user_id)
    task = run("create_todo_task", title="t")["task"]
    subs = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"] for i in range(2)]
    trashed = run("delete_todo_subtask", id=subs[1]["id"], expectedRevision=1)["subtask"]
    lagging = LaggingSubtaskList(services.items, task["id"], user_id)
    lagging.freeze()  # the list still says s1 is in the trash
    run = caller(replace(services, items=lagging), user_id)  # type: ignore[arg-type]
    run("restore_todo_item", id=subs[1]["id"], kind="subtask", expectedRevision=trashed["revision"])
    work = run("create_todo_space", name="Work")["space"]
    task = run("get_todo_task", id=task["id"])["task"]
    moved = run("move_todo_task", id=task["id"], expectedRevision=task["revision"], spaceId=work["id"])
    assert sorted(s["id"] for s in moved["subtasks"]) == sorted(s["id"] for s in subs)
    state = todo_state.load_state(services.items, user_id)
    placed = [(state.tasks[s["id"]]["spaceId"], todo_keys.live(state.tasks[s["id"]])) for s in subs]
    assert placed == [(work["id"], True)] * 2


def test_a_move_right_after_a_restore_takes_the_restored_subtask(services):
    """A move read which subtasks are live from the subtask list's entries: a subtask restored a
    moment before, whose entry still said trashed, was left behind, live, in the space its task
    left (and no later write moved it). The records say which are live."""
    _a_move_right_after_a_restore(services, USER)


@pytest.mark.dynamodb_local
def test_a_move_right_after_a_restore_takes_the_restored_subtask_on_dynamodb_local(services, dynamodb_local):  # noqa: F811
    _a_move_right_after_a_restore(replace(services, items=dynamodb_local), "dyn")


def test_a_task_with_its_context_reads_its_subtask_list_once(run, reads):
    """get_todo_task with its context names the live subtasks and the most recently trashed ones
    (the History panels read their changes). It queried the task's subtask list (GSI2) twice, once
    for the live ones and again for the trashed: the same index page read twice on every view of
    the task page. One query of the list answers both."""
    task = run("create_todo_task", title="t")["task"]
    gone = [sub["id"] for sub in _trash_subtasks(run, task["id"], 3)]
    live = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"] for i in range(2)]
    listed = todo_keys.subtask_list(USER, task["id"])
    for include_context in (False, True):
        reads.reset()
        answer = run("get_todo_task", id=task["id"], includeContext=include_context)
        assert reads.index_queries.count(listed) == 1, (include_context, reads.index_queries)
        assert [s["id"] for s in answer["subtasks"]] == [s["id"] for s in live]
    assert answer["trashedSubtaskIds"] == list(reversed(gone))


def test_a_task_history_names_its_subtasks_in_the_trash_too_reading_a_bounded_few(run, reads):
    """The subtasks whose changes a task's history shows (todos/views/history_subtasks.py, the web's
    /activity/history/<taskId>): get_todo_task refuses a trashed task, so a task in the trash had
    none. On the board or in the trash alike: its live subtasks, then its 50 most recently trashed,
    from the task by key and one query of its subtask list; the live ones' records by key, never a
    trashed one's (its trash has no limit), never the task range."""
    from mesq.todos.views.history_subtasks import history_subtask_ids

    task = run("create_todo_task", title="t")["task"]
    gone = [sub["id"] for sub in _trash_subtasks(run, task["id"], 60)]
    live = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"]["id"] for i in range(2)]
    expected = live + list(reversed(gone))[:50]
    assert history_subtask_ids(reads, USER, task["id"]) == expected
    task = run("get_todo_task", id=task["id"])["task"]
    run("delete_todo_task", id=task["id"], expectedRevision=task["revision"])
    reads.reset()
    assert history_subtask_ids(reads, USER, task["id"]) == expected
    assert reads.table_queries == [] and reads.index_queries == [todo_keys.subtask_list(USER, task["id"])]
    assert sorted(reads.keys) == sorted(todo_keys.task_key(USER, i) for i in [task["id"], *live])
    # a subtask's id, or an id that is nobody's: nothing
    assert history_subtask_ids(reads, USER, live[0]) == [] and history_subtask_ids(reads, USER, "nope") == []


def _a_long_trash_follows_its_task(services: Services, user_id: str) -> None:
    run = caller(services, user_id)
    task = run("create_todo_task", title="t")["task"]
    home = task["spaceId"]
    gone = _trash_subtasks(run, task["id"], 105)
    live = run("create_todo_subtask", taskId=task["id"], title="live")["subtask"]
    work = run("create_todo_space", name="Work")["space"]

    def spaces() -> dict[str, tuple[str, int]]:
        state = todo_state.load_state(services.items, user_id)
        return {s["id"]: (state.tasks[s["id"]]["spaceId"], state.tasks[s["id"]]["revision"]) for s in [*gone, live]}

    moved = run("move_todo_task", id=task["id"], expectedRevision=task["revision"], spaceId=work["id"])
    assert moved["task"]["spaceId"] == work["id"]
    after = spaces()
    # every subtask's record is in the task's space now, the trashed ones at their revision
    assert {space for space, _ in after.values()} == {work["id"]}
    assert all(after[s["id"]][1] == s["revision"] for s in gone)
    # the trash's listed revision still restores it, into the task's space
    [listed] = [e for e in run("list_todo_trash", limit=10)["items"] if e["id"] == gone[-1]["id"]]
    back = run("restore_todo_item", id=gone[-1]["id"], expectedRevision=listed["revision"])["subtask"]
    assert back["spaceId"] == work["id"]
    # undoing the move takes the task back, its live subtasks and its trash with it
    [change] = [c for c in run("list_changes", recordId=task["id"], limit=5)["changes"] if c["action"] == "move"]
    undone = run("undo_changes", changeIds=[change["id"]])
    assert undone["undone"], undone
    assert {space for space, _ in spaces().values()} == {home}


def test_a_long_trash_of_subtasks_follows_its_task_to_another_space(services):
    """A move took only the live subtasks (a long trash made the one transaction too big: "this
    change needs 128 writes"), so a trashed subtask kept the space its task left in its record:
    the trash and a restore read the task's, but an export, or any reader of the record, saw the
    old space. The trashed ones now follow in their own writes, after the move, ~100 at a time,
    without a revision bump (a restore of what the trash listed still holds); an undo too."""
    _a_long_trash_follows_its_task(services, USER)


@pytest.mark.dynamodb_local
def test_a_long_trash_of_subtasks_follows_its_task_on_dynamodb_local(services, dynamodb_local):  # noqa: F811
    _a_long_trash_follows_its_task(replace(services, items=dynamodb_local), "dyn-trash")


def test_a_task_restored_into_another_space_takes_its_trash_along(run, services):
    """A task restored from the trash after its space was deleted lands in the default space with
    its live subtasks; its trashed ones follow it there too, by either restore."""
    for restore in ("restore_todo_task", "restore_todo_item"):
        away = run("create_todo_space", name=f"Away {restore}")["space"]
        task = run("create_todo_task", title="t", spaceId=away["id"])["task"]
        subs = [run("create_todo_subtask", taskId=task["id"], title=f"s{i}")["subtask"] for i in range(3)]
        run("delete_todo_subtask", id=subs[0]["id"], expectedRevision=subs[0]["revision"])
        task = run("delete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
        away = next(s for s in run("list_todo_spaces")["spaces"] if s["id"] == away["id"])
        run("delete_todo_space", spaceId=away["id"], expectedRevision=away["revision"])
        back = run(restore, id=task["id"], expectedRevision=task["revision"])["task"]
        assert back["spaceId"] != away["id"]
        state = todo_state.load_state(services.items, USER)
        assert {state.tasks[s["id"]]["spaceId"] for s in subs} == {back["spaceId"]}, restore
