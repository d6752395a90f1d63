"""`mesq serve` under a loopback load generator, beside a raw Starlette route doing one SQLite read
in the same run; and a 50 MiB relay upload's server peak RSS.

The generator is a small asyncio + httpx loop (N workers, each sending its next request as soon as
the previous answer arrives, for a fixed time): requests per second and p50/p99 latency at
concurrency 1, 8 and 32, for MCP `tools/call get_memo`, REST `get_memo` and the baseline route.
Three back-to-back runs of the whole set show errors and the server's RSS after each.

Run alone (`python bench/load.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SECONDS_PER_POINT = 2.0
CONCURRENCY = (1, 8, 32)
RUNS = 3
UPLOAD_MIB = 50
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}

#: The baseline: Starlette on the same uvicorn, one indexed SQLite read per request, JSON out.
RAW_APP = """
import sqlite3, sys, threading
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route
import uvicorn

DB = sys.argv[1]
local = threading.local()

def read():
    if not hasattr(local, "db"):
        local.db = sqlite3.connect(DB, check_same_thread=False)
    row = local.db.execute("SELECT body FROM memo WHERE id = ?", ("m1",)).fetchone()
    return {"data": {"memo": {"id": "m1", "content": row[0]}}}

async def memo(request):
    return JSONResponse(await run_in_threadpool(read))

