"""The whole OAuth flow as an MCP client runs it, against a real `mesq serve`: 401 -> protected
resource metadata -> authorization-server metadata -> register (RFC 7591, and a Client ID Metadata
Document served on loopback) -> authorize -> sign in -> approve -> code -> token with PKCE -> /mcp
with the access token (official `mcp` client) -> refresh -> the old refresh token presented again
within the grace period (same pair, then a clean refusal once rotated on) -> revoke. Deny answers
error=access_denied with the state."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from tests.conftest import LiveServer
from tests.e2e.test_mcp_client import connect
from tests.oauth.browser import PASSWORD, Browser, oauth_server
from tests.oauth.helpers import REDIRECT_URI, Pkce, authorize_params, query_of
from tests.oauth.metadata_host import MetadataHost


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from oauth_server(tmp_path_factory.mktemp("oauth-e2e") / "data")


@pytest.fixture(scope="module")
def metadata_document_url() -> Iterator[str]:
    """A client's metadata document on a loopback HTTP server (what an https URL serves in production)."""
    host = MetadataHost()
    yield host.serve(
        "/oauth/client.json", client_name="CIMD Agent", grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method="none",
    )  # fmt: skip
    host.stop()


def discover(base_url: str) -> tuple[str, dict[str, Any]]:
    """From an unauthenticated /mcp call to the resource and the AS metadata, as a client does."""
    challenge = httpx.post(f"{base_url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert challenge.status_code == 401
    match = re.search(r'resource_metadata="([^"]+)"', challenge.headers["www-authenticate"])
    assert match, challenge.headers["www-authenticate"]
    assert match.group(1) == f"{base_url}/.well-known/oauth-protected-resource/mcp"
    resource_metadata = httpx.get(match.group(1)).json()
    assert resource_metadata["resource"] == f"{base_url}/mcp"
    issuer = resource_metadata["authorization_servers"][0]
    server_metadata = httpx.get(f"{issuer}/.well-known/oauth-authorization-server").json()
    assert server_metadata["issuer"] == issuer == base_url
    assert server_metadata["code_challenge_methods_supported"] == ["S256"]
    assert server_metadata["client_id_metadata_document_supported"] is True
    assert server_metadata["authorization_response_iss_parameter_supported"] is True
    return resource_metadata["resource"], server_metadata


def authorize(
    browser: Browser, metadata: dict[str, Any], client_id: str, resource: str, approve: bool = True, **extra: str
) -> tuple[Pkce, dict[str, str]]:
    pkce = Pkce.new()
    params = authorize_params(client_id, pkce, resource=resource, **extra)
    response = httpx.get(metadata["authorization_endpoint"], params=params)
    assert response.status_code == 302, response.text
    consent_url = response.headers["location"]
    assert "/oauth/consent?request=" in consent_url
    redirect = browser.decide(consent_url, approve)
    assert redirect.startswith(REDIRECT_URI + "?")
    return pkce, query_of(redirect)


def token(metadata: dict[str, Any], **form: str) -> httpx.Response:
    response = httpx.post(metadata["token_endpoint"], data=form)
    assert response.headers["cache-control"] == "no-store"
    return response


async def use_mcp(base_url: str, access_token: str, content: str) -> list[str]:
    async with connect(base_url, access_token, "auto") as client:
        created = await client.call_tool("create_memo", {"content": content})
        assert not created.is_error, created
        listed = await client.call_tool("list_memos", {})
        return [memo["content"] for memo in listed.structured_content["data"]["timelineItems"]]


def mcp_status(base_url: str, access_token: str) -> int:
    headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json, text/event-stream"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    return httpx.post(f"{base_url}/mcp", json=body, headers=headers).status_code


def run_client(server: LiveServer, browser: Browser, client_id: str, label: str) -> None:
    base = server.base_url
    resource, metadata = discover(base)
    pkce, callback = authorize(browser, metadata, client_id, resource)
    assert callback["state"] == "xyz-state" and callback["iss"] == metadata["issuer"]
    exchange = {
        "grant_type": "authorization_code", "code": callback["code"], "client_id": client_id,
        "redirect_uri": REDIRECT_URI, "code_verifier": pkce.verifier, "resource": resource,
    }  # fmt: skip
    issued = token(metadata, **exchange)
    assert issued.status_code == 200, issued.text
    first = issued.json()
    assert first["token_type"] == "Bearer" and first["scope"] == "memo:read memo:write"
    assert first["access_token"].startswith("mesq_at_") and first["refresh_token"].startswith("mesq_rt_")

    contents = anyio.run(use_mcp, base, first["access_token"], f"via oauth {label}")
    assert f"via oauth {label}" in contents

    refreshed = token(metadata, grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id)
    assert refreshed.status_code == 200, refreshed.text
    second = refreshed.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert mcp_status(base, second["access_token"]) == 200
    assert mcp_status(base, first["access_token"]) == 401  # rotation retired the old access token

    # Within the grace period the old refresh token answers the same pair (a retry after a lost
    # answer); once the host has moved on it is a clean invalid_grant that leaves the grant alone.
    # A replay after the grace period revokes the family: tests/oauth/test_refresh_grace.py.
    retry = token(metadata, grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id)
    assert retry.status_code == 200, retry.text
    assert (retry.json()["access_token"], retry.json()["refresh_token"]) == (
        second["access_token"], second["refresh_token"],
    )  # fmt: skip
    after = token(metadata, grant_type="refresh_token", refresh_token=second["refresh_token"], client_id=client_id)
    assert after.status_code == 200, after.text
    reuse = token(metadata, grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id)
    assert reuse.status_code == 400 and reuse.json()["error"] == "invalid_grant"
    assert mcp_status(base, second["access_token"]) == 401  # rotated away
    assert mcp_status(base, after.json()["access_token"]) == 200  # the grant stays

    # A new authorization, then revocation (RFC 7009) with a JSON body.
    pkce, callback = authorize(browser, metadata, client_id, resource)
    exchange.update(code=callback["code"], code_verifier=pkce.verifier)
    third = token(metadata, **exchange).json()
    assert mcp_status(base, third["access_token"]) == 200
    revoked = httpx.post(metadata["revocation_endpoint"], json={"token": third["access_token"], "client_id": client_id})
    assert revoked.status_code == 200
    assert mcp_status(base, third["access_token"]) == 401
    gone = token(metadata, grant_type="refresh_token", refresh_token=third["refresh_token"], client_id=client_id)
    assert gone.json()["error"] == "invalid_grant"
    unknown = httpx.post(metadata["revocation_endpoint"], data={"token": "mesq_at_unknown", "client_id": client_id})
    assert unknown.status_code == 200


def test_dynamic_registration_flow(server):
    _, metadata = discover(server.base_url)
    registered = httpx.post(
        metadata["registration_endpoint"],
        json={"client_name": "DCR Agent", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    assert registered.status_code == 201, registered.text
    client = registered.json()
    assert client["token_endpoint_auth_method"] == "none" and "client_secret" not in client
    browser = Browser(server.base_url, "alice", PASSWORD)
    try:
        run_client(server, browser, client["client_id"], "dcr")
    finally:
        browser.close()


def test_metadata_document_flow(server, metadata_document_url):
    browser = Browser(server.base_url, "alice", PASSWORD)
    try:
        run_client(server, browser, metadata_document_url, "cimd")
    finally:
        browser.close()


def test_deny_returns_access_denied_with_state(server, metadata_document_url):
    resource, metadata = discover(server.base_url)
    browser = Browser(server.base_url, "alice", PASSWORD)
    try:
        _, callback = authorize(browser, metadata, metadata_document_url, resource, approve=False, state="keep-me")
        assert callback["error"] == "access_denied" and callback["state"] == "keep-me"
        assert callback["iss"] == metadata["issuer"] and "code" not in callback
        _, callback = authorize(browser, metadata, metadata_document_url, resource, approve=False, state=None)
        assert callback["error"] == "access_denied" and "state" not in callback
    finally:
        browser.close()
