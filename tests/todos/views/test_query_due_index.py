"""query_todos through the due/priority/status index (todos/due_index.py, views/indexed.py) answers
exactly what the whole-snapshot scan answers: on random boards (dues in many zones, trash,
archived columns, trashed parents, done and open records) and random narrowed queries, on
SQLite; on a fixed board on DynamoDB (moto, and DynamoDB Local where it runs). A board written
before the index (tasks without its keys) is backfilled on the first narrowed query and again
by hand, and answers the same each time; a backfill run twice rewrites nothing the second time."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.store.blobs_local import LocalBlobStore
from mesq.kernel.context import Call, Principal
from mesq.kernel.errors import MesqError
from mesq.kernel.keys import user_partition
from mesq.store.paging import walk
from mesq.store.ports import ItemStore, Put
from mesq.store.sqlite import SQLiteItemStore
from mesq.todos import due_index, keys, model
from mesq.todos.views import operations as views
from mesq.wiring.config import Settings
from mesq.wiring.services import Services
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint, moto, moto_env  # noqa: F401
from tests.todos.random_boards import boards

NOW = datetime(2026, 10, 8, 3, 30, tzinfo=UTC)
ZONES = [None, "Asia/Shanghai", "Pacific/Kiritimati", "Etc/GMT+12", "America/New_York", "Not/AZone"]
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
    for record in [*board.tasks, *board.inbox_items]:
        record["due"] = draw(dues())
        record["timezone"] = draw(st.sampled_from(ZONES))
        record["title"] = draw(st.sampled_from(["buy milk", "Milk run", "call mom", "x"]))
    # Some subtasks lose their parent to the trash without being trashed themselves.
    return board, draw(st.sampled_from([None, "Asia/Shanghai", "America/New_York"]))


@st.composite
def queries(draw: st.DrawFn, space_ids: list[str]) -> dict[str, Any]:
    args: dict[str, Any] = {"limit": 200, "status": draw(st.sampled_from(["open", "done", "all"]))}
    if draw(st.booleans()):
        args["priority"] = draw(st.lists(st.sampled_from(model.PRIORITIES), min_size=1, max_size=3, unique=True))
    if draw(st.booleans()):
        args["dueAfter"] = draw(st.sampled_from(["2026-10-05T00:00:00+08:00", "2026-10-03T12:00:00Z", "0001-01-01T00:00:00Z"]))
    if draw(st.booleans()):
        args["dueBefore"] = draw(st.sampled_from(["2026-10-12T00:00:00+08:00", "2026-10-09T00:00:00-04:00", "9999-12-31T00:00:00Z"]))
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
    scopes = frozenset({"todo:read", "todo:write"})
    return Call(Principal(user_id, scopes, "test", "pat"), services, "test", "api")


def _write_board(items: ItemStore, user_id: str, board: Any, zone: str | None, *, indexed: bool = True) -> None:
    """The board's records as the writes store them; `indexed=False`: as a board written before
    the due index (no GSI1 keys on its tasks)."""
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
        puts.append(Put(item))
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
        len(due_index.task_ids(items, user_id, statuses=(done,), priorities=None, days=None))
        for done in (False, True)
    )


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteItemStore]:
    store = SQLiteItemStore(tmp_path / "items.db")
    yield store
    store.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
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


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
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
