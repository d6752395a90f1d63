"""`mesq serve` answering before it has read a request's body (a 421 for a foreign Host, a 408 for
a stalled body) and closing: the client still sending its body reads the whole answer and then an
end of stream, never a reset (runtime/lingering_close.py)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_slow_clients import _connect, _head


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("early") / "data")
    yield live
    stop_server(live)


def _read_to_the_end(sock: socket.socket) -> tuple[bytes, str]:
    """Everything the server sent, and how the stream ended: "eof" or "reset"."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data, "reset"
        if not chunk:
            return data, "eof"
        data += chunk


def test_an_answer_sent_before_the_body_was_read_ends_cleanly_while_the_client_still_sends(
    server: LiveServer,
) -> None:
    sock, _ = _connect(server)
    with sock:
        # More body than the server reads ahead (uvicorn stops reading at 64 KiB nobody asked for):
        # the rest waits in its socket when it answers, and a plain close would then be a reset.
        sock.sendall(_head("elsewhere.example", "/api/toolkit/memo", "application/json", 1_000_000) + b"x" * 400_000)
        time.sleep(0.3)  # the answer, and a reset if the server sends one, come back
        data, ending = _read_to_the_end(sock)
    assert data.startswith(b"HTTP/1.1 421 ") and data.endswith(b"}")
    assert ending == "eof"
