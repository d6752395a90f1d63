"""How a public client identifies itself at the token endpoint: `client_id`, or an empty secret
(RFC 6749 §2.3.1), which some clients send after a registration answered
`token_endpoint_auth_method: none`; and the 401's challenge when the Authorization header was
used (RFC 6749 §5.2; sweep finding 5)."""

from __future__ import annotations

import base64

import pytest

from tests.oauth.helpers import REDIRECT_URI, Pkce, basic_auth


def _exchange_form(flow, pkce: Pkce, **extra: str) -> dict[str, str]:
    code = flow.code(pkce)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI}
    return {**form, "code_verifier": pkce.verifier, **extra}


def test_an_empty_basic_password_is_a_public_client(flow):
    pkce = Pkce.new()
    response = flow.client.post("/oauth/token", data=_exchange_form(flow, pkce), headers=basic_auth(flow.client_id))
    assert response.status_code == 200, response.text
    refreshed = flow.client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": response.json()["refresh_token"]},
        headers=basic_auth(flow.client_id),
    )
    assert refreshed.status_code == 200, refreshed.text


def test_an_empty_client_secret_is_no_secret(flow):
    pkce = Pkce.new()
    response = flow.token(**_exchange_form(flow, pkce, client_secret=""))
    assert response.status_code == 200, response.text
    # A real secret is still refused; without the Authorization header, with no challenge.
    refused = flow.token(grant_type="refresh_token", refresh_token="mesq_rt_x", client_secret="s3cret")
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    assert "www-authenticate" not in refused.headers


def test_basic_and_body_client_id_must_agree(flow, register):
    pkce = Pkce.new()
    same = flow.client.post(
        "/oauth/token", data=_exchange_form(flow, pkce, client_id=flow.client_id), headers=basic_auth(flow.client_id)
    )
    assert same.status_code == 200, same.text
    other = register(client_name="Other")["client_id"]
    differs = flow.client.post(
        "/oauth/token", data=_exchange_form(flow, Pkce.new(), client_id=other), headers=basic_auth(flow.client_id)
    )
    assert differs.status_code == 401 and differs.json()["error"] == "invalid_client"
    assert differs.headers["www-authenticate"] == 'Basic realm="mesq"'


HEADERS = {
    "unknown client": lambda client_id: basic_auth("mesq_client_nobody"),
    "a secret MeSQ never issued": lambda client_id: basic_auth(client_id, "s3cret"),
    "not base64": lambda client_id: {"Authorization": "Basic !!not-base64!!"},
    "no colon": lambda client_id: {"Authorization": "basic " + base64.b64encode(b"no-colon").decode()},
    "bearer": lambda client_id: {"Authorization": "Bearer mesq_at_x"},
    "dpop": lambda client_id: {"Authorization": "DPoP abc"},
}
SCHEMES = {"bearer": "Bearer", "dpop": "DPoP"}


@pytest.mark.parametrize("case", list(HEADERS))
def test_invalid_client_from_the_header_carries_the_challenge(flow, case):
    response = flow.client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": "mesq_rt_x"},
        headers=HEADERS[case](flow.client_id),
    )
    assert response.status_code == 401 and response.json()["error"] == "invalid_client", response.text
    assert response.headers["www-authenticate"] == f'{SCHEMES.get(case, "Basic")} realm="mesq"'
    assert response.headers["cache-control"] == "no-store"
