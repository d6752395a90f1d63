"""Code Mode end to end: the official `mcp` client against a real `mesq serve`; `run_code` scripts
that page, loop forever, overspend their calls or their output, poke at the sandbox, and try to
reach data or tools the connection may not (docs/MCP/code-mode.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.conftest import LiveServer, start_server, stop_server

MEMO_RW = "memo:read,memo:write"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # 300 creates and their pages are more calls per minute than the normal profile allows.
    server = start_server(tmp_path_factory.mktemp("code-mode") / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    yield server
    stop_server(server)


@asynccontextmanager
async def connect(
    server: LiveServer, token: str, path: str = "/mcp", headers: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    sent = {"Authorization": f"Bearer {token}", **(headers or {})}
    async with (
        httpx2.AsyncClient(headers=sent, timeout=60) as http,
        Client(streamable_http_client(f"{server.base_url}{path}", http_client=http)) as client,
    ):
        yield client


async def run(client: Client, code: str, **budgets: int) -> dict[str, Any]:
    """run_code through the client (which validates structuredContent against the outputSchema)."""
    result = await client.call_tool("run_code", {"code": code, **budgets})
    assert not result.is_error, result
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    data: dict[str, Any] = result.structured_content["data"]
    return data


def scenario(body: Any) -> None:
    anyio.run(body)


def test_code_toolset_lists_two_tools_and_reaches_every_group(live_server):
    writer = live_server.account("lister", scopes=f"{MEMO_RW},todo:read")

    async def body() -> None:
        async with connect(live_server, writer.token, "/mcp/x/code") as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["run_code", "search_tools"]
            data = await run(client, "return Object.keys(mesq)")
            assert {"create_memo", "list_memos", "query_todos"} <= set(data["result"])
            assert "run_code" not in data["result"] and "search_tools" not in data["result"]
            found = await client.call_tool("search_tools", {"query": "list memos"})
            tools = found.structured_content["data"]["tools"]
            assert tools[0]["name"] == "list_memos"
            assert tools[0]["signature"].startswith("(args: {") and "=> {" in tools[0]["signature"]
        async with connect(live_server, writer.token, headers={"X-MCP-Toolsets": "code"}) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["run_code", "search_tools"]

    scenario(body)


def test_a_script_pages_through_300_memos_and_counts_them_exactly(live_server):
    writer = live_server.account("pager", scopes=MEMO_RW)
    create = "for (let i = 0; i < 150; i++) { const r = await mesq.create_memo({content: `note ${i} #bulk`});" \
             " if (r.error) throw new Error(r.error.code); } return 'done'"  # fmt: skip
    count = """
      const ids = new Set(); let offset = 0, pages = 0;
      for (;;) {
        const page = await mesq.list_memos({offset, limit: 100});
        for (const item of page.data.timelineItems) ids.add(item.id);
        pages++;
        if (!page.data.page.hasMore) break;
        offset = page.data.page.nextOffset;
      }
      return {count: ids.size, pages};
    """

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            for _ in range(2):
                made = await run(client, create, maxCalls=150, timeoutMs=30_000)
                assert made["result"] == "done" and "budget" not in made, made
                # 150 calls alike: one line (RunLog folds them), that says they were writes
                assert len(made["log"]) == 1 and made["log"][0].endswith(" write x150"), made["log"]
                assert made["log"][0].startswith("create_memo ok ")
            counted = await run(client, count, timeoutMs=30_000)
            assert counted["result"] == {"count": 300, "pages": 3}
            assert counted["log"][0].startswith("list_memos ok ") and not counted["log"][0].endswith("write")

    scenario(body)


def test_an_endless_loop_ends_at_the_wall_time_budget(live_server):
    writer = live_server.account("looper", scopes=MEMO_RW)

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            data = await run(client, "checkpoint({step: 1}); await mesq.list_tags({}); for (;;) {}", timeoutMs=1000)
            assert data["budget"]["kind"] == "time" and data["budget"]["limit"] == 1000
            assert 1000 <= data["budget"]["used"] < 5000
            assert data["result"] == {"step": 1}  # what was complete
            # A checkpoint just before a CPU loop, with no await between them, is kept too.
            cpu = await run(client, "checkpoint({step: 2}); for (;;) {}", timeoutMs=1000)
            assert cpu["budget"]["kind"] == "time" and cpu["result"] == {"step": 2}
            assert [line.split(" ")[:2] for line in data["log"]] == [["list_tags", "ok"]]
            assert "thrown" not in data
            after = await run(client, "return 1 + 1")  # the server is fine, the next run is fresh
            assert after["result"] == 2 and "budget" not in after

    scenario(body)


def test_the_51st_call_is_refused_by_the_call_budget(live_server):
    writer = live_server.account("spender", scopes=MEMO_RW)
    code = """
      let ok = 0;
      for (let i = 0; i < 60; i++) {
        try { await mesq.list_tags({}); ok++; }
        catch (e) { return {ok, refused: `${e.name}: ${e.message}`}; }
      }
      return {ok};
    """

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            data = await run(client, code)
            assert data["result"]["ok"] == 50
            assert data["result"]["refused"].startswith("BudgetExceeded: call budget of 50 calls per run reached")
            assert data["budget"] == {"kind": "calls", "used": 50, "limit": 50}
            assert len(data["log"]) == 2 and data["log"][0].endswith(" x50")
            assert data["log"][-1] == "list_tags refused: call budget"
            uncaught = await run(client, "for (;;) await mesq.list_tags({})", maxCalls=3)
            assert uncaught["budget"] == {"kind": "calls", "used": 3, "limit": 3}
            assert uncaught["thrown"].startswith("BudgetExceeded")

    scenario(body)


def test_a_megabyte_result_is_truncated_at_a_whole_element(live_server):
    writer = live_server.account("talker", scopes=MEMO_RW)
    code = "return {rows: Array.from({length: 20000}, (_, i) => ({i, text: 'x'.repeat(40)})), tail: 'end'}"

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            data = await run(client, code)
            assert data["truncated"] is True
            assert data["budget"]["kind"] == "output" and data["budget"]["limit"] == 25_000
            assert data["budget"]["used"] > 1_000_000
            rows = data["result"]["rows"]
            assert 0 < len(rows) < 20000 and "tail" not in data["result"]
            assert rows == [{"i": i, "text": "x" * 40} for i in range(len(rows))]  # whole elements only
            assert len(json.dumps(data["result"], separators=(",", ":"))) <= 25_000

    scenario(body)


def test_the_sandbox_gives_nothing_beyond_mesq(live_server):
    writer = live_server.account("prober", scopes=MEMO_RW)
    code = """
      const out = {
        fetch: typeof fetch, require: typeof require, process: typeof process,
        viaConstructor: globalThis.constructor.constructor('return typeof process')(),
        timers: typeof setTimeout, buffers: typeof ArrayBuffer, wasm: typeof WebAssembly,
      };
      for (const [name, attempt] of Object.entries({
        fetch: () => fetch('http://127.0.0.1/'), require: () => require('fs'),
        process: () => process.env, ctor: () => globalThis.constructor.constructor('return process')(),
        bridge: () => { globalThis.__mesqBridge = null; return globalThis.__mesqBridge === null; },
      })) {
        try { out[name + 'Result'] = String(attempt()); } catch (e) { out[name + 'Result'] = e.name; }
      }
      return out;
    """

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            data = await run(client, code)
            assert data["result"] == {
                "fetch": "undefined", "require": "undefined", "process": "undefined",
                "viaConstructor": "undefined", "timers": "undefined", "buffers": "undefined",
                "wasm": "undefined", "fetchResult": "ReferenceError", "requireResult": "ReferenceError",
                "processResult": "ReferenceError", "ctorResult": "ReferenceError", "bridgeResult": "false",
            }  # fmt: skip
            assert data["log"] == []
            memory = await run(client, "const a = []; for (;;) a.push(new Array(10000).fill(1.5));", memoryMb=16)
            assert memory["budget"] == {"kind": "memory", "used": 16, "limit": 16}
            # After an await too (issue 29): a memory stop, not "awaits a promise that never settles".
            hog = "await mesq.list_tags({}); const a = []; for (;;) a.push(new Array(10000).fill(1.5));"
            awaited = await run(client, hog, memoryMb=16)
            assert awaited["budget"]["kind"] == "memory" and "never settles" not in str(awaited)

    scenario(body)


def test_user_b_cannot_read_user_a_data_from_a_script(live_server):
    alice = live_server.account("alice-code", scopes=MEMO_RW)
    bob = live_server.account("bob-code", scopes=MEMO_RW)

    async def body() -> None:
        async with connect(live_server, alice.token) as client:
            made = await run(client, "return (await mesq.create_memo({content: 'alice secret #private'})).data.memo.id")
            secret_id = made["result"]
        async with connect(live_server, bob.token) as client:
            data = await run(
                client,
                "const l = await mesq.list_memos({});"
                f" const g = await mesq.get_memo({{id: {json.dumps(secret_id)}}}, {{results: true}});"
                " const s = await mesq.search_memos({query: 'secret'});"
                " return {total: l.data.page.totalCount, get: g.error.code, found: s.data.timelineItems.length}",
            )
            assert data["result"] == {"total": 0, "get": "NOT_FOUND", "found": 0}

    scenario(body)


def test_a_read_only_script_cannot_call_a_write_tool(live_server):
    writer = live_server.account("reader-code", scopes=MEMO_RW)
    code = """
      const attempt = await mesq.create_memo({content: 'should not exist'}, {results: true});
      const total = (await mesq.list_memos({})).data.page.totalCount;
      return {writes: Object.keys(mesq).filter((name) => /^(create|update|delete|restore|rename)_/.test(name)),
              has: 'create_memo' in mesq, error: attempt.error, data: attempt.data ?? null, total};
    """

    async def body() -> None:
        async with connect(live_server, writer.token, "/mcp/readonly") as client:
            with pytest.raises(MCPError) as direct:
                await client.call_tool("create_memo", {"content": "nope"})
            data = await run(client, code)
            assert data["result"]["writes"] == [] and data["result"]["has"] is False
            assert data["result"]["data"] is None and data["result"]["total"] == 0
            expected = {"code": direct.value.error.data["code"], "message": direct.value.error.message}
            assert data["result"]["error"] == expected
            assert data["log"][0].startswith("create_memo FORBIDDEN ")

    scenario(body)


def test_a_hidden_tool_gives_the_error_tools_call_gives(live_server):
    writer = live_server.account("narrow-code", scopes=f"{MEMO_RW},todo:read")

    async def body() -> None:
        for path, headers in (("/mcp/x/code,memo", {}), ("/mcp", {"X-MCP-Exclude-Tools": "query_todos"})):
            async with connect(live_server, writer.token, path, headers) as client:
                with pytest.raises(MCPError) as direct:
                    await client.call_tool("query_todos", {})
                data = await run(
                    client, "return [('query_todos' in mesq), (await mesq.query_todos({}, {results: true})).error]"
                )
                expected = {"code": direct.value.error.data["code"], "message": direct.value.error.message}
                assert data["result"] == [False, expected], path
                unknown = await run(
                    client, "return ['drop_database' in mesq, Object.keys(mesq).includes('drop_database')]"
                )
                assert unknown["result"] == [False, False]

    scenario(body)


def test_a_failed_call_throws_an_error_that_names_the_fix(live_server):
    """Issue 42 §6: a validation error inside a script reaches the model: the thrown text names
    the fix and the code, the log line keeps the message, `{results: true}` gives the envelope,
    and a misspelt tool throws the direct path's did-you-mean."""
    writer = live_server.account("fixer-code", scopes=f"{MEMO_RW},todo:read")

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            direct = await client.call_tool("query_todos", {"priority": "bogus"})
            message = json.loads(direct.content[0].text)["error"]["message"]  # type: ignore[union-attr]
            assert direct.is_error and "priority" in message
            bogus = "mesq.query_todos({priority: 'bogus'}"
            failed = await run(client, f"const r = await {bogus}); return r.data.items.length")
            assert failed["thrown"].startswith("ToolError: query_todos: VALIDATION_ERROR: ")
            assert message in failed["thrown"]  # the fix, word for word as the direct call says it
            assert failed["log"][0].startswith("query_todos VALIDATION_ERROR ") and message[:100] in failed["log"][0]
            caught = await run(
                client,
                f"try {{ await {bogus}); }} catch (e) {{ return [e.name, e.code, e.traceId.length > 0]; }}",
            )
            assert caught["result"] == ["ToolError", "VALIDATION_ERROR", True]
            envelope = await run(client, f"return (await {bogus}, {{results: true}})).error.code")
            assert envelope["result"] == "VALIDATION_ERROR" and "thrown" not in envelope
            with pytest.raises(MCPError) as misspelt:
                await client.call_tool("get_memos", {"id": "x"})
            typo = await run(client, "return await mesq.get_memos({id: 'x'})")
            assert "did you mean 'get_memo'" in misspelt.value.error.message
            assert typo["thrown"].startswith("ToolError: get_memos: NOT_FOUND")
            assert "did you mean 'get_memo'" in typo["thrown"]

    scenario(body)


