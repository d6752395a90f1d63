"""`mesq serve` against raw-socket clients that send the headers and then stall, trickle or hang
up: 408 REQUEST_TIMEOUT within the configured deadline on every kind of route, and one log line
per aborted request (no traceback)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from mesq.runtime.lingering_close import LINGER_SECONDS
from tests.conftest import LiveServer, start_server, stop_server

GRACE_SECONDS = 1
MIN_RATE = 1024  # bytes per second
SLACK_SECONDS = 2.0  # scheduling on a busy machine, never a sleep of the test's own


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {"MESQ_BODY_TIMEOUT_SECONDS": str(GRACE_SECONDS), "MESQ_BODY_MIN_RATE_BYTES": str(MIN_RATE)}
    live = start_server(tmp_path_factory.mktemp("slow") / "data", env)
    yield live
    stop_server(live)


@pytest.fixture(scope="module")
def token(server: LiveServer) -> str:
    return server.account("slowpoke").token


def _connect(server: LiveServer) -> tuple[socket.socket, str]:
    parts = urlsplit(server.base_url)
    assert parts.hostname and parts.port
    sock = socket.create_connection((parts.hostname, parts.port), timeout=GRACE_SECONDS + SLACK_SECONDS + 5)
    return sock, parts.netloc


def _head(netloc: str, path: str, content_type: str, length: int, token: str | None = None) -> bytes:
    """The request head; REST and MCP read the body only after the credential checks out."""
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"POST {path} HTTP/1.1\r\nHost: {netloc}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {length}\r\n{auth}\r\n"
    ).encode()


def _read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while chunk := sock.recv(65536):  # the server closes the connection after a 408
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (h.partition(":") for h in header_lines)}
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize(
    ("path", "content_type", "partial", "authenticated"),
    [
        ("/api/toolkit/memo", "application/json", b'{"content": "half', True),
        ("/login", "application/x-www-form-urlencoded", b"username=al", False),
        ("/oauth/token", "application/x-www-form-urlencoded", b"grant_type=auth", False),
        ("/oauth/register", "application/json", b'{"redirect_uris": ', False),
        ("/mcp", "application/json", b'{"jsonrpc": "2.0", ', True),
    ],
)
def test_a_stalled_body_is_answered_408_within_the_deadline(
    server: LiveServer, token: str, path: str, content_type: str, partial: bytes, authenticated: bool
) -> None:
    sock, netloc = _connect(server)
    with sock:
        started = time.monotonic()
        sock.sendall(_head(netloc, path, content_type, 1000, token if authenticated else None) + partial)
        status, headers, body = _read_response(sock)
        elapsed = time.monotonic() - started
    assert status == 408
    assert headers["connection"] == "close"
    envelope = json.loads(body)
    assert envelope["error"]["code"] == "REQUEST_TIMEOUT" and envelope["traceId"] == headers["x-trace-id"]
    # The deadline is the grace plus the bytes already sent at the minimum rate.
    assert GRACE_SECONDS * 0.9 <= elapsed <= GRACE_SECONDS + len(partial) / MIN_RATE + SLACK_SECONDS


def test_a_trickling_body_below_the_minimum_rate_is_cut_off(server: LiveServer, token: str) -> None:
    sock, netloc = _connect(server)
    with sock:
        started = time.monotonic()
        sock.sendall(_head(netloc, "/api/toolkit/memo", "application/json", 100_000, token))
        answer: tuple[int, dict[str, str], bytes] | None = None
        sock.settimeout(0.1)
        for _ in range(200):  # 10 bytes per 0.1 s = 100 B/s, a tenth of the minimum rate
            try:
                sock.sendall(b"x" * 10)
                if sock.recv(1, socket.MSG_PEEK):
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        sock.settimeout(SLACK_SECONDS + 5)
        answer = _read_response(sock)
        elapsed = time.monotonic() - started
    assert answer[0] == 408
    assert elapsed <= GRACE_SECONDS + 1 + SLACK_SECONDS  # far less than the 20 s the trickle would take


@pytest.fixture(scope="module")
def patient_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose body deadline no test reaches: a hang-up is then the only way a request ends,
    whatever the machine's load (with the 1 s grace, a hang-up noticed late also timed out)."""
    env = {"MESQ_BODY_TIMEOUT_SECONDS": "600", "MESQ_BODY_MIN_RATE_BYTES": str(MIN_RATE)}
    live = start_server(tmp_path_factory.mktemp("patient") / "data", env)
    yield live
    stop_server(live)


def test_aborted_bodies_log_one_line_each_and_no_traceback(patient_server: LiveServer) -> None:
    server = patient_server
    token = server.account("hangup").token
    before = len(server.output)
    aborted = 20
    for _ in range(aborted):
        sock, netloc = _connect(server)
        with sock:
            sock.sendall(_head(netloc, "/api/toolkit/memo", "application/json", 1000, token) + b'{"content"')

    def aborted_lines() -> list[str]:
        return [line for line in server.output[before:] if "client aborted the request body" in line]

    deadline = time.monotonic() + 60  # a condition to wait for, not a duration: it ends at the 20th line
    while len(aborted_lines()) < aborted and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = server.output[before:]
    trace_ids = {line.rsplit("traceId ", 1)[-1].rstrip(")") for line in aborted_lines()}
    assert len(trace_ids) == aborted, "".join(lines)  # one line per request, each its own trace id
    assert not any("Traceback" in line for line in lines), "".join(lines)
    assert len(lines) == aborted, "".join(lines)  # and nothing else: no timeout, no access-log line


def test_a_complete_body_is_served_normally(server: LiveServer, token: str) -> None:
    sock, netloc = _connect(server)
    body = json.dumps({"content": "in time"}).encode()
    head = _head(netloc, "/api/toolkit/memo", "application/json", len(body), token)
    with sock:
        sock.sendall(head.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1) + body)
        status, _, answer = _read_response(sock)
    assert status == 201, answer


def test_a_client_that_keeps_sending_after_the_408_is_closed_on_after_the_linger(
    server: LiveServer, token: str
) -> None:
    """The answer is followed by an end of stream at once; what the client sends after it is
    dropped, and the server closes the socket `LINGER_SECONDS` later (runtime/lingering_close.py)."""
    sock, netloc = _connect(server)
    with sock:
        sock.sendall(_head(netloc, "/api/toolkit/memo", "application/json", 1000, token) + b'{"content"')
        status, _, _ = _read_response(sock)  # to the end of the stream: the server shut its side
        answered = time.monotonic()
        closed_after: float | None = None
        while closed_after is None and time.monotonic() - answered < LINGER_SECONDS + SLACK_SECONDS + 5:
            try:
                sock.sendall(b"x" * 10)
                time.sleep(0.05)
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - answered
    assert status == 408
    assert closed_after is not None and LINGER_SECONDS * 0.9 <= closed_after <= LINGER_SECONDS + SLACK_SECONDS
