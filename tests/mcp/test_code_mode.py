"""Code Mode pieces without a server: output truncation at whole elements, the search ranking and
signatures over the real catalog, what a connection's scripts reach, and the lazy sandbox import
(the MCP function's cold start never loads V8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bench.footprint import count_tokens
from jsonschema import Draft202012Validator

from mesq.auth.scopes import ALL_SCOPES
from mesq.mcp.code.budgets import LIMITS, Budgets, truncate
from mesq.mcp.code.handlers import MAX_LOG_LINES, RunLog, search
from mesq.mcp.code.search import rank
from mesq.mcp.code.signatures import brief_signature, signature
from mesq.mcp.service import default_catalog
from mesq.mcp.visibility import resolve

REPO = Path(__file__).resolve().parents[2]
CATALOG = default_catalog()
ALL = frozenset(ALL_SCOPES)


def compact(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":")))


def test_truncation_keeps_whole_records_and_descends_into_the_list_that_overflows():
    rows = [{"id": i, "text": "y" * 30} for i in range(1000)]
    cut, truncated = truncate({"page": {"hasMore": True}, "rows": rows, "after": 1}, 2_000)
    assert truncated and compact(cut) <= 2_000
    assert cut["page"] == {"hasMore": True} and "after" not in cut
    assert cut["rows"] == rows[: len(cut["rows"])] and len(cut["rows"]) > 10  # whole elements, in order
    assert truncate([1, 2, 3], 100) == ([1, 2, 3], False)
    assert truncate("z" * 500, 100) == (None, True)  # a string is never cut
    assert truncate([{"big": "x" * 500}, 1], 100) == ([], True)  # nor is a record inside a list


@pytest.mark.parametrize("limit", [2, 3, 17, 64, 500])
def test_truncation_never_exceeds_the_limit(limit):
    value = {"a": [[1, 2, {"b": "c" * 10}], "dd"], "e": {"f": list(range(50))}}
    cut, _ = truncate(value, limit)
    assert compact(cut) <= max(limit, 4)


def test_budget_defaults_and_lambda_time():
    assert Budgets.from_arguments({}, None) == Budgets(50, 10_000, 64, 25_000)
    assert {name: LIMITS[name][2] for name in LIMITS} == {
        "maxCalls": 200, "timeoutMs": 30_000, "memoryMb": 128, "maxOutputChars": 100_000,
    }  # fmt: skip
    assert Budgets.from_arguments({"timeoutMs": 30_000}, lambda: 4_000).timeout_ms == 2_500
    assert Budgets.from_arguments({}, lambda: 500).timeout_ms == 0


def test_search_without_the_model_ranks_literal_then_bm25_over_the_reach():
    visibility = resolve(CATALOG, ALL, readonly_path=False, url_toolsets="code", headers={})
    reach = [CATALOG.tools[name] for name in visibility.code_reach(CATALOG)]
    assert rank(reach, "rename_memo_tag", 3)[0].name == "rename_memo_tag"
    top = [tool.name for tool in rank(reach, "reading notes of a book", 5)[:2]]
    assert {"list_reading_notes", "search_reading_notes"} & set(top), top
    assert rank(reach, "qqqzzz", 5) == []
    readonly = resolve(CATALOG, ALL, readonly_path=True, url_toolsets="code", headers={})
    assert not any(CATALOG.tools[name].is_write for name in readonly.code_reach(CATALOG))


def test_code_alone_reaches_every_group_and_never_itself():
    alone = resolve(CATALOG, ALL, readonly_path=False, url_toolsets="code", headers={})
    assert alone.visible == ("run_code", "search_tools")
    reach = alone.code_reach(CATALOG)
    assert {CATALOG.tools[name].toolset for name in reach} == {
        "memo", "memo_attachments", "todo", "todo_inbox", "todo_attachments", "reading", "search", "history",
    }  # fmt: skip
    assert "run_code" not in reach and "search_tools" not in reach
    with_memo = resolve(CATALOG, ALL, readonly_path=False, url_toolsets="code,memo", headers={})
    assert {CATALOG.tools[name].toolset for name in with_memo.code_reach(CATALOG)} == {"memo"}
    excluded = resolve(
        CATALOG, ALL, readonly_path=False, url_toolsets="code", headers={"x-mcp-exclude-tools": "get_memo"}
    )
    assert "get_memo" not in excluded.code_reach(CATALOG)
    memo_only = resolve(CATALOG, frozenset({"memo:read"}), readonly_path=False, url_toolsets="code", headers={})
    assert {CATALOG.tools[name].toolset for name in memo_only.code_reach(CATALOG)} == {
        "memo", "memo_attachments", "search", "history",
    }  # fmt: skip


def test_signatures_are_typescript_of_the_arguments_and_data():
    tool = CATALOG.tools["get_memo"]
    text, shapes = signature(tool.input_schema, tool.result_schema)  # what search_tools shows
    assert text.startswith("(args: {id: string; ") and "=> {memo: {id: string; content: string; " in text
    listing = CATALOG.tools["list_memos"]
    text, shapes = signature(listing.input_schema, listing.result_schema)  # a shared shape is named once
    assert "timelineItems: Memo[]" in text and "limit?: number" in text
    assert shapes["Memo"].startswith("{id: string; content: string; ")
    run = CATALOG.tools["search_tools"]
    assert signature(run.input_schema, run.result_schema)[0].startswith(
        '(args: {query: string; limit?: number; detail?: "compact" | "full"})'
    )
    # The one-line form: the first level only, enums spelled out, no named shapes.
    update = CATALOG.tools["update_todo_task"]
    brief = brief_signature(update.input_schema, update.result_schema)
    assert brief.startswith("(args: {id: string; expectedRevision: number; title?: string; ")
    assert (
        '"high" | "urgent"' in brief
        and 'due?: {type:"date",date} | {type:"datetime",at} | null' in brief  # the union's forms inline
        and brief.endswith("=> {task: object; subtasks?: object[]}")
    )


#: The four queries of issue 29's Done-when (docs/MCP/code-mode.md gives the figures).
SEARCHES = ("move overdue tasks to tomorrow", "把过期的任务改到明天", "reschedule", "标签改名")
SEARCH_REACH = [tool for tool in CATALOG.tools.values() if tool.toolset != "code"]


def test_search_tools_is_compact_unless_asked_for_the_full_top_3(capsys):
    checked = Draft202012Validator(CATALOG.tools["search_tools"].result_schema)
    compact_total = full_total = everything_total = 0
    for query in SEARCHES:
        compact = search(SEARCH_REACH, query, 5)
        full = search(SEARCH_REACH, query, 5, "full")
        hits = rank(SEARCH_REACH, query, 5)
        assert (
            [hit["name"] for hit in compact["tools"]]
            == [tool.name for tool in hits]
            == [hit["name"] for hit in full["tools"]]
        )
        # compact: one line each, no shared shapes; full: the first three in full, the rest brief
        assert set(compact) == {"tools"} and all("\n" not in hit["signature"] for hit in compact["tools"])
        assert [hit["signature"] for hit in compact["tools"]] == [
            brief_signature(tool.input_schema, tool.result_schema) for tool in hits
        ]
        written = [signature(tool.input_schema, tool.result_schema) for tool in hits]
        assert [hit["signature"] for hit in full["tools"][:3]] == [text for text, _ in written[:3]]
        assert full["tools"][3:] == compact["tools"][3:]
        assert full["types"] == {name: shape for _, shapes in written[:3] for name, shape in shapes.items()}
        for data in (compact, full):
            assert checked.is_valid({"data": data, "traceId": "t"})
        # before: every hit in full, with every shape
        everything = {
            "tools": [{**hit, "signature": text} for hit, (text, _) in zip(compact["tools"], written, strict=True)],
            "types": {name: shape for _, shapes in written for name, shape in shapes.items()},
        }
        compact_total += count_tokens(compact)
        full_total += count_tokens(full)
        everything_total += count_tokens(everything)
    with capsys.disabled():
        totals = f"compact {compact_total}, full {full_total}, all in full {everything_total}"
        print(f"\nsearch_tools, 4 queries (o200k): {totals}")
    assert compact_total < everything_total * 0.5  # measured: 2,076 against 4,926
    assert compact_total < full_total < everything_total


def test_the_mcp_function_cold_import_does_not_load_the_sandbox(tmp_path):
    probe = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('mcp_app', 'functions/mcp/app.py')\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "import mesq.mcp.service as s; s.default_catalog()\n"
        "print(sorted(m for m in sys.modules if m.startswith('py_mini_racer')))\n"
    )
    env = {**os.environ, "MESQ_STORAGE": "sqlite", "MESQ_DATA_DIR": str(tmp_path), "AWS_DEFAULT_REGION": "us-east-1"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_code_tools_are_offered_only_with_a_sandbox_that_enforces_every_budget(monkeypatch):
    from mesq.mcp.code import sandbox

    assert sandbox.available()  # this machine: mini-racer >= 0.14.1
    monkeypatch.setattr(sandbox.importlib.metadata, "version", lambda name: "0.12.4")
    assert not sandbox.available()  # its timeout cannot stop code after an await
    monkeypatch.setattr(sandbox.importlib.util, "find_spec", lambda name: None)
    assert not sandbox.available()


def test_the_run_log_folds_like_calls_and_counts_the_calls_it_leaves_out():
    log = RunLog()
    for ms in (3, 1, 7):
        log.add(f"create_memo ok {ms}ms write")
    log.add("create_memo VALIDATION_ERROR 2ms write: content: must not be empty")
    log.add("create_memo ok 5ms write")  # not next to the first three: a line of its own
    log.add("list_tags refused: call budget")
    log.add("list_tags refused: call budget")
    assert log.lines(10_000) == (
        [
            "create_memo ok 1-7ms write x3",
            "create_memo VALIDATION_ERROR 2ms write: content: must not be empty",
            "create_memo ok 5ms write",
            "list_tags refused: call budget x2",
        ],
        0,
    )
    # Cut to fit: the calls of every line left out are counted.
    assert log.lines(40) == (["create_memo ok 1-7ms write x3"], 4)
    capped = RunLog()
    for index in range(MAX_LOG_LINES + 5):
        capped.add(f"get_memo NOT_FOUND 1ms: memo 'm{index}' not found")
    lines, dropped = capped.lines(10**6)
    assert len(lines) == MAX_LOG_LINES and dropped == 5
