"""The closing goals tables of `make bench` (bench/goals.py) and its section filter
(bench/run.py `chosen_sections`): a goal is met only by a figure at the goal's size within its
bound, an unmeasured goal says so, and MESQ_BENCH_SECTIONS picks sections or stops on a typo."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from bench import goals
from bench.run import chosen_sections


@pytest.fixture(autouse=True)
def empty_registry() -> Iterator[None]:
    saved, saved_peers = dict(goals._figures), dict(goals._peer_figures)
    goals._figures.clear()
    goals._peer_figures.clear()
    yield
    goals._figures.clear()
    goals._figures.update(saved)
    goals._peer_figures.clear()
    goals._peer_figures.update(saved_peers)


def _row(title_start: str) -> tuple[str, ...]:
    return next(row for row in goals.goal_rows() if row[0].startswith(title_start))


def test_each_goal_is_met_or_not_by_its_own_figure_and_shows_its_baseline() -> None:
    goals.record("search_memos p95", 100_000, 76.0, 9_000.0, "the scan's p95")
    goals.record("search_memos p95", 10_000, 8.9, 873.0, "the scan's p95")
    over, within = _row("literal search_memos p95 at 100k"), _row("literal search_memos p95 at 10k")
    assert over[1:] == ("76.0 ms", "9,000 ms (the scan's p95)", "0.00844x", "<= 50 ms", "NO")
    assert within[-1] == "yes"


def test_a_goal_not_measured_or_measured_at_another_size_says_not_run() -> None:
    goals.record("query_todos week+high", 2_500, 10.0, 100.0, "snapshot path")  # a scaled-down run
    assert _row("query_todos this week + high at 5k")[1:] == ("not run", "", "", "<= 100 ms", "-")
    assert len(goals.goal_rows()) == len(goals.GOALS)
    assert "Goals of issues 28 and 44" in goals.goal_table()


def test_reported_rows_carry_their_unit_and_no_verdict() -> None:
    goals.record("export peak RSS", 100_000, 191.0, 29.6, "`mesq user list`", "MiB")
    assert _row("mesq export peak RSS")[1:] == ("191 MiB", "29.6 MiB (`mesq user list`)", "6.45x", "reported", "-")


def test_a_ratio_goal_is_met_by_figure_over_baseline_not_by_the_figure() -> None:
    goals.record("cold import mcp", 1, 700.0, 600.0, "bare SDK + Starlette + Mangum")
    assert _row("cold import of functions/mcp")[3:] == ("1.17x", "<= 1.15x", "NO")
    goals.record("cold import mcp", 1, 660.0, 600.0, "bare SDK + Starlette + Mangum")
    assert _row("cold import of functions/mcp")[3:] == ("1.1x", "<= 1.15x", "yes")
    goals.record("rss sqlite", 1, 240.0, 200.0, "idle", "MB")
    assert _row("mesq serve RSS after 100 writes and 30 AI searches, SQLite")[4:] == ("<= 250 MB", "yes")


def _peer_row(title_start: str) -> tuple[str, ...]:
    return next(row for row in goals.peer_rows() if row[0].startswith(title_start))


def test_peer_rows_compare_mesq_with_fastmcp_each_way_up() -> None:
    goals.record_peers("warm p50", 3.3, 3.0, 2.5, "ms")
    goals.record_peers("rps c8", 80.0, 100.0, 90.0, "rps")
    goals.record_peers("rss idle", 200.0, 80.0, 70.0, "MB")
    assert _peer_row("warm get_memo p50")[1:] == ("3.3 ms", "3.0 ms", "2.5 ms", "1.10x", "1.32x", "<= 1.1x", "yes")
    assert _peer_row("throughput, get_memo at concurrency 8")[4:] == ("0.80x", "0.89x", ">= 0.9x", "NO")
    assert _peer_row("RSS idle")[-2:] == ("reported", "-")
    assert _peer_row("cold start")[1:] == ("not run", "", "", "", "", "<= 1.1x", "-")
    goals.record_peers("client parse listing", 0.66, 0.081, 0.058, "ms")  # below a millisecond: two decimals
    assert _peer_row("of a fresh session: the client parsing")[1:4] == ("0.66 ms", "0.08 ms", "0.06 ms")
    assert len(goals.peer_rows()) == len(goals.PEER_GOALS) and "Issue 44 peers" in goals.peer_table()


def rows_alpha() -> list[tuple[str, str, str]]:
    return []


def rows_beta() -> list[tuple[str, str, str]]:
    return []


def test_sections_default_to_all_and_a_subset_keeps_their_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MESQ_BENCH_SECTIONS", raising=False)
    assert chosen_sections((rows_alpha, rows_beta)) == (rows_alpha, rows_beta)
    monkeypatch.setenv("MESQ_BENCH_SECTIONS", "beta, alpha")
    assert chosen_sections((rows_alpha, rows_beta)) == (rows_alpha, rows_beta)
    monkeypatch.setenv("MESQ_BENCH_SECTIONS", "beta")
    assert chosen_sections((rows_alpha, rows_beta)) == (rows_beta,)
    monkeypatch.setenv("MESQ_BENCH_SECTIONS", "bta")
    with pytest.raises(SystemExit, match="unknown bta; known: alpha, beta"):
        chosen_sections((rows_alpha, rows_beta))
