"""Hostile Code Mode scripts (issues 24 and 38) through the official `mcp` client against a real
`mesq serve`: a fatal V8 out-of-memory, a forged `JSON.stringify` flooding the run log, one user's
runaway loops beside another user, a too-deep result, the per-run share of the minute's tool
calls, sixteen reads near the per-call cap awaited at once, two users' endless scripts beside a
third user, and a worker that escaped V8 (its confinement). The server must keep answering
others quickly and hand its memory back."""

from __future__ import annotations

import contextlib
import ctypes.util
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from mesq.mcp.code.sandbox import ANSWERS_BYTES
from mesq.wiring.config import Settings
from tests.conftest import LiveServer, run_cli, start_server, stop_server
from tests.e2e.test_code_mode import connect
from tests.e2e.test_serve_dynamodb import aws_endpoints  # noqa: F401 - DynamoDB Local and moto's S3
from tests.oauth.browser import PASSWORD, Browser

HUGE_ARRAY = "const a = new Array(2**27); a.fill(0.5); return a.length"
FORGED_STRINGIFY = """
  JSON.stringify = () => '{"calls":[[0,"' + 'x'.repeat(1e6) + '","{}"]],"done":false,"kept":false}';
  for (;;) { try { await mesq.list_memos({}); } catch (e) {} }
"""
RUNAWAY = "for (;;) {}"
PROBE = Path(__file__).with_name("confined_probe.py")
NO_FILTER = "no libseccomp on this platform: the worker runs without its syscall filter (docs/MCP/code-mode.md)"
#: The local embedding model (~475 MB, loaded on the first memo write) is not what is measured here.
SERVER_ENV = {"MCP_RATE_LIMIT_PROFILE": "relaxed", "MESQ_SEARCH_PROVIDER": "none"}
DEEP = "let a = []; let x = a; for (let i = 0; i < 1000; i++) { x.push([]); x = x[0]; } return a"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("hostile-code") / "data", SERVER_ENV)
    yield server
    stop_server(server)


def rss_kb(server: LiveServer, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field}")


async def call(client: Any, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], float, int]:
    """(structuredContent, seconds, answer bytes) of one tools/call."""
    started = time.monotonic()
    result = await client.call_tool(name, arguments)
    seconds = time.monotonic() - started
    text = result.content[0].text
    return json.loads(text), seconds, len(text.encode("utf-8"))


def tree_rss_kb(server: LiveServer) -> int:
    """The resident kB of the server and its children (the sandbox workers)."""
    total = 0
    for pid in [server.process.pid, *children(server)]:
        try:
            pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        total += pages * os.sysconf("SC_PAGE_SIZE") // 1024
    return total


def children(server: LiveServer) -> list[int]:
    pids, parent = [], server.process.pid
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                pids.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
    return pids


def booting(pid: int) -> bool:
    """Whether a sandbox worker has not yet loaded V8: it confines itself right after (worker.py),
    and confinement.confine always sets RLIMIT_FSIZE to 0, whatever else the platform allows."""
    try:
        if b"worker.py" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            return False  # not a sandbox worker
        limits = Path(f"/proc/{pid}/limits").read_text().splitlines()
    except OSError:
        return False  # ended meanwhile
    return not any(line.startswith("Max file size") and line.split()[3] == "0" for line in limits)


async def settled_tree_rss_kb(server: LiveServer) -> int:
    """`tree_rss_kb` once every worker has booted and two readings 0.2 s apart agree within 1 MB.
    Before, the readings' agreement alone stood for "a spare worker has booted": on a loaded
    machine a spare can stall mid-boot for longer than 0.2 s, and the reading then lacked a
    whole worker (~50 MB)."""
    last = tree_rss_kb(server)
    for _ in range(100):
        await anyio.sleep(0.2)
        now = tree_rss_kb(server)
        if abs(now - last) < 1024 and not any(booting(pid) for pid in children(server)):
            return now
        last = now
    raise AssertionError(f"the server's workers did not settle in 20 s: {tree_rss_kb(server)} kB")


