"""Calls without a valid credential share MCP's per-IP `unauthenticated` bucket (counters in the
item store): REST with a bad token, and the OAuth authorize, token and revoke endpoints. Once a
client IP has spent it, 429 with Retry-After; other addresses and real credentials are untouched."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from starlette.testclient import TestClient

from mesq.application import ratelimit
from mesq.application.ratelimit import PROFILES
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services
from tests.conftest import Account

BUDGET = PROFILES["normal"]["unauthenticated"]
ATTACKER = ("203.0.113.7", 40000)
NEIGHBOUR = ("198.51.100.9", 40000)
Request = Callable[[TestClient], int]


@pytest.fixture(autouse=True)
def _one_window(monkeypatch) -> None:
    """The clock held inside one rate-limit window, so no test straddles two."""
    frozen = float(int(time.time()) // 60 * 60 + 1)
    monkeypatch.setattr(ratelimit, "wall_clock", lambda: frozen)


@pytest.fixture
def clients(services: Services) -> Iterator[tuple[TestClient, TestClient]]:
    app = create_local_app(services)
    with (
        TestClient(app, raise_server_exceptions=False, client=ATTACKER, follow_redirects=False) as attacker,
        TestClient(app, raise_server_exceptions=False, client=NEIGHBOUR, follow_redirects=False) as neighbour,
    ):
        yield attacker, neighbour


def _bad_token(client: TestClient) -> int:
    return client.get("/api/toolkit/memo", headers={"Authorization": "Bearer mesq_pat_guessed"}).status_code


def _no_token(client: TestClient) -> int:
    return client.get("/api/toolkit/memo/resources/read", params={"path": "users/x/y.txt"}).status_code


def _authorize(client: TestClient) -> int:
    return client.get("/oauth/authorize", params={"client_id": "unknown", "response_type": "code"}).status_code


def _token(client: TestClient) -> int:
    form = {"grant_type": "authorization_code", "client_id": "unknown", "code": "guess"}
    return client.post("/oauth/token", data=form).status_code


def _revoke(client: TestClient) -> int:
    return client.post("/oauth/revoke", data={"token": "guess", "client_id": "unknown"}).status_code


@pytest.mark.parametrize(
    ("call", "normal_status"),
    [(_bad_token, 401), (_no_token, 401), (_authorize, 400), (_token, 401), (_revoke, 401)],
    ids=["rest-bad-token", "attachment-read-no-token", "authorize", "token", "revoke"],
)
def test_anonymous_calls_spend_the_per_ip_budget(clients, call: Request, normal_status: int) -> None:
    attacker, neighbour = clients
    assert [call(attacker) for _ in range(BUDGET)] == [normal_status] * BUDGET
    assert call(attacker) == 429
    assert call(neighbour) == normal_status  # counted per client IP


def test_rest_429_is_the_rate_limited_envelope(clients) -> None:
    attacker, _ = clients
    for _ in range(BUDGET):
        _bad_token(attacker)
    limited = attacker.get("/api/toolkit/memo", headers={"Authorization": "Bearer mesq_pat_guessed"})
    assert limited.status_code == 429
    body = limited.json()
    assert body["error"]["code"] == "RATE_LIMITED" and body["error"]["retryAfterSeconds"] >= 1
    assert limited.headers["retry-after"] == str(body["error"]["retryAfterSeconds"])


def test_a_real_credential_is_not_held_back_by_its_address(clients, make_account: Callable[..., Account]) -> None:
    attacker, _ = clients
    account = make_account()
    for _ in range(BUDGET + 1):
        _bad_token(attacker)
    assert attacker.get("/api/toolkit/memo", headers=account.headers).status_code == 200


def test_oauth_429_keeps_the_rfc_shape_and_retry_after(clients) -> None:
    attacker, _ = clients
    for _ in range(BUDGET):
        _token(attacker)
    limited = attacker.post("/oauth/token", data={"grant_type": "refresh_token", "client_id": "x"})
    assert limited.status_code == 429
    assert limited.json()["error"] == "temporarily_unavailable"
    assert int(limited.headers["retry-after"]) >= 1 and limited.headers["cache-control"] == "no-store"
