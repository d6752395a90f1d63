"""Fixtures shared by every test layer: services on a throwaway SQLite store, users with PATs,
an in-process client of the local app, and a real `mesq serve` subprocess."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx
import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services, build_services
from tests.hypothesis_lanes import FAST as _FAST_PROFILE  # noqa: F401  (registers the `fast` profile)
from tests.settings import inprocess_settings

REPO = Path(__file__).resolve().parents[1]
ALL_MEMO = "memo:read,memo:write"


@dataclass(frozen=True)
class Account:
    user_id: str
    username: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class _RememberingHasher:
    """argon2id at the production parameters, remembering within one test process the hash of a
    password it has hashed and the verdict on a (hash, password) pair it has checked.

    A hash costs ~0.1 s on an idle 2-core machine (1 s under load) and almost every test creates
    its users with the same password and signs them in with it: the first hash and the first check
    are real argon2id work, later ones replay it. Everything stored and checked is still a real
    argon2id hash at the production parameters; the only difference is that users of one test
    process with the same password share one salt. Tests that run the CLI or a server in a
    subprocess hash for real every time."""

    def __init__(self) -> None:
        from argon2 import PasswordHasher

        self._hasher = PasswordHasher()  # the parameters mesq.auth.passwords uses
        self._hashes: dict[str | bytes, str] = {}
        self._verdicts: dict[tuple[str | bytes, str | bytes], Exception | None] = {}

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        if salt is not None:
            return self._hasher.hash(password, salt=salt)
        if password not in self._hashes:
            self._hashes[password] = self._hasher.hash(password)
        return self._hashes[password]

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        key = (hash, password)
        if key not in self._verdicts:
            try:
                self._verdicts[key] = None if self._hasher.verify(hash, password) else AssertionError(hash)
            except Exception as refused:  # VerifyMismatchError, InvalidHashError...: replayed below
                self._verdicts[key] = refused
        refused = self._verdicts[key]
        if refused is not None:
            raise refused
        return True


@pytest.fixture(scope="session", autouse=True)
def _remembered_password_hashes() -> Iterator[None]:
    import mesq.auth.passwords as passwords

    hasher = _RememberingHasher()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "_hasher", lambda: hasher)
        yield


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    built = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    yield built
    built.items.close()


@pytest.fixture
def make_account(services: Services) -> Callable[..., Account]:
    counter = iter(range(1, 10_000))

    def make(scopes: str = ALL_MEMO, username: str | None = None) -> Account:
        name = username or f"user{next(counter)}"
        user = create_user(services.items, name, "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="test", scopes=scopes)
        return Account(user_id=user["id"], username=name, token=token)

    return make


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_local_app(services), raise_server_exceptions=False) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    base_url: str
    data_dir: Path
    process: subprocess.Popen[str]
    #: What the server printed after it became ready (stdout and stderr), line by line.
    output: list[str] = field(default_factory=list)

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, "--data-dir", str(self.data_dir), stdin=stdin)

    def cli_here(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """`cli` run by the CLI's `main` in this process: the same parser, settings (from this
        process's environment, as a child's would be) and commands, without a new interpreter."""
        from mesq.runtime.cli.main import main

        argv = [*args, "--data-dir", str(self.data_dir)]
        stdout, stderr = io.StringIO(), io.StringIO()
        with _CLI_STDIN, contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            saved, sys.stdin = sys.stdin, io.StringIO(stdin)
            try:
                status = main(argv)
            except SystemExit as exit:  # argparse's usage error: the status a command would exit with
                status = exit.code if isinstance(exit.code, int) else 1
            finally:
                sys.stdin = saved
        return subprocess.CompletedProcess(argv, status, stdout.getvalue(), stderr.getvalue())

    def account(self, username: str, scopes: str = ALL_MEMO, token_name: str = "e2e") -> Account:
        """A user and a token of it, made by `mesq user create` and `mesq token create` (their
        `main`, in this process: as two commands they start two interpreters, ~0.6 s idle and
        1-3 s on a busy worker, for each of the suite's few hundred accounts; the CLI's own tests
        run it as a command)."""
        created = self.cli_here("user", "create", username, "--password-stdin", stdin="correct horse battery\n")
        assert created.returncode == 0, created.stderr
        user_id = re.search(r"\((\w+)\)", created.stdout)
        token = self.token(username, scopes, token_name)
        return Account(user_id=user_id.group(1) if user_id else "", username=username, token=token)

    def token(self, username: str, scopes: str = ALL_MEMO, name: str = "e2e") -> str:
        """The secret of a new token of `username`, made by `mesq token create` (in this process)."""
        made = self.cli_here("token", "create", username, "--name", name, "--scopes", scopes)
        assert made.returncode == 0, made.stderr
        return made.stdout.strip().splitlines()[-1]


#: `LiveServer.cli_here` swaps the process's stdin: one caller at a time.
_CLI_STDIN = threading.Lock()


def run_cli(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mesq.runtime.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def start_server(
    data_dir: Path,
    env: dict[str, str] | None = None,
    *extra: str,
    command: list[str] | None = None,
    cwd: Path = REPO,
) -> LiveServer:
    """Start `mesq serve` (or `command`, e.g. `make run`, run in `cwd`) on a free port; wait until it
    says where it listens and answers /healthz."""
    port = free_port()
    argv = command or [sys.executable, "-m", "mesq.runtime.cli", "serve", "--data-dir", str(data_dir)]
    if command is None:
        argv += ["--port", str(port), *extra]
    else:
        argv = [part.replace("{port}", str(port)).replace("{data_dir}", str(data_dir)) for part in argv]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
        env={**os.environ, **(env or {})}, start_new_session=True,  # one process group to stop
    )  # fmt: skip
    assert process.stdout is not None
    try:
        return _ready(process, argv, data_dir, deadline=time.monotonic() + 120)
    except BaseException:  # never leave a server running behind a failed start (a loaded machine)
        os.killpg(process.pid, signal.SIGKILL)
        raise


def _ready(process: subprocess.Popen[str], argv: list[str], data_dir: Path, deadline: float) -> LiveServer:
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            raise RuntimeError(f"{argv[0]} exited with {process.returncode}")
        if "listening on" in line:
            base_url = line.strip().rsplit(" ", 1)[-1]
            assert httpx.get(f"{base_url}/healthz", timeout=30).status_code == 200
            # Keep draining the server's output so a chatty log can never block it on a full pipe.
            live = LiveServer(base_url=base_url, data_dir=data_dir, process=process)
            threading.Thread(target=_drain, args=(process.stdout, live.output), daemon=True).start()
            return live
    raise RuntimeError("the server did not report readiness within 120 s")


def _drain(stream: IO[str], lines: list[str]) -> None:
    for line in stream:
        lines.append(line.rstrip("\n"))


def stop_server(server: LiveServer) -> None:
    os.killpg(server.process.pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(server.process.pid, signal.SIGKILL)


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    server = start_server(tmp_path / "live")
    yield server
    stop_server(server)


# --- The fast lane: markers by rule, so a new test is marked without being edited -------------
# A test is `browser` when its code or a fixture's code opens Chromium, `e2e` when it starts a real
# server or sits in tests/e2e or tests/conformance (Node), `dynamodb_local` when it or a fixture
# starts DynamoDB Local. `make test-fast` deselects these and `slow` (docs/testing.md).
_MARK_BY_NAME = {
    "chromium_page": "browser",
    "start_server": "e2e",
    "live_server": "e2e",
    "start_dynamodb_local": "dynamodb_local",
    "dynamodb_local": "dynamodb_local",
    "dynamodb_local_endpoint": "dynamodb_local",
    "dynamodb_local_env": "dynamodb_local",
    # The whole SAM transform (aws-sam-translator) and cfn-lint: 15-45 s a test on this machine. The
    # IAM checks' transform without the routes (`transformed_permissions`, 0.05 s) stays in the lane.
    "transformed": "slow",
    # A fresh Python interpreter (the CLI, a cold-import probe, a Lambda function's own process):
    # 1-5 s of imports each. Code that names `sys.executable` next to `subprocess` is marked too.
    "run_cli": "slow",
    # Node (ajv, the MCP conformance suite's client).
    "node_executable": "e2e",
    # A Code Mode worker pool of its own (mesq/mcp/code/pool.py): real worker processes with V8,
    # checked against wall-clock budgets (a time stop, the per-user share's queue).
    "Pool": "slow",
}
_E2E_DIRECTORIES = ("e2e", "conformance")
#: `timing`: tests that assert a wall-clock bound (a deadline kept, a latency, a slow peer cut off
#: in time). `make test` runs every other test on two xdist workers, then these alone, so a
#: neighbour's CPU cannot push them over their bound (docs/testing.md).
_TIMING_FILES = {
    "tests/hostile/test_code_mode_hostile.py",
    "tests/hostile/test_quick_add_stall.py",
    "tests/reminders/test_parallel_sends.py",
    "tests/reminders/test_delivery_target.py",
    "tests/e2e/test_serve_latency.py",
    "tests/e2e/test_outbound_deadlines.py",
    "tests/e2e/test_slow_clients.py",
    "tests/e2e/test_declared_length_refusals.py",
    "tests/e2e/test_serve_dynamodb_preflight.py",
    "tests/e2e/test_search_after_start.py",
    "tests/infra/test_prerequisites.py",
}
_TIMING_TESTS = {
    "tests/search/test_build.py::test_a_search_without_an_index_answers_at_once_then_completely",
    "tests/web/settings/test_reminders_page.py::test_a_test_send_to_a_receiver_that_never_answers_ends_within_its_deadline",
}
#: Names whose use makes a test `timing` (a Code Mode pool checks its time stop and queue).
_TIMING_NAMES = {"Pool"}
_SLOW_FILES = {"tests/search/test_relevance.py"}
#: Single tests that take tens of seconds by design (measured with `--durations`).
_SLOW_TESTS = {
    "tests/search/test_indexer_stream.py::test_index_and_store_agree_after_200_writes_through_the_stream",
    "tests/reminders/test_parallel_sends.py::test_a_webhook_that_never_answers_does_not_hold_back_another",
    # waits out a real 10 s send deadline against a receiver that never answers
    "tests/web/settings/test_reminders_page.py::test_a_test_send_to_a_receiver_that_never_answers_ends_within_its_deadline",
    # the paged views' sizes over moto's DynamoDB, 4-5 s a case (the SQLite cases stay in the lane)
    "tests/todos/views/test_views_paged_store.py::test_sizes_and_pages_on_dynamodb",
    # the graph counts and pages over moto's DynamoDB, 25 writes (~45 s under load)
    "tests/todos/views/test_views_graph_paged.py::test_counts_and_graph_pages_on_dynamodb",
}


def _names_used(code: object, namespace: dict[str, object] | None = None, seen: set[int] | None = None) -> set[str]:
    """Every global name a code object (and the functions nested in it) refers to, and, through
    `namespace` (the globals the code runs with), the names of the helpers it calls that are
    defined in tests/: a test that calls `_run()` which runs `subprocess` is seen to run it."""
    import types

    seen = set() if seen is None else seen
    if not isinstance(code, types.CodeType) or id(code) in seen:
        return set()
    seen.add(id(code))
    names = set(code.co_names)
    for const in code.co_consts:
        names |= _names_used(const, namespace, seen)
    for name in code.co_names:
        helper = (namespace or {}).get(name)
        if isinstance(helper, types.FunctionType) and helper.__module__.startswith("tests."):
            names |= _names_used(helper.__code__, helper.__globals__, seen)
    return names


_NAMES_OF: dict[object, frozenset[str]] = {}


def _names_of(function: object) -> frozenset[str]:
    """`_names_used` of a test or fixture function, once per function per process: a fixture is
    used by hundreds of tests, a parametrized test is hundreds of items."""
    target = getattr(function, "__wrapped__", function)
    code = getattr(target, "__code__", None)
    if code not in _NAMES_OF:
        _NAMES_OF[code] = frozenset(_names_used(code, getattr(target, "__globals__", None)))
    return _NAMES_OF[code]


@functools.cache
def _relative_path(path: str) -> str:
    return Path(path).resolve().relative_to(REPO).as_posix()


def lane_marks(item: pytest.Item) -> set[str]:
    """The lane markers `item` gets from its path, its fixtures and the names its code calls."""
    marks: set[str] = set()
    relative = _relative_path(str(item.path))
    parts = relative.split("/")
    if len(parts) > 2 and parts[1] in _E2E_DIRECTORIES:
        marks.add("e2e")
    test_id = f"{relative}::{getattr(item, 'originalname', item.name)}"
    if relative in _SLOW_FILES or test_id in _SLOW_TESTS:
        marks.add("slow")
    if relative in _TIMING_FILES or test_id in _TIMING_TESTS:
        marks.add("timing")
    fixture_names = set(getattr(item, "fixturenames", ()))
    names = set(fixture_names) | _names_of(getattr(item, "function", None))
    info = getattr(item, "_fixtureinfo", None)
    for name in fixture_names:
        for definition in info.name2fixturedefs.get(name, ()) if info else ():
            names |= _names_of(definition.func)
    if "server" in fixture_names and parts[1] == "web":
        names.add("start_server")  # tests/web's `server` fixture is a real `mesq serve`
    marks |= {_MARK_BY_NAME[name] for name in names if name in _MARK_BY_NAME}
    if names & _TIMING_NAMES:
        marks.add("timing")
    if {"subprocess", "executable"} <= names:
        marks.add("slow")  # runs `sys.executable` in a subprocess: a fresh Python interpreter
    return marks


#: Lane markers of the tests that start a server, a browser, DynamoDB Local or a fresh interpreter:
#: seconds a test, where the rest take milliseconds.
_HEAVY_MARKS = frozenset({"browser", "e2e", "dynamodb_local", "slow"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for mark in sorted(lane_marks(item) - {marker.name for marker in item.iter_markers()}):
            item.add_marker(getattr(pytest.mark, mark))
    items[:] = heavy_modules_first(items)


def heavy_modules_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The modules holding a heavy test first, each module's tests together and in their order.
    `make test` hands each module whole to one xdist worker (`--dist loadscope`: a module's
    server, browser and tables start once, not once in each worker its tests land on); started
    first, the long modules end before the quick ones that fill the workers' last minutes."""
    heavy = {item.path for item in items if any(item.get_closest_marker(mark) for mark in _HEAVY_MARKS)}
    return sorted(items, key=lambda item: item.path not in heavy)  # stable: each module stays in order


@pytest.hookimpl(trylast=True)  # after the item's own teardown: its fixtures close their pages first
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After a module's last test (in this process), close the Chromium its pages shared
    (tests/web/chromium.py); a module that opened none imports nothing here."""
    if nextitem is not None and nextitem.path == item.path:
        return
    chromium = sys.modules.get("tests.web.chromium")
    if chromium is not None:
        chromium.close_shared_chromium()