def memo_of(server: LiveServer, token: str) -> str:
    made = httpx.post(
        f"{server.base_url}/api/toolkit/memo", json={"content": "kept #safe"},
        headers={"Authorization": f"Bearer {token}"}, timeout=10,
    )  # fmt: skip
    assert made.status_code in (200, 201), made.text
    return str(made.json()["data"]["memo"]["id"])


def test_a_fatal_out_of_memory_ends_only_its_sandbox_and_memory_comes_back(live_server):
    reader = live_server.account("oom-reader", scopes="memo:read")
    other = live_server.account("oom-bystander", scopes="memo:read,memo:write")
    memo_id = memo_of(live_server, other.token)
    slowest: list[float] = []
    reports: list[dict[str, Any]] = []

    async def body() -> tuple[int, int]:
        async with connect(live_server, reader.token) as hostile, connect(live_server, other.token) as bystander:
            await call(hostile, "run_code", {"code": "return 1"})  # the pool and its modules are loaded
            before = rss_kb(live_server)

            async def probe_until(done: anyio.Event) -> None:
                while not done.is_set():
                    answer, seconds, _ = await call(bystander, "get_memo", {"id": memo_id})
                    assert answer["data"]["memo"]["id"] == memo_id
                    slowest.append(seconds)
                    await anyio.sleep(0.2)

            for _ in range(10):
                done = anyio.Event()
                async with anyio.create_task_group() as group:
                    group.start_soon(probe_until, done)
                    answer, _, _ = await call(hostile, "run_code", {"code": HUGE_ARRAY})
                    done.set()
                reports.append(answer)
                after_answer, seconds, _ = await call(bystander, "get_memo", {"id": memo_id})
                assert after_answer["data"]["memo"]["id"] == memo_id
                slowest.append(seconds)
            for _ in range(10):  # ten more hostile runs: the log flood, shortened
                flood, _, size = await call(hostile, "run_code", {"code": FORGED_STRINGIFY, "timeoutMs": 1000})
                assert size < 64 * 1024 and flood["data"]["budget"]["kind"] in ("calls", "time")
            return before, rss_kb(live_server)

    before, after = anyio.run(body)
    for report in reports:
        data = report["data"]
        assert data["budget"]["kind"] == "memory" or "thrown" in data, report
        assert "result" not in data
    assert max(slowest) < 1.0, max(slowest)
    assert after - before < 50 * 1024, (before, after)  # within 50 MB after 20 hostile runs


def test_a_forged_stringify_at_30_seconds_answers_small_and_the_server_stays_lean(tmp_path):
    server = start_server(tmp_path / "data", SERVER_ENV)
    try:
        flooder = server.account("flooder", scopes="memo:read")

        async def body() -> tuple[dict[str, Any], int, int]:
            async with connect(server, flooder.token) as client:
                await call(client, "run_code", {"code": "return 1"})
                idle = rss_kb(server)
                answer, _, size = await call(client, "run_code", {"code": FORGED_STRINGIFY, "timeoutMs": 30_000})
                return answer, size, idle

        answer, size, idle = anyio.run(body)
        data = answer["data"]
        assert size < 64 * 1024, size
        assert rss_kb(server, "VmHWM") < idle + 300 * 1024
        assert data["budget"] == {"kind": "calls", "used": 50, "limit": 50}
        # capped, and every call counted: in a folded line's `xn` or in logDropped
        calls = sum(int(folded[1]) if (folded := re.search(r" x(\d+)$", line)) else 1 for line in data["log"])
        assert len(data["log"]) <= 200 and calls + data.get("logDropped", 0) > 1000, data["log"]
        assert data["log"][0].startswith("list_memos ok ") and len(data["log"][-1]) < 120
    finally:
        stop_server(server)


