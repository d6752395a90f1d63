"""Todo views and writes on a big board (SQLite) at 5k and 50k tasks, each against one page of
one column read through the index (the query a per-column paged board read makes), beside
the store query the views start with today (one paginated read of the user's whole `TODO#` range);
and that a write does not grow with the board. `query_todos` "this week, high priority" is timed in
turns with the same query through the whole-snapshot path it ran before the due index (its
same-run baseline, `_snapshot_query`) and through the due index as it ran before its sort keys'
covers (`_records_query`: every candidate's record read by key). The board is written with direct batched store
transactions (about 45 records each, with the list sizes the writes keep), never through the
API, so the 50k setup stays bounded.

Run alone (`python bench/todo_views.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _median_ms(fn: Callable[[], Any], runs: int = 5) -> float:
    """Median of `runs` timed calls after one warm-up call; runs=1 is a single call (the 50k
    board, where each whole-board pass is seconds and `make bench` must stay under 10 minutes;
    the 5k board's calls before it warmed the code and SQLite's page cache)."""
    if runs > 1:
        fn()  # warm: the first call pays imports and SQLite's page cache
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def _interleaved_ms(fns: dict[str, Callable[[], Any]], rounds: int = 9) -> dict[str, float]:
    """Median of each function over `rounds` rounds that call every function once in turn (after
    one warm-up round), so a burst of load on the shared machine hits them alike."""
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for round_number in range(rounds + 1):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            if round_number:
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000 for name, values in samples.items()}


def _seed(services: Any, user_id: str, tasks: int) -> None:
    """`tasks` root tasks over 4 columns (a fifth of them with 2 subtasks), 50 inbox items."""
    from mesq.kernel.timestamps import now_timestamp
    from mesq.todos import keys as todo_keys
    from mesq.todos import list_sizes, model
    from mesq.todos import writes as todo_writes

    state = todo_writes.ensure_default_space(services.items, user_id)
    space = state.default_space()
    assert space is not None
    column_ids = [c["id"] for c in state.columns_of(space["id"])]
    now = now_timestamp()
    ops: list[Any] = []
    positions = model.positions_between(None, None, tasks)

    # The list sizes the writes keep (todos/list_sizes.py), derived from each batch as
    # `writes.apply` derives them; the inbox is sized (empty) first.
    list_sizes.board_sizes(services.items, user_id, [todo_keys.inbox_list(user_id)])

    def flush(force: bool = False) -> None:
        if ops and (force or len(ops) >= 45):
            sizes = list_sizes.size_ops(user_id, lambda _kind, _ident: None, ops, {})
            services.items.transact([*ops, *sizes])
            ops.clear()

    for index in range(tasks):
        root = {
            **model.new_task_fields(
                {
                    "title": f"task {index} about topic {index % 97}",
                    "notes": "n" * 200,
                    "priority": model.PRIORITIES[index % 5],
                    "tags": [f"t{index % 7}"],
                    "due": {"type": "date", "date": f"2026-10-{index % 28 + 1:02d}"},
                },
                now,
            ),
            "id": f"t{index:06d}",
            "spaceId": space["id"],
            "columnId": column_ids[index % len(column_ids)],
            "parentId": None,
            "position": positions[index],
        }
        ops.append(todo_writes.put_new(user_id, "task", root))
        if index % 5 == 0:
            for sub in range(2):
                child = {
                    **root,
                    "id": f"{root['id']}s{sub}",
                    "columnId": None,
                    "parentId": root["id"],
                    "title": f"sub {sub}",
                    "position": model.position_between(None, None),
                }
                ops.append(todo_writes.put_new(user_id, "task", child))
        flush()
    for index in range(50):
        item = {
            **model.new_task_fields({"title": f"inbox {index}"}, now),
            "id": f"i{index:04d}",
            "position": positions[index],
            "subtasks": [],
        }
        ops.append(todo_writes.put_new(user_id, "inbox", item))
        flush()
    flush(force=True)


def _snapshot_query(call: Any, args: dict[str, Any]) -> Any:
    """query_todos as it ran before the due index: the same operation reading the whole snapshot."""
    from unittest import mock

    from mesq.todos.views import operations as views

    with mock.patch.object(views, "narrowed", return_value=False):
        return views.query_todos_operation(call, args)


def _records_query(call: Any, args: dict[str, Any]) -> Any:
    """query_todos through the due index as it ran before the sort keys' covers: every candidate's
    record read by key (`indexed_query(..., read_records=True)`, what a tags or text filter does)."""
    from functools import partial
    from unittest import mock

    from mesq.todos.views import indexed
    from mesq.todos.views import operations as views

    with mock.patch.object(views, "indexed_query", partial(indexed.indexed_query, read_records=True)):
        return views.query_todos_operation(call, args)


def _snapshot_graph(call: Any, args: dict[str, Any]) -> Any:
    """The graph page as it ran before the graph counts: the whole snapshot, then the pure view."""
    from mesq.todos.views.listing import ListOptions, list_todos
    from mesq.todos.views.operations import board_of
    from mesq.todos.views.traversal import scope_of
    from mesq.todos.writes import ensure_default_space

    state = ensure_default_space(call.services.items, call.principal.user_id)
    options = ListOptions(offset=args.get("offset", 0), projection="graph")
    return list_todos(scope_of(board_of(state)), options)


def _graph_rows(
    call: Any, one_page: Callable[[], Any], count: int, label: str
) -> tuple[list[tuple[str, str, str]], float, float]:
    """The graph page through the graph counts, interleaved with the one-page baseline and the
    snapshot path it replaced (same answers: compared here too). The seed writes no graph counts,
    so the first graph read counts the board once (a board written before the counts): timed
    apart. Returns the rows, the graph page's and the snapshot path's times."""
    from mesq.todos.views import operations as views

    began = time.perf_counter()
    first = views.list_todos_operation(call, {"projection": "graph"})
    counting = (time.perf_counter() - began) * 1000
    deep = {"projection": "graph", "offset": count // 16}
    assert first == _snapshot_graph(call, {"projection": "graph"})
    assert views.list_todos_operation(call, deep) == _snapshot_graph(call, deep)
    times = _interleaved_ms(
        {
            "one_page": one_page,
            "graph": lambda: views.list_todos_operation(call, {"projection": "graph"}),
            "deep": lambda: views.list_todos_operation(call, deep),
            "snapshot": lambda: _snapshot_graph(call, {"projection": "graph"}),
        },
        rounds=5 if count <= 5_000 else 3,
    )
    base, snapshot = times["one_page"], times["snapshot"]
    rows = [
        (f"one-page store query at {label} (SQLite, baseline of the graph rows)", f"{base:.1f} ms", "1.00x"),
        (f"list_todos graph page, snapshot path at {label} (SQLite, same run)", f"{snapshot:.1f} ms",
         f"{snapshot / base:.2f}x one page"),
        (f"list_todos graph page, graph counts at {label} (SQLite)", f"{times['graph']:.1f} ms",
         f"{times['graph'] / snapshot:.3f}x snapshot, {times['graph'] / base:.2f}x one page"),
        (f"list_todos graph page at offset {count // 16}, graph counts at {label} (SQLite)",
         f"{times['deep']:.1f} ms", f"{times['deep'] / snapshot:.3f}x snapshot, {times['deep'] / base:.2f}x one page"),
        (f"graph counts of a board written without them, first graph read at {label}", f"{counting:.0f} ms", ""),
    ]  # fmt: skip
    return rows, times["graph"], snapshot


def rows_graph_page() -> list[tuple[str, str, str]]:
    """Only the graph rows (`python bench/todo_views.py graph`), on boards of their own."""
    from mesq.auth.users import create_user
    from mesq.kernel.context import Call, Principal
    from mesq.todos import keys as todo_keys
    from mesq.todos import state as todo_state
    from mesq.todos.views.listing import DEFAULT_LIMIT
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    rows = []
    for count in (5_000, 50_000):
        with tempfile.TemporaryDirectory() as tmp:
            services = build_services(Settings(data_dir=Path(tmp)))
            user = create_user(services.items, "planner", "correct horse battery")
            _seed(services, user["id"], count)
            partial = todo_state.load_partial(services.items, user["id"])
            column_id = partial.columns_of(partial.default_space()["id"])[0]["id"]  # type: ignore[index]
            partition = todo_keys.column_list(user["id"], column_id)
            call = Call(Principal(user["id"], frozenset({"todo:read", "todo:write"}), "bench", "pat"), services,
                        "bench", "api")  # fmt: skip
            rows += _graph_rows(
                call,
                lambda items=services.items, p=partition: items.query(p, index=todo_keys.INDEX, limit=DEFAULT_LIMIT),
                count,
                f"{count} tasks",
            )[0]
            services.items.close()
    return rows


def rows_todo_views() -> list[tuple[str, str, str]]:
    from mesq.auth.users import create_user
    from mesq.kernel.context import Call, Principal
    from mesq.kernel.keys import user_partition
    from mesq.todos import due_index
    from mesq.todos import keys as todo_keys
    from mesq.todos import state as todo_state
    from mesq.todos.board.operation_table import OPERATIONS as BOARD_OPERATIONS
    from mesq.todos.views import operations as views
    from mesq.todos.views.listing import DEFAULT_LIMIT
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    rows = []
    for count in (5_000, 50_000):
        runs = 5 if count <= 5_000 else 1
        with tempfile.TemporaryDirectory() as tmp:
            services = build_services(Settings(data_dir=Path(tmp)))
            user = create_user(services.items, "planner", "correct horse battery")
            began = time.perf_counter()
            _seed(services, user["id"], count)
            setup = time.perf_counter() - began
            column_id = todo_state.load_partial(services.items, user["id"]).columns_of(
                todo_state.load_partial(services.items, user["id"]).default_space()["id"]  # type: ignore[index]
            )[0]["id"]
            column_partition = f"{user_partition(user['id'])}#TODOCOL#{column_id}"
            scopes = frozenset({"todo:read", "todo:write"})
            call = Call(Principal(user["id"], scopes, "bench", "pat"), services, "bench", "api")
            week = {
                "priority": "high",
                "dueAfter": "2026-10-05T00:00:00+08:00",
                "dueBefore": "2026-10-12T00:00:00+08:00",
            }
            # The page-sized reads, timed in turns with their baseline so both see the same load
            # of the shared machine (and 9 rounds even at 50k: each is milliseconds).
            paged = _interleaved_ms(
                {
                    "one_page": lambda items=services.items, partition=column_partition: items.query(
                        partition, index=todo_keys.INDEX, limit=DEFAULT_LIMIT
                    ),
                    "first": lambda call=call: views.list_todos_operation(call, {}),
                    # A deep page: the offset falls a quarter into the first column (its head is read).
                    "deep": lambda call=call, o=count // 16: views.list_todos_operation(call, {"offset": o}),
                    "detail": lambda call=call: views.get_todo_task_operation(call, {"id": "t000100"}),
                }
            )
            one_page, first, deep, detail = (paged[name] for name in ("one_page", "first", "deep", "detail"))
            load = _median_ms(
                lambda items=services.items, user_id=user["id"]: todo_state.load_state(items, user_id), runs
            )
            graph_rows, graph, graph_snapshot = _graph_rows(
                call,
                lambda items=services.items, partition=column_partition: items.query(
                    partition, index=todo_keys.INDEX, limit=DEFAULT_LIMIT
                ),
                count,
                label := f"{count} tasks",
            )
            # The due index: the seed's Puts carry its keys (keys.stored); the backfill that marks
            # the board indexed then rewrites nothing (one pass over the tasks, once per board).
            began = time.perf_counter()
            due_index.ensure_indexed(services.items, user["id"])
            backfill = (time.perf_counter() - began) * 1000
            # query_todos "this week, high priority" through the index (its keys' covers decide the
            # filter and the order; the page's records are read), in turns with the one-page
            # baseline, the index path before the covers (every candidate's record read) and the
            # snapshot path before the index (the same-run baselines).
            assert views.query_todos_operation(call, week) == _records_query(call, week) == _snapshot_query(call, week)
            week_times = _interleaved_ms(
                {
                    "one_page": lambda items=services.items, partition=column_partition: items.query(
                        partition, index=todo_keys.INDEX, limit=DEFAULT_LIMIT
                    ),
                    "indexed": lambda call=call, week=week: views.query_todos_operation(call, week),
                    "records": lambda call=call, week=week: _records_query(call, week),
                    "snapshot": lambda call=call, week=week: _snapshot_query(call, week),
                },
                rounds=5 if count <= 5_000 else 3,
            )
            query, query_records, query_snapshot = (week_times[n] for n in ("indexed", "records", "snapshot"))
            # The page-sized rows are cheap: the index paths alone, more rounds, with their baseline.
            near = _interleaved_ms(
                {
                    "one_page": lambda items=services.items, partition=column_partition: items.query(
                        partition, index=todo_keys.INDEX, limit=DEFAULT_LIMIT
                    ),
                    "indexed": lambda call=call, week=week: views.query_todos_operation(call, week),
                    "records": lambda call=call, week=week: _records_query(call, week),
                },
                rounds=9,
            )
            text = _median_ms(
                lambda call=call: views.query_todos_operation(call, {"query": "topic 42", "status": "all"}), runs
            )
            # A write reads only what it touches (setup items, the record, a 2-entry sibling list).
            create = _median_ms(
                lambda call=call: BOARD_OPERATIONS["create_todo_task"](call, {"title": "one more", "tags": ["t1"]})
            )
            from goals import record  # the closing goals table (bench/goals.py)

            record("query_todos week+high", count, query, query_snapshot, "snapshot path")
            record("list_todos graph page", count, graph, graph_snapshot, "snapshot path")
            rows.append((f"board setup at {label} (direct batched store writes)", f"{setup:.1f} s", ""))
            rows.append(
                (f"one-page store query (one column, {DEFAULT_LIMIT} via index) at {label} (SQLite, baseline)",
                 f"{one_page:.1f} ms", "1.00x")
            )  # fmt: skip
            rows.append(
                (f"whole-board store query (load_state) at {label} (SQLite)", f"{load:.1f} ms",
                 f"{load / one_page:.2f}x")
            )  # fmt: skip
            rows.append(
                (f"query_todos Shanghai week + high: snapshot path at {label} (SQLite, baseline)",
                 f"{query_snapshot:.1f} ms", "1.00x")
            )  # fmt: skip
            rows.append(
                (f"query_todos Shanghai week + high: due index, records read at {label} (SQLite)",
                 f"{query_records:.1f} ms",
                 f"{query_records / query_snapshot:.3f}x snapshot, "
                 f"{query_records / week_times['one_page']:.2f}x one page")
            )  # fmt: skip
            rows.append(
                (f"query_todos Shanghai week + high: due index covers at {label} (SQLite)", f"{query:.1f} ms",
                 f"{query / query_snapshot:.3f}x snapshot, {query / query_records:.3f}x records read, "
                 f"{query / week_times['one_page']:.2f}x one page")
            )  # fmt: skip
            rows.append(
                (f"  the same two, 9 rounds without the snapshot at {label}: one page {near['one_page']:.1f} ms",
                 f"{near['indexed']:.1f} ms",
                 f"{near['indexed'] / near['records']:.3f}x records read ({near['records']:.1f} ms), "
                 f"{near['indexed'] / near['one_page']:.2f}x one page")
            )  # fmt: skip
            rows.append(
                (f"due index backfill pass at {label} (keys already written: marks the board)",
                 f"{backfill:.0f} ms", "")
            )  # fmt: skip
            for name, value in (
                ("list_todos first page", first),
                (f"list_todos page at offset {count // 16} (a quarter into a column)", deep),
                ("get_todo_task", detail),
                ("query_todos text", text),
                ("create_todo_task (write path)", create),
            ):
                rows.append((f"{name} at {label} (SQLite)", f"{value:.1f} ms", f"{value / one_page:.2f}x one page"))
            rows += graph_rows
            services.items.close()
    return rows


if __name__ == "__main__":
    for row in rows_graph_page() if sys.argv[1:] == ["graph"] else rows_todo_views():
        print(f"{row[0]:<60} {row[1]:>10}  {row[2]}")
