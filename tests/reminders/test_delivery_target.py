"""A webhook's host is resolved once per send, refused unless every address is public, and the
connection goes to the address that was checked (so DNS rebinding cannot aim it at a private
network), with the name kept in Host and TLS SNI."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import httpx
import pytest

from mesq.adapters.reminders.delivery import send_webhook
from mesq.kernel import addresses as outbound
from mesq.kernel.errors import ValidationError
from mesq.reminders import channels
from mesq.reminders.channels import Channel

from .receiver import Receiver

PAYLOAD = {"type": "test", "id": "d-1"}


def _resolver(monkeypatch: pytest.MonkeyPatch, *answers: str) -> list[str]:
    """getaddrinfo answering `answers` in turn (the last one from then on); the hosts asked."""
    asked: list[str] = []

    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        asked.append(host)
        address = answers[min(len(asked) - 1, len(answers) - 1)]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(outbound.socket, "getaddrinfo", getaddrinfo)
    return asked


def _recording_client(status: int = 204) -> tuple[httpx.AsyncClient, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status)

    return httpx.AsyncClient(transport=httpx.MockTransport(handle)), seen


def _send(channel: Channel, client: httpx.AsyncClient, **options: Any) -> dict[str, Any] | None:
    return asyncio.run(send_webhook(channel, PAYLOAD, client=client, backoff=(0.0,), **options))


@pytest.mark.parametrize("address", ["10.0.0.5", "169.254.169.254", "::1", "64:ff9b::7f00:1", "::ffff:192.168.1.1"])
def test_a_name_resolving_to_a_non_public_address_gets_no_request(monkeypatch, address):
    _resolver(monkeypatch, address)
    client, seen = _recording_client()
    failure = _send(Channel("c", "https://hooks.example/h", "s"), client)
    assert failure is not None and failure["attempts"] == 0
    assert failure["reason"] == "the host resolves to a non-public address"
    assert seen == []


def test_the_connection_goes_to_the_address_checked_once_with_the_name_in_host_and_sni(monkeypatch):
    asked = _resolver(monkeypatch, "93.184.216.34", "127.0.0.1")  # a rebinding resolver
    client, seen = _recording_client(status=500)
    failure = _send(Channel("c", "https://hooks.example:8443/h?x=1", "s"), client)
    assert failure is not None and failure["attempts"] == 3  # three tries, one resolution
    assert asked == ["hooks.example"]
    assert {str(request.url) for request in seen} == {"https://93.184.216.34:8443/h?x=1"}
    assert {request.headers["host"] for request in seen} == {"hooks.example:8443"}
    assert {request.extensions["sni_hostname"] for request in seen} == {"hooks.example"}


def test_an_unresolvable_host_is_a_recorded_failure(monkeypatch):
    def fail(*args: Any, **kwargs: Any) -> list[Any]:
        raise socket.gaierror("no such name")

    monkeypatch.setattr(outbound.socket, "getaddrinfo", fail)
    client, seen = _recording_client()
    failure = _send(Channel("c", "https://nowhere.example/h", "s"), client)
    assert failure is not None and failure["reason"] == "could not resolve the host" and seen == []


def test_a_pinned_request_reaches_the_checked_address_over_the_network(monkeypatch):
    receiver = Receiver(secrets=["s"]).start()
    try:
        port = receiver.url.split(":")[2].split("/")[0]
        _resolver(monkeypatch, "127.0.0.1")
        monkeypatch.setattr(outbound, "is_public_address", lambda address: str(address) == "127.0.0.1")
        failure = _send(Channel("c", f"http://hooks.test:{port}/hook", "s"), httpx.AsyncClient())
        assert failure is None and receiver.received == [PAYLOAD]
        assert receiver.hosts == [f"hooks.test:{port}"]
    finally:
        receiver.stop()


@pytest.mark.parametrize("url", ["https://[64:ff9b::a00:1]/h", "https://[::ffff:10.0.0.1]/h", "https://10.1.2.3/h"])
def test_a_literal_non_public_address_is_refused_when_the_channel_is_added(url):
    with pytest.raises(ValidationError):
        channels.check_url(url, allow_loopback=False)


@pytest.mark.parametrize("url", ["https://0177.0.0.1/h", "https://①②⑦.⓪.⓪.①/h", "https://127.1/h", "https://0x7f.0.0.1/h",
                                 "http://2130706433/h", "https://x.example:99999/h"])  # fmt: skip
def test_a_url_the_sender_cannot_use_is_refused_when_added(url):
    with pytest.raises(ValidationError):
        channels.check_url(url, allow_loopback=True)


def test_a_stored_url_the_sender_cannot_parse_is_a_recorded_failure_not_a_crash():
    client, seen = _recording_client()
    failure = _send(Channel("c", "https://0177.0.0.1/h", "s"), client)
    assert failure is not None and failure["attempts"] == 0 and "cannot be used" in failure["reason"] and seen == []


def test_each_attempt_has_a_total_deadline_against_a_trickling_receiver():
    """A receiver that sends its answer one byte at a time, forever, is cut off at the deadline
    of each attempt, not kept alive by every byte (a per-read timeout would be)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            while not stop.wait(0.2):
                try:
                    conn.sendall(b" ")
                except OSError:
                    return

    threading.Thread(target=trickle, daemon=True).start()
    try:
        started = time.monotonic()
        failure = _send(Channel("c", f"http://127.0.0.1:{listener.getsockname()[1]}/h", "s"), httpx.AsyncClient(),
                        attempts=1, deadline=1.0)  # fmt: skip
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        listener.close()
    assert failure is not None and failure["reason"] == "no answer within 1 s"
    assert 1.0 <= elapsed < 3.0, elapsed