def test_one_users_runaway_loops_leave_room_for_another_user(live_server):
    looper = live_server.account("looper-4", scopes="memo:read")
    other = live_server.account("looper-neighbour", scopes="memo:read")
    results: list[dict[str, Any]] = []
    timings: dict[str, float] = {}

    async def body() -> None:
        async def runaway() -> None:
            async with connect(live_server, looper.token) as client:
                answer, _, _ = await call(client, "run_code", {"code": RUNAWAY, "timeoutMs": 10_000})
                results.append(answer)

        async with anyio.create_task_group() as group:
            for _ in range(4):
                group.start_soon(runaway)
            await anyio.sleep(1.0)  # the loops are running
            async with connect(live_server, other.token) as client:
                answer, timings["run_code"], _ = await call(client, "run_code", {"code": "return 1"})
                assert answer["data"]["result"] == 1
            started = time.monotonic()
            async with httpx.AsyncClient(timeout=10) as http:
                listed = await http.get(
                    f"{live_server.base_url}/api/toolkit/memo", headers={"Authorization": f"Bearer {other.token}"}
                )
            timings["rest"] = time.monotonic() - started
            assert listed.status_code == 200

    anyio.run(body)
    assert timings["run_code"] < 3.0 and timings["rest"] < 1.0, timings
    stopped = [r for r in results if "data" in r]
    refused = [r for r in results if "error" in r]
    assert len(stopped) == 2 and all(r["data"]["budget"]["kind"] == "time" for r in stopped), results
    assert len(refused) == 2 and all(r["error"]["code"] == "RATE_LIMITED" for r in refused), results
    assert all(r["error"]["retryAfterSeconds"] >= 1 for r in refused)


def test_two_users_with_two_endless_scripts_each_leave_a_worker_for_a_third(live_server):
    """Four workers, two runs per user: the second user's second loop would have taken the last
    worker. It waits (half its wall time at most) and is refused; the third user's run goes."""
    loopers = [live_server.account(f"pair-looper-{n}", scopes="memo:read") for n in range(2)]
    third = live_server.account("pair-third", scopes="memo:read")
    results: dict[str, list[dict[str, Any]]] = {"0": [], "1": []}
    timing: dict[str, float] = {}

    async def body() -> dict[str, Any]:
        async def runaway(n: int) -> None:
            async with connect(live_server, loopers[n].token) as client:
                answer, _, _ = await call(client, "run_code", {"code": RUNAWAY, "timeoutMs": 6_000})
                results[str(n)].append(answer)

        async with anyio.create_task_group() as group:
            for n in (0, 0):
                group.start_soon(runaway, n)
            await anyio.sleep(0.5)  # the first user's loops hold two workers
            for n in (1, 1):
                group.start_soon(runaway, n)
            await anyio.sleep(1.0)  # the second user's first loop holds a third
            async with connect(live_server, third.token) as client:
                answer, timing["run_code"], _ = await call(client, "run_code", {"code": "return 1"})
        return answer

    answer = anyio.run(body)
    assert answer["data"]["result"] == 1 and timing["run_code"] < 3.0, (answer, timing)
    assert [r["data"]["budget"]["kind"] for r in results["0"]] == ["time", "time"], results
    second = sorted(results["1"], key=lambda r: "error" in r)
    assert second[0]["data"]["budget"]["kind"] == "time", second
    refused = second[1]["error"]
    assert refused["code"] == "RATE_LIMITED" and refused["retryAfterSeconds"] >= 1, refused
    assert "the last free one is kept for users with no run" in refused["message"], refused


def test_a_too_deep_result_is_a_clean_report_not_an_internal_error(live_server):
    writer = live_server.account("deep-writer", scopes="memo:read")

    async def body() -> dict[str, Any]:
        async with connect(live_server, writer.token) as client:
            answer, _, _ = await call(client, "run_code", {"code": DEEP})
            return answer

    answer = anyio.run(body)
    assert "nests deeper than 100 levels" in answer["data"]["thrown"] and "result" not in answer["data"]


def test_one_run_uses_at_most_half_of_the_minutes_remaining_tool_calls(tmp_path):
    # The normal profile: 240 tool calls a minute.
    server = start_server(tmp_path / "data", {"MESQ_SEARCH_PROVIDER": "none"})
    try:
        spender = server.account("share-spender", scopes="memo:read")

        async def body() -> dict[str, Any]:
            async with connect(server, spender.token) as client:
                code = "for (;;) await mesq.list_tags({})"
                answer, _, _ = await call(client, "run_code", {"code": code, "maxCalls": 200})
                return answer

        data = anyio.run(body)["data"]
        # 240 a minute, this run_code message counted: 239 left, so 119 for this run.
        assert data["budget"] == {"kind": "calls", "used": 119, "limit": 119}, data
        assert "at most half of the tool calls left in this minute's rate limit (119 calls)" in data["thrown"]
    finally:
        stop_server(server)


