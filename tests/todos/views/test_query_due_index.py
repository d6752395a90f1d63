"""query_todos through the due/priority/status index (todos/due_index.py, views/indexed.py) answers
exactly what the whole-snapshot scan answers: on random boards (dues in many zones, trash,
archived columns, trashed parents, done and open records) and random narrowed queries, on
SQLite; on a fixed board on DynamoDB (moto, and DynamoDB Local where it runs). A board written
before the index (tasks without its keys) is backfilled on the first narrowed query and again
by hand, and answers the same each time; a backfill run twice rewrites nothing the second time."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.context import Call
from mesq.kernel.errors import MesqError
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore, Put
from mesq.store.paging import walk
from mesq.todos import due_index, keys, model
from mesq.todos.views import operations as views
from mesq.wiring.config import Settings
from mesq.wiring.services import Services
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint, moto, moto_env  # noqa: F401
from tests.support.operations import call_of
from tests.todos.board.test_board_write_reads import Reads, caller
from tests.todos.random_boards import boards

NOW = datetime(2026, 10, 8, 3, 30, tzinfo=UTC)
ZONES = [None, "Asia/Shanghai", "Pacific/Kiritimati", "Etc/GMT+12", "America/New_York", "Not/AZone", 'Odd"#\\~[é]/Zone']
#: Id tails the index's sort-key covers must survive: JSON and key separators, non-ASCII, and one
#: so long that a subtask's cover (its parent's, column's and space's ids) no longer fits a sort key.
ID_TAILS = ["", "", '#"\\', "é~[,]", "x" * 600]
DAYS = [f"2026-10-{day:02d}" for day in range(1, 16)] + ["0001-01-01", "9999-12-31"]


@st.composite
def dues(draw: st.DrawFn) -> dict[str, Any] | None:
    kind = draw(st.sampled_from(["none", "date", "date", "datetime"]))
    if kind == "none":
        return None
    if kind == "date":
        return {"type": "date", "date": draw(st.sampled_from(DAYS))}
    hour, offset = draw(st.integers(0, 23)), draw(st.sampled_from(["Z", "+08:00", "-11:00", "+14:00"]))
    return {"type": "datetime", "at": f"{draw(st.sampled_from(DAYS[:15]))}T{hour:02d}:00:00{offset}"}


@st.composite
def dated_boards(draw: st.DrawFn) -> tuple[Any, str | None]:
    board = draw(boards(big_notes=50, max_tasks_per_column=5))
    _odd_ids(board, draw)
    for record in [*board.tasks, *board.inbox_items]:
        record["due"] = draw(dues())
        record["timezone"] = draw(st.sampled_from(ZONES))
        record["title"] = draw(st.sampled_from(["buy milk", "Milk run", "call mom", "x"]))
    # random_boards trashes about one record in ten: trashed roots keep live subtasks (which the
    # index holds and the query must drop), and some columns are archived.
    return board, draw(st.sampled_from([None, "Asia/Shanghai", "America/New_York"]))


def _odd_ids(board: Any, draw: st.DrawFn) -> None:
    """Give the spaces, columns and tasks ids with odd tails (references follow)."""
    renamed = {
        str(record["id"]): str(record["id"]) + draw(st.sampled_from(ID_TAILS))
        for record in [*board.spaces, *board.columns, *board.tasks]
    }
    for record in [*board.spaces, *board.columns, *board.tasks]:
        for name in ("id", "spaceId", "columnId", "parentId"):
            if record.get(name) is not None:
                record[name] = renamed[record[name]]


@st.composite
def queries(draw: st.DrawFn, space_ids: list[str]) -> dict[str, Any]:
    args: dict[str, Any] = {"limit": 200, "status": draw(st.sampled_from(["open", "done", "all"]))}
    if draw(st.integers(0, 2)) == 0:  # a page cut from the answer (the covers' order picks it)
        args.update(limit=draw(st.integers(1, 4)), offset=draw(st.integers(0, 3)))
    if draw(st.booleans()):
        args["priority"] = draw(st.lists(st.sampled_from(model.PRIORITIES), min_size=1, max_size=3, unique=True))
    if draw(st.booleans()):
        args["dueAfter"] = draw(
            st.sampled_from(["2026-10-05T00:00:00+08:00", "2026-10-03T12:00:00Z", "0001-01-01T00:00:00Z"])
        )
    if draw(st.booleans()):
        args["dueBefore"] = draw(
            st.sampled_from(["2026-10-12T00:00:00+08:00", "2026-10-09T00:00:00-04:00", "9999-12-31T00:00:00Z"])
        )
    if draw(st.integers(0, 3)) == 0:
        args["overdue"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        args["tags"] = [draw(st.sampled_from(["a", "b", "work/x"]))]
    if draw(st.integers(0, 3)) == 0:
        args["query"] = draw(st.sampled_from(["milk", "MOM"]))
    if space_ids and draw(st.integers(0, 3)) == 0:
        args["spaceId"] = draw(st.sampled_from(space_ids))
    args["orderBy"] = draw(st.sampled_from(["updated", "due", "priority"]))
    return args


def _services(items: ItemStore, tmp: Path) -> Services:
    return Services(settings=Settings(data_dir=tmp), items=items, blobs=LocalBlobStore(tmp / "blobs"))


def _call(services: Services, user_id: str) -> Call:
    return call_of(services, user_id, {"todo:read", "todo:write"})


def _write_board(
    items: ItemStore, user_id: str, board: Any, zone: str | None, *, indexed: bool = True, version_1: bool = False
) -> None:
    """The board's records as the writes store them; `indexed=False`: as a board written before
    the due index (no GSI1 keys on its tasks); `version_1`: as a board indexed before the sort
    keys' covers (`<day>#<id>`, the marker at version 1)."""
    pk, sk = keys.settings_key(user_id)
    settings_item = {"pk": pk, "sk": sk, "revision": 1, "updatedAt": "2026-10-01T00:00:00.000000Z"}
    if board.spaces:
        settings_item["defaultSpaceId"] = board.spaces[0]["id"]
    if zone is not None:
        settings_item["timezone"] = zone
    puts = [Put(settings_item)]
    for space in board.spaces:
        record = {k: v for k, v in space.items() if k != "isDefault"}
        puts.append(Put(keys.stored(user_id, "space", record)))
        slug_pk, slug_sk = keys.slug_key(user_id, space["slug"])
        puts.append(Put({"pk": slug_pk, "sk": slug_sk, "spaceId": space["id"]}))
    puts += [Put(keys.stored(user_id, "column", column)) for column in board.columns]
    for task in board.tasks:
        item = keys.stored(user_id, "task", task)
        if not indexed:
            item = {k: v for k, v in item.items() if k not in ("gsi1pk", "gsi1sk")}
        elif version_1 and "gsi1sk" in item:
            item["gsi1sk"] = f"{keys.due_day(task.get('due'))}#{task['id']}"
        puts.append(Put(item))
    if version_1:
        marker_pk, marker_sk = due_index.marker_key(user_id)
        puts.append(Put({"pk": marker_pk, "sk": marker_sk, "version": 1, "indexedAt": "2026-10-01T00:00:00.000000Z"}))
    puts += [Put(keys.stored(user_id, "inbox", record)) for record in board.inbox_items]
    for first in range(0, len(puts), 100):
        items.transact(puts[first : first + 100])