app = Starlette(routes=[Route("/raw", memo)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", access_log=False)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _rss_kib(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) of a process, from /proc (KiB)."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    return rss, peak


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("server did not start listening")


@contextmanager
def _process(args: list[str], port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(args, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _seed(data_dir: Path, settings: Any = None) -> tuple[str, str]:
    """A user with a PAT and one memo, written before the server opens the database (`settings`:
    another store than SQLite in `data_dir`)."""
    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.kernel.context import Call, Principal
    from mesq.memos import writes
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    services = build_services(settings or Settings(data_dir=data_dir))
    user = create_user(services.items, "loader", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="load", scopes="memo:read,memo:write")
    call = Call(Principal(user["id"], frozenset({"memo:write"}), "bench", "pat"), services, "bench", "api")
    memo = writes.create_memo(call, {"content": "a memo read under load #bench"})
    services.items.close()
    return token, memo["memo"]["id"]


async def _point(client: httpx.AsyncClient, request: dict[str, Any], concurrency: int) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + SECONDS_PER_POINT

    async def worker() -> None:
        nonlocal errors
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            try:
                response = await client.request(**request)
                ok = response.status_code == 200 and b'"error"' not in response.content[:200]
            except httpx.HTTPError:
                ok = False
            latencies.append(time.perf_counter() - start)
            errors += 0 if ok else 1

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - began
    quantiles = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else latencies * 99
    return {"rps": len(latencies) / elapsed, "p50": quantiles[49], "p99": quantiles[98], "errors": errors}


async def _load(targets: dict[str, dict[str, Any]]) -> dict[tuple[str, int], dict[str, float]]:
    results = {}
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        for request in targets.values():  # warm every route (first-call imports, connections)
            for _ in range(5):
                await client.request(**request)
        for concurrency in CONCURRENCY:
            for name, request in targets.items():
                results[(name, concurrency)] = await _point(client, request, concurrency)
    return results


async def _multipart(boundary: str) -> AsyncIterator[bytes]:
    yield (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    chunk = os.urandom(1 << 20)
    for _ in range(UPLOAD_MIB):
        yield chunk
    yield f"\r\n--{boundary}--\r\n".encode()


async def _upload(base: str, token: str) -> int:
    boundary = "mesqbenchboundary"
    headers = {"authorization": f"Bearer {token}", "content-type": f"multipart/form-data; boundary={boundary}"}
    async with httpx.AsyncClient(timeout=120) as client:
        response = await client.post(
            f"{base}/api/toolkit/memo/resources/upload", headers=headers, content=_multipart(boundary)
        )
    return response.status_code


def _serve_command(data_dir: Path, port: int) -> list[str]:
    return [sys.executable, "-m", "mesq.runtime.cli", "serve", "--data-dir", str(data_dir), "--port", str(port)]


def _server_env() -> dict[str, str]:
    env = {**os.environ, "MCP_RATE_LIMIT_PROFILE": "off", "POWERTOOLS_METRICS_DISABLED": "true"}
    env["PYTHONPATH"] = f"{REPO / 'layers' / 'core'}{os.pathsep}{env.get('PYTHONPATH', '')}"
    env.pop("MESQ_STORAGE", None)
    env.pop("MESQ_DATA_DIR", None)
    return env


def rows_upload() -> list[tuple[str, str, str]]:
    """A fresh `mesq serve`: peak RSS idle (after one warm request) vs after a 50 MiB relay upload."""
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        token, memo_id = _seed(data_dir)
        port = _free_port()
        with _process(_serve_command(data_dir, port), port, _server_env()) as server:
            base = f"http://127.0.0.1:{port}"
            httpx.get(f"{base}/api/toolkit/memo/{memo_id}", headers={"authorization": f"Bearer {token}"})
            _, idle_peak = _rss_kib(server.pid)
            status = asyncio.run(_upload(base, token))
            _, upload_peak = _rss_kib(server.pid)
    return [
        ("mesq serve peak RSS before the upload (baseline)", f"{idle_peak / 1024:.0f} MB", "1.00x"),
        (
            f"relay upload of {UPLOAD_MIB} MiB: server peak RSS (status {status})",
            f"{upload_peak / 1024:.0f} MB",
            f"{upload_peak / idle_peak:.2f}x; +{(upload_peak - idle_peak) / 1024:.0f} MB for the file",
        ),
    ]


def rows_load() -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        token, memo_id = _seed(data_dir)
        raw_db = Path(tmp) / "raw.sqlite3"
        with sqlite3.connect(raw_db) as db:
            db.execute("CREATE TABLE memo (id TEXT PRIMARY KEY, body TEXT)")
            db.execute("INSERT INTO memo VALUES ('m1', 'a memo read under load #bench')")
        mesq_port, raw_port = _free_port(), _free_port()
        auth = {"authorization": f"Bearer {token}"}
        mcp_headers = {
            **auth,
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN,
            "mcp-method": "tools/call",
            "mcp-name": "get_memo",
        }
        mcp_body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "get_memo", "arguments": {"id": memo_id}, "_meta": META}}  # fmt: skip
        targets = {
            "raw Starlette route, one SQLite read (baseline)": {
                "method": "GET", "url": f"http://127.0.0.1:{raw_port}/raw"},
            "REST get_memo": {
                "method": "GET", "url": f"http://127.0.0.1:{mesq_port}/api/toolkit/memo/{memo_id}", "headers": auth},
            "MCP tools/call get_memo": {
                "method": "POST", "url": f"http://127.0.0.1:{mesq_port}/mcp", "headers": mcp_headers,
                "json": mcp_body},
        }  # fmt: skip
        env = _server_env()
        raw_command = [sys.executable, "-c", RAW_APP, str(raw_db), str(raw_port)]
        rows: list[tuple[str, str, str]] = []
        with (
            _process(_serve_command(data_dir, mesq_port), mesq_port, env) as server,
            _process(raw_command, raw_port, env),
        ):
            rss_after: list[int] = []
            errors_per_run: list[int] = []
            for run in range(RUNS):
                results = asyncio.run(_load(targets))
                rss_after.append(_rss_kib(server.pid)[0])
                errors_per_run.append(int(sum(r["errors"] for r in results.values())))
                if run == 0:
                    rows += _load_rows(results)
            peak = _rss_kib(server.pid)[1]
        runs = ", ".join(f"{kib / 1024:.0f}" for kib in rss_after)
        growth = (rss_after[-1] - rss_after[0]) / 1024
        rows.append(("mesq serve RSS after each of 3 back-to-back load runs", f"{runs} MB",
                     f"growth {growth:+.1f} MB run 1->3; peak {peak / 1024:.0f} MB"))  # fmt: skip
        rows.append(("load runs: errors per run", ", ".join(map(str, errors_per_run)), "every answer 200, no error"))
    return rows


def _load_rows(results: dict[tuple[str, int], dict[str, float]]) -> list[tuple[str, str, str]]:
    rows = []
    baseline_name = next(iter({name for name, _ in results if "baseline" in name}))
    for (name, concurrency), result in results.items():
        base = results[(baseline_name, concurrency)]
        rows.append(
            (
                f"load c={concurrency}: {name}",
                f"{result['rps']:.0f} rps",
                f"p50 {result['p50'] * 1000:.1f} ms, p99 {result['p99'] * 1000:.1f} ms; "
                f"{base['rps'] / result['rps']:.2f}x baseline time/request; {int(result['errors'])} errors",
            )
        )
    return rows


if __name__ == "__main__":
    for row in rows_load() + rows_upload():
        print(f"{row[0]:<70} {row[1]:>14}  {row[2]}")
