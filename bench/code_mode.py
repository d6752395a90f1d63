"""`make bench`, Code Mode: one worked example of docs/MCP/code-mode.md done both ways through the
MCP function's Lambda handler (SQLite): "every open high-priority todo due this week, with the
memos tagged with its tags" as the many tool calls an agent would make (each result read by the
model) versus one run_code (only its result read). Tokens are o200k_base: out = what the model
writes (tool names + arguments, or the script), in = the tool results it reads."""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from footprint import count_tokens  # bench/footprint.py (this script's directory is on sys.path)

DOC = Path(__file__).resolve().parents[1] / "docs" / "MCP" / "code-mode.md"


def documented_script(number: int) -> str:
    """The script of worked example `number` in docs/MCP/code-mode.md: the page is what is measured."""
    section = DOC.read_text(encoding="utf-8").split(f"\n### {number}. ", 1)[1]
    return section.split("```js\n", 1)[1].split("```", 1)[0]


def _seed(call: Any) -> None:
    today = dt.date.today()
    for i in range(30):
        due = {"type": "date", "date": (today + dt.timedelta(days=1 + i % 10)).isoformat()}
        call("create_todo_task", {"title": f"task {i}", "priority": "high" if i % 3 == 0 else "low",
                                  "tags": [f"p{i % 4}"], "due": due})  # fmt: skip
    for i in range(60):
        call("create_memo", {"content": f"memo {i} about project p{i % 4}\n{'detail ' * 40}#p{i % 4}"})


def rows_code_mode() -> list[tuple[str, str, str]]:
    from run import ENV, _mcp_call_event  # bench/run.py
    from tests.infra.apigw import LambdaContext, decode_body, load_function

    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update({**ENV, "MESQ_STORAGE": "sqlite", "MESQ_DATA_DIR": tmp, "MCP_RATE_LIMIT_PROFILE": "off"})
        services = build_services(Settings.from_env())
        user = create_user(services.items, "coder", "correct horse battery")
        scopes = "memo:read,memo:write,todo:read,todo:write"
        token, _ = create_token(services.items, user["id"], name="c", scopes=scopes)
        auth = {"authorization": f"Bearer {token}"}
        context = LambdaContext()
        mcp_function = load_function("mcp")
        spent = {"in": 0, "out": 0}

        def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            spent["out"] += count_tokens({"name": name, "arguments": arguments})
            result = decode_body(mcp_function.handler(_mcp_call_event(auth, name, arguments), context))["result"]
            spent["in"] += count_tokens(result["content"][0]["text"])
            assert not result.get("isError"), result
            data: dict[str, Any] = result["structuredContent"]["data"]
            return data

        _seed(call)
        spent.update({"in": 0, "out": 0})
        started = time.perf_counter()
        week_end = (dt.datetime.now(dt.UTC) + dt.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        todos: list[dict[str, Any]] = []
        offset, calls = 0, 0
        while True:
            page = call("query_todos", {"status": "open", "priority": "high", "dueBefore": week_end, "offset": offset})
            todos += page["items"]
            calls += 1
            if not page["page"]["hasMore"]:
                break
            offset = page["page"]["nextOffset"]
        for tag in sorted({tag for todo in todos for tag in todo.get("tags", [])}):
            call("list_memos", {"tags": [tag], "limit": 100})
            calls += 1
        many = (time.perf_counter() - started, dict(spent), calls)

        spent.update({"in": 0, "out": 0})
        started = time.perf_counter()
        data = call("run_code", {"code": documented_script(1)})
        one = (time.perf_counter() - started, dict(spent))
        assert len(data["result"]) == len(todos) and "budget" not in data, json.dumps(data)[:300]
        services.items.close()

    label = "Code Mode example 'open high-priority todos due this week + memos of their tags'"
    return [
        (f"{label}: {many[2]} tool calls, tokens in / out", f"{many[1]['in']:,} / {many[1]['out']:,}",
         f"wall {many[0] * 1000:.0f} ms"),
        (f"{label}: one run_code, tokens in / out", f"{one[1]['in']:,} / {one[1]['out']:,}",
         f"wall {one[0] * 1000:.0f} ms; in {one[1]['in'] / max(1, many[1]['in']):.2f}x of the calls'"),
    ]  # fmt: skip


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    for row in rows_code_mode():
        print(" | ".join(row))