def _answer(call: Call, args: dict[str, Any], *, scan: bool) -> Any:
    """query_todos' answer (or its error), through the index or (`scan`) the whole snapshot."""
    with mock.patch("mesq.kernel.timestamps.utc_now", return_value=NOW):
        try:
            if scan:
                with mock.patch.object(views, "narrowed", return_value=False):
                    return views.query_todos_operation(call, dict(args))
            return views.query_todos_operation(call, dict(args))
        except MesqError as error:
            return (type(error).__name__, str(error))


def _due_index_entries(items: ItemStore, user_id: str) -> int:
    return sum(
        len(due_index.entries(items, user_id, statuses=(done,), priorities=None, days=None)) for done in (False, True)
    )


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data(), drawn=dated_boards())
def test_indexed_answers_equal_the_snapshot_scan_on_random_boards(data, drawn, tmp_path):
    board, zone = drawn
    items = SQLiteItemStore(tmp_path / f"{uuid.uuid4().hex}.db")
    try:
        _write_board(items, "u1", board, zone)
        narrowed = _compare_many(_call(_services(items, tmp_path), "u1"), board, data)
        assert due_index.is_indexed(items, "u1") == bool(narrowed)  # the first narrowed query backfilled
    finally:
        items.close()


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data(), drawn=dated_boards())
def test_a_board_written_before_the_index_is_backfilled_and_answers_the_same(data, drawn, tmp_path):
    board, zone = drawn
    items = SQLiteItemStore(tmp_path / f"{uuid.uuid4().hex}.db")
    try:
        _write_board(items, "u1", board, zone, indexed=False)
        call = _call(_services(items, tmp_path), "u1")
        assert not due_index.is_indexed(items, "u1")
        assert _due_index_entries(items, "u1") == 0
        live_tasks = [t for t in board.tasks if keys.live(t)]
        # The first narrowed query backfills (lazily), then answers as the scan does.
        _answer(call, {"priority": "high"}, scan=False)
        assert due_index.is_indexed(items, "u1")
        assert _due_index_entries(items, "u1") == len(live_tasks)
        _compare_many(call, board, data, rounds=3)
        # By hand again (what `mesq todos index` runs): nothing left to rewrite, same answers.
        assert due_index.backfill(items, "u1") == 0
        assert due_index.backfill(items, "u1") == 0
        _compare_many(call, board, data, rounds=3)
    finally:
        items.close()


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data(), drawn=dated_boards())
def test_a_board_indexed_before_the_covers_is_backfilled_again_and_answers_the_same(data, drawn, tmp_path):
    board, zone = drawn
    items = SQLiteItemStore(tmp_path / f"{uuid.uuid4().hex}.db")
    try:
        _write_board(items, "u1", board, zone, version_1=True)
        call = _call(_services(items, tmp_path), "u1")
        assert not due_index.is_indexed(items, "u1")  # the marker says version 1
        _answer(call, {"priority": "high"}, scan=False)  # backfills (rewrites every live task's key)
        assert due_index.is_indexed(items, "u1")
        _assert_index_current(items, "u1")
        _compare_many(call, board, data, rounds=3)
        assert due_index.backfill(items, "u1") == 0
    finally:
        items.close()


