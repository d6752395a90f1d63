"""MeSQ beside what a user would run instead (issue 44): a FastMCP server and a bare `mcp` SDK
server (`bench/peer_servers/`), each serving `create_memo` and `get_memo` over one SQLite table,
stateless streamable HTTP with JSON answers, on uvicorn; MeSQ is `mesq serve` on SQLite with its
bundled embedding model (the default), a PAT and the whole MCP endpoint (`/mcp`).

Every figure is taken in turns: one call (or one start) of each server per round, so a load swing
on the shared machine hits the three alike. Rows (each recorded with `goals.record_peers`, printed
by `goals.peer_table` with MeSQ / FastMCP and the issue's bound):

- cold start to the first successful `get_memo` (a fresh process, polled; median of 5);
- RSS idle, after the first write and after 100 writes, each once the process is settled (its
  CPU time still for half a second: MeSQ's index follower has embedded what was queued); "idle"
  and every row after it once MeSQ's start is over (`warmed_up`: `/healthz` ready, its search
  warm-up and first index build done), as a server that has been up a while;
- warm `get_memo` p50/p95 over one reused connection, and the server's CPU per call (utime +
  stime of the process over the same calls);
- a fresh session per call: raw (a new connection, `server/discover`, `tools/call`) and through
  the official client (`mcp.client.Client`: discover, `tools/list` on its first call, the call,
  the check of the result against the tool's output schema), for MeSQ also with its listing
  narrowed to the peers' two tools (`X-MCP-Tools`); and two parts of that session, timed apart on
  each server's own answers: the client parsing the `tools/list` answer and compiling `get_memo`'s
  output schema;
- throughput of `get_memo` at concurrency 1 and 8 (bench/load.py's generator);
- CPU per `create_memo`: the request (the process minus its index follower threads, which run
  the embedding and the index saves after the answer, as the indexer function does on AWS), and
  with the follower.

Then MeSQ alone, issue 44's memory goal: RSS after those 100 writes and 30 AI searches
(`search_ai_memos`), on SQLite here and on DynamoDB Local + S3 (moto) in `rows_memory_dynamodb`.

Run alone (`python bench/peers.py`) or as the `peers` / `memory_dynamodb` sections of bench/run.py."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from goals import record, record_peers  # noqa: E402  (the closing tables, bench/goals.py)
from load import MODERN, _free_port, _point, _rss_kib, _seed, _server_env, _wait_listening  # noqa: E402

PEER_SERVERS = REPO / "bench" / "peer_servers"
COLD_STARTS = 5
WARM_ROUNDS = 1000  # the CPU rows read 10 ms ticks: ~170 of them per server
FRESH_RAW_ROUNDS = 100
FRESH_CLIENT_ROUNDS = 30
CLIENT_WORK_ROUNDS = 200
THROUGHPUT_ROUNDS = 6
WRITES = 100
AI_SEARCHES = 30
#: The follower's threads (mesq/search/fair_queue.py names them; Linux keeps 15 characters).
FOLLOWER_THREADS = ("mesq-search-wor", "mesq-search-ind", "mesq-literal-in", "mesq-search-bui")
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}


@dataclass
class Peer:
    key: str  # "mesq", "fastmcp", "sdk"
    command: Callable[[int], list[str]]
    env: dict[str, str]
    auth: dict[str, str] = field(default_factory=dict)
    memo_id: str = ""
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def request(self, method: str, params: dict[str, Any], name: str | None = None) -> dict[str, Any]:
        """httpx.request keyword arguments of one JSON-RPC request (the 2026-07-28 headers)."""
        headers = {**self.auth, "accept": "application/json, text/event-stream", "mcp-protocol-version": MODERN,
                   "mcp-method": method}  # fmt: skip
        if name is not None:
            headers["mcp-name"] = name
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
        return {"method": "POST", "url": self.url, "headers": headers, "json": body}

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments}, name)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid


def _ok(response: httpx.Response) -> dict[str, Any]:
    """The tool result of a successful call; anything else stops the bench (a figure of errors is no figure)."""
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:300]}")
    answer = response.json()
    result = answer.get("result")
    if not isinstance(result, dict) or result.get("isError"):
        raise RuntimeError(f"call failed: {response.text[:300]}")
    return result


def _memo_of(result: dict[str, Any]) -> dict[str, Any]:
    """MeSQ answers the envelope `{data: {memo}}`; the peers the memo itself."""
    content: dict[str, Any] = result["structuredContent"]
    return content["data"]["memo"] if "data" in content else content


# -- process CPU and memory --------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _ticks(stat: str) -> int:
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the whole process (its finished threads included)."""
    return _ticks(Path(f"/proc/{pid}/stat").read_text()) / _TICK


