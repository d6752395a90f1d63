"""The goals of issues 28 and 44, and the figures the sections measured for them (no second
measurement).

A section that times a goal's figure calls `record` with the figure and the baseline it timed in
the same run; `bench/run.py` prints `goal_rows()` as the closing "Goals" table; a goal
bounded by a ratio (`Goal.on_ratio`: issue 44's "<= 1.15x the bare SDK") is met by figure /
baseline, the others by the figure itself. The peers section (`bench/peers.py`) records each row
of its table with `record_peers`: MeSQ's figure beside FastMCP's and the bare SDK's from the same
run, and `peer_table()` prints them with MeSQ / FastMCP and the bound on it. A goal
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
    limit: float | None  # the goal's bound (ms, or the ratio when on_ratio); None: reported, no bound
    on_ratio: bool = False  # the bound is on figure / baseline ("<= 1.15x"), not on the figure
    unit: str = "ms"  # the bound's unit when it is on the figure


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
    Goal("ai hybrid p95 hostile, one core", 100_000, "AI hybrid search p95 at 100k, hostile corpus, one CPU", 50),
    Goal("ai hybrid p95 realistic, one core", 100_000, "AI hybrid search p95 at 100k, realistic corpus, one CPU", 50),
    Goal("import rec/s memos", 100_000, "mesq import throughput, 100k-memo archive", None),
    Goal("import rec/s tasks", 50_000, "mesq import throughput, 50k-task archive", None),
    Goal("export peak RSS", 100_000, "mesq export peak RSS at 100k memos", None),
    # issue 44
    Goal("cold import mcp", 1, "cold import of functions/mcp vs the bare SDK + Starlette + Mangum", 1.15, True),
    Goal("history wcu", 1, "write units per write with history vs without (DynamoDB Local)", 1.5, True),
    Goal("rss sqlite", 1, "mesq serve RSS after 100 writes and 30 AI searches, SQLite", 250, unit="MB"),
    Goal("rss dynamodb", 1, "mesq serve RSS after 100 writes and 30 AI searches, DynamoDB Local", 250, unit="MB"),
)

_figures: dict[tuple[str, int], Figure] = {}


def record(key: str, size: int, value: float, baseline: float, baseline_name: str, unit: str = "ms") -> None:
    """The figure a section measured for `key` at `size`, beside its same-run baseline."""
    _figures[(key, size)] = Figure(value, baseline, baseline_name, unit)


def _number(value: float, unit: str) -> str:
    if value >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.1f} {unit}" if value >= 1 else f"{value:.2f} {unit}"  # 0.08 ms, not 0.0 ms


def _bound(goal: Goal) -> str:
    if goal.limit is None:
        return "reported"
    return f"<= {goal.limit:g}x" if goal.on_ratio else f"<= {goal.limit:.0f} {goal.unit}"


def goal_rows() -> list[tuple[str, str, str, str, str, str]]:
    """(goal, figure, same-run baseline, ratio, bound, met) per goal, in the issues' order."""
    rows = []
    for goal in GOALS:
        figure = _figures.get((goal.key, goal.size))
        bound = _bound(goal)
        if figure is None:
            rows.append((goal.title, "not run", "", "", bound, "-"))
            continue
        ratio_value = figure.value / figure.baseline if figure.baseline else None
        measured = ratio_value if goal.on_ratio else figure.value
        met = "-" if goal.limit is None or measured is None else "yes" if measured <= goal.limit else "NO"
        baseline = f"{_number(figure.baseline, figure.unit)} ({figure.baseline_name})"
        ratio = f"{ratio_value:.3g}x" if ratio_value is not None else ""
        rows.append((goal.title, _number(figure.value, figure.unit), baseline, ratio, bound, met))
    return rows


def _table(title: str, header: tuple[str, ...], body: list[tuple[str, ...]]) -> str:
    rows = [header, *body]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join([title, *lines])


def goal_table() -> str:
    header = ("goal", "figure", "same-run baseline", "ratio", "bound", "met")
    return _table("Goals of issues 28 and 44 (each figure from its section above, same run)", header, goal_rows())