def test_covers_survive_odd_characters_and_a_cover_too_long_for_a_sort_key_reads_the_record() -> None:
    task = {"id": 'a#"\\é~[', "parentId": None, "columnId": "c#1", "spaceId": "s]1", "timezone": 'Odd"#Zone',
            "due": {"type": "date", "date": "9999-12-31"}, "updatedAt": "2026-10-01T00:00:00.000000Z",
            "done": True, "priority": "urgent", "deletedAt": None, "title": "t"}  # fmt: skip
    stored = keys.due_keys_of("u1", task)
    assert stored["gsi1sk"].startswith("9999-12-31#[")
    covered = keys.covered_record(task["id"], True, "urgent", stored["gsi1sk"])
    assert covered == {name: task[name] for name in ("id", "done", "priority", *keys.COVERED)}
    undated = keys.due_keys_of("u1", {**task, "due": None})["gsi1sk"]
    assert undated.startswith(keys.UNDATED + "#") and undated > "9999-12-31#~"  # after every date
    long = keys.due_keys_of("u1", {**task, "columnId": "c" * 1010})["gsi1sk"]
    assert long == f"9999-12-31#{keys.NO_COVER}"
    assert keys.covered_record(task["id"], True, "urgent", long) is None
    assert keys.covered_record(task["id"], True, "urgent", f"9999-12-31#{task['id']}") is None  # a version 1 key
    assert len(keys.due_keys_of("u1", {**task, "columnId": "c" * 990})["gsi1sk"].encode()) <= 1024


