"""Every tool schema as a JS MCP host sees it: compiled by Ajv 8 (Ajv2020 + ajv-formats, the MCP
TypeScript SDK's validator settings) through Node, and every `pattern` in them accepting exactly
the same sample strings under ECMA-262 unicode mode (Ajv) as under Python `re` (jsonschema, which
is what validates MeSQ's arguments).

Ajv and ajv-formats are pinned and installed on first use by infra/node_tools.py."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from starlette.testclient import TestClient

from mesq.auth.scopes import ALL_SCOPES
from mesq.auth.tokens import create_token
from mesq.mcp.service import default_catalog
from mesq.wiring.services import Services

from .conftest import Mcp

REPO_ROOT = Path(__file__).resolve().parents[2]
AJV_CHECK = Path(__file__).with_name("ajv_check.cjs")


def _node_tools() -> ModuleType:
    name = "mesq_infra_node_tools"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "infra" / "node_tools.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def run_ajv(payload: dict[str, Any]) -> dict[str, Any]:
    tools = _node_tools()
    node_modules = tools.ensure_npm_packages()
    result = subprocess.run(
        [tools.node_executable(), str(AJV_CHECK)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NODE_PATH": str(node_modules)},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    output: dict[str, Any] = json.loads(result.stdout)
    return output


def patterns_in(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            elif not key.startswith("x-"):  # x-error-message: {pattern: "<words>"}
                yield from patterns_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from patterns_in(item)


#: Characters on which Python and ECMA-262 disagree (`\s`, `\d`, `\w`, `$`, surrogates), or that
#: the patterns single out (quotes, backslash, CJK punctuation, the tag separator).
TRICKY = [
    " ", "\t", "\n", "\r", "\v", "\f", "\x1c", "\x1f", "\x85", "\xa0", "\u1680", "\u2000", "\u200a",
    "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\x00", "\x7f",
    '"', "'", "\\", "`", "/", "#", "-", "_", ".", "$", "^", "[", "]", "，", "。", "“", "’",
    "٣", "１", "Ａ", "é", "ß", "İ", "K", "ſ", "😀", "\ud800", "\udfff",
]  # fmt: skip
BASES = [
    "", "a", "abc", "Z9_-", "reading", "work/meetings", "工作/会议", "a/b/c", "a//b", "/a", "a/",
    "2026-10-05", "2026-1-5", "#aabbcc", "#AABBCC", "#abc", "my-view", "-x", "x-", "web", "mcp",
    "A1", "0", "x" * 63, "x" * 64,
    "FREQ=WEEKLY;BYDAY=MO,WE,FR", "RRULE:FREQ=DAILY;COUNT=3", "FREQ=HOURLY", "-PT15M", "-P1D", "PT1H",
    "Asia/Shanghai", "Etc/GMT+5", "America/Argentina/Buenos_Aires",
]  # fmt: skip


def samples() -> list[str]:
    """Every base alone, and with each tricky character before, inside and after it."""
    found: dict[str, None] = dict.fromkeys(BASES)
    for base in BASES:
        for char in TRICKY:
            middle = len(base) // 2
            for sample in (char + base, base[:middle] + char + base[middle:], base + char):
                found.setdefault(sample, None)
    return list(found)


@pytest.fixture(scope="module")
def listed_tools(mcp_services: Services, mcp_http: TestClient, shared_user: dict[str, Any]) -> list[dict[str, Any]]:
    """What a host gets from tools/list with every scope (the 2026-07-28 wire)."""
    token, _ = create_token(mcp_services.items, shared_user["id"], name="ajv", scopes=",".join(ALL_SCOPES))
    return Mcp(client=mcp_http, token=token).tools()


@pytest.fixture(scope="module")
def ajv_report(listed_tools: list[dict[str, Any]]) -> dict[str, Any]:
    schemas = [
        {"name": tool["name"], "kind": kind, "schema": tool[kind]}
        for tool in listed_tools
        for kind in ("inputSchema", "outputSchema")
    ]
    # The listed schemas leave the limits to the server (docs/decisions.md, "Listed input
    # schemas"); the patterns it validates arguments with are the operations' own, which a
    # client may still read from openapi.yaml: each must mean the same in both engines.
    operations = [tool.operation.input_schema for tool in default_catalog().tools.values()]
    listed = [[tool["inputSchema"], tool["outputSchema"]] for tool in listed_tools]
    patterns = sorted({p for schema in [*operations, *listed] for p in patterns_in(schema)})
    return {"patterns": patterns, "output": run_ajv({"schemas": schemas, "patterns": {p: samples() for p in patterns}})}


def test_every_tool_schema_compiles_with_ajv(listed_tools: list[dict[str, Any]], ajv_report: dict[str, Any]) -> None:
    assert len(listed_tools) >= 60  # every tool, not an empty list that passes trivially
    failures = [f"{e['name']} {e['kind']} ({e['config']}): {e['error']}" for e in ajv_report["output"]["compileErrors"]]
    assert not failures, "\n".join(failures)


def test_patterns_accept_the_same_strings_in_python_and_ecma(ajv_report: dict[str, Any]) -> None:
    patterns = ajv_report["patterns"]
    assert len(patterns) >= 5  # MemoId, TagName, ContentSource, the todo slugs, dates and colours
    sample_list = samples()
    for pattern in patterns:
        verdict = ajv_report["output"]["patterns"][pattern]
        assert "error" not in verdict, f"{pattern!r} does not compile under the u flag: {verdict['error']}"
        python = Draft202012Validator({"type": "string", "pattern": pattern})
        disagreements = [
            (sample, ecma)
            for sample, ecma in zip(sample_list, verdict["accepts"], strict=True)
            if python.is_valid(sample) != ecma
        ]
        assert not disagreements, f"{pattern!r}: Python and ECMA disagree on {disagreements[:8]!r} (ECMA verdict)"
        # Both sets are populated: a pattern that accepts or rejects everything proves nothing.
        assert any(verdict["accepts"]) and not all(verdict["accepts"]), pattern
