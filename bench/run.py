"""`make bench`: one table of figures, each a ratio against a baseline measured in the same run.

1. cold import of each function's handler module vs a bare Starlette+Mangum handler; the MCP
   function also vs the bare MCP SDK server (lowlevel + streamable manager + Starlette + Mangum)
2. warm REST calls through the Lambda handler (SQLite) vs the bare handler
3. warm MCP tools/call through the MCP function's handler vs an echo tool on the bare SDK
4. DynamoDB API calls per operation (counted at botocore, so every retry and page counts)
5. memo scale points at 1k / 10k / 100k memos for one user (SQLite, written with direct batched
   store transactions): get_memo, list_memos first page, each vs its 1k figure (search_memos: 13)
6. todo views (list_todos, query_todos) at 5k / 50k tasks (SQLite) vs a one-page store query
   (bench/todo_views.py)
7. `mesq serve` under loopback load at concurrency 1 / 8 / 32 beside a raw Starlette+SQLite route,
   RSS across three back-to-back runs, and a 50 MiB relay upload's server peak RSS (bench/load.py)
8. AI search at 1k / 10k / 100k memos: hybrid query p50/p95, index update per write, index size
   (bench/ai_search.py)
9. MCP tools/list footprint per connection (o200k_base tokens: wire and model-facing) and the
   footprint report with the ten heaviest tools (bench/footprint.py)
10. Code Mode: one worked example as many tool calls vs one run_code (tokens in/out, wall time;
   bench/code_mode.py); the `code` toolset's own footprint is a row of 9
11. the cost of recording history: time, DynamoDB calls and write units per write, with and
   without the change records, on DynamoDB Local (bench/history_cost.py)
12. account archive at 100k memos and 50k tasks: `mesq export` time and peak RSS, `mesq import`
   throughput vs the direct batched seed (bench/archive.py)
13. literal search_memos at 10k / 100k memos: p50/p95 through the literal index vs the scan on the
   same queries, the backfill, the update per write, the index's size; search_reading_notes and
   query_todos' `query` at 10k notes / tasks, index vs scan (bench/literal_search.py)
14. imports from other apps at 10k records each (memos database, flomo export, Todoist CSVs):
   records/s vs one create_memo / create_todo_task call per record (bench/imports.py)
15. ready the moment it answers (issue 46, issue 42 §4): import-to-first-AI-search at 20k Markdown
   notes (and after a kill -9 in the import's index build), a search on a missing index, literal
   searches at start at 100k, cold start against commit a527e4b and idle RSS (bench/ready.py)
16. (after the MCP footprint rows) peers: MeSQ beside FastMCP and the bare `mcp` SDK, interleaved in
   one run: cold start, warm calls, server CPU, fresh sessions, throughput, RSS, CPU per create, and
   MeSQ's RSS after 100 writes and 30 AI searches on SQLite (bench/peers.py)
17. memory_dynamodb: the same RSS on DynamoDB Local + S3 over HTTP (bench/peers.py)

After the table: the footprint report, then "Issue 44 peers" (MeSQ / FastMCP per row, with its
bound) and "Goals of issues 28 and 44" (bench/goals.py): each goal's figure as its section measured
it, beside that section's same-run baseline, the ratio, the bound, and whether it is met.

MESQ_BENCH_SECTIONS=todo_views,ai_search runs only the named sections (names as the progress lines
print them; default: every section). MESQ_BENCH_SCALE=0.1 shrinks the archive and AI search
sections' sizes for a quick try (their goals then show "not run").
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BARE_HANDLER = """
from mangum import Mangum
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
async def echo(request):
    return JSONResponse({"ok": True})
