"""The size of `tools/list` per toolset, as an agent's context pays for it (characters / 4 of the
JSON-RPC response on the wire). Printed on every run; fails if the average tool grows past the
budget, so a bloated description or schema is noticed when it is written."""

from __future__ import annotations

import json

import pytest

from .conftest import ERAS

ALL_SCOPES = "memo:read,memo:write,todo:read,todo:write,reading:read"
#: Average tokens (chars/4) per tool, checked for every row of both eras. Measured: 1,155 for the
#: 6 read tools (modern era; their list schemas are the largest; +18 for the time-zone pattern and
#: select_memos_for_insight's memoIds-excludes-scope rule), 1,095 for all 11 memo tools; ~58% of
#: it the output schemas. Just above the largest, so any growth is noticed.
BUDGET_PER_TOOL = 1_160


@pytest.mark.parametrize("era", ERAS)
def test_tool_list_size_per_toolset(mcp, capsys, era):
    rows = []
    for label, path in (
        ("memo", "/mcp/x/memo"),
        ("memo (readonly)", "/mcp/x/memo/readonly"),
        ("default", "/mcp/x/default"),
        ("all", "/mcp/x/all"),
    ):
        client = mcp(scopes=ALL_SCOPES, era=era, path=path)
        response = client.post("tools/list")
        assert response.status_code == 200
        tools = response.json()["result"]["tools"]
        characters = len(response.text)
        # What most hosts put in the model's context: everything but the output schemas.
        prompt_side = len(json.dumps([{k: v for k, v in t.items() if k != "outputSchema"} for t in tools]))
        rows.append((label, len(tools), characters, characters // 4, prompt_side // 4))
        if tools:
            assert characters / 4 / len(tools) <= BUDGET_PER_TOOL, (label, characters)
    with capsys.disabled():
        print(f"\ntools/list size ({era} era; tokens ~ characters / 4)")
        for label, count, characters, tokens, prompt_tokens in rows:
            print(
                f"  {label:<16} {count:>3} tools  {characters:>7} chars  ~{tokens:>6} tokens"
                f"  (~{prompt_tokens:>5} without outputSchema)"
            )
