"""Literal `search_memos` at 10k and 100k memos (SQLite, one user): the query through the literal
index (search/literal_index.py) against its same-run baseline, the scan over every memo, on one mix of
queries (pieces of random memos, 1-6 characters, Chinese and English, in random case, and a few
common words). Also: the backfill (`literal_store.rebuild`), one write's index update, and the
index's size. Beside them, at 10k records: `search_reading_notes` (10k notes over 100 books)
and `query_todos` with a `query` text (10k root tasks, a fifth with two subtasks, 50 inbox items)
through their literal indexes (literal.py in each domain) against their scans, on the same kind of
queries.

The memos are written with direct batched store transactions past the in-process follower (as an
import would), then the index is built once: the backfill path.

Run alone (`python bench/literal_search.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

WORDS = (
    "meeting", "project", "review", "notes", "idea", "book", "read", "travel", "plan", "budget", "family",
    "weekend", "coffee", "python", "design", "launch", "release", "bug", "fix", "deploy", "garden", "music",
    "movie", "health", "sleep", "running", "recipe", "dinner", "school", "lesson", "market", "report", "draft",
    "email", "call", "friend", "birthday", "gift", "invoice", "tax", "rent", "flight",
)  # fmt: skip
QUERIES_PER_SIZE = 24


def _han_pool(rng: random.Random) -> list[str]:
    """400 distinct CJK ideographs; drawn with Zipf-like weights so some bigrams are common."""
    return [chr(0x4E00 + code) for code in rng.sample(range(6000), 400)]


def _content(rng: random.Random, han: list[str], weights: list[float]) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(4, 16)):
        if rng.random() < 0.55:
            parts.append("".join(rng.choices(han, weights, k=rng.randint(2, 8))))
        else:
            word = rng.choice(WORDS)
            parts.append(word.capitalize() if rng.random() < 0.2 else word)
    parts.append(f"#t{rng.randint(0, 12)}")
    return " ".join(parts)


def _seed(items: Any, user_id: str, contents: list[str]) -> None:
    from memo_seed import seed_memos

    def fields(i: int, now: str) -> dict[str, Any]:
        tag = contents[i].rsplit("#", 1)[-1]
        return {
            "content": contents[i], "tags": [tag], "tagPaths": [tag],
            "status": "NORMAL" if i % 10 else "ARCHIVED", "pinned": i % 50 == 0,
        }  # fmt: skip

    seed_memos(items, user_id, len(contents), fields)


def _queries(rng: random.Random, contents: list[str], lengths: tuple[int, ...], count: int) -> list[str]:
    picked: list[str] = []
    while len(picked) < count:
        text = rng.choice(contents)
        length = rng.choice(lengths)
        start = rng.randrange(max(1, len(text) - length))
        piece = text[start : start + length]
        if len(piece.strip()) == length:
            picked.append(piece.swapcase() if rng.random() < 0.3 else piece)
    return picked


def _p(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _time_ms(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _rows_at(count: int) -> list[tuple[str, str, str]]:
    from mesq.auth.users import create_user
    from mesq.kernel.context import Call, Principal
    from mesq.memos import reads
    from mesq.search import literal_store
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    rng = random.Random(count)
    han = _han_pool(rng)
    weights = [1 / (rank + 1) for rank in range(len(han))]
    contents = [_content(rng, han, weights) for _ in range(count)]
    # Pieces of random memos, 2-6 characters, some in swapped case, and a few common words; the
    # one-character queries (no bigram: a pass over the folded texts in memory) apart.
    queries = [
        *_queries(rng, contents, (2, 2, 3, 3, 4, 5, 6), QUERIES_PER_SIZE - 4),
        "meeting",
        "Python",
        "review notes",
        "#t7",
    ]
    singles = _queries(rng, contents, (1,), 8)
    with tempfile.TemporaryDirectory() as tmp:
        services = build_services(
            Settings(data_dir=Path(tmp), search_provider="none", search_index_updates="inprocess")
        )
        user_id = create_user(services.items, "searcher", "correct horse battery")["id"]
        _seed(services.items._inner, user_id, contents)  # type: ignore[attr-defined]  # past the follower
        backfill = _time_ms(lambda: literal_store.rebuild(services, user_id))
        call = Call(Principal(user_id, frozenset({"memo:read"}), "bench", "pat"), services, "bench", "api")
        real = reads._literal_matches

        def scan(args: dict[str, Any]) -> Any:
            reads._literal_matches = lambda *_a: None  # type: ignore[assignment]
            try:
                return reads.search_memos(call, args)
            finally:
                reads._literal_matches = real  # type: ignore[assignment]

        timings: dict[str, list[float]] = {"indexed": [], "scan": [], "single": [], "single scan": []}
        reads.search_memos(call, {"query": "warm"})  # loads the index into the process
        for query in [*queries, *singles]:
            indexed_ms, scan_ms = (
                (timings["indexed"], timings["scan"]) if len(query) > 1 else (timings["single"], timings["single scan"])
            )
            args = {"query": query, "status": "ALL"}
            began = time.perf_counter()
            expected = scan(args)
            scan_ms.append((time.perf_counter() - began) * 1000)
            assert reads.search_memos(call, args) == expected, query  # the same answer, or nothing to compare
            indexed_ms.append(min(_time_ms(lambda args=args: reads.search_memos(call, args)) for _ in range(3)))
        loaded = literal_store.repository(services).load(user_id)
        assert loaded is not None
        index, pointer = loaded
        folder = literal_store.folder_of(user_id)
        stored = len(services.blobs.get(f"{folder}/literal-{pointer['snapshot']}.snap"))
        # One write's index update: the memo's re-read, the overlay's apply and its save.
        update = statistics.median(
            _time_ms(lambda n=n: literal_store.refresh(services, user_id, [f"MEMO#m{n:06d}"])) for n in range(20)
        )
        services.items.close()
    label = f"{count // 1000}k memos"
    from goals import record  # the closing goals table (bench/goals.py)

    record("search_memos p95", count, _p(timings["indexed"], 0.95), _p(timings["scan"], 0.95), "the scan's p95")
    arrays = index.codes.nbytes + index.offsets.nbytes + index.postings.nbytes
    return [
        *_ratio_rows("literal search_memos", label, timings, len(queries), len(singles)),
        (f"literal index backfill (rebuild) at {label}", f"{backfill / 1000:.1f} s", ""),
        (f"literal index update per write at {label}", f"{update:.1f} ms", ""),
        (
            f"literal index size at {label}",
            f"{index.nbytes() / 2**20:.1f} MiB",
            f"postings {arrays / 2**20:.1f} MiB + folded texts; snapshot blob {stored / 2**20:.1f} MiB",
        ),
    ]


def _compare(queries: list[str], scan: Callable[[str], Any], indexed: Callable[[str], Any]) -> dict[str, list[float]]:
    """Per query: the scan once, then the indexed answer (checked equal) best of three, in turns."""
    timings: dict[str, list[float]] = {"indexed": [], "scan": [], "single": [], "single scan": []}
    for query in queries:
        indexed_ms, scan_ms = (
            (timings["indexed"], timings["scan"]) if len(query) > 1 else (timings["single"], timings["single scan"])
        )
        began = time.perf_counter()
        expected = scan(query)
        scan_ms.append((time.perf_counter() - began) * 1000)
        assert indexed(query) == expected, query
        indexed_ms.append(min(_time_ms(lambda query=query: indexed(query)) for _ in range(3)))
    return timings


def _ratio_rows(what: str, label: str, timings: dict[str, list[float]], queries: int, singles: int) -> list[Row]:
    i50, i95, s50, s95 = (_p(timings[name], q) for name in ("indexed", "scan") for q in (0.5, 0.95))
    o50, o95, os95 = _p(timings["single"], 0.5), _p(timings["single"], 0.95), _p(timings["single scan"], 0.95)
    return [
        (f"{what} scan p50 / p95 at {label} (SQLite, baseline)", f"{s50:.0f} / {s95:.0f} ms", "1.00x"),
        (
            f"{what} through the index p50 / p95 at {label} ({queries} queries)",
            f"{i50:.1f} / {i95:.1f} ms",
            f"p95 {i95 / s95:.3f}x the scan's",
        ),
        (
            f"{what}, one-character queries, p50 / p95 at {label} ({singles} queries)",
            f"{o50:.1f} / {o95:.1f} ms",
            f"p95 {o95 / os95:.3f}x the scan's ({os95:.0f} ms)",
        ),
    ]


Row = tuple[str, str, str]


def _seed_notes(items: Any, user_id: str, contents: list[str], rng: random.Random) -> None:
    """100 books of notes, merged as a file import merges them (reading/merge.py)."""
    from mesq.reading.merge import apply_snapshot
    from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote

    per_book = len(contents) // 100
    for book in range(100):
        notes = tuple(
            UpstreamNote(
                "highlight" if n % 3 else "note",
                str(n),
                contents[book * per_book + n],
                "2026-10-01T00:00:00.000000Z",
                quoted_text=rng.choice(contents) if n % 3 == 0 else None,
                chapter_title=f"Chapter {n // 10} 第{n // 10}章",
                chapter_index=n // 10,
                position=n,
            )
            for n in range(per_book)
        )
        snapshot = BookSnapshot(UpstreamBook(f"book-{book}", f"Book {book}"), notes)
        apply_snapshot(items, user_id, snapshot, "2026-10-02T00:00:00.000000Z", "import")


def _seed_todos(items: Any, user_id: str, contents: list[str]) -> None:
    """len(contents) root tasks over the default columns (a fifth with 2 subtasks) and 50 inbox
    items, titles and notes from `contents`; batched transactions with the list sizes the writes
    keep (as bench/todo_views.py seeds its board)."""
    from mesq.kernel.timestamps import now_timestamp
    from mesq.todos import keys as todo_keys
    from mesq.todos import list_sizes, model
    from mesq.todos import writes as todo_writes

    state = todo_writes.ensure_default_space(items, user_id)
    space = state.default_space()
    assert space is not None
    column_ids = [c["id"] for c in state.columns_of(space["id"])]
    now = now_timestamp()
    positions = model.positions_between(None, None, len(contents))
    list_sizes.board_sizes(items, user_id, [todo_keys.inbox_list(user_id)])
    ops: list[Any] = []

    def flush(force: bool = False) -> None:
        if ops and (force or len(ops) >= 45):
            items.transact([*ops, *list_sizes.size_ops(user_id, lambda _kind, _ident: None, ops, {})])
            ops.clear()

    for index, text in enumerate(contents):
        fields = model.new_task_fields(
            {"title": text[:60], "notes": text[60:], "priority": model.PRIORITIES[index % 5]}, now
        )
        root = {**fields, "id": f"t{index:06d}", "spaceId": space["id"], "parentId": None,
                "columnId": column_ids[index % len(column_ids)], "position": positions[index]}  # fmt: skip
        ops.append(todo_writes.put_new(user_id, "task", root))
        if index % 5 == 0:
            for sub in range(2):
                child = {**root, "id": f"{root['id']}s{sub}", "columnId": None, "parentId": root["id"],
                         "title": contents[(index * 7 + sub) % len(contents)][:40], "notes": "",
                         "position": model.position_between(None, None)}  # fmt: skip
                ops.append(todo_writes.put_new(user_id, "task", child))
        flush()
    for index in range(50):
        item = {**model.new_task_fields({"title": contents[index][:50]}, now), "id": f"i{index:04d}",
                "position": positions[index], "subtasks": []}  # fmt: skip
        ops.append(todo_writes.put_new(user_id, "inbox", item))
        flush()
    flush(force=True)


def rows_reading_and_todos(count: int = 10_000) -> list[Row]:
    """search_reading_notes and query_todos' `query` at `count` notes / tasks, index vs scan."""
    from unittest import mock

    from mesq.auth.users import create_user
    from mesq.kernel.context import Call, Principal
    from mesq.reading import operations as reading_ops
    from mesq.reading.literal import LITERAL as READING
    from mesq.search import literal_store
    from mesq.todos.literal import LITERAL as TODO
    from mesq.todos.views import operations as todo_views
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    rng = random.Random(count + 1)
    han = _han_pool(rng)
    weights = [1 / (rank + 1) for rank in range(len(han))]
    contents = [_content(rng, han, weights) for _ in range(count)]
    queries = [*_queries(rng, contents, (2, 2, 3, 3, 4, 5, 6), QUERIES_PER_SIZE - 3), "meeting", "Python", "#t7"]
    singles = _queries(rng, contents, (1,), 8)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        services = build_services(
            Settings(data_dir=Path(tmp), search_provider="none", search_index_updates="inprocess")
        )
        user_id = create_user(services.items, "reader", "correct horse battery")["id"]
        inner = services.items._inner  # type: ignore[attr-defined]  # past the follower, as an import
        _seed_notes(inner, user_id, contents, rng)
        _seed_todos(inner, user_id, contents)
        reading_backfill = _time_ms(lambda: literal_store.rebuild(services, user_id, READING))
        todo_backfill = _time_ms(lambda: literal_store.rebuild(services, user_id, TODO))
        scopes = frozenset({"reading:read", "todo:read"})
        call = Call(Principal(user_id, scopes, "bench", "pat"), services, "bench", "api")

        def reading(query: str) -> Any:
            return reading_ops.search_reading_notes(call, {"query": query, "limit": 20})

        def reading_scan(query: str) -> Any:
            with mock.patch.object(reading_ops, "_indexed_hits", return_value=None):
                return reading(query)

        def todos(query: str) -> Any:
            return todo_views.query_todos_operation(call, {"query": query, "status": "all", "limit": 25})

        def todos_scan(query: str) -> Any:
            with mock.patch.object(todo_views, "text_candidates", return_value=None):
                return todos(query)

        reading("warm")  # loads the indexes into the process
        todos("warm")
        every = [*queries, *singles]
        label = f"{count // 1000}k"
        rows += _ratio_rows(
            "search_reading_notes", f"{label} notes", _compare(every, reading_scan, reading), len(queries), len(singles)
        )
        rows.append((f"reading literal index backfill at {label} notes", f"{reading_backfill / 1000:.1f} s", ""))
        rows += _ratio_rows(
            "query_todos query text", f"{label} tasks", _compare(every, todos_scan, todos), len(queries), len(singles)
        )
        rows.append((f"todo literal index backfill at {label} tasks", f"{todo_backfill / 1000:.1f} s", ""))
        services.items.close()
    return rows


def rows_literal_search() -> list[tuple[str, str, str]]:
    return [*(row for count in (10_000, 100_000) for row in _rows_at(count)), *rows_reading_and_todos()]


if __name__ == "__main__":
    for row in rows_reading_and_todos() if sys.argv[1:] == ["--kinds"] else rows_literal_search():
        print(f"{row[0]:<80} {row[1]:>16}  {row[2]}")
