"""claude.ai's custom connector (also Claude Desktop's: the connector runs on Anthropic's backend).

What it does, from public reports:
- It takes the Client ID Metadata Document path only when the authorization-server metadata
  says both `client_id_metadata_document_supported: true` and `none` in
  `token_endpoint_auth_methods_supported`; otherwise it silently falls back to Dynamic Client
  Registration. (Anthropic's connector docs, quoted in home-assistant/core#179326,
  brendanlong/lion-reader#1519, keycloak/keycloak#49730.)
- Its DCR, made from Anthropic's backend with python-httpx, asks for
  `token_endpoint_auth_method: client_secret_post`; it reads the method from the answer, so a
  server may answer `none` instead (anthropics/claude-ai-mcp#1043; Anthropic's answer in #82).
- Its metadata host has had outages (one answered an HTML page, anthropics/claude-ai-mcp#96),
  which took every live-fetching server's sign-in down with it (dropseed/plain#108).
- The callback is `https://claude.ai/api/mcp/auth_callback`; the connection is an `initialize`
  handshake at 2025-11-25 from the official Python SDK.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.clients.wire import McpWire, authorize, discover, result, token
from tests.conftest import LiveServer
from tests.oauth.browser import Browser
from tests.oauth.metadata_host import MetadataHost

CALLBACK = "https://claude.ai/api/mcp/auth_callback"
CLIENT_INFO = {"name": "claude-ai", "version": "0.1.0"}
#: Anthropic's backend fetches and registers (anthropics/claude-ai-mcp#1043).
BACKEND = {"User-Agent": "python-httpx/0.28.1"}


def registration_path(metadata: dict[str, Any]) -> str:
    """claude.ai's choice between its hosted metadata document and DCR."""
    cimd = metadata.get("client_id_metadata_document_supported") is True
    public = "none" in metadata.get("token_endpoint_auth_methods_supported", [])
    return "cimd" if cimd and public else "dcr"


def connect(server: LiveServer, access_token: str) -> list[str]:
    """The connection after sign-in: initialize at 2025-11-25, initialized, tools/list."""
    wire = McpWire(f"{server.base_url}/mcp", CLIENT_INFO, token=access_token, headers=BACKEND)
    initialized = result(wire.initialize("2025-11-25", {"roots": {}}))
    assert initialized["protocolVersion"] == "2025-11-25" and initialized["serverInfo"]["name"] == "mesq"
    assert wire.notify("notifications/initialized", version="2025-11-25").status_code == 202
    return [tool["name"] for tool in result(wire.legacy("tools/list", {}, version="2025-11-25"))["tools"]]


def sign_in(server: LiveServer, browser: Browser, client_id: str) -> dict[str, Any]:
    mcp_url = f"{server.base_url}/mcp"
    metadata = discover(mcp_url, httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"}), BACKEND)
    scope = " ".join(metadata.resource["scopes_supported"])
    authorized = authorize(browser, metadata, client_id, CALLBACK, scope=scope, state="claude-state")
    return token(
        metadata, BACKEND, grant_type="authorization_code", code=authorized.code, client_id=client_id,
        redirect_uri=CALLBACK, code_verifier=authorized.pkce.verifier, resource=metadata.resource["resource"],
    )  # fmt: skip


def test_claude_ai_takes_the_metadata_document_path_and_survives_a_host_outage(
    server: LiveServer, browser: Browser, metadata_host: MetadataHost
) -> None:
    mcp_url = f"{server.base_url}/mcp"
    metadata = discover(mcp_url, httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"}), BACKEND)
    assert metadata.server["client_id_metadata_document_supported"] is True
    assert "none" in metadata.server["token_endpoint_auth_methods_supported"]
    assert registration_path(metadata.server) == "cimd"

    # https://claude.ai/oauth/mcp-oauth-client-metadata, served on loopback here.
    client_id = metadata_host.serve(
        "/oauth/mcp-oauth-client-metadata", cache_control="public, max-age=3600", client_name="Claude",
        redirect_uris=[CALLBACK], grant_types=["authorization_code", "refresh_token"], response_types=["code"],
        token_endpoint_auth_method="none",
    )  # fmt: skip
    fetched_before = metadata_host.requests
    issued = sign_in(server, browser, client_id)
    assert metadata_host.requests == fetched_before + 1
    assert issued["access_token"].startswith("mesq_at_") and issued["refresh_token"].startswith("mesq_rt_")
    assert "create_memo" in connect(server, issued["access_token"])

    # The metadata host goes down; a person reconnecting still signs in (the document is kept).
    metadata_host.stop()
    try:
        again = sign_in(server, browser, client_id)
        assert "list_memos" in connect(server, again["access_token"])
    finally:
        metadata_host.start()


def test_claude_ai_falls_back_to_registration_and_is_answered_as_a_public_client(
    server: LiveServer, browser: Browser
) -> None:
    """Where a metadata field is missing claude.ai registers instead; MeSQ answers its
    `client_secret_post` request with a public client, which claude.ai reads from the answer."""
    assert registration_path({"client_id_metadata_document_supported": True}) == "dcr"
    mcp_url = f"{server.base_url}/mcp"
    metadata = discover(mcp_url, httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"}), BACKEND)
    registration = {
        "client_name": "Claude", "redirect_uris": [CALLBACK], "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "token_endpoint_auth_method": "client_secret_post",
    }  # fmt: skip
    registered = httpx.post(metadata.server["registration_endpoint"], json=registration, headers=BACKEND)
    assert registered.status_code == 201, registered.text
    client = registered.json()
    assert client["token_endpoint_auth_method"] == "none" and "client_secret" not in client
    assert "refresh_token" in client["grant_types"]

    issued = sign_in(server, browser, client["client_id"])
    assert "create_memo" in connect(server, issued["access_token"])
    refreshed = token(
        metadata, BACKEND, grant_type="refresh_token", refresh_token=issued["refresh_token"],
        client_id=client["client_id"],
    )  # fmt: skip
    assert "list_memos" in connect(server, refreshed["access_token"])
