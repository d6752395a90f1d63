"""Ready the moment it answers (issue 46; issue 42 §4), measured as a new user meets it:

1. `import_to_search`: 20,000 Markdown notes imported with `mesq import --markdown` (its index
   build included: the import's own time), then `mesq serve`: time to listen and to `/healthz`
   ready, RSS before any search, the first AI search after the server answers, the first 10
   literal searches (search_memos), and the longest any other request waited during the first
   minute (a prober lists memos every 200 ms meanwhile; the first AI search has its own bound).
   Then the same after a kill -9 in the middle of the import's index build and a rerun of the
   import (the rerun resumes the build: the records its first progress line has already read).
   Then a search on an account whose AI index is missing: its degraded answer's time, and how
   long until a search is complete.
2. `literal_at_start`: 100k memos on SQLite: `mesq serve`'s ready time, the first 10 literal
   searches once ready (each, and their p95), and literal searches right after a write (the
   overlay's update must not pause them); on DynamoDB Local + S3 (moto server) a fresh process's
   first literal search at 100k, with the index load timed apart.
3. `cold_start`: `mesq serve` from exec to the first successful MCP tools/call, beside the same
   at commit a527e4b (its tree from `git archive`, run by the same interpreter), in turns; and
   the idle RSS of each before any search.

Every section prints the load average at its start and end (the machine is shared).
MESQ_BENCH_SCALE=0.05 shrinks the corpora for a quick try (the goals then show "not run").

Run alone (`python bench/ready.py [section ...]`) or as sections of `bench/run.py`."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest.mock
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

SCALE = float(os.environ.get("MESQ_BENCH_SCALE", "1"))
NOTES = max(200, int(20_000 * SCALE))
LITERAL_MEMOS = max(1_000, int(100_000 * SCALE))
BASELINE_COMMIT = "a527e4b"
PASSWORD = "correct horse battery"
FIRST_MINUTE_S = 60.0
PROBE_EVERY_S = 0.2
COLD_RUNS = 5
Row = tuple[str, str, str]


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


def _env(**extra: str) -> dict[str, str]:
    """This process's environment without its own store (each command names its data directory),
    plus `extra`, which may name one (the DynamoDB Local run's MESQ_STORAGE)."""
    env = {**os.environ, "MCP_RATE_LIMIT_PROFILE": "off", "POWERTOOLS_METRICS_DISABLED": "true"}
    env.pop("MESQ_STORAGE", None)
    env.pop("MESQ_DATA_DIR", None)
    return {**env, **extra}


#: How to run `mesq` from a tree: today's `mesq.runtime.cli`; a527e4b's was `mesq.cli`.
ENTRY = "import sys; from {module} import main; sys.exit(main(sys.argv[1:]))"


def _mesq(module: str = "mesq.runtime.cli") -> list[str]:
    return [sys.executable, "-c", ENTRY.format(module=module)]


def _cli(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None, module: str = "mesq.runtime.cli"
) -> str:
    done = subprocess.run(
        [*_mesq(module), *args], input=stdin, capture_output=True, text=True,
        env=env or _env(), cwd=tempfile.gettempdir(), timeout=3600 * 4,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"mesq {args[0]} failed: {done.stderr[-2000:]}")
    return done.stdout


def _account(
    data_dir: Path, username: str = "reader", env: dict[str, str] | None = None, module: str = "mesq.runtime.cli"
) -> str:
    """A user and a token with every scope a search needs, made with the CLI."""
    made = ("user", "create", username, "--password-stdin", "--data-dir", str(data_dir))
    _cli(*made, env=env, stdin=PASSWORD + "\n", module=module)
    scopes = "memo:read,memo:write,todo:read,reading:read"
    out = _cli("token", "create", username, "--name", "bench", "--scopes", scopes, "--data-dir", str(data_dir),
               env=env, module=module)  # fmt: skip
    return out.strip().splitlines()[-1]


# -- the Markdown corpus -----------------------------------------------------------------------------


def write_notes(folder: Path, count: int, seed: int = 46) -> list[str]:
    """`count` notes in natural English / Chinese vocabulary (ai_search.RealisticCorpus), one
    `.md` file each with a title line; returns a few words of them for the searches."""
    from ai_search import RealisticCorpus

    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    corpus = RealisticCorpus(rng)
    for n in range(count):
        text, _terms = corpus.memo_and_terms()
        (folder / f"note-{n:05d}.md").write_text(f"# Note {n}\n\n{text}\n", encoding="utf-8")
    return [corpus.query() for _ in range(20)]


# -- a server and what it answers --------------------------------------------------------------------


class Server:
    """`mesq serve` (or the same module of another tree, `pythonpath`) on a free port."""

    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, pythonpath: Path | None = None) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(env or _env())
        module = "mesq.runtime.cli"
        if pythonpath is not None:
            env["PYTHONPATH"] = f"{pythonpath}{os.pathsep}{env.get('PYTHONPATH', '')}"
            module = "mesq.runtime.cli" if (pythonpath / "mesq" / "runtime" / "cli").is_dir() else "mesq.cli"
        argv = [*_mesq(module), "serve", "--data-dir", str(data_dir), "--port", str(self.port)]
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            argv, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip

    def wait_answering(self, timeout: float = 120) -> float:
        """Seconds from exec to the first /healthz answer."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mesq serve exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.base}/healthz", timeout=5).status_code == 200:
                    return time.monotonic() - self.started
            except httpx.HTTPError:
                time.sleep(0.01)
        raise RuntimeError("mesq serve did not answer")

    def wait_ready(self, timeout: float = 600) -> float:
        """Seconds from exec to `/healthz` answering `ready: true`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if httpx.get(f"{self.base}/healthz", timeout=30).json().get("ready", True):
                return time.monotonic() - self.started
            time.sleep(0.05)
        raise RuntimeError("mesq serve did not become ready")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@contextlib.contextmanager