def _compare_many(call: Call, board: Any, data: st.DataObject, rounds: int = 6) -> int:
    narrowed = 0
    for _ in range(rounds):
        args = data.draw(queries([s["id"] for s in board.spaces]))
        indexed, scanned = _answer(call, args, scan=False), _answer(call, args, scan=True)
        assert indexed == scanned, args
        narrowed += bool(views.narrowed(_query_of(args)))
    return narrowed


def _query_of(args: dict[str, Any]) -> Any:
    from mesq.todos.views.query import TodoQuery, parse_bounds

    after, before = parse_bounds(args.get("dueAfter"), args.get("dueBefore"))
    wanted = args.get("priority")
    return TodoQuery(
        priorities=frozenset(wanted) if wanted else None,
        status=args.get("status", "open"),
        due_after=after,
        due_before=before,
        overdue=args.get("overdue"),
    )


# -- the writes keep the index; a narrowed query reads no snapshot; DynamoDB ---------------------

WRITES = st.lists(
    st.tuples(
        st.sampled_from(["task", "task", "subtask", "move", "delete", "restore", "complete", "inbox", "file",
                         "archive", "space", "drop_column", "duplicate", "batch_move", "reschedule", "reschedule"]),
        st.integers(0, 50),
        st.integers(0, 50),
    ),
    max_size=20,
)  # fmt: skip


def _reschedule(run: Any, a: int, b: int) -> None:
    tasks = run("list_todos", limit=1000)["tasks"]
    if not tasks:
        return
    task = tasks[a % len(tasks)]
    due = None if b % 4 == 0 else {"type": "date", "date": DAYS[b % 15]} if b % 2 else {
        "type": "datetime", "at": f"{DAYS[a % 15]}T{b % 24:02d}:00:00+08:00"}  # fmt: skip
    with contextlib.suppress(MesqError):  # a conflict is part of the game
        run("update_todo_task", id=task["id"], expectedRevision=task["revision"],
            priority=model.PRIORITIES[b % len(model.PRIORITIES)], due=due)  # fmt: skip


def _assert_index_current(items: ItemStore, user_id: str) -> None:
    """Every stored task carries exactly the due-index keys its record implies."""
    prefix = keys.KIND_PREFIX["task"]
    for item in walk(items, user_partition(user_id), start=prefix, end=keys.prefix_range(prefix)[1]):
        current = {name: item[name] for name in ("gsi1pk", "gsi1sk") if name in item}
        assert current == keys.due_keys_of(user_id, keys.record_of(item)), item["id"]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(writes=WRITES, data=st.data())
def test_every_write_keeps_the_index_and_answers_equal_the_scan(services: Services, writes, data) -> None:
    from tests.todos.views.test_views_paged_store import _act

    user_id = "w" + uuid.uuid4().hex[:10]
    run = caller(services, user_id)
    for n in range(4):
        run("create_todo_task", title=f"milk {n}", priority=model.PRIORITIES[n], due={"type": "date", "date": DAYS[n]})
    for action, a, b in writes:
        if action == "reschedule":
            _reschedule(run, a, b)
        else:
            _act(run, action, a, b)
    _assert_index_current(services.items, user_id)
    state = views.load_state(services.items, user_id)
    board = views.board_of(state)
    _compare_many(_call(services, user_id), board, data, rounds=4)