def upload(server: LiveServer, token: str, data: bytes) -> str:
    """An attachment of `data`: relayed through the server (SQLite), or PUT to the presigned URL
    and completed (S3)."""
    headers = {"Authorization": f"Bearer {token}"}
    sessions = f"{server.base_url}/api/toolkit/memo/resources/upload-session"
    kind = {"displayName": "big.bin", "mimeType": "application/octet-stream", "size": len(data)}
    answer = httpx.post(sessions, headers=headers, json=kind, timeout=30)
    assert answer.status_code == 201, answer.text
    session = answer.json()["data"]
    if session["transport"] == "relay":
        files = {"file": ("big.bin", data, kind["mimeType"])}
        made = httpx.post(session["uploadEndpoint"], headers=headers, files=files, timeout=60)
    else:
        put = httpx.put(session["uploadUrl"], content=data, headers={"Content-Type": kind["mimeType"]}, timeout=60)
        assert put.status_code == 200, put.text
        made = httpx.put(sessions, headers=headers, json={"uploadId": session["uploadId"], "path": session["path"]},
                         timeout=30)  # fmt: skip
    assert made.status_code in (200, 201), made.text
    return str(made.json()["data"]["path"])


def sixteen_large_reads(server: LiveServer, token: str) -> None:
    """Each read answers ~14 MB of base64 (the file is just under the 10 MiB per-call cap): two
    fit in a frame to the sandbox, the third crosses it and is dropped, the other thirteen are
    refused unrun. Before: the whole 200 MB frame was built and refused (INTERNAL), a 680 MB peak."""
    size = Settings().mcp_read_cap_bytes - 1024
    path = upload(server, token, os.urandom(size))
    reads = f"Array.from({{length: 16}}, () => mesq.read_memo_resource({{path: {json.dumps(path)}}}))"
    code = (
        f"const all = await Promise.allSettled({reads});"
        "return all.map(r => r.status === 'fulfilled' ? r.value.data.fileSize : String(r.reason).slice(0, 40))"
    )

    async def body() -> tuple[dict[str, Any], int, int, int]:
        async with connect(server, token) as client:
            await call(client, "run_code", {"code": "return 1"})  # the pool and its spare are up
            before, idle = await settled_tree_rss_kb(server), rss_kb(server)
            answer, _, _ = await call(client, "run_code", {"code": code, "memoryMb": 128})
            return answer, before, idle, await settled_tree_rss_kb(server)

    answer, before, idle, after = anyio.run(body)
    data = answer["data"]
    assert data["budget"]["kind"] == "output" and data["budget"]["limit"] == ANSWERS_BYTES, data
    assert data["budget"]["used"] > ANSWERS_BYTES
    assert data["result"][:2] == [size] * 2, data["result"]
    assert data["result"][2:] == ["BudgetExceeded: the answers of the calls"] * 14
    assert data["log"][-1] == "read_memo_resource refused: output budget x14"  # 14 alike, folded
    assert rss_kb(server, "VmHWM") < idle + 160 * 1024  # a frame's worth, not sixteen answers
    assert after - before < 50 * 1024, (before, after)


def test_sixteen_large_reads_at_once_are_a_budget_report_and_the_memory_comes_back(tmp_path):
    server = start_server(tmp_path / "data", SERVER_ENV)
    try:
        sixteen_large_reads(server, server.account("large-reader", scopes="memo:read,memo:write").token)
    finally:
        stop_server(server)


def test_sixteen_large_reads_on_dynamodb_local_and_s3(aws_endpoints, tmp_path):  # noqa: F811
    env = {**SERVER_ENV, **aws_endpoints}
    made = run_cli("user", "create", "large-reader", "--password-stdin", stdin="correct horse battery\n", env=env)
    assert made.returncode == 0, made.stderr
    token = run_cli("token", "create", "large-reader", "--name", "reads", "--scopes", "memo:read,memo:write", env=env)
    assert token.returncode == 0, token.stderr
    server = start_server(tmp_path / "unused", env)
    try:
        sixteen_large_reads(server, token.stdout.strip().splitlines()[-1])
    finally:
        stop_server(server)