# -- issue 44: MeSQ beside FastMCP and the bare SDK (bench/peers.py) ---------------------------


@dataclass(frozen=True)
class PeerGoal:
    key: str
    title: str
    limit: float | None  # the bound on MeSQ / FastMCP; None: reported
    higher_is_better: bool = False  # throughput: MeSQ / FastMCP must be >= limit


@dataclass(frozen=True)
class PeerFigure:
    mesq: float
    fastmcp: float
    sdk: float
    unit: str


PEER_GOALS = (
    PeerGoal("warm p50", "warm get_memo p50, reused connection", 1.1),
    PeerGoal("warm p95", "warm get_memo p95, reused connection", None),
    PeerGoal("cpu per call", "server CPU per get_memo", 1.1),
    PeerGoal("fresh raw", "fresh session per call, raw HTTP (server/discover + tools/call)", None),
    PeerGoal("fresh client", "fresh session per call, official client (discover, list, call, check)", 1.1),
    PeerGoal("fresh client two tools", "the same, MeSQ listing only the peers' two tools (X-MCP-Tools)", None),
    PeerGoal("client parse listing", "of a fresh session: the client parsing the whole tools/list answer", None),
    PeerGoal("client compile schema", "of a fresh session: the client compiling get_memo's output schema", None),
    PeerGoal("rps c1", "throughput, get_memo at concurrency 1", 0.9, True),
    PeerGoal("rps c8", "throughput, get_memo at concurrency 8", 0.9, True),
    PeerGoal("cold start", "cold start to the first successful call (median of 5)", 1.1),
    PeerGoal("rss idle", "RSS idle (after the start's warm-up, settled)", None),
    PeerGoal("rss first write", "RSS after the first write (settled)", None),
    PeerGoal("rss 100 writes", "RSS after 100 writes (settled)", None),
    PeerGoal("cpu per create", "server CPU per create_memo (MeSQ: the request; indexing on the follower)", 3.0),
    PeerGoal("cpu per create all", "server CPU per create_memo with MeSQ's follower (embedding, indexes)", None),
)

_peer_figures: dict[str, PeerFigure] = {}


def record_peers(key: str, mesq: float, fastmcp: float, sdk: float, unit: str) -> None:
    """One row of the peers table: the three servers' figures from the same (interleaved) run."""
    _peer_figures[key] = PeerFigure(mesq, fastmcp, sdk, unit)


def _peer_bound(goal: PeerGoal) -> str:
    if goal.limit is None:
        return "reported"
    return f"{'>=' if goal.higher_is_better else '<='} {goal.limit:g}x"


def peer_rows() -> list[tuple[str, str, str, str, str, str, str, str]]:
    """(row, MeSQ, FastMCP, bare SDK, MeSQ/FastMCP, MeSQ/SDK, bound, met) per row, in the issue's order."""
    rows = []
    for goal in PEER_GOALS:
        figure = _peer_figures.get(goal.key)
        if figure is None:
            rows.append((goal.title, "not run", "", "", "", "", _peer_bound(goal), "-"))
            continue
        ratio = figure.mesq / figure.fastmcp if figure.fastmcp else None
        met = "-"
        if goal.limit is not None and ratio is not None:
            met = "yes" if (ratio >= goal.limit if goal.higher_is_better else ratio <= goal.limit) else "NO"
        rows.append((
            goal.title, _number(figure.mesq, figure.unit), _number(figure.fastmcp, figure.unit),
            _number(figure.sdk, figure.unit), f"{ratio:.2f}x" if ratio is not None else "",
            f"{figure.mesq / figure.sdk:.2f}x" if figure.sdk else "", _peer_bound(goal), met,
        ))  # fmt: skip
    return rows


def peer_table() -> str:
    header = ("row", "MeSQ", "FastMCP", "bare SDK", "MeSQ/FastMCP", "MeSQ/SDK", "bound", "met")
    return _table("Issue 44 peers (MeSQ, FastMCP and the bare SDK interleaved in one run)", header, peer_rows())
