"""Issue 28's goals, and the figures the sections measured for them (no second measurement).

A section that times a goal's figure calls `record` with the figure and the baseline it timed in
the same run; `bench/run.py` prints `goal_rows()` as the closing "Issue 28 goals" table. A goal
whose section did not run (a subset run, `MESQ_BENCH_SECTIONS`) shows "not run"; one measured at a
size other than the goal's (`MESQ_BENCH_SCALE`) does not match it either.

Run alone, a section records into this module just the same; nothing prints the table then."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Goal:
    key: str  # what the section records under: `record(key, size, ...)`
    size: int  # the scale the goal names (memos or tasks)
    title: str
    limit_ms: float | None  # the goal's bound; None: reported, no bound


@dataclass(frozen=True)
class Figure:
    value: float  # ms, or the unit the goal's row names
    baseline: float
    baseline_name: str
    unit: str = "ms"


GOALS = (
    Goal("search_memos p95", 100_000, "literal search_memos p95 at 100k memos", 50),
    Goal("search_memos p95", 10_000, "literal search_memos p95 at 10k memos", 50),
    Goal("query_todos week+high", 50_000, "query_todos this week + high at 50k tasks (median)", 100),
    Goal("query_todos week+high", 5_000, "query_todos this week + high at 5k tasks (median)", 100),
    Goal("list_todos graph page", 50_000, "list_todos graph page at 50k tasks", 500),
    Goal("ai hybrid p95 hostile", 100_000, "AI hybrid search p95 at 100k, hostile 50-word corpus", 50),
    Goal("ai hybrid p95 realistic", 100_000, "AI hybrid search p95 at 100k, realistic corpus", 50),
    Goal("import rec/s memos", 100_000, "mesq import throughput, 100k-memo archive", None),
    Goal("import rec/s tasks", 50_000, "mesq import throughput, 50k-task archive", None),
    Goal("export peak RSS", 100_000, "mesq export peak RSS at 100k memos", None),
)

_figures: dict[tuple[str, int], Figure] = {}


def record(key: str, size: int, value: float, baseline: float, baseline_name: str, unit: str = "ms") -> None:
    """The figure a section measured for `key` at `size`, beside its same-run baseline."""
    _figures[(key, size)] = Figure(value, baseline, baseline_name, unit)


def _number(value: float, unit: str) -> str:
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"


def goal_rows() -> list[tuple[str, str, str, str, str, str]]:
    """(goal, figure, same-run baseline, ratio, bound, met) per goal, in the issue's order."""
    rows = []
    for goal in GOALS:
        figure = _figures.get((goal.key, goal.size))
        bound = f"<= {goal.limit_ms:.0f} ms" if goal.limit_ms is not None else "reported"
        if figure is None:
            rows.append((goal.title, "not run", "", "", bound, "-"))
            continue
        met = "-" if goal.limit_ms is None else ("yes" if figure.value <= goal.limit_ms else "NO")
        baseline = f"{_number(figure.baseline, figure.unit)} ({figure.baseline_name})"
        ratio = f"{figure.value / figure.baseline:.3g}x" if figure.baseline else ""
        rows.append((goal.title, _number(figure.value, figure.unit), baseline, ratio, bound, met))
    return rows


def goal_table() -> str:
    header = ("goal", "figure", "same-run baseline", "ratio", "bound", "met")
    rows = [header, *goal_rows()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(["Issue 28 goals (each figure from its section above, same run)", *lines])
