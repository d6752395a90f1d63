"""The README's "Which MCP URL should I use" figures are measured, not guessed: each row matches
bench/footprint.py's `measure()` (tool count exactly; tokens within 2 %, so a reworded description
does not fail the build but a catalog change that moves the numbers must update the README)."""

from __future__ import annotations

import re

from bench.footprint import README_URLS, count_tokens, measure, measure_many

from tests.conftest import REPO

MARKER = "<!-- footprint:"
ROW = re.compile(r"^\| `(?P<url>/[^`]*)`[^|]*\| (?P<tools>\d+) \| (?P<tokens>[\d,]+) \|$", re.MULTILINE)


def readme_rows() -> dict[str, tuple[int, int]]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index(MARKER) :].split("\n\n", 1)[0]
    return {m["url"]: (int(m["tools"]), int(m["tokens"].replace(",", ""))) for m in ROW.finditer(table)}


def test_readme_figures_match_the_measurement():
    rows = readme_rows()
    assert list(rows) == list(README_URLS)
    results = measure_many(README_URLS)
    measured = {path: (len(result["tools"]), count_tokens(result)) for path, result in results.items()}
    for path, (tools, tokens) in rows.items():
        assert tools == measured[path][0], (path, measured[path])
        assert abs(tokens - measured[path][1]) <= tokens * 0.02, (path, measured[path])


def test_measure_counts_what_the_scopes_and_url_allow():
    memo_only = measure("/mcp", "memo:read")
    everything = measure("/mcp")
    readonly = measure("/mcp/readonly")
    assert 0 < memo_only[0] < readonly[0] < everything[0]
    assert 0 < memo_only[1] < readonly[1] < everything[1]


def test_count_tokens_is_a_real_tokenizer():
    assert count_tokens("hello world") == 2  # o200k_base: "hello", " world"
    assert count_tokens({"a": 1}) == count_tokens('{"a":1}')
