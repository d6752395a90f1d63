"""No stranger can hold `mesq serve`'s capacity through the OAuth client metadata fetch: a
metadata server that trickles one byte every 3 s is cut off by the fetch's total deadline (5 s,
not per read), at most 4 fetches run at once and further ones are refused at once with
`invalid_client`, and meanwhile another user's REST list answers quickly."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from mesq.http.cimd import DEADLINE_SECONDS, MAX_IN_FLIGHT
from tests.conftest import LiveServer, start_server, stop_server
from tests.oauth.helpers import Pkce, authorize_params

REQUESTS = 20
TRICKLE_SECONDS = 3.0


@pytest.fixture
def trickler() -> Iterator[tuple[str, list[int]]]:
    """A loopback HTTP server that answers every request with a 200 head and then one body byte
    every TRICKLE_SECONDS, never finishing; the list counts the connections it took."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    taken: list[int] = []
    stop = threading.Event()

    def trickle(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                while not stop.wait(TRICKLE_SECONDS):
                    conn.sendall(b" ")
            except OSError:
                return  # the client gave up: what the deadline is for

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed at the end of the test
            taken.append(1)
            threading.Thread(target=trickle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", taken
    stop.set()
    listener.close()


@pytest.fixture
def server(tmp_path) -> Iterator[LiveServer]:
    env = {"MESQ_OAUTH_CIMD_ALLOW_LOOPBACK": "true", "MCP_RATE_LIMIT_ENABLED": "false"}
    live = start_server(tmp_path / "data", env)
    yield live
    stop_server(live)


def test_trickling_metadata_servers_are_cut_off_and_other_users_are_served(server, trickler):
    base, taken = trickler
    token = server.account("bystander").token

    def authorize(number: int) -> tuple[float, int, dict]:
        started = time.monotonic()
        params = authorize_params(f"{base}/client-{number}.json", Pkce.new())
        answer = client.get(f"{server.base_url}/oauth/authorize", params=params)
        return time.monotonic() - started, answer.status_code, answer.json()

    # warm up: the first OAuth request loads the OAuth code (not what is measured here)
    warm = httpx.get(f"{server.base_url}/oauth/authorize", params=authorize_params("unknown", Pkce.new()), timeout=60)
    assert warm.status_code == 400
    lists: list[float] = []
    # one client for the test's threads: a client per request would spend seconds of the test's
    # own CPU building TLS contexts
    limits = httpx.Limits(max_connections=REQUESTS + 2)
    client = httpx.Client(timeout=30, follow_redirects=False, limits=limits)
    with client, ThreadPoolExecutor(REQUESTS) as pool:
        pending = [pool.submit(authorize, n) for n in range(REQUESTS)]
        time.sleep(1.0)  # the fetches that got a slot are now stuck on the trickle
        while not all(future.done() for future in pending):
            started = time.monotonic()
            listed = client.get(f"{server.base_url}/api/toolkit/memo", headers={"Authorization": f"Bearer {token}"})
            lists.append(time.monotonic() - started)
            assert listed.status_code == 200
            time.sleep(0.2)
        results = [future.result() for future in pending]

    assert all(status == 400 and body["error"] == "invalid_client" for _, status, body in results), results
    durations = sorted(elapsed for elapsed, _, _ in results)
    assert durations[-1] < DEADLINE_SECONDS + 1, durations  # each ends within 6 s
    timed_out = [body for _, _, body in results if "did not answer within" in body["error_description"]]
    refused = [body for _, _, body in results if "too many" in body["error_description"]]
    assert 1 <= len(timed_out) <= MAX_IN_FLIGHT and len(timed_out) + len(refused) == REQUESTS, results
    assert len(taken) == len(timed_out)  # a refused request never reached the metadata server
    assert lists and max(lists) < 1.0, lists
