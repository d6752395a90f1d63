"""A webhook's host is resolved once per send, refused unless every address is public, and the
connection goes to the address that was checked (so DNS rebinding cannot aim it at a private
network), with the name kept in Host and TLS SNI."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from mesq import outbound
from mesq.errors import ValidationError
from mesq.reminders import channels
from mesq.reminders.channels import Channel
from mesq.reminders.delivery import send_webhook

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


def _recording_client(status: int = 204) -> tuple[httpx.Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status)

    return httpx.Client(transport=httpx.MockTransport(handle)), seen


@pytest.mark.parametrize("address", ["10.0.0.5", "169.254.169.254", "::1", "64:ff9b::7f00:1", "::ffff:192.168.1.1"])
def test_a_name_resolving_to_a_non_public_address_gets_no_request(monkeypatch, address):
    _resolver(monkeypatch, address)
    client, seen = _recording_client()
    failure = send_webhook(Channel("c", "https://hooks.example/h", "s"), PAYLOAD, client=client, sleep=lambda _: None)
    assert failure is not None and failure["attempts"] == 0
    assert failure["reason"] == "the host resolves to a non-public address"
    assert seen == []


def test_the_connection_goes_to_the_address_checked_once_with_the_name_in_host_and_sni(monkeypatch):
    asked = _resolver(monkeypatch, "93.184.216.34", "127.0.0.1")  # a rebinding resolver
    client, seen = _recording_client(status=500)
    failure = send_webhook(Channel("c", "https://hooks.example:8443/h?x=1", "s"), PAYLOAD, client=client,
                           sleep=lambda _: None)  # fmt: skip
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
    failure = send_webhook(Channel("c", "https://nowhere.example/h", "s"), PAYLOAD, client=client)
    assert failure is not None and failure["reason"] == "could not resolve the host" and seen == []


def test_a_pinned_request_reaches_the_checked_address_over_the_network(monkeypatch):
    receiver = Receiver(secrets=["s"]).start()
    try:
        port = receiver.url.split(":")[2].split("/")[0]
        _resolver(monkeypatch, "127.0.0.1")
        monkeypatch.setattr(outbound, "is_public_address", lambda address: str(address) == "127.0.0.1")
        with httpx.Client() as client:
            failure = send_webhook(Channel("c", f"http://hooks.test:{port}/hook", "s"), PAYLOAD, client=client)
        assert failure is None and receiver.received == [PAYLOAD]
        assert receiver.hosts == [f"hooks.test:{port}"]
    finally:
        receiver.stop()


@pytest.mark.parametrize("url", ["https://[64:ff9b::a00:1]/h", "https://[::ffff:10.0.0.1]/h", "https://10.1.2.3/h"])
def test_a_literal_non_public_address_is_refused_when_the_channel_is_added(url):
    with pytest.raises(ValidationError):
        channels.check_url(url, allow_loopback=False)
