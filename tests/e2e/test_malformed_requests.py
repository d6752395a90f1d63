"""`mesq serve` answering a request its HTTP parser refuses (h11, before any app runs) in the
contract's error shape, as every other refusal: a script or Shortcut that puts a query's Chinese
text, or a space, into the URL unencoded gets a 400 `VALIDATION_ERROR` that says to percent-encode,
with `traceId` and `X-Trace-Id`, not uvicorn's plain-text "Invalid HTTP request received."
(runtime/lingering_close.py)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_slow_clients import _connect, _read_response


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("malformed") / "data")
    yield live
    stop_server(live)


def _send(server: LiveServer, head: bytes) -> tuple[int, dict[str, str], bytes]:
    sock, _ = _connect(server)
    with sock:
        sock.sendall(head)
        sock.shutdown(socket.SHUT_WR)
        return _read_response(sock)


@pytest.mark.parametrize(
    "target",
    ["/api/toolkit/reading/notes/search?query=划线".encode(), b"/api/toolkit/memo?query=two words"],
    ids=["utf8-query", "space"],
)
def test_an_unencoded_url_is_a_validation_error_in_the_contract_shape(server: LiveServer, target: bytes) -> None:
    netloc = server.base_url.split("//", 1)[1]
    status, headers, body = _send(server, b"GET " + target + b" HTTP/1.1\r\nHost: " + netloc.encode() + b"\r\n\r\n")
    assert status == 400
    assert headers["content-type"] == "application/json"
    answer = json.loads(body)
    assert answer["error"]["code"] == "VALIDATION_ERROR"
    assert "percent-encode" in answer["error"]["message"] and "%20" in answer["error"]["message"]
    assert headers["x-trace-id"] == answer["traceId"] and len(answer["traceId"]) == 32


def test_other_protocol_errors_keep_the_contract_shape(server: LiveServer) -> None:
    netloc = server.base_url.split("//", 1)[1].encode()
    head = b"POST /api/toolkit/memo HTTP/1.1\r\nHost: " + netloc + b"\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
    status, headers, body = _send(server, head)
    assert status == 400 and headers["content-type"] == "application/json"
    answer = json.loads(body)
    assert answer["error"]["code"] == "VALIDATION_ERROR"
    assert answer["error"]["message"].startswith("the request is not valid HTTP/1.1")
    assert headers["x-trace-id"] == answer["traceId"]


def test_a_request_that_is_not_http_is_not_told_to_encode_its_url(server: LiveServer) -> None:
    status, _headers, body = _send(server, b"HELLO THERE\r\n\r\n")
    answer = json.loads(body)
    assert status == 400 and answer["error"]["code"] == "VALIDATION_ERROR"
    assert "percent-encode" not in answer["error"]["message"]
    assert answer["error"]["message"].startswith("the request is not valid HTTP/1.1 (illegal request line")
