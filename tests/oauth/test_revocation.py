"""Who may revoke (RFC 7009 §2.1, §5): a client that names itself authenticates as at the token
endpoint (a public client sends its client_id, in the body or as `Basic base64("<client_id>:")`),
a broken or foreign credential is a 401 invalid_client, and only a token issued to that client is
revoked; a request naming no client revokes the token it holds."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from mesq.auth.oauth.authorization import list_grants
from tests.oauth.conftest import Flow
from tests.oauth.helpers import basic_auth

Register = Callable[..., dict[str, Any]]


def _live(flow: Flow) -> bool:
    """Whether the person still has the grant the test's tokens belong to."""
    return bool(list_grants(flow.services.items, flow.user_id))


def _revoke(flow: Flow, form: dict[str, str], headers: dict[str, str] | None = None) -> Any:
    return flow.client.post("/oauth/revoke", data=form, headers=headers)


@pytest.mark.parametrize("kind", ["access_token", "refresh_token"])
def test_a_public_client_revokes_its_token_with_its_client_id(flow: Flow, kind: str) -> None:
    tokens = flow.tokens()
    response = _revoke(flow, {"token": tokens[kind], "client_id": flow.client_id})
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    assert not _live(flow)


def test_an_empty_basic_password_is_the_same_public_client(flow: Flow) -> None:
    tokens = flow.tokens()
    response = _revoke(flow, {"token": tokens["refresh_token"]}, basic_auth(flow.client_id))
    assert response.status_code == 200, response.text
    assert not _live(flow)


def test_a_json_body_names_its_client_too(flow: Flow) -> None:
    tokens = flow.tokens()
    response = flow.client.post("/oauth/revoke", json={"token": tokens["access_token"], "client_id": flow.client_id})
    assert response.status_code == 200, response.text
    assert not _live(flow)


@pytest.mark.parametrize("kind", ["access_token", "refresh_token"])
def test_a_request_naming_no_client_revokes_the_token_it_holds(flow: Flow, kind: str) -> None:
    """A bare `token=` (curl, many OAuth libraries): holding the token is the proof."""
    tokens = flow.tokens()
    response = _revoke(flow, {"token": tokens[kind]})
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    assert not _live(flow)


def test_an_empty_client_id_is_no_client_named(flow: Flow) -> None:
    tokens = flow.tokens()
    assert _revoke(flow, {"token": tokens["access_token"], "client_id": ""}).status_code == 200
    assert not _live(flow)


HEADERS = {
    "unknown client": lambda client_id: basic_auth("mesq_client_nobody"),
    "a secret MeSQ never issued": lambda client_id: basic_auth(client_id, "s3cret"),
    "not base64": lambda client_id: {"Authorization": "Basic !!not-base64!!"},
    "no colon": lambda client_id: {"Authorization": "Basic " + base64.b64encode(b"no-colon").decode()},
}


@pytest.mark.parametrize("case", list(HEADERS))
def test_a_bad_basic_header_is_invalid_client_with_the_challenge(flow: Flow, case: str) -> None:
    tokens = flow.tokens()
    response = _revoke(flow, {"token": tokens["refresh_token"]}, HEADERS[case](flow.client_id))
    assert response.status_code == 401 and response.json()["error"] == "invalid_client", response.text
    assert response.headers["www-authenticate"] == 'Basic realm="mesq"'
    assert response.headers["cache-control"] == "no-store"
    assert _live(flow)


def test_a_bearer_header_is_answered_in_its_scheme(flow: Flow) -> None:
    tokens = flow.tokens()
    response = _revoke(flow, {"token": tokens["refresh_token"]}, {"Authorization": f"Bearer {tokens['access_token']}"})
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"
    assert response.headers["www-authenticate"] == 'Bearer realm="mesq"'
    assert _live(flow)


@pytest.mark.parametrize(
    "form",
    [{"client_id": "mesq_client_nobody"}, {"client_secret": "s3cret"}],
    ids=["unknown client_id", "client_secret"],
)
def test_body_credentials_that_fail_are_invalid_client_without_a_challenge(flow: Flow, form: dict[str, str]) -> None:
    tokens = flow.tokens()
    response = _revoke(flow, {"token": tokens["refresh_token"], "client_id": flow.client_id, **form})
    assert response.status_code == 401 and response.json()["error"] == "invalid_client", response.text
    assert "www-authenticate" not in response.headers
    assert _live(flow)


def test_basic_and_body_client_id_must_agree(flow: Flow, register: Register) -> None:
    tokens = flow.tokens()
    other = register(client_name="Other")["client_id"]
    response = _revoke(flow, {"token": tokens["refresh_token"], "client_id": other}, basic_auth(flow.client_id))
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"
    assert response.headers["www-authenticate"] == 'Basic realm="mesq"'
    assert _live(flow)


@pytest.mark.parametrize("kind", ["access_token", "refresh_token"])
def test_another_clients_token_is_answered_200_and_left_alone(flow: Flow, register: Register, kind: str) -> None:
    tokens = flow.tokens()
    other = register(client_name="Other")["client_id"]
    in_body = _revoke(flow, {"token": tokens[kind], "client_id": other})
    in_header = _revoke(flow, {"token": tokens[kind]}, basic_auth(other))
    assert (in_body.status_code, in_header.status_code) == (200, 200)
    assert _live(flow)
    assert flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"]).status_code == 200


@pytest.mark.parametrize("token", ["mesq_rt_unknown", "mesq_at_unknown", "not-a-mesq-token", "x" * 5000])
def test_unknown_tokens_of_a_known_client_answer_200(flow: Flow, token: str) -> None:
    flow.tokens()
    assert _revoke(flow, {"token": token, "client_id": flow.client_id}).status_code == 200
    assert _live(flow)


def test_a_revocation_of_another_media_type_is_told_both_it_accepts(client):
    """The revocation endpoint takes a form or JSON: its refusal said "token requests must be
    application/x-www-form-urlencoded", the token endpoint's rule, naming the wrong endpoint and
    hiding the JSON it accepts."""
    for headers in ({"Content-Type": "text/plain"}, {}):
        response = client.post("/oauth/revoke", content=b"token=x", headers=headers)
        assert response.status_code == 400 and response.json()["error"] == "invalid_request"
        description = response.json()["error_description"]
        assert description.startswith("revocation requests") and "application/json" in description