def test_a_worker_that_escaped_v8_could_open_no_file_of_the_data_directory(tmp_path):
    """The worker's own confinement (confinement.confine, applied as worker.py applies it, V8
    loaded), then what an escaped script would try: each answers EPERM from the filter, even a
    world-readable file (so it is the filter, not only the user's permissions)."""
    if ctypes.util.find_library("seccomp") is None:
        pytest.skip(NO_FILTER)
    data = tmp_path / "data"
    (data / "keys").mkdir(parents=True)
    secret = data / "keys" / "secrets.key"
    secret.write_bytes(b"k" * 32)
    probe = subprocess.run([sys.executable, str(PROBE), str(secret)], capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr[-2000:]
    outcome = json.loads(probe.stdout)
    confined = outcome.pop("confined")
    assert confined["filter"] is True and confined["noNewPrivs"] is True, confined
    assert confined["user"] == ("nobody" if os.geteuid() == 0 else None), confined
    assert outcome.pop("v8") == 42  # V8 still runs under all of it
    assert outcome == dict.fromkeys(outcome, "EPERM") and len(outcome) == 10, outcome
    assert secret.read_bytes() == b"k" * 32 and not (data / "keys" / "planted").exists()


def test_the_servers_workers_run_confined(live_server):
    """The workers `mesq serve` started: no new privileges, the seccomp filter in force, and
    another user than the server's when it runs as root (as here)."""
    if ctypes.util.find_library("seccomp") is None:
        pytest.skip(NO_FILTER)
    user = live_server.account("confined-runner", scopes="memo:read")

    async def body() -> dict[str, Any]:
        async with connect(live_server, user.token) as client:
            answer, _, _ = await call(client, "run_code", {"code": "return 1"})
            return answer

    assert anyio.run(body)["data"]["result"] == 1
    workers = worker_statuses(live_server)
    for _ in range(50):  # a spare started beside the run confines itself once its V8 is loaded
        if all(fields["Seccomp"] == "2" for fields in workers):
            break
        time.sleep(0.2)
        workers = worker_statuses(live_server)
    assert workers
    for fields in workers:
        assert fields["NoNewPrivs"] == "1" and fields["Seccomp"] == "2", fields
        if os.geteuid() == 0:
            assert fields["Uid"].split()[:2] == ["65534", "65534"] and fields["Groups"].strip() == "", fields


def worker_statuses(server: LiveServer) -> list[dict[str, str]]:
    """/proc/<pid>/status of each sandbox worker of `server`, as name -> value."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text() if entry.name.isdigit() else ""
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("PPid") == str(server.process.pid) and b"worker.py" in command:
            threads = []  # V8's threads too: the filter is synchronised onto every one
            for task in (entry / "task").iterdir():
                with contextlib.suppress(OSError):
                    threads += [line.split()[1] for line in (task / "status").read_text().splitlines()
                                if line.startswith("Seccomp:")]  # fmt: skip
            fields["Seccomp"] = "2" if threads and set(threads) == {"2"} else ",".join(threads) or "?"
            found.append(fields)
    return found


#: Run by `python -S` (no site-packages) with a private folder first on the path: confinement.py
#: and pyseccomp are found there and nowhere else.
_CONFINE_FROM = """
import json, sys
sys.path.insert(0, sys.argv[1])
import confinement
applied = confinement.confine()
print(json.dumps({"user": applied["user"], "filter": applied["filter"], "notices": applied["notices"]}))
"""


def test_a_worker_whose_code_sits_in_a_private_folder_still_loads_its_filter(tmp_path: Path) -> None:
    """A clone in a folder only its owner may read (`mktemp -d` makes it 0700): the worker changes
    to `nobody` and must still load its syscall filter, so `pyseccomp` is imported before the
    change. It was imported after, and the filter silently did not load (found 2026-12-05 when a
    fresh clone's run printed the notice)."""
    if os.geteuid() != 0:
        pytest.skip("only a worker started as root changes to another user")
    if ctypes.util.find_library("seccomp") is None:
        pytest.skip(NO_FILTER)
    import pyseccomp

    from mesq.mcp.code import confinement

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    for source in (confinement.__file__, pyseccomp.__file__):
        (private / Path(source).name).write_bytes(Path(source).read_bytes())
    done = subprocess.run(
        [sys.executable, "-S", "-c", _CONFINE_FROM, str(private)], capture_output=True, text=True, timeout=60
    )
    applied = json.loads(done.stdout)
    assert applied == {"user": "nobody", "filter": True, "notices": []}, (applied, done.stderr[-2000:])


def memo_count(server: LiveServer, token: str) -> int:
    listed = httpx.get(f"{server.base_url}/api/toolkit/memo", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert listed.status_code == 200, listed.text
    return int(listed.json()["data"]["page"]["totalCount"])


def test_a_run_whose_client_went_away_stops_writing_and_frees_the_users_workers(live_server):
    """The agent (or the person pressing stop) abandons two long runs after a second: the client
    closes each request's stream, which is the 2026 protocol's cancellation. Before: both runs
    went on for their whole 30 s, still writing memos, and the user's next run was refused
    RATE_LIMITED ("at most 2 run_code runs per user at once; retry after 28 s")."""
    writer = live_server.account("abandoner", scopes="memo:read,memo:write")
    ticking = "for (;;) { await mesq.create_memo({content: 'tick #abandoned'}); }"

    async def body() -> tuple[dict[str, Any], float, list[int]]:
        leave = anyio.Event()

        async def abandoned() -> None:
            arguments = {"code": ticking, "timeoutMs": 30_000, "maxCalls": 200}
            async with connect(live_server, writer.token) as client, anyio.create_task_group() as running:
                running.start_soon(call, client, "run_code", arguments)
                await leave.wait()
                running.cancel_scope.cancel()  # the client goes away mid-run

        async with anyio.create_task_group() as group:
            group.start_soon(abandoned)
            group.start_soon(abandoned)
            # both runs writing (not a fixed second: on a loaded machine a run's first write came later)
            with anyio.move_on_after(15.0):
                while await anyio.to_thread.run_sync(memo_count, live_server, writer.token) < 2:
                    await anyio.sleep(0.1)
            await anyio.sleep(0.5)
            leave.set()
        counts = [memo_count(live_server, writer.token)]
        await anyio.sleep(1.5)
        counts.append(memo_count(live_server, writer.token))
        async with connect(live_server, writer.token) as client:
            answer, seconds, _ = await call(client, "run_code", {"code": "return 'next'"})
        return answer, seconds, counts

    answer, seconds, counts = anyio.run(body)
    assert counts[0] > 0 and counts[1] - counts[0] <= 2, counts  # at most each run's call in flight
    assert answer.get("data", {}).get("result") == "next" and seconds < 3.0, (answer, seconds)


def test_a_cancelled_runs_writes_are_found_and_undone_by_its_run_id(live_server):
    """A run abandoned mid-way (the client went away, so the endpoint cancelled it) never
    answered its report, whose `runId` names what it wrote. The person must still find the run
    and take it back: every change it made carries one runId, `list_changes {actor: "me"}`
    names it, `/activity` shows the run as a session whose Undo posts that id, and
    `undo_changes {runId}` reverts all of it."""
    writer = live_server.account("canceller", scopes="memo:read,memo:write")
    ticking = "for (;;) { await mesq.create_memo({content: 'tick #cancelled'}); }"

    async def body() -> dict[str, Any]:
        async with connect(live_server, writer.token) as client:
            with anyio.move_on_after(10.0) as cancelled:
                async with anyio.create_task_group() as group:
                    group.start_soon(call, client, "run_code", {"code": ticking, "timeoutMs": 30_000, "maxCalls": 200})
                    while await anyio.to_thread.run_sync(memo_count, live_server, writer.token) == 0:
                        await anyio.sleep(0.1)
                    await anyio.sleep(0.3)  # a few writes in
                    cancelled.cancel()  # the client goes away mid-run
        counts = [memo_count(live_server, writer.token)]
        while len(counts) < 20 and (len(counts) < 2 or counts[-1] != counts[-2]):  # a call in flight ends
            await anyio.sleep(0.5)
            counts.append(memo_count(live_server, writer.token))
        assert counts[-1] == counts[-2] and counts[-1] > 0, counts
        async with connect(live_server, writer.token) as client:
            listed, _, _ = await call(client, "list_changes", {"actor": "me", "limit": 100})
            assert "data" in listed, listed
            run_ids = {change["runId"] for change in listed["data"]["changes"]}
            assert len(run_ids) == 1 and listed["data"]["changes"], listed
            run_id = run_ids.pop()
            by_run, _, _ = await call(client, "list_changes", {"runId": run_id, "limit": 100})
            assert len(by_run["data"]["changes"]) == len(listed["data"]["changes"]), by_run
            assert {change["sessionId"] for change in by_run["data"]["changes"]} == {run_id}
            browser = Browser(live_server.base_url, "canceller", PASSWORD)
            try:
                page = browser._follow("/activity")
            finally:
                browser.close()
            assert page.status_code == 200 and run_id in page.text, page.text[-2000:]
            undone, _, _ = await call(client, "undo_changes", {"runId": run_id})
            # a loaded machine lets the run write more before it is stopped: past 100 changes an
            # undo says `more` and is called again
            for _ in range(10):
                assert "data" in undone, undone
                if not undone["data"].get("more"):
                    break
                undone, _, _ = await call(client, "undo_changes", {"runId": run_id})
            return undone

    undone = anyio.run(body)
    assert memo_count(live_server, writer.token) == 0, undone


def test_a_loop_of_large_reads_leaves_another_users_calls_fast(live_server):
    """One user's script reads a ~10 MB attachment over and over (each answer ~14 MB of JSON to
    encode for the sandbox); another user's warm `get_memo` calls meanwhile stay fast. Before,
    each answer was encoded twice on the event loop (the envelope, then the frame, escaping it
    again, and a regex pass over each) and the worker's frames decoded there: the other user's call
    waited up to ~0.6 s per read (p95 ~0.25-0.41 s)."""
    reader = live_server.account("large-looper", scopes="memo:read,memo:write")
    other = live_server.account("large-neighbour", scopes="memo:read,memo:write")
    path = upload(live_server, reader.token, os.urandom(Settings().mcp_read_cap_bytes - 1024))
    loop = (
        f"let n = 0; for (let i = 0; i < 6; i++) n += (await mesq.read_memo_resource({{path: {json.dumps(path)}}}))"
        ".data.fileSize; return n"
    )
    memo = memo_of(live_server, other.token)
    waits: list[float] = []

    async def body() -> dict[str, Any]:
        async with connect(live_server, other.token) as neighbour, connect(live_server, reader.token) as looper:
            for _ in range(5):  # warm
                await call(neighbour, "get_memo", {"id": memo})
            await call(looper, "run_code", {"code": "return 1"})
            done: dict[str, Any] = {}

            async def reads() -> None:
                done["answer"], _, _ = await call(
                    looper, "run_code", {"code": loop, "timeoutMs": 30_000, "memoryMb": 128}
                )

            async with anyio.create_task_group() as group:
                group.start_soon(reads)
                while "answer" not in done:
                    _, seconds, _ = await call(neighbour, "get_memo", {"id": memo})
                    waits.append(seconds)
                    await anyio.sleep(0.02)
            return done["answer"]

    answer = anyio.run(body)
    assert answer["data"].get("result") == 6 * (Settings().mcp_read_cap_bytes - 1024), answer
    waits.sort()
    p95, p99 = waits[int(len(waits) * 0.95)], waits[int(len(waits) * 0.99)]
    stalled = sum(1 for wait in waits if wait > 0.3)
    print(
        f"neighbour get_memo: {len(waits)} calls, p50 {waits[len(waits) // 2]:.3f} s, p95 {p95:.3f} s, "
        f"p99 {p99:.3f} s, max {waits[-1]:.3f} s, {stalled} over 0.3 s; reader {answer['data']['ms']} ms"
    )
    # Before: p95 0.23-0.26 s, p99 0.46-0.58 s, 4-5 calls over 0.25 s (one a read); after: p95
    # 0.06-0.09 s, p99 0.09-0.23 s, at most one over 0.3 s (2 cores shared, load ~6).
    assert len(waits) >= 20 and p95 < 0.2 and stalled <= 1, (p95, stalled, waits[-5:])