handler = Mangum(Starlette(routes=[Route("/echo", echo)]), lifespan="off")
"""

ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "MESQ_STORAGE": "dynamodb",
    "MESQ_TABLE": "mesq-bench",
    "MESQ_BUCKET": "mesq-bench",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "MeSQ",
    "POWERTOOLS_METRICS_DISABLED": "true",  # keep EMF lines out of the table
    "MESQ_SEARCH_INDEX_UPDATES": "stream",  # as template.yaml sets it on every function
}


def median_seconds(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def interleaved_medians(fns: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """The median time of each of `fns`, timed in turns (one call of each per round): on a shared
    machine the load drifts over seconds, and a figure and its baseline timed one after the other
    would see different loads; in turns they see the same."""
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def ensure_bytecode() -> None:
    """Compile MeSQ's modules (and the bench's peer servers) to bytecode before any cold start is
    timed: an installed package has its .pyc (pip compiles at install), but this checkout is an
    editable install and `PYTHONDONTWRITEBYTECODE` may be set, so every child would otherwise
    compile all of `mesq` from source, a cost no installation pays (site-packages are compiled)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    targets = [str(REPO / "layers" / "core" / "mesq"), str(REPO / "functions"), str(REPO / "bench" / "peer_servers")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *targets], check=True, env=env, stdout=subprocess.DEVNULL)


def _import_runner(code: str) -> Callable[[], dict[str, int]]:
    """One cold import in a fresh interpreter under `-X importtime`: {module: its own import µs}."""

    def once() -> dict[str, int]:
        result = subprocess.run([sys.executable, "-X", "importtime", "-c", code], check=True, env={**os.environ, **ENV},
                                cwd=REPO, capture_output=True, text=True)  # fmt: skip
        return import_times(result.stderr)

    return once


def import_times(stderr: str) -> dict[str, int]:
    """`-X importtime`'s lines ("import time: self [us] | cumulative | name") as {name: self µs}."""
    found: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _cumulative, name = line.removeprefix("import time:").split("|", 2)
        found[name.strip()] = found.get(name.strip(), 0) + int(own)
    return found


def function_import_code(name: str) -> str:
    # moto keeps boto3 off the network; the import cost measured is the module's own.
    return (
        "import importlib.util, moto; m = moto.mock_aws(); m.start()\n"
        f"spec = importlib.util.spec_from_file_location('app', '{REPO}/functions/{name}/app.py')\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
    )


def _own_packages(times: dict[str, int], baseline: dict[str, int], top: int = 6) -> str:
    """The heaviest MeSQ packages (self µs summed per `mesq.<package>`) and what else the import
    pulls beyond the baseline's modules."""
    packages: dict[str, int] = {}
    for name, micros in times.items():
        if name.startswith("mesq"):
            key = ".".join(name.split(".")[:2])
        elif name.split(".")[0] in {module.split(".")[0] for module in baseline}:
            continue
        else:
            key = "(libraries) " + name.split(".")[0]
        packages[key] = packages.get(key, 0) + micros
    heaviest = sorted(packages.items(), key=lambda item: -item[1])[:top]
    return ", ".join(f"{name} {micros / 1000:.0f} ms" for name, micros in heaviest)