def test_a_narrowed_query_reads_its_candidates_not_the_board(services: Services) -> None:
    reads = Reads(services.items)
    run = caller(replace(services, items=reads), "r1")  # type: ignore[arg-type]
    for n in range(30):
        run("create_todo_task", title=f"t{n}", priority="high" if n % 3 == 0 else "low",
            due={"type": "date", "date": DAYS[n % 15]})  # fmt: skip
    run("query_todos", priority="high")  # the first narrowed query backfills (nothing to rewrite here)
    reads.reset()
    found = run("query_todos", priority="high", dueAfter="2026-10-05T00:00:00+08:00",
                dueBefore="2026-10-08T00:00:00+08:00")  # fmt: skip
    # high: t0, t3, ..., t27; due 2026-10-05..07 (Shanghai days): n % 15 in 4..6 -> t6, t21 (10-07)
    assert sorted(item["title"] for item in found["items"]) == ["t21", "t6"]
    assert not reads.read_a_bulk_range()
    assert set(reads.index_queries) <= {keys.due_partition("r1", False, "high"), keys.inbox_list("r1")}
    # only the page's records were read by key: the index range 10-04..10-08 (one day wider each
    # side than the Shanghai week's UTC dates) holds t3, t6, t18, t21 of the 10 high ones, and
    # their index keys' covers decide the filter and the order.
    task_keys = [key for key in reads.keys if key[1].startswith(keys.KIND_PREFIX["task"])]
    assert len(task_keys) == 2
    week = {"priority": "high", "dueAfter": "2026-10-05T00:00:00+08:00", "dueBefore": "2026-10-08T00:00:00+08:00"}
    for extra, records_read in (({"limit": 1, "orderBy": "due"}, 1), ({"orderBy": "priority"}, 2), ({"query": "t"}, 4)):
        reads.reset()
        found = run("query_todos", **week, **extra)
        assert found["page"]["totalCount"] == 2 and len(found["items"]) == min(extra.get("limit", 25), 2)
        # a text filter reads every candidate's record: no cover holds the title
        assert len([key for key in reads.keys if key[1].startswith(keys.KIND_PREFIX["task"])]) == records_read


