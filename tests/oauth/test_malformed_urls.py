"""URLs that `urlsplit` cannot parse (a broken IPv6 literal, a port out of range) and metadata
fields of the wrong JSON type are client errors with the RFC's code, never a 500."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.oauth.helpers import Pkce, authorize_params

REGISTER_OK = {"redirect_uris": ["https://a.example/cb"]}


def _redirect_error(response) -> str:
    assert response.status_code == 302, response.text
    return parse_qs(urlsplit(response.headers["location"]).query)["error"][0]


def test_unparseable_resource_at_authorize_is_invalid_target(client, flow):
    params = authorize_params(flow.client_id, Pkce.new(), resource="http://[x/mcp")
    response = client.get("/oauth/authorize", params=params, follow_redirects=False)
    assert _redirect_error(response) == "invalid_target"


def test_unparseable_resource_at_token_is_invalid_target(flow):
    pkce = Pkce.new()
    response = flow.exchange(flow.code(pkce), pkce, resource="http://[x/mcp")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"


def test_unparseable_redirect_uri_is_refused_without_redirecting(client, flow):
    params = authorize_params(flow.client_id, Pkce.new(), redirect_uri="http://[::1/cb")
    response = client.get("/oauth/authorize", params=params, follow_redirects=False)
    assert response.status_code == 400
    assert "location" not in response.headers


@pytest.mark.parametrize("client_id", ["https://[x/client.json", "https://example.com:99999/client.json"])
def test_unparseable_metadata_document_client_id_is_invalid_client(client, client_id):
    params = authorize_params(client_id, Pkce.new())
    response = client.get("/oauth/authorize", params=params, follow_redirects=False)
    assert response.status_code == 400
    assert "location" not in response.headers
    token = client.post(
        "/oauth/token", data={"client_id": client_id, "grant_type": "refresh_token", "refresh_token": "x"}
    )
    assert token.status_code in (400, 401)
    assert token.json()["error"] == "invalid_client"


@pytest.mark.parametrize(
    "extra",
    [{"client_uri": 5}, {"jwks_uri": 3}, {"logo_uri": ["x"]}, {"tos_uri": {}}, {"policy_uri": True}],
)
def test_non_string_url_fields_are_invalid_client_metadata(client, extra):
    response = client.post("/oauth/register", json={**REGISTER_OK, **extra})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