def rows_cold_imports(runs: int = 7) -> list[tuple[str, str, str]]:
    """Each function's cold import beside both baselines, in turns (one interpreter start of each
    per round; medians over the rounds), every start under `-X importtime`: wall time (the goal's
    figure, `goals.py` "cold import mcp": functions/mcp <= 1.15x the bare SDK + Starlette +
    Mangum) and the summed import time, with the heaviest MeSQ packages of the MCP function."""
    ensure_bytecode()
    moto_start = "import moto; m = moto.mock_aws(); m.start()\n"
    functions = sorted(p.name for p in (REPO / "functions").iterdir() if (p / "app.py").is_file())
    runners = {
        "baseline": _import_runner(moto_start + BARE_HANDLER),
        "sdk": _import_runner(moto_start + BARE_MCP_HANDLER),
    }
    runners.update({name: _import_runner(function_import_code(name)) for name in functions})
    walls: dict[str, list[float]] = {name: [] for name in runners}
    imports: dict[str, list[dict[str, int]]] = {name: [] for name in runners}
    for _ in range(runs):
        for name, once in runners.items():
            began = time.perf_counter()
            imports[name].append(once())
            walls[name].append(time.perf_counter() - began)
    medians = {name: statistics.median(values) for name, values in walls.items()}
    summed = {name: statistics.median(sum(found.values()) for found in runs_) for name, runs_ in imports.items()}
    baseline, sdk_baseline = medians["baseline"], medians["sdk"]
    rows = [
        ("cold import: bare Starlette+Mangum (baseline)", f"{baseline * 1000:.0f} ms", "1.00x"),
        ("cold import: bare MCP SDK server + Starlette+Mangum (MCP baseline)", f"{sdk_baseline * 1000:.0f} ms",
         f"{sdk_baseline / baseline:.2f}x; -X importtime {summed['sdk'] / 1000:.0f} ms"),
    ]  # fmt: skip
    for name in functions:
        seconds = medians[name]
        ratio = f"{seconds / baseline:.2f}x"
        if name == "mcp":
            ratio = f"{seconds / sdk_baseline:.2f}x the bare MCP SDK server ({ratio} bare Starlette)"
        rows.append((f"cold import: functions/{name}", f"{seconds * 1000:.0f} ms",
                     f"{ratio}; -X importtime {summed[name] / 1000:.0f} ms"))  # fmt: skip
    last_mcp, last_sdk = imports["mcp"][-1], imports["sdk"][-1]
    rows.append(("  functions/mcp's import time beyond the SDK baseline's modules (one start)",
                 f"{sum(v for k, v in last_mcp.items() if k not in last_sdk) / 1000:.0f} ms",
                 _own_packages(last_mcp, last_sdk)))  # fmt: skip
    from goals import record

    record("cold import mcp", 1, medians["mcp"] * 1000, sdk_baseline * 1000, "bare SDK + Starlette + Mangum")
    return rows


def _seed_and_cases(api: Any, auth: dict[str, str], context: Any) -> dict[str, Any]:
    from tests.infra.apigw import decode_body, http_api_event

    for i in range(50):
        event = http_api_event("POST", "/api/toolkit/memo", headers=auth, body={"content": f"m{i} #t{i % 5}"})
        api.handler(event, context)
    listed = decode_body(api.handler(http_api_event("GET", "/api/toolkit/memo", headers=auth), context))
    memo_id = listed["data"]["timelineItems"][0]["id"]
    return {
        "get_memo": http_api_event("GET", f"/api/toolkit/memo/{memo_id}", headers=auth),
        "list_memos": http_api_event("GET", "/api/toolkit/memo", headers=auth),
        "list_memos tags=t1": http_api_event("GET", "/api/toolkit/memo", headers=auth, query={"tags": "t1"}),
        "list_tags": http_api_event("GET", "/api/toolkit/memo/tags", headers=auth),
        "create_memo": http_api_event("POST", "/api/toolkit/memo", headers=auth, body={"content": "bench"}),
    }