def follower_seconds(pid: int) -> float:
    """User + system CPU of MeSQ's index follower threads (by their native names)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text().strip() in FOLLOWER_THREADS:
                total += _ticks((task / "stat").read_text())
        except FileNotFoundError:  # the thread ended meanwhile
            continue
    return total / _TICK


def settle(pid: int, quiet: float = 0.5, limit: float = 60.0) -> None:
    """Wait until the process has used no CPU for `quiet` seconds (background work done)."""
    deadline = time.monotonic() + limit
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(pid)
        if now - last < 1 / _TICK + 1e-9:
            return
        last = now


def warmed_up(peer: Peer, limit: float = 120.0) -> None:
    """Wait until the server is done with its start: MeSQ's `/healthz` says `ready` (its search
    warm-up: the glossary its child process parsed, the literal indexes), the build worker has
    had its AFTER_READY_SECONDS, and the process has gone quiet. The CPU check alone returned
    while the glossary was parsed in the child, and the warm rows then paid for the rest of the
    start (the glossary's load, the first index build, the collector's freeze): one-off work,
    not a call's. The peers have no warm-up: only the quiet check applies."""
    from mesq.search.warm_up import AFTER_READY_SECONDS

    if peer.key == "mesq":
        deadline = time.monotonic() + limit
        health = peer.url.removesuffix("/mcp") + "/healthz"
        while not httpx.get(health, timeout=30).json().get("ready"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{peer.key} not ready within {limit:.0f} s")
            time.sleep(0.05)
        time.sleep(AFTER_READY_SECONDS)
    settle(peer.pid)


def rss_mb(pid: int) -> float:
    return _rss_kib(pid)[0] / 1024


# -- the three servers -------------------------------------------------------------------------


def _peers(tmp: Path) -> list[Peer]:
    """MeSQ (a seeded data directory: a user, a PAT, one memo) and the two peers (one memo each)."""
    sys.path.insert(0, str(PEER_SERVERS))
    import memo_table

    data_dir = tmp / "mesq"
    token, memo_id = _seed(data_dir)
    mesq_env = _server_env()
    mesq = Peer(
        "mesq",
        lambda port: [sys.executable, "-m", "mesq.runtime.cli", "serve", "--data-dir", str(data_dir), "--port",
                      str(port)],
        mesq_env, {"authorization": f"Bearer {token}"}, memo_id,
    )  # fmt: skip
    peers = [mesq]
    for key, script in (("fastmcp", "fastmcp_memo.py"), ("sdk", "sdk_memo.py")):
        db = str(tmp / f"{key}.sqlite3")
        seeded = memo_table.create_memo(db, "a memo read under load #bench")["id"]
        command = [sys.executable, str(PEER_SERVERS / script), db]
        peers.append(Peer(key, lambda port, command=command: [*command, str(port)], dict(os.environ), memo_id=seeded))
    return peers


def _start(peer: Peer) -> None:
    peer.port = _free_port()
    peer.process = subprocess.Popen(
        peer.command(peer.port), env=peer.env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _stop(peer: Peer) -> None:
    if peer.process is None:
        return
    peer.process.terminate()
    try:
        peer.process.wait(10)
    except subprocess.TimeoutExpired:
        peer.process.kill()
        peer.process.wait()
    peer.process = None


@contextmanager
def running(peers: list[Peer]) -> Iterator[None]:
    try:
        for peer in peers:
            _start(peer)
        for peer in peers:
            assert peer.process is not None
            _wait_listening(peer.port, peer.process)
        yield
    finally:
        for peer in peers:
            _stop(peer)


def _rotated(peers: list[Peer], round_number: int) -> list[Peer]:
    """The round's order: who goes first changes every round (no server always follows another's burst)."""
    shift = round_number % len(peers)
    return peers[shift:] + peers[:shift]


# -- the measurements --------------------------------------------------------------------------


def cold_starts(peers: list[Peer]) -> dict[str, float]:
    """Seconds from spawning the process to the first successful `get_memo`, median of COLD_STARTS."""
    samples: dict[str, list[float]] = {peer.key: [] for peer in peers}
    for round_number in range(COLD_STARTS):
        for peer in _rotated(peers, round_number):
            began = time.perf_counter()
            _start(peer)
            try:
                while True:
                    assert peer.process is not None
                    if peer.process.poll() is not None:
                        raise RuntimeError(f"{peer.key} exited with {peer.process.returncode}")
                    try:
                        _ok(httpx.request(**peer.call("get_memo", {"id": peer.memo_id}), timeout=30))
                        break
                    except httpx.TransportError:
                        time.sleep(0.005)
                samples[peer.key].append(time.perf_counter() - began)
            finally:
                _stop(peer)
    return {key: statistics.median(values) for key, values in samples.items()}


def warm_calls(peers: list[Peer]) -> dict[str, dict[str, float]]:
    """get_memo over one kept-alive connection per server: p50, p95 and the server's CPU per call."""
    latencies: dict[str, list[float]] = {peer.key: [] for peer in peers}
    cpu: dict[str, float] = {}
    with ExitStack() as stack:
        clients = {peer.key: stack.enter_context(httpx.Client(timeout=30)) for peer in peers}
        requests = {peer.key: peer.call("get_memo", {"id": peer.memo_id}) for peer in peers}
        for peer in peers:  # warm: first-call imports, the connection
            for _ in range(20):
                _ok(clients[peer.key].request(**requests[peer.key]))
        before = {peer.key: cpu_seconds(peer.pid) for peer in peers}
        for round_number in range(WARM_ROUNDS):
            for peer in _rotated(peers, round_number):
                began = time.perf_counter()
                _ok(clients[peer.key].request(**requests[peer.key]))
                latencies[peer.key].append(time.perf_counter() - began)
        for peer in peers:
            cpu[peer.key] = (cpu_seconds(peer.pid) - before[peer.key]) / WARM_ROUNDS
    found = {}
    for key, values in latencies.items():
        cuts = statistics.quantiles(values, n=100)
        found[key] = {"p50": cuts[49], "p95": cuts[94], "cpu": cpu[key]}
    return found


def fresh_raw(peers: list[Peer]) -> dict[str, float]:
    """Median seconds of a new connection, `server/discover`, then `tools/call get_memo`."""
    samples: dict[str, list[float]] = {peer.key: [] for peer in peers}
    for round_number in range(FRESH_RAW_ROUNDS):
        for peer in _rotated(peers, round_number):
            began = time.perf_counter()
            with httpx.Client(timeout=30) as client:
                discovered = client.request(**peer.request("server/discover", {}))
                assert discovered.status_code == 200, discovered.text[:200]
                _ok(client.request(**peer.call("get_memo", {"id": peer.memo_id})))
            samples[peer.key].append(time.perf_counter() - began)
    return {key: statistics.median(values) for key, values in samples.items()}


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every client: a new one loads the CA bundle (~50 ms), client work
    that is the same for every server and never used on these http:// URLs."""
    return ssl.create_default_context()


async def _official_session(peer: Peer) -> float:
    import httpx2
    from mcp.client.client import Client
    from mcp.client.streamable_http import streamable_http_client

    began = time.perf_counter()
    async with (
        httpx2.AsyncClient(headers=peer.auth, timeout=30, verify=_tls()) as http,
        Client(streamable_http_client(peer.url, http_client=http), mode="auto") as client,
    ):
        result = await client.call_tool("get_memo", {"id": peer.memo_id})  # lists, calls, checks the output
        assert not result.is_error and result.structured_content is not None, result
    return time.perf_counter() - began


#: The peers' catalog: MeSQ narrowed to it with its allow-list header (docs/contract.md), so a
#: fresh session there lists, parses and checks what the peers' do.
PEER_TOOLS = "create_memo,get_memo"


def fresh_client(peers: list[Peer]) -> dict[str, float]:
    """Median seconds of a whole official-client session per call (discover, list, call, check),
    and MeSQ's again with its listing narrowed to the peers' two tools (key `mesq two tools`): the
    client's per-session work grows with the listing it downloads and checks."""
    mesq = next(peer for peer in peers if peer.key == "mesq")
    peers = [*peers, dataclasses.replace(mesq, key="mesq two tools", auth={**mesq.auth, "x-mcp-tools": PEER_TOOLS})]
    samples: dict[str, list[float]] = {peer.key: [] for peer in peers}

    async def rounds() -> None:
        for peer in peers:
            await _official_session(peer)  # the client's own first-use imports, outside the figures
        for round_number in range(FRESH_CLIENT_ROUNDS):
            for peer in _rotated(peers, round_number):
                samples[peer.key].append(await _official_session(peer))

    asyncio.run(rounds())
    return {key: statistics.median(values) for key, values in samples.items()}


def client_work(peers: list[Peer]) -> dict[str, dict[str, float]]:
    """Two parts of the official client's fresh session, on each server's own answers, without the
    network: parsing the `tools/list` answer into the SDK's `ListToolsResult`, and compiling
    `get_memo`'s listed output schema (jsonschema's `check_schema`, run by the client before it
    validates a result: a cost per subschema under JSON Schema 2020-12). Median seconds of
    CLIENT_WORK_ROUNDS each, the servers in turns. They say where the fresh-client row's gap is."""
    from jsonschema.validators import validator_for
    from mcp.types import ListToolsResult

    listings: dict[str, tuple[bytes, dict[str, Any]]] = {}
    with httpx.Client(timeout=30) as client:
        for peer in peers:
            answer = client.request(**peer.request("tools/list", {}))
            result = _ok(answer)
            [get_memo] = [tool for tool in result["tools"] if tool["name"] == "get_memo"]
            listings[peer.key] = (json.dumps(result).encode(), get_memo["outputSchema"])
    samples: dict[str, dict[str, list[float]]] = {peer.key: {"parse": [], "compile": []} for peer in peers}
    for round_number in range(CLIENT_WORK_ROUNDS):
        for peer in _rotated(peers, round_number):
            listing, schema = listings[peer.key]
            began = time.perf_counter()
            ListToolsResult.model_validate_json(listing)
            parsed = time.perf_counter()
            validator_for(schema).check_schema(schema)
            samples[peer.key]["parse"].append(parsed - began)
            samples[peer.key]["compile"].append(time.perf_counter() - parsed)
    return {key: {part: statistics.median(values) for part, values in parts.items()} for key, parts in samples.items()}


def throughput(peers: list[Peer], concurrency: int) -> dict[str, float]:
    """Requests per second of `get_memo` (bench/load.py's generator, 2 s a point): the median of
    THROUGHPUT_ROUNDS points per server, taken in turns. One point swings by a quarter between
    rounds on this shared two-core machine (the client and the server share it); with two points
    the c=1 row read between 0.84x and 1.21x FastMCP across runs with no change on the path."""
    rps: dict[str, list[float]] = {peer.key: [] for peer in peers}

    async def rounds() -> None:
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            for round_number in range(THROUGHPUT_ROUNDS):
                for peer in _rotated(peers, round_number):
                    point = await _point(client, peer.call("get_memo", {"id": peer.memo_id}), concurrency)
                    if point["errors"]:
                        raise RuntimeError(f"{peer.key}: {point['errors']:.0f} errors at c={concurrency}")
                    rps[peer.key].append(point["rps"])

    asyncio.run(rounds())
    return {key: statistics.median(values) for key, values in rps.items()}


def writes(peers: list[Peer]) -> dict[str, dict[str, float]]:
    """The first create_memo (RSS after it, settled), then WRITES - 1 more in turns: CPU per
    create (the request alone; with MeSQ's follower) and the RSS after them, settled."""
    found: dict[str, dict[str, float]] = {peer.key: {} for peer in peers}
    with ExitStack() as stack:
        clients = {peer.key: stack.enter_context(httpx.Client(timeout=30)) for peer in peers}
        for peer in peers:
            _ok(clients[peer.key].request(**peer.call("create_memo", {"content": "the first write #bench"})))
        for peer in peers:
            settle(peer.pid)
            found[peer.key]["rss first write"] = rss_mb(peer.pid)
        before = {peer.key: (cpu_seconds(peer.pid), follower_seconds(peer.pid)) for peer in peers}
        for number in range(1, WRITES):
            for peer in _rotated(peers, number):
                content = f"memo {number} about topic {number % 7} #bench"
                _ok(clients[peer.key].request(**peer.call("create_memo", {"content": content})))
        for peer in peers:
            settle(peer.pid)
            total = cpu_seconds(peer.pid) - before[peer.key][0]
            follower = follower_seconds(peer.pid) - before[peer.key][1]
            found[peer.key]["cpu per create all"] = total / (WRITES - 1)
            found[peer.key]["cpu per create"] = (total - follower) / (WRITES - 1)
            found[peer.key]["rss 100 writes"] = rss_mb(peer.pid)
    return found


AI_QUERIES = ("topic", "memo about", "first write", "bench", "写作", "notes on a topic", "memo 42", "关于")


def ai_searches(peer: Peer, count: int = AI_SEARCHES) -> float:
    """`count` search_ai_memos calls on MeSQ; its RSS after them, settled (MB)."""
    with httpx.Client(timeout=60) as client:
        for number in range(count):
            query = f"{AI_QUERIES[number % len(AI_QUERIES)]} {number}"
            _ok(client.request(**peer.call("search_ai_memos", {"query": query})))
    settle(peer.pid)
    return rss_mb(peer.pid)


def rows_peers() -> list[tuple[str, str, str]]:
    """The peers table's figures (recorded for `goals.peer_table`) and MeSQ's memory goal on SQLite."""
    from run import ensure_bytecode

    ensure_bytecode()  # as an installed MeSQ has it (see there)
    with tempfile.TemporaryDirectory() as tmp:
        peers = _peers(Path(tmp))
        by_key = {peer.key: peer for peer in peers}
        figures: dict[str, dict[str, float]] = {peer.key: {} for peer in peers}
        for key, seconds in cold_starts(peers).items():
            figures[key]["cold start"] = seconds * 1000
        with running(peers):
            for peer in peers:
                warmed_up(peer)
                figures[peer.key]["rss idle"] = rss_mb(peer.pid)
            for key, warm in warm_calls(peers).items():
                figures[key].update({"warm p50": warm["p50"] * 1000, "warm p95": warm["p95"] * 1000,
                                     "cpu per call": warm["cpu"] * 1000})  # fmt: skip
            for key, seconds in fresh_raw(peers).items():
                figures[key]["fresh raw"] = seconds * 1000
            fresh = fresh_client(peers)
            for key in figures:
                figures[key]["fresh client"] = fresh[key] * 1000
                # the peers list only those two tools: their figure is the same session
                figures[key]["fresh client two tools"] = fresh["mesq two tools" if key == "mesq" else key] * 1000
            for key, parts in client_work(peers).items():
                figures[key]["client parse listing"] = parts["parse"] * 1000
                figures[key]["client compile schema"] = parts["compile"] * 1000
            for concurrency in (1, 8):
                for key, rps in throughput(peers, concurrency).items():
                    figures[key][f"rps c{concurrency}"] = rps
            for key, written in writes(peers).items():
                figures[key].update({name: value * 1000 if name.startswith("cpu") else value
                                     for name, value in written.items()})  # fmt: skip
            searched = ai_searches(by_key["mesq"])
    units = {"rps": "rps", "rss": "MB"}
    for name in figures["mesq"]:
        unit = units.get(name.split(" ")[0], "ms")
        record_peers(name, figures["mesq"][name], figures["fastmcp"][name], figures["sdk"][name], unit)
    record("rss sqlite", 1, searched, figures["mesq"]["rss idle"], "idle", unit="MB")
    return [
        (f"peers: {name}", f"{figures['mesq'][name]:.1f}",
         f"FastMCP {figures['fastmcp'][name]:.1f}, bare SDK {figures['sdk'][name]:.1f} (table at the end)")
        for name in figures["mesq"]
    ] + [("memory: mesq serve RSS after 100 writes and 30 AI searches, SQLite", f"{searched:.0f} MB",
          f"idle {figures['mesq']['rss idle']:.0f} MB; goal <= 250 MB")]  # fmt: skip


def rows_memory_dynamodb() -> list[tuple[str, str, str]]:
    """`mesq serve --storage dynamodb` on DynamoDB Local and S3 over HTTP (moto): RSS idle, after
    100 writes and after 30 AI searches (issue 44's memory goal on the second store)."""
    sys.path.insert(0, str(REPO / "infra"))
    import dynamodb_local as runner
    from moto.server import ThreadedMotoServer

    try:
        ddb = runner.start_dynamodb_local()
    except runner.DynamoDBLocalUnavailable as exc:
        return [("memory: RSS on DynamoDB Local", "n/a", f"DynamoDB Local unavailable: {exc}")]
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    s3.start()
    host, s3_port = s3.get_host_and_port()
    env = {
        **_server_env(), "MESQ_STORAGE": "dynamodb", "MESQ_TABLE": "mesq-bench-memory", "MESQ_BUCKET": "mesq-bench",
        "MESQ_DYNAMODB_ENDPOINT": ddb.endpoint, "MESQ_S3_ENDPOINT": f"http://{host}:{s3_port}",
        "AWS_ACCESS_KEY_ID": runner.ACCESS_KEY_ID, "AWS_SECRET_ACCESS_KEY": runner.SECRET_ACCESS_KEY,
        "AWS_DEFAULT_REGION": runner.REGION, "AWS_REGION": runner.REGION, "POWERTOOLS_TRACE_DISABLED": "true",
    }  # fmt: skip
    saved = dict(os.environ)
    try:
        os.environ.update(env)
        import boto3

        from mesq.wiring.config import Settings
        from mesq.wiring.services import build_services

        boto3.client("s3", endpoint_url=env["MESQ_S3_ENDPOINT"]).create_bucket(Bucket="mesq-bench")
        build_services(Settings.from_env()).items.create_table_if_missing()  # type: ignore[attr-defined]
        seeding = Settings.from_env().with_overrides(search_index_updates="off")  # the server indexes, not this
        token, memo_id = _seed(Path(tempfile.gettempdir()), seeding)
        serve = [sys.executable, "-m", "mesq.runtime.cli", "serve", "--storage", "dynamodb", "--port"]
        mesq = Peer("mesq", lambda port: [*serve, str(port)], env, {"authorization": f"Bearer {token}"}, memo_id)
        with running([mesq]):
            warmed_up(mesq)
            idle = rss_mb(mesq.pid)
            with httpx.Client(timeout=30) as client:
                for number in range(WRITES):
                    content = f"memo {number} about topic {number % 7} #bench"
                    _ok(client.request(**mesq.call("create_memo", {"content": content})))
            settle(mesq.pid)
            written = rss_mb(mesq.pid)
            searched = ai_searches(mesq)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        s3.stop()
        ddb.stop()
    record("rss dynamodb", 1, searched, idle, "idle", unit="MB")
    return [
        ("memory: mesq serve RSS idle, DynamoDB Local", f"{idle:.0f} MB", ""),
        ("memory: ... after 100 writes, DynamoDB Local", f"{written:.0f} MB", ""),
        ("memory: ... after 100 writes and 30 AI searches, DynamoDB Local", f"{searched:.0f} MB", "goal <= 250 MB"),
    ]


if __name__ == "__main__":
    from goals import goal_table, peer_table

    for name, value, note in rows_peers() + rows_memory_dynamodb():
        print(f"{name:72} {value:>10}  {note}")
    print(f"\n{peer_table()}\n\n{goal_table()}")
