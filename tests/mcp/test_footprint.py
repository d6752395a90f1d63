"""The catalog an agent can afford (docs/contract.md §10): every budget of bench/footprint.py
holds, measured with a real tokenizer (o200k_base); the table is printed on every run, so a
regression names the tool that grew. The check itself is shown to fail: one description
inflated in a copy of the spec is reported by connection and by tool."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml
from bench.footprint import (
    BUDGETS,
    DOC,
    DOC_END,
    DOC_START,
    INSTRUCTIONS_BUDGET,
    TOOL_WIRE_BUDGET,
    check_budgets,
    count_tokens,
    doc_rows,
    measure_catalog,
    measure_many,
    report,
    wire_form,
    with_report,
)

import mesq
from mesq.application.invocation import check_registry
from mesq.kernel.spec import read_spec
from mesq.mcp.catalog import build_catalog
from mesq.mcp.service import default_catalog, instructions

PACKAGE = Path(mesq.__file__).parent


def test_every_budget_holds(capsys):
    footprints = measure_catalog(default_catalog())
    with capsys.disabled():
        print("\ntools/list footprint (o200k_base tokens, every scope)\n" + report(footprints))
    assert check_budgets(footprints) == []
    labels = {footprint.connection for footprint in footprints}
    assert {budget.connection for budget in BUDGETS} <= labels  # no budget checks nothing


#: How far a figure of docs/mcp-footprint.md may be from the measurement: the README check's
#: tolerance (a reworded description does not fail the build; a catalog change that moves the
#: numbers must regenerate the page: `python bench/footprint.py --write-doc`).
DOC_TOLERANCE = 0.02


def test_the_footprint_doc_shows_todays_numbers():
    footprints = measure_catalog(default_catalog())
    text = DOC.read_text(encoding="utf-8")
    rows = doc_rows(text)
    assert list(rows) == [footprint.connection for footprint in footprints]
    for footprint in footprints:
        tools, wire, model = rows[footprint.connection]
        regenerate = f"{footprint.connection}: run `python bench/footprint.py --write-doc`"
        assert tools == len(footprint.tools), regenerate
        assert abs(wire - footprint.wire) <= wire * DOC_TOLERANCE, regenerate
        assert abs(model - footprint.model) <= model * DOC_TOLERANCE, regenerate
    # the figures the budget table quotes
    code = next(footprint for footprint in footprints if footprint.connection == "/mcp/x/code")
    quoted = re.search(r"\(today ([\d,]+), wire ([\d,]+)\)", text)
    assert quoted is not None
    assert abs(int(quoted[1].replace(",", "")) - code.model) <= code.model * DOC_TOLERANCE
    assert abs(int(quoted[2].replace(",", "")) - code.wire) <= code.wire * DOC_TOLERANCE
    told = re.search(r"server instructions \| ≤ [\d,]+ \(today ([\d,]+)\)", text)
    measured = count_tokens(instructions(default_catalog()))
    assert told is not None and abs(int(told[1].replace(",", "")) - measured) <= measured * DOC_TOLERANCE


def test_the_doc_check_fails_on_a_stale_table():
    # The page as written by --write-doc is its own report; a table off by 3 % is caught.
    footprints = measure_catalog(default_catalog())
    text = with_report(f"intro\n{DOC_START}\nold\n{DOC_END}\n\nrest", footprints)
    assert text.startswith(f"intro\n{DOC_START}\n{report(footprints)}\n") and text.endswith(f"{DOC_END}\n\nrest")
    everything = next(footprint for footprint in footprints if footprint.connection == "/mcp")
    assert doc_rows(text)["/mcp"] == (len(everything.tools), everything.wire, everything.model)
    stale = text.replace(f"| {everything.wire:,} |", f"| {round(everything.wire * 1.03):,} |")
    assert abs(doc_rows(stale)["/mcp"][1] - everything.wire) > everything.wire * DOC_TOLERANCE


def test_the_budgets_are_the_contracts():
    # docs/contract.md §10: /mcp at most 15,000 model-facing and 40,000 wire tokens, any tool
    # at most 1,000 wire, the instructions at most 400; loosening one is a contract change.
    everything = next(budget for budget in BUDGETS if budget.connection == "/mcp")
    assert (everything.model, everything.wire) == (15_000, 40_000)
    assert TOOL_WIRE_BUDGET == 1_000
    assert INSTRUCTIONS_BUDGET == 400


def test_the_catalog_measure_is_the_served_tools_list():
    # The budgets count the catalog; the served `tools/list` is the same tools (its result adds
    # only the cache-hint fields).
    catalog = default_catalog()
    served = measure_many(["/mcp"])["/mcp"]
    everything = next(f for f in measure_catalog(catalog) if f.connection == "/mcp")
    assert served["tools"] == [wire_form(catalog.tools[cost.name]) for cost in everything.tools]
    # The SDK writes the keys in another order, which moves a token here and there.
    assert abs(count_tokens({"tools": served["tools"]}) - everything.wire) <= everything.wire * 0.005


def test_instructions_are_within_their_budget():
    assert count_tokens(instructions(default_catalog())) <= INSTRUCTIONS_BUDGET


def inflated_catalog(tmp_path: Path, operation_id: str, words: int):
    """The catalog of a copy of the spec files in which one operation's description is
    `words` words longer."""
    copy = tmp_path / "spec"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__", "web", "static"))
    for path in copy.rglob("*.yaml"):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for item in (document or {}).get("paths", {}).values():
            for operation in item.values():
                if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                    operation["description"] += " padding" * words
                    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
                    spec = read_spec(copy)
                    check_registry(spec)
                    return build_catalog(spec)
    raise AssertionError(f"no operation {operation_id} in the spec")


def test_an_inflated_description_is_reported_by_tool_and_connection(tmp_path):
    # 16,000 words more than today: past every budget get_memo counts in.
    catalog = inflated_catalog(tmp_path, "get_memo", words=16_000)
    problems = check_budgets(measure_catalog(catalog))
    assert any(problem.startswith("tool get_memo (memo): wire ") for problem in problems), problems
    # The memo toolset, the read-only connection and /mcp all carry get_memo: each says so,
    # naming it first among the heaviest tools.
    for connection in ("/mcp/x/memo", "/mcp/readonly", "/mcp"):
        assert any(
            p.startswith(f"{connection}: model-facing") and "heaviest" in p and ": get_memo" in p for p in problems
        ), problems
    assert any(p.startswith("/mcp: wire") for p in problems), problems
    # The untouched catalog of the same copy passes: the failure is the inflation.
    assert check_budgets(measure_catalog(inflated_catalog(tmp_path / "plain", "get_memo", words=0))) == []


def test_a_small_inflation_of_a_heavy_tool_fails_only_its_own_budget(tmp_path):
    # list_todos is the heaviest tool: three hundred words more break the per-tool budget alone.
    catalog = inflated_catalog(tmp_path, "list_todos", words=300)
    problems = check_budgets(measure_catalog(catalog))
    assert problems and all("list_todos" in problem for problem in problems), problems