def _todo_cases(api: Any, auth: dict[str, str], context: Any, tasks: int) -> dict[str, Any]:
    """A board grown to `tasks` root tasks over its three columns (every third with two
    subtasks) through the API, and the todo reads (10-parent pages) and a write on it: their call
    counts must not grow with the board."""
    from tests.infra.apigw import decode_body, http_api_event

    def call(method: str, path: str, **options: Any) -> dict[str, Any]:
        answer: dict[str, Any] = decode_body(
            api.handler(http_api_event(method, path, headers=auth, **options), context)
        )
        return answer["data"]

    columns = [c["id"] for c in call("GET", "/api/toolkit/todo/spaces")["columns"]]
    for i in range(call("GET", "/api/toolkit/todo")["totalCount"], tasks):
        body = {"title": f"task {i}", "priority": "high" if i % 2 else "low", "columnId": columns[i % 3],
                "due": {"type": "date", "date": f"2026-10-{i % 28 + 1:02d}"}}  # fmt: skip
        created = call("POST", "/api/toolkit/todo/tasks", body=body)
        if i % 3 == 0:
            for sub in range(2):
                call("POST", f"/api/toolkit/todo/tasks/{created['task']['id']}/subtasks", body={"title": f"sub {sub}"})
    task_id = call("GET", "/api/toolkit/todo")["tasks"][0]["id"]
    week = {"priority": "high", "dueAfter": "2026-10-05T00:00:00+08:00", "dueBefore": "2026-10-12T00:00:00+08:00"}
    middle = {"offset": str(tasks // 3 - 5), "limit": "10"}  # the page spans the first two columns
    return {
        f"list_todos first page (limit 10), {tasks} tasks": http_api_event(
            "GET", "/api/toolkit/todo", headers=auth, query={"limit": "10"}
        ),
        f"list_todos page across two columns (limit 10), {tasks} tasks": http_api_event(
            "GET", "/api/toolkit/todo", headers=auth, query=middle
        ),
        f"get_todo_task, {tasks} tasks": http_api_event("GET", f"/api/toolkit/todo/tasks/{task_id}", headers=auth),
        f"query_todos week + priority, {tasks} tasks": http_api_event(
            "GET", "/api/toolkit/todo/query", headers=auth, query=week
        ),
        f"create_todo_task, {tasks} tasks": http_api_event(
            "POST", "/api/toolkit/todo/tasks", headers=auth, body={"title": "one more"}
        ),
    }


def _account(settings: Any) -> dict[str, str]:
    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.wiring.services import build_services

    services = build_services(settings)
    if settings.storage == "dynamodb":
        services.items.create_table_if_missing()  # type: ignore[attr-defined]
    user = create_user(services.items, "bench", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="b", scopes="memo:read,memo:write,todo:read,todo:write")
    return {"authorization": f"Bearer {token}"}


def rows_warm_latency() -> list[tuple[str, str, str]]:
    """Warm REST calls through the Lambda handler on SQLite: the code's own cost, no emulator."""
    from tests.infra.apigw import LambdaContext, http_api_event, load_function

    from mesq.wiring.config import Settings

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update({**ENV, "MESQ_STORAGE": "sqlite", "MESQ_DATA_DIR": tmp})
        auth = _account(Settings.from_env())
        context = LambdaContext()
        api = load_function("api")
        namespace: dict[str, Any] = {}
        exec(BARE_HANDLER, namespace)
        echo_event = http_api_event("GET", "/echo")
        echo = namespace["handler"]
        cases = _seed_and_cases(api, auth, context)
        # Each case in turns with the echo, one case after the other (create_memo last: the
        # reads must not see the memos it writes).
        paired = {
            label: interleaved_medians(
                {"echo": lambda: echo(echo_event, context), label: functools.partial(api.handler, event, context)}, 300
            )
            for label, event in cases.items()
        }
        baseline = statistics.median(medians["echo"] for medians in paired.values())
        rows.append(("warm call: bare Starlette+Mangum echo (baseline)", f"{baseline * 1e6:.0f} us", "1.00x"))
        for label, medians in paired.items():
            seconds = medians[label]
            rows.append((f"warm REST {label} via Lambda handler, SQLite", f"{seconds * 1e6:.0f} us",
                         f"{seconds / medians['echo']:.1f}x"))  # fmt: skip
    return rows


BARE_MCP_HANDLER = """
import mcp_types as types
from mangum import Mangum
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.routing import Route

ECHO = types.Tool(name="echo", input_schema={"type": "object"})

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[ECHO])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)

class Endpoint:  # an ASGI app serving each request through a stateless manager, the SDK's simplest form
    async def __call__(self, scope, receive, send):
        manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)
        async with manager.run():
            await manager.handle_request(scope, receive, send)

handler = Mangum(Starlette(routes=[Route("/mcp", Endpoint(), methods=["POST"])]), lifespan="off")
"""

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}


def _mcp_call_event(auth: dict[str, str], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    from tests.infra.apigw import http_api_event

    headers = {
        **auth,
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": META}}  # fmt: skip
    return http_api_event("POST", "/mcp", headers=headers, body=body)


def rows_mcp_warm() -> list[tuple[str, str, str]]:
    """Warm MCP tools/call through the MCP function's Lambda handler (SQLite) vs an echo tool on
    the bare SDK behind the same Starlette+Mangum shape."""
    from tests.infra.apigw import LambdaContext, decode_body, load_function

    from mesq.wiring.config import Settings

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update({**ENV, "MESQ_STORAGE": "sqlite", "MESQ_DATA_DIR": tmp, "MCP_RATE_LIMIT_PROFILE": "off"})
        auth = _account(Settings.from_env())
        context = LambdaContext()
        mcp_function = load_function("mcp")
        namespace: dict[str, Any] = {}
        exec(BARE_MCP_HANDLER, namespace)
        echo = _mcp_call_event({}, "echo", {})
        assert namespace["handler"](echo, context)["statusCode"] == 200
        created = mcp_function.handler(_mcp_call_event(auth, "create_memo", {"content": "bench #b"}), context)
        memo_id = decode_body(created)["result"]["structuredContent"]["data"]["memo"]["id"]
        cases = {
            "get_memo": ("get_memo", {"id": memo_id}),
            "list_memos": ("list_memos", {}),
            "create_memo": ("create_memo", {"content": "bench"}),
        }
        echo_call = functools.partial(namespace["handler"], echo, context)
        paired: dict[str, dict[str, float]] = {}
        answers: dict[str, Any] = {}
        for label, (name, arguments) in cases.items():  # in turns with the echo; create_memo last
            event = _mcp_call_event(auth, name, arguments)
            answers[label] = mcp_function.handler(event, context)
            assert answers[label]["statusCode"] == 200
            call = functools.partial(mcp_function.handler, event, context)
            paired[label] = interleaved_medians({"echo": echo_call, label: call}, 200)
        baseline = statistics.median(medians["echo"] for medians in paired.values())
        rows.append(("warm MCP tools/call: echo on the bare SDK (baseline)", f"{baseline * 1e6:.0f} us", "1.00x"))
        for label, medians in paired.items():
            seconds = medians[label]
            rows.append((f"warm MCP tools/call {label} via Lambda handler, SQLite", f"{seconds * 1e6:.0f} us",
                         f"{seconds / medians['echo']:.1f}x"))  # fmt: skip
            if label == "get_memo":
                rows.append(_output_check_row(decode_body(answers[label]), seconds))
    return rows


def _output_check_row(answer: dict[str, Any], call_seconds: float) -> tuple[str, str, str]:
    """What the server's check of each result against the tool's full envelope schema costs
    (mcp/result.py checked_envelope: `validation.conforms`), as a share of the whole warm call."""
    from mesq.application.validation import conforms
    from mesq.kernel.spec import load_spec
    from mesq.mcp.catalog import build_catalog

    tool = build_catalog(load_spec()).get("get_memo")
    assert tool is not None
    envelope = answer["result"]["structuredContent"]
    assert conforms(tool.result_schema, envelope)
    seconds = median_seconds(lambda: conforms(tool.result_schema, envelope), 300)
    return ("  of which: output check of the get_memo envelope (checked_result)", f"{seconds * 1e6:.0f} us",
            f"{seconds / call_seconds:.0%} of the warm call")  # fmt: skip


def rows_round_trips() -> list[tuple[str, str, str]]:
    """DynamoDB API calls per REST operation, counted at botocore against moto."""
    os.environ.update({**ENV, "MESQ_STORAGE": "dynamodb"})
    import boto3
    import botocore.client
    from moto import mock_aws
    from tests.infra.apigw import LambdaContext, load_function

    from mesq.wiring.config import Settings

    rows: list[tuple[str, str, str]] = []
    calls: list[str] = []
    make_api_call = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation_name: str, params: Any) -> Any:
        if self.meta.service_model.service_name == "dynamodb":
            calls.append(operation_name)
        return make_api_call(self, operation_name, params)

    with mock_aws():
        boto3.client("s3").create_bucket(Bucket="mesq-bench")
        auth = _account(Settings.from_env())
        context = LambdaContext()
        api = load_function("api")
        seeds = [lambda: _seed_and_cases(api, auth, context)]
        seeds += [lambda tasks=tasks: _todo_cases(api, auth, context, tasks) for tasks in (15, 60)]
        try:
            for seed in seeds:
                botocore.client.BaseClient._make_api_call = make_api_call  # type: ignore[method-assign]
                cases = seed()
                botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]
                for label, event in cases.items():
                    api.handler(event, context)  # warm: the PAT's last-used refresh is done
                    calls.clear()
                    api.handler(event, context)
                    rows.append((f"DynamoDB calls: {label}", str(len(calls)), ", ".join(sorted(set(calls)))))
        finally:
            botocore.client.BaseClient._make_api_call = make_api_call  # type: ignore[method-assign]
    return rows


def _seed_memos(items: Any, user_id: str, count: int) -> None:
    from memo_seed import seed_memos

    def fields(i: int, now: str) -> dict[str, Any]:
        return {
            "content": f"note {i} about topic {i % 97} #t{i % 13}", "tags": [f"t{i % 13}"],
            "tagPaths": [f"t{i % 13}"], "status": "NORMAL", "pinned": False,
        }  # fmt: skip

    seed_memos(items, user_id, count, fields)


def rows_memo_scale() -> list[tuple[str, str, str]]:
    from mesq.auth.users import create_user
    from mesq.kernel.context import Call, Principal
    from mesq.memos import reads
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    rows = []
    first: dict[str, float] = {}
    for count in (1_000, 10_000, 100_000):
        with tempfile.TemporaryDirectory() as tmp:
            services = build_services(Settings(data_dir=Path(tmp)))
            user = create_user(services.items, "searcher", "correct horse battery")
            began = time.perf_counter()
            _seed_memos(services.items, user["id"], count)
            setup = time.perf_counter() - began
            principal = Principal(user["id"], frozenset({"memo:read"}), "bench", "pat")
            call = Call(principal, services, "bench", "api")
            memo_id = f"m{count // 2:06d}"
            figures = {
                "get_memo": median_seconds(lambda call=call, i=memo_id: reads.get_memo(call, {"id": i}), 50),
                "list_memos first page": median_seconds(lambda call=call: reads.list_memos(call, {}), 5),
            }
            rows.append((f"memo setup at {count} memos (direct batched store writes)", f"{setup:.1f} s", ""))
            for name, seconds in figures.items():
                first.setdefault(name, seconds)
                note = "1.00x (baseline)" if count == 1_000 else f"{seconds / first[name]:.2f}x its 1k figure"
                rows.append((f"{name} at {count} memos (SQLite)", f"{seconds * 1000:.2f} ms", note))
            services.items.close()
    return rows


def rows_mcp() -> list[tuple[str, str, str]]:
    """tools/list footprint per connection in o200k_base tokens (bench/footprint.py), the ratio
    against the memo toolset; the full report with the ten heaviest tools follows the table."""
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "footprint.py"), "--json"], capture_output=True, text=True, cwd=REPO
    )
    if result.returncode != 0:
        return [("MCP tools/list footprint", "failed", result.stderr.strip()[-200:])]
    sizes: dict[str, dict[str, int]] = json.loads(result.stdout.strip().splitlines()[-1])
    baseline = sizes.get("/mcp/x/memo", {}).get("wire") or 1
    rows = []
    for connection, size in sizes.items():
        rows.append(
            (
                f"MCP tools/list wire tokens: {connection} ({size['tools']} tools)",
                f"{size['wire']:,}",
                f"{size['wire'] / baseline:.2f}x",
            )
        )
        rows.append((f"MCP tools/list model-facing tokens: {connection}", f"{size['model']:,}", ""))
    return rows