def serving(data_dir: Path, env: dict[str, str] | None = None, pythonpath: Path | None = None) -> Iterator[Server]:
    server = Server(data_dir, env, pythonpath)
    try:
        yield server
    finally:
        server.stop()


class Prober:
    """Lists memos every PROBE_EVERY_S on its own thread and keeps every request's time."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.headers = base, {"Authorization": f"Bearer {token}"}
        self.times: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        with httpx.Client(timeout=60) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    ok = client.get(f"{self.base}/api/toolkit/memo", params={"limit": 5}, headers=self.headers)
                    self.failures += ok.status_code != 200
                except httpx.HTTPError:
                    self.failures += 1
                self.times.append(time.perf_counter() - started)
                self._stop.wait(PROBE_EVERY_S)


@contextlib.contextmanager
def client_gc_off() -> Iterator[None]:
    """This (the client's) process collects nothing while it times requests, as `timeit` does: a
    full collection here, over what earlier sections left in this process (the 100k seeded
    contents, boto3), took ~100 ms and landed inside a timed search (literal at start measured a
    first search of 103 ms after `history_cost`, 15 ms alone). One collection before, none during."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _timed(client: httpx.Client, method: str, url: str, **options: Any) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    response = client.request(method, url, **options)
    seconds = time.perf_counter() - started
    response.raise_for_status()
    return seconds, response.json()["data"]


def first_minute(data_dir: Path, token: str, queries: list[str], literal_needles: list[str]) -> dict[str, Any]:
    """`mesq serve` on `data_dir`: its first minute as issue 46's Done-when reads it."""
    headers = {"Authorization": f"Bearer {token}"}
    figures: dict[str, Any] = {}
    with serving(data_dir) as server, httpx.Client(timeout=120, headers=headers) as client:
        figures["listening_s"] = server.wait_answering()
        with Prober(server.base, token) as prober:
            ai = f"{server.base}/api/toolkit/memo/ai-search"
            figures["first_ai_s"], first = _timed(client, "POST", ai, json={"query": queries[0], "limit": 10})
            figures["first_ai_degraded"] = first["degraded"]
            figures["ready_s"] = server.wait_ready()
            figures["rss_after_first_search_mib"] = _rss_mib(server.process.pid)
            literal = f"{server.base}/api/toolkit/memo/search"
            with client_gc_off():
                figures["literal_s"] = [
                    _timed(client, "GET", literal, params={"query": needle})[0] for needle in literal_needles[:10]
                ]
                more = [_timed(client, "POST", ai, json={"query": query, "limit": 10}) for query in queries[1:6]]
            figures["later_ai_s"] = [seconds for seconds, _ in more]
            figures["later_ai_degraded"] = any(answer["degraded"] for _, answer in more)
            left = FIRST_MINUTE_S - (time.monotonic() - server.started)
            time.sleep(max(left, 0))
        figures["longest_wait_s"] = max([*prober.times, *figures["literal_s"], *figures["later_ai_s"]])
        figures["probes"], figures["probe_failures"] = len(prober.times), prober.failures
    return figures


def idle_rss(data_dir: Path) -> tuple[float, float]:
    """(seconds to ready, RSS MiB once ready and quiet, before any search)."""
    with serving(data_dir) as server:
        server.wait_answering()
        ready = server.wait_ready()
        time.sleep(1.0)
        return ready, _rss_mib(server.process.pid)


# -- 1. import to the first AI search ----------------------------------------------------------------


def _import(data_dir: Path, notes: Path, kill_at: float | None = None) -> tuple[float, int | None]:
    """`mesq import --markdown` (seconds); with `kill_at`, SIGKILL once its index build has read
    that share of the records: then (seconds until the kill, records read when killed)."""
    argv = [*_mesq(), "import", "reader", "--markdown", str(notes), "--data-dir", str(data_dir)]
    started = time.monotonic()
    process = subprocess.Popen(argv, env=_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    read = None
    for line in process.stdout:
        found = re.match(r"search index: ([\d,]+) of ([\d,]+) records", line)
        if found and kill_at is not None:
            read = int(found.group(1).replace(",", ""))
            if read >= kill_at * int(found.group(2).replace(",", "")):
                process.kill()
                break
    process.wait()
    if kill_at is None and process.returncode != 0:
        raise RuntimeError(f"mesq import failed ({process.returncode})")
    return time.monotonic() - started, read


def _resumed_at(data_dir: Path, notes: Path) -> tuple[float, int]:
    """A rerun of the import: its seconds and the records its first progress line had read."""
    argv = [*_mesq(), "import", "reader", "--markdown", str(notes), "--data-dir", str(data_dir)]
    started = time.monotonic()
    done = subprocess.run(argv, env=_env(), cwd=REPO, capture_output=True, text=True, timeout=3600 * 4)
    if done.returncode != 0:
        raise RuntimeError(f"mesq import (rerun) failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    first = re.search(r"search index: ([\d,]+) of", done.stdout)
    return time.monotonic() - started, int(first.group(1).replace(",", "")) if first else -1


def _needles(notes: Path) -> list[str]:
    """Literal needles: words of the notes (two Chinese characters or one English word)."""
    rng = random.Random(7)
    files = sorted(notes.iterdir())
    found: list[str] = []
    while len(found) < 10:
        text = rng.choice(files).read_text(encoding="utf-8").split("\n", 2)[-1]
        han = re.findall(r"[\u4e00-\u9fff]{2}", text)
        words = re.findall(r"[a-z]{5,}", text)
        pool = han or words
        if pool:
            found.append(rng.choice(pool))
    return found


def _minute_rows(label: str, figures: dict[str, Any]) -> list[Row]:
    literal = figures["literal_s"]
    return [
        (f"{label}: mesq serve answering (exec to /healthz)", f"{figures['listening_s']:.2f} s", ""),
        (f"{label}: first AI search after it answers", f"{figures['first_ai_s']:.2f} s",
         f"goal <= 3 s; degraded={figures['first_ai_degraded']}"),
        (f"{label}: /healthz ready (exec to ready)", f"{figures['ready_s']:.2f} s", ""),
        (f"{label}: first 10 literal searches, each (ms)", " ".join(f"{s * 1000:.0f}" for s in literal),
         f"max {max(literal) * 1000:.0f} ms; goal each <= 50 ms"),
        (f"{label}: next 5 AI searches, max", f"{max(figures['later_ai_s']) * 1000:.0f} ms",
         f"degraded={figures['later_ai_degraded']}"),
        (f"{label}: longest wait of any other request in the first minute",
         f"{figures['longest_wait_s'] * 1000:.0f} ms",
         f"goal <= 1,000 ms (all but the first AI search); {figures['probes']} list_memos probes, "
         f"{figures['probe_failures']} failed"),
        (f"{label}: RSS after the first searches", f"{figures['rss_after_first_search_mib']:.0f} MiB", ""),
    ]  # fmt: skip


def rows_import_to_search() -> list[Row]:
    from goals import record

    rows: list[Row] = [("import to search: load average at start", load_average(), "1, 5, 15 min")]
    work = Path(tempfile.mkdtemp(prefix="mesq-bench-ready-"))
    try:
        notes = work / "notes"
        queries = write_notes(notes, NOTES)
        needles = _needles(notes)
        clean, killed = work / "clean", work / "killed"
        clean_token = token = _account(clean)
        seconds, _ = _import(clean, notes)
        rows.append((f"mesq import --markdown, {NOTES:,} notes, index build included", f"{seconds:.0f} s",
                     f"{NOTES / seconds:.0f} notes/s"))  # fmt: skip
        ready, rss = idle_rss(clean)
        rows.append((f"idle RSS before any search, {NOTES:,} notes (ready after {ready:.1f} s)", f"{rss:.0f} MiB", ""))
        figures = first_minute(clean, token, queries, needles)
        rows += _minute_rows(f"{NOTES:,} notes", figures)
        record("first AI search after import", NOTES, figures["first_ai_s"] * 1000, 3000, "the goal", "ms")
        record("first 10 literal after import", NOTES, max(figures["literal_s"]) * 1000, 50, "the goal", "ms")
        record("longest wait first minute", NOTES, figures["longest_wait_s"] * 1000, 1000, "the goal", "ms")

        token = _account(killed)
        until_kill, read = _import(killed, notes, kill_at=0.5)
        rerun, resumed = _resumed_at(killed, notes)
        rows.append((f"kill -9 at {read or 0:,} records read ({until_kill:.0f} s in), rerun", f"{rerun:.0f} s",
                     f"its build resumed at {resumed:,} records (0 = started over)"))  # fmt: skip
        figures = first_minute(killed, token, queries, needles)
        rows += _minute_rows("after kill -9 + rerun", figures)
        record("first AI search after kill -9", NOTES, figures["first_ai_s"] * 1000, 3000, "the goal", "ms")

        rows += _missing_index(clean, clean_token, queries)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.append(("import to search: load average at end", load_average(), "1, 5, 15 min"))
    return rows


def _missing_index(data_dir: Path, token: str, queries: list[str]) -> list[Row]:
    """The AI index of the account removed (pointer and blobs), then `mesq serve` and a search."""
    from mesq.auth.users import find_user_by_name
    from mesq.search.persist import IndexRepository
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    services = build_services(Settings.from_env().with_overrides(data_dir=data_dir, search_index_updates="off"))
    user_id = find_user_by_name(services.items, "reader")["userId"]
    IndexRepository(services.items, services.blobs, services.search).drop(user_id)
    services.items.close()
    headers = {"Authorization": f"Bearer {token}"}
    with serving(data_dir) as server, httpx.Client(timeout=120, headers=headers) as client:
        server.wait_answering()
        server.wait_ready()
        ai = f"{server.base}/api/toolkit/memo/ai-search"
        first_s, first = _timed(client, "POST", ai, json={"query": queries[0], "limit": 10})
        started = time.monotonic()
        while True:
            _seconds, later = _timed(client, "POST", ai, json={"query": queries[1], "limit": 10})
            if not later["degraded"] or time.monotonic() - started > 3600 * 2:
                break
            time.sleep(5)
        complete_after = time.monotonic() - started
    return [
        ("AI index missing: the first search answers", f"{first_s * 1000:.0f} ms",
         f"goal <= 1,000 ms; degraded={first['degraded']}: {first.get('reason', '')[:60]}"),
        ("AI index missing: a complete search after", f"{complete_after:.0f} s",
         f"degraded={later['degraded']} (the build on mesq serve's build worker)"),
    ]  # fmt: skip


# -- 2. literal indexes at start (42 §4) ------------------------------------------------------------


def _seed_literal(data_dir: Path, count: int, env: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """`count` memos written directly (bench/memo_seed.py) and the user's literal indexes built;
    no AI index (its build would embed 100k notes: not this section's subject)."""
    from literal_search import _content, _han_pool, _seed

    from mesq.application.registries import SEARCHABLES
    from mesq.auth.users import find_user_by_name
    from mesq.search import literal_store
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    token = _account(data_dir, env=env)
    settings = Settings.from_env(env or _env()).with_overrides(data_dir=data_dir, search_index_updates="off")
    services = build_services(settings)
    user_id = find_user_by_name(services.items, "reader")["userId"]
    rng = random.Random(42)
    han = _han_pool(rng)
    weights = [1 / (rank + 1) for rank in range(len(han))]
    contents = [_content(rng, han, weights) for _ in range(count)]
    _seed(services.items, user_id, contents)
    for kind in SEARCHABLES.literal:
        literal_store.rebuild(services, user_id, kind)
    services.items.close()
    needles = [contents[rng.randrange(count)][i : i + 2] for i in range(10)]
    return token, needles


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) > 1 else values[0]


def rows_literal_at_start() -> list[Row]:
    from goals import record

    rows: list[Row] = [("literal at start: load average at start", load_average(), "1, 5, 15 min")]
    work = Path(tempfile.mkdtemp(prefix="mesq-bench-literal-"))
    try:
        data_dir = work / "sqlite"
        token, needles = _seed_literal(data_dir, LITERAL_MEMOS)
        headers = {"Authorization": f"Bearer {token}"}
        with serving(data_dir) as server, httpx.Client(timeout=120, headers=headers) as client:
            listening = server.wait_answering()
            ready = server.wait_ready()
            search = f"{server.base}/api/toolkit/memo/search"
            with client_gc_off():
                first = [_timed(client, "GET", search, params={"query": needle})[0] for needle in needles]
                created = client.post(f"{server.base}/api/toolkit/memo", json={"content": f"{needles[0]} written now"})
                assert created.status_code == 201, created.text
                after = [_timed(client, "GET", search, params={"query": needle})[0] for needle in needles]
            rss = _rss_mib(server.process.pid)
        rows += [
            (f"literal at start, SQLite, {LITERAL_MEMOS:,} memos: listening / ready",
             f"{listening:.2f} s / {ready:.2f} s", "exec to /healthz, exec to ready: the literal indexes loaded"),
            ("literal at start: first 10 searches once ready, each (ms)", " ".join(f"{s * 1000:.0f}" for s in first),
             f"p95 {_p95(first) * 1000:.1f} ms; goal <= 50 ms"),
            ("literal at start: 10 searches right after a write, each (ms)", " ".join(f"{s * 1000:.0f}" for s in after),
             f"p95 {_p95(after) * 1000:.1f} ms (the overlay's update)"),
            ("literal at start: RSS after", f"{rss:.0f} MiB", ""),
        ]  # fmt: skip
        record("literal first 10 after start", LITERAL_MEMOS, _p95(first) * 1000, 50, "the goal", "ms")
        rows += _literal_dynamodb(work, needles)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.append(("literal at start: load average at end", load_average(), "1, 5, 15 min"))
    return rows


FRESH_PROCESS = """
import json, sys, time
started = time.perf_counter()
from mesq.auth.users import find_user_by_name
from mesq.kernel.context import Call, Principal
from mesq.memos.reads import search_memos
from mesq.search import literal_store
from mesq.memos.literal import LITERAL as MEMO
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services
services = build_services(Settings.from_env())
user_id = find_user_by_name(services.items, "reader")["userId"]
imported = time.perf_counter()
loaded = literal_store.repository(services, MEMO).load(user_id)
load = time.perf_counter() - imported
services.search.cache.clear()  # the search below loads it again, as a fresh process's first search
call = Call(Principal(user_id, frozenset({"memo:read"}), "bench", "pat"), services, "bench", "api")
clock = time.perf_counter()
answer = search_memos(call, {"query": sys.argv[1]})
first = time.perf_counter() - clock
print(json.dumps({"load": load, "first": first, "rows": len(loaded[0]) if loaded else 0,
                  "found": len(answer["timelineItems"]) if "timelineItems" in answer else -1}))
"""


def _literal_dynamodb(work: Path, needles: list[str]) -> list[Row]:
    """The same memos on DynamoDB Local + S3 (moto server): a fresh process's first literal
    search, and the index load (pointer, snapshot and overlay read, unpacked) timed apart."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mesq_bench_dynamodb_local", REPO / "infra" / "dynamodb_local.py")
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    try:
        dynamodb = runner.start_dynamodb_local()
    except runner.DynamoDBLocalUnavailable as exc:
        return [("literal at start, DynamoDB Local + S3", "n/a", f"DynamoDB Local unavailable: {exc}")]
    s3_port = _free_port()
    moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-p", str(s3_port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        with dynamodb:
            env = _env(
                MESQ_STORAGE="dynamodb", MESQ_TABLE="mesq-bench-literal", MESQ_BUCKET="mesq-bench-literal",
                MESQ_DYNAMODB_ENDPOINT=dynamodb.endpoint, MESQ_S3_ENDPOINT=f"http://127.0.0.1:{s3_port}",
                AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
                MESQ_SEARCH_INDEX_UPDATES="stream",
            )  # fmt: skip
            _wait_port(s3_port)
            import boto3

            boto3.client("s3", endpoint_url=env["MESQ_S3_ENDPOINT"], region_name="us-east-1",
                         aws_access_key_id="testing", aws_secret_access_key="testing").create_bucket(
                Bucket=env["MESQ_BUCKET"])  # fmt: skip
            _cli("user", "list", "--storage", "dynamodb", env=env)  # creates the table on the local endpoint
            aws = {name: value for name, value in env.items() if name.startswith("AWS_")}
            with unittest.mock.patch.dict(os.environ, aws):  # boto3 in this process reads them there
                _token, needles = _seed_literal(work / "unused", LITERAL_MEMOS, env=env)
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", FRESH_PROCESS, needles[0]], env=env, cwd=REPO,
                                  capture_output=True, text=True, timeout=600)  # fmt: skip
            whole = time.perf_counter() - started
            if done.returncode != 0:
                return [("literal at start, DynamoDB Local + S3", "failed", done.stderr[-300:])]
            result = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        os.killpg(moto.pid, signal.SIGTERM)
        moto.wait()
    from goals import record

    record("literal first search DynamoDB", LITERAL_MEMOS, result["first"] * 1000, 1000, "the goal", "ms")
    return [
        (f"literal at start, DynamoDB Local + S3, {result['rows']:,} rows: the index load",
         f"{result['load'] * 1000:.0f} ms", "pointer + snapshot + overlay read and unpacked"),
        ("literal at start, DynamoDB Local + S3: a fresh process's first literal search",
         f"{result['first'] * 1000:.0f} ms",
         f"goal <= 1,000 ms (the load included); {result['found']} hits; the process {whole:.1f} s in all"),
    ]  # fmt: skip


def _wait_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


# -- 3. cold start vs a527e4b ------------------------------------------------------------------------


async def _first_tools_call(base: str, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip
    client_info = {"name": "bench", "version": "1"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client_info}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_memos", "arguments": {}}}
    async with httpx.AsyncClient(timeout=60, headers=headers) as client:
        answer = await client.post(f"{base}/mcp", json=init)
        answer.raise_for_status()
        session = answer.headers.get("mcp-session-id")
        more = {"mcp-session-id": session} if session else {}
        await client.post(f"{base}/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=more)
        result = await client.post(f"{base}/mcp", json=call, headers=more)
        result.raise_for_status()
        body = result.text
        if '"isError":true' in body.replace(" ", "") or '"result"' not in body:
            raise RuntimeError(f"tools/call failed: {body[:300]}")


def _cold_start(data_dir: Path, token: str, pythonpath: Path | None) -> tuple[float, float]:
    """(seconds from exec to the first successful tools/call, RSS MiB 3 s after it)."""
    with serving(data_dir, pythonpath=pythonpath) as server:
        while True:
            try:
                asyncio.run(_first_tools_call(server.base, token))
                break
            except (httpx.HTTPError, OSError):
                if server.process.poll() is not None or time.monotonic() - server.started > 120:
                    raise
                time.sleep(0.005)
        seconds = time.monotonic() - server.started
        time.sleep(3.0)
        return seconds, _rss_mib(server.process.pid)


def rows_cold_start() -> list[Row]:
    rows: list[Row] = [("cold start: load average at start", load_average(), "1, 5, 15 min")]
    work = Path(tempfile.mkdtemp(prefix="mesq-bench-cold-"))
    try:
        tree = work / "baseline"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", BASELINE_COMMIT, "layers/core"],
                                 capture_output=True, check=True)  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        baseline_core = tree / "layers" / "core"
        now_dir, then_dir = work / "now", work / "then"
        now_token = _account(now_dir)
        then_env = _env(PYTHONPATH=str(baseline_core))
        then_token = _account(then_dir, env=then_env, module="mesq.cli")
        samples: dict[str, list[tuple[float, float]]] = {"now": [], "then": []}
        for _run in range(COLD_RUNS):  # in turns: the machine's load hits both alike
            samples["now"].append(_cold_start(now_dir, now_token, None))
            samples["then"].append(_cold_start(then_dir, then_token, baseline_core))
        now = statistics.median(s for s, _ in samples["now"])
        then = statistics.median(s for s, _ in samples["then"])
        now_rss = statistics.median(r for _, r in samples["now"])
        then_rss = statistics.median(r for _, r in samples["then"])
        rows += [
            ("mesq serve cold start to the first tools/call (median of 5)", f"{now * 1000:.0f} ms",
             f"{now / then:.2f}x commit {BASELINE_COMMIT}'s {then * 1000:.0f} ms, in turns; goal <= 1.1x"),
            ("mesq serve idle RSS 3 s after that call (no search)", f"{now_rss:.0f} MiB",
             f"commit {BASELINE_COMMIT}: {then_rss:.0f} MiB; goal <= 120 MiB"),
        ]  # fmt: skip
        from goals import record

        record("cold start vs a527e4b", 1, now * 1000, then * 1000, f"commit {BASELINE_COMMIT}", "ms")
        record("idle RSS", 1, now_rss, then_rss, f"commit {BASELINE_COMMIT}", "MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.append(("cold start: load average at end", load_average(), "1, 5, 15 min"))
    return rows


SECTIONS = {"import_to_search": rows_import_to_search, "literal_at_start": rows_literal_at_start,
            "cold_start": rows_cold_start}  # fmt: skip

if __name__ == "__main__":
    for name in sys.argv[1:] or list(SECTIONS):
        for label, value, note in SECTIONS[name]():
            print(f"{label:72}  {value:>14}  {note}", flush=True)