@pytest.mark.parametrize("backend", ["moto", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def test_on_dynamodb_the_indexed_answers_equal_the_scan(backend: str, request: pytest.FixtureRequest, tmp_path: Path):
    items: ItemStore = request.getfixturevalue(backend)
    board = _fixed_board()
    _write_board(items, "d1", board, "Asia/Shanghai", indexed=False)
    call = _call(_services(items, tmp_path), "d1")
    cases = [
        {"priority": "high"},
        {
            "priority": ["high", "urgent"],
            "dueAfter": "2026-10-05T00:00:00+08:00",
            "dueBefore": "2026-10-12T00:00:00+08:00",
        },
        {"status": "done"},
        {"overdue": True, "orderBy": "due"},
        {"status": "all", "dueBefore": "2026-10-07T00:00:00Z", "query": "milk"},
        # pages cut from the covers' order: only their records are read
        {"priority": ["high", "urgent", "none"], "status": "all", "orderBy": "priority", "limit": 3},
        {"status": "all", "dueAfter": "2026-10-03T00:00:00Z", "orderBy": "updated", "limit": 2, "offset": 1},
        {"overdue": True, "orderBy": "due", "limit": 1, "offset": 2},
        # days as a Shortcut names them, read in the user's zone (Asia/Shanghai)
        {"status": "all", "dueAfter": "2026-10-05", "dueBefore": "2026-10-07", "orderBy": "due"},
        {"status": "all", "dueBefore": "today", "orderBy": "due"},
    ]
    for args in cases:
        indexed = _answer(call, args, scan=False)
        assert indexed == _answer(call, args, scan=True), args
        if "limit" in args:  # a page cut from a longer answer
            assert 0 < len(indexed["items"]) < indexed["page"]["totalCount"], args
    assert due_index.is_indexed(items, "d1") and due_index.backfill(items, "d1") == 0
    for args in cases:
        assert _answer(call, args, scan=False) == _answer(call, args, scan=True), args


def _fixed_board() -> Any:
    """One space, an open and an archived column, roots (one trashed with a live subtask), dues in
    several zones, an inbox item with a subtask."""
    from mesq.todos.views.traversal import Board

    stamp = "2026-10-01T00:00:00.000000Z"
    space = {"id": "s1", "name": "S", "slug": "s", "position": "a0", "revision": 1, "createdAt": stamp,
             "updatedAt": stamp}  # fmt: skip
    columns = [
        {"id": c, "spaceId": "s1", "name": c, "position": p, "archived": c == "c2", "revision": 1,
         "createdAt": stamp, "updatedAt": stamp}
        for c, p in (("c1", "a0"), ("c2", "a1"))
    ]  # fmt: skip
    tasks = []
    for n in range(24):
        root = n % 6 != 5
        tasks.append({
            "id": f"t{n:02d}", "spaceId": "s1", "columnId": ("c1" if n % 4 else "c2") if root else None,
            "parentId": None if root else f"t{n - 1:02d}", "title": "milk" if n % 2 else "bread", "notes": "",
            "priority": model.PRIORITIES[n % 5], "tags": [], "recurrence": None, "reminders": [],
            "attachments": [], "done": n % 7 == 0, "completedAt": None, "position": f"a{n % 3}",
            "timezone": ZONES[n % len(ZONES)], "revision": 1, "createdAt": stamp,
            "due": None if n % 5 == 0 else {"type": "date", "date": DAYS[n % 15]} if n % 2 else {
                "type": "datetime", "at": f"{DAYS[n % 15]}T{n:02d}:00:00+08:00"},
            "updatedAt": f"2026-10-{n % 28 + 1:02d}T00:00:00.000000Z",
            "deletedAt": stamp if n == 4 else None,
        })  # fmt: skip
    inbox = [{"id": "i1", "title": "milk inbox", "notes": "", "priority": "high", "tags": [], "due": None,
              "timezone": None, "recurrence": None, "reminders": [], "attachments": [], "done": False,
              "completedAt": None, "position": "a0", "revision": 1, "createdAt": stamp, "updatedAt": stamp,
              "deletedAt": None, "subtasks": [{"id": "is1", "title": "sub", "notes": "", "isDone": False,
                                                "position": "a0", "attachments": []}]}]  # fmt: skip
    return Board(spaces=[space], columns=columns, tasks=tasks, inbox_items=inbox)


def test_importing_tasks_written_before_the_index_gives_them_their_keys_and_answers_stay_equal(
    tmp_path: Path,
) -> None:
    from mesq.archive.exporter import export_account
    from mesq.archive.importer import import_account

    old, new = SQLiteItemStore(tmp_path / "old.db"), SQLiteItemStore(tmp_path / "new.db")
    blobs = LocalBlobStore(tmp_path / "blobs")
    board = _fixed_board()
    for task in board.tasks:  # an import checks zones as the writes do: none of these is ever stored
        if task.get("timezone") in ("Not/AZone", 'Odd"#\\~[é]/Zone'):
            task["timezone"] = None
    try:
        _write_board(old, "src", board, None, indexed=False)  # an account from before the index
        export_account(old, blobs, "src", tmp_path / "a.zip", "2026-10-01T00:00:00.000000Z")
        due_index.backfill(new, "dst")  # the receiving account is indexed (empty board)
        assert due_index.is_indexed(new, "dst")
        import_account(new, blobs, "dst", tmp_path / "a.zip")
        assert due_index.is_indexed(new, "dst")  # the import derived every task's index keys
        call = _call(_services(new, tmp_path), "dst")
        for args in ({"priority": "high"}, {"status": "done", "orderBy": "due"}):
            assert _answer(call, args, scan=False) == _answer(call, args, scan=True)
        assert due_index.is_indexed(new, "dst")
        # An archive of an indexed account keeps the marker on import.
        export_account(new, blobs, "dst", tmp_path / "b.zip", "2026-10-02T00:00:00.000000Z")
        import_account(new, blobs, "dst", tmp_path / "b.zip")
        assert due_index.is_indexed(new, "dst")
    finally:
        old.close()
        new.close()


def test_mesq_todos_index_backfills_once_and_reruns_as_a_no_op(tmp_path: Path) -> None:
    from mesq.auth.users import create_user
    from mesq.wiring.services import build_services
    from tests.conftest import run_cli
    from tests.settings import inprocess_settings

    data = tmp_path / "data"
    services = build_services(inprocess_settings(data_dir=data))
    try:
        user = create_user(services.items, "ann", "correct horse battery")
        _write_board(services.items, user["id"], _fixed_board(), None, indexed=False)
    finally:
        services.items.close()
    first = run_cli("todos", "index", "--data-dir", str(data))
    assert first.returncode == 0, first.stderr
    # 24 tasks, one of them trashed (not indexed); undated ones are indexed too (day `~`)
    assert "ann: indexed (23 tasks given their index keys)" in first.stdout, first.stdout
    again = run_cli("todos", "index", "ann", "--data-dir", str(data))
    assert again.returncode == 0 and "ann: already indexed" in again.stdout, again.stdout


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Etc/GMT+12", None])
def test_date_only_dues_at_the_edges_of_the_bounds_are_found(zone: str | None, tmp_path: Path) -> None:
    """A date-only due starts its day up to 14 hours before or 12 after its UTC midnight: the
    index reads one day before the lower bound's UTC date and two past the upper one's."""
    board = _fixed_board()
    board.tasks[:] = [
        {**board.tasks[1], "id": f"e{day}", "title": f"edge {day}", "priority": "high", "timezone": zone,
         "due": {"type": "date", "date": f"2026-10-{day:02d}"}, "deletedAt": None, "columnId": "c1",
         "parentId": None}
        for day in range(3, 15)
    ]  # fmt: skip
    items = SQLiteItemStore(tmp_path / "edges.db")
    try:
        _write_board(items, "x1", board, None)
        call = _call(_services(items, tmp_path), "x1")
        for after, before in (
            ("2026-10-05T00:00:00+14:00", "2026-10-12T00:00:00+14:00"),
            ("2026-10-05T00:00:00-12:00", "2026-10-12T00:00:00-12:00"),
            ("2026-10-05T10:00:00Z", "2026-10-11T11:59:00Z"),
        ):
            args = {"priority": "high", "dueAfter": after, "dueBefore": before, "limit": 200}
            indexed = _answer(call, args, scan=False)
            assert indexed == _answer(call, args, scan=True) and indexed["items"], args
    finally:
        items.close()


def test_a_lazy_backfill_is_bounded_per_request_and_the_snapshot_answers_meanwhile(tmp_path: Path) -> None:
    items = SQLiteItemStore(tmp_path / "lazy.db")
    try:
        _write_board(items, "l1", _fixed_board(), None, indexed=False)  # 23 live tasks without keys
        call = _call(_services(items, tmp_path), "l1")
        args = {"priority": ["high", "low"], "status": "all"}
        expected = _answer(call, args, scan=True)
        # What one request may rewrite, cut from LAZY_REWRITES (1,000) to 10 for this small board.
        bounded = mock.patch.object(views, "ensure_indexed", lambda i, u: due_index.ensure_indexed(i, u, 10))
        rounds = 0
        while not due_index.is_indexed(items, "l1"):
            rounds += 1
            with bounded:
                assert _answer(call, args, scan=False) == expected
            assert rounds < 5
        assert rounds == 3  # 10 + 10 + 3 rewrites, the marker with the last
        assert due_index.backfill(items, "l1") == 0
    finally:
        items.close()
