"""Literal `search_memos` at 10k and 100k memos (SQLite, one user): the query through the literal
index (search/literal.py) against its same-run baseline, the scan over every memo, on one mix of
queries (pieces of random memos, 1-6 characters, Chinese and English, in random case, and a few
common words). Also: the backfill (`literal_store.rebuild`), one write's index update, and the
index's size.

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
        folder = literal_store._folder(user_id)
        stored = len(services.blobs.get(f"{folder}/literal-{pointer['snapshot']}.snap"))
        # One write's index update: the memo's re-read, the overlay's apply and its save.
        update = statistics.median(
            _time_ms(lambda n=n: literal_store.refresh(services, user_id, [f"MEMO#m{n:06d}"])) for n in range(20)
        )
        services.items.close()
    label = f"{count // 1000}k memos"
    i50, i95, s50, s95 = (_p(timings[name], q) for name in ("indexed", "scan") for q in (0.5, 0.95))
    o50, o95, os95 = _p(timings["single"], 0.5), _p(timings["single"], 0.95), _p(timings["single scan"], 0.95)
    from goals import record  # the closing goals table (bench/goals.py)

    record("search_memos p95", count, i95, s95, "the scan's p95")
    arrays = index.codes.nbytes + index.offsets.nbytes + index.postings.nbytes
    return [
        (f"literal search_memos scan p50 / p95 at {label} (SQLite, baseline)", f"{s50:.0f} / {s95:.0f} ms", "1.00x"),
        (
            f"literal search_memos through the index p50 / p95 at {label} ({len(queries)} queries)",
            f"{i50:.1f} / {i95:.1f} ms",
            f"p95 {i95 / s95:.3f}x the scan's",
        ),
        (
            f"literal search_memos, one-character queries, p50 / p95 at {label} ({len(singles)} queries)",
            f"{o50:.1f} / {o95:.1f} ms",
            f"p95 {o95 / os95:.3f}x the scan's ({os95:.0f} ms)",
        ),
        (f"literal index backfill (rebuild) at {label}", f"{backfill / 1000:.1f} s", ""),
        (f"literal index update per write at {label}", f"{update:.1f} ms", ""),
        (
            f"literal index size at {label}",
            f"{index.nbytes() / 2**20:.1f} MiB",
            f"postings {arrays / 2**20:.1f} MiB + folded texts; snapshot blob {stored / 2**20:.1f} MiB",
        ),
    ]


def rows_literal_search() -> list[tuple[str, str, str]]:
    return [row for count in (10_000, 100_000) for row in _rows_at(count)]


if __name__ == "__main__":
    for row in rows_literal_search():
        print(f"{row[0]:<80} {row[1]:>16}  {row[2]}")