def doc_example(number: int) -> str:
    """The script of worked example `number` in docs/MCP/code-mode.md (the page is what is tested)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "MCP" / "code-mode.md").read_text(encoding="utf-8")
    section = page.split(f"\n### {number}. ", 1)[1]
    return section.split("```js\n", 1)[1].split("```", 1)[0]


def test_the_documented_tag_rename_runs_across_memos_and_todos(live_server):
    writer = live_server.account("renamer", scopes=f"{MEMO_RW},todo:read,todo:write")
    seed = """
      await mesq.create_memo({content: 'a good read #reading'});
      await mesq.create_todo_tag({name: 'reading'});
      const t = await mesq.create_todo_task({title: 'finish the book', tags: ['reading']});
      return t.data.task.id;
    """
    check = "const t = await mesq.get_todo_task({id: ID}); const m = await mesq.list_tags({});" \
            " return {todo: t.data.task.tags, memo: m.data.tags.map((x) => x.path)}"  # fmt: skip

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            task_id = (await run(client, seed))["result"]
            data = await run(client, doc_example(3))
            assert data["result"]["memos"]["updatedMemos"] == 1, data
            assert data["result"]["todos"]["tag"]["name"] == "books", data
            assert [line.split(" ")[0] for line in data["log"] if line.endswith(" write")] == [
                "rename_memo_tag",
                "update_todo_tag",
            ]
            after = await run(client, check.replace("ID", json.dumps(task_id)))
            assert after["result"] == {"todo": ["books"], "memo": ["books"]}

    scenario(body)


def test_undoing_a_run_that_undid_its_own_write_changes_nothing(live_server):
    """A script that writes, thinks better of it and undoes its write has changed nothing; undoing
    that run must leave things as before the run. It redid the undone write instead: the run's
    own undo (a trash) was undone, so the memo the script had thrown away came back."""
    writer = live_server.account("second-thoughts", scopes=MEMO_RW)
    script = """
      const kept = await mesq.create_memo({content: 'kept by the run'});
      const dropped = await mesq.create_memo({content: 'dropped by the run'});
      await mesq.undo_changes({changeIds: dropped.changeIds});
      return {kept: kept.data.memo.id, dropped: dropped.data.memo.id};
    """

    async def body() -> None:
        async with connect(live_server, writer.token) as client:
            data = await run(client, script)
            ids, run_id = data["result"], data["runId"]
            for dry_run in (True, False):
                answer = await client.call_tool("undo_changes", {"runId": run_id, "dryRun": dry_run})
                assert not answer.is_error, answer
                undone = answer.structured_content["data"]["undone"]  # type: ignore[index]
                assert [entry["record"]["id"] for entry in undone] == [ids["kept"]], (dry_run, undone)
            for memo_id in ids.values():
                got = await client.call_tool("get_memo", {"id": memo_id})
                assert got.structured_content["data"]["memo"]["status"] == "DELETED", got  # type: ignore[index]

    scenario(body)


def test_a_blank_search_tools_query_is_refused_like_an_empty_one(live_server):
    """search_tools refused '' (minLength) but ranked '   ' and answered three unrelated tools
    as if they matched."""
    reader = live_server.account("blank-query", scopes="memo:read")

    async def body() -> None:
        async with connect(live_server, reader.token) as client:
            for query in ("   ", "\n\t "):
                found = await client.call_tool("search_tools", {"query": query})
                assert found.is_error, found
                error = found.structured_content["error"]  # type: ignore[index]
                assert error["code"] == "VALIDATION_ERROR" and error["message"].startswith("query: "), error
            found = await client.call_tool("search_tools", {"query": " list memos "})
            assert not found.is_error, found

    scenario(body)


def test_a_call_whose_arguments_are_not_an_object_says_what_to_pass(live_server):
    """`mesq.list_memos(null)` (or an array, a string, a number): the thrown text names the tool,
    says to pass one object (`{}` for none) and what was passed. Before: "request body must be a
    JSON object", words about an HTTP body a script never sent. No arguments at all stays `{}`."""
    reader = live_server.account("null-arguments", scopes=MEMO_RW)

    async def body() -> None:
        async with connect(live_server, reader.token) as client:
            for passed, got in (("null", "null"), ("[1]", "an array"), ("'x'", "a string"), ("7", "a number")):
                failed = await run(client, f"return await mesq.list_memos({passed})")
                thrown = failed["thrown"]
                assert thrown.startswith("ToolError: list_memos: VALIDATION_ERROR: "), thrown
                assert "mesq.list_memos({})" in thrown and f"got {got}" in thrown, thrown
                assert "request body" not in thrown and "request body" not in failed["log"][0], failed
            none = await run(client, "return (await mesq.list_memos()).data.page.totalCount")
            assert none["result"] == 0 and "thrown" not in none, none

    scenario(body)