def footprint_report() -> str:
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "footprint.py"), "--report"], capture_output=True, text=True, cwd=REPO
    )
    return result.stdout if result.returncode == 0 else result.stderr.strip()[-400:]


LOG_FILE = REPO / "bench-results" / "bench.log"


@contextlib.contextmanager
def logs_to_file(path: Path) -> Iterator[IO[str]]:
    """Send this process's stdout and stderr, and so every child's that inherits them (access logs,
    EMF metric lines, warnings), to `path`; yield a stream on the real stdout for the progress
    lines and the table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    terminal = os.fdopen(os.dup(1), "w", buffering=1)
    saved = (os.dup(1), os.dup(2))
    with path.open("w") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield terminal
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            terminal.close()


def chosen_sections(sections: tuple[Callable[[], Any], ...]) -> tuple[Callable[[], Any], ...]:
    """The sections MESQ_BENCH_SECTIONS names (comma-separated, without `rows_`), in their order;
    every section when it is unset. An unknown name stops the run before anything is measured."""
    wanted = [name.strip() for name in os.environ.get("MESQ_BENCH_SECTIONS", "").split(",") if name.strip()]
    if not wanted:
        return sections
    names = {section.__name__.removeprefix("rows_"): section for section in sections}
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        raise SystemExit(f"MESQ_BENCH_SECTIONS: unknown {', '.join(unknown)}; known: {', '.join(names)}")
    return tuple(section for name, section in names.items() if name in wanted)


def main() -> None:
    started = time.perf_counter()
    rows: list[tuple[str, str, str]] = []
    # the other bench/*.py sections (this script's directory is on sys.path)
    from ai_search import rows_ai_search
    from code_mode import rows_code_mode
    from goals import goal_table, peer_table
    from history_cost import rows_history_cost
    from literal_search import rows_literal_search
    from load import rows_load, rows_upload
    from peers import rows_memory_dynamodb, rows_peers
    from ready import rows_cold_start, rows_import_to_search, rows_literal_at_start
    from todo_views import rows_todo_views

    from archive import rows_archive
    from imports import rows_imports

    sections = chosen_sections((
        rows_cold_imports, rows_warm_latency, rows_mcp_warm, rows_round_trips, rows_memo_scale, rows_todo_views,
        rows_ai_search, rows_load, rows_upload, rows_code_mode, rows_history_cost, rows_archive,
        rows_literal_search, rows_imports, rows_import_to_search, rows_literal_at_start, rows_cold_start, rows_mcp,
        rows_peers, rows_memory_dynamodb,
    ))  # fmt: skip
    with logs_to_file(LOG_FILE) as terminal:
        terminal.write(f"logs of this run: {LOG_FILE.relative_to(REPO)}\n")
        for number, section in enumerate(sections, start=1):
            terminal.write(f"[{number}/{len(sections)}] {section.__name__.removeprefix('rows_')} ...\n")
            section_started = time.perf_counter()
            rows += section()
            terminal.write(f"      done in {time.perf_counter() - section_started:.0f} s\n")
        report = footprint_report() if rows_mcp in sections else ""
    width = max(len(r[0]) for r in rows)
    print(f"\n{'figure'.ljust(width)}  {'value':>10}  ratio / note")
    for name, value, ratio in rows:
        print(f"{name.ljust(width)}  {value:>10}  {ratio}")
    print(report)
    if rows_peers in sections:
        print(f"\n{peer_table()}")
    print(f"\n{goal_table()}")
    print(f"\n(whole run: {time.perf_counter() - started:.0f} s; logs in {LOG_FILE.relative_to(REPO)})")


if __name__ == "__main__":
    main()
