"""ChatGPT's connectors (developer mode / apps), which register with Dynamic Client Registration.

What it does, from public reports:
- It rejects a registration answer whose `grant_types` lacks `refresh_token` when the server's
  metadata advertises `refresh_token` in `grant_types_supported` (MeSQ issue 43; the mismatch
  InsForge/insforge-mcp#104 measured: a client told one thing at registration and another at
  the token endpoint). It registers with `refresh_token` in `grant_types` or without the field.
  Without refresh tokens a connector is dropped when its access token expires (usenotra/notra#498).
- Its callback is `https://chatgpt.com/connector_platform_oauth_redirect`, the stable one that
  requires the RFC 9207 `iss` parameter on the authorization response (OpenAI's auth docs, quoted
  in koala73/worldmonitor#8305 and elsewhere); older connections use
  `https://chatgpt.com/connector/oauth/{callback_id}`.
- It asks for the scopes the protected-resource metadata lists, and when a person reconnects it
  calls `/oauth/authorize` again without any `scope` parameter
  (community.openai.com/t/oauth-missing-scopes-after-reconnect/1366784).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.clients.wire import McpWire, authorize, discover, result, token
from tests.conftest import LiveServer
from tests.oauth.browser import Browser

CALLBACK = "https://chatgpt.com/connector_platform_oauth_redirect"
CLIENT_INFO = {"name": "openai-mcp", "version": "1.0.0"}


def accepts_registration(metadata: dict[str, Any], answer: dict[str, Any]) -> bool:
    """ChatGPT's check of the answer: it needs refresh tokens whenever the server offers them."""
    offered = "refresh_token" in metadata.get("grant_types_supported", [])
    return not offered or "refresh_token" in answer.get("grant_types", ["authorization_code"])


@pytest.mark.parametrize(
    "grant_types",
    [["authorization_code", "refresh_token"], ["authorization_code"], None],
    ids=["with-refresh_token", "without-refresh_token", "no-grant_types"],
)
def test_chatgpt_registers_signs_in_refreshes_and_reconnects(
    server: LiveServer, browser: Browser, grant_types: list[str] | None
) -> None:
    mcp_url = f"{server.base_url}/mcp"
    metadata = discover(mcp_url, httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize"}))
    assert "refresh_token" in metadata.server["grant_types_supported"]
    assert metadata.server["authorization_response_iss_parameter_supported"] is True

    registration: dict[str, Any] = {"client_name": "ChatGPT", "redirect_uris": [CALLBACK],
                                    "token_endpoint_auth_method": "none", "response_types": ["code"]}  # fmt: skip
    if grant_types is not None:
        registration["grant_types"] = grant_types
    answer = httpx.post(metadata.server["registration_endpoint"], json=registration)
    assert answer.status_code == 201, answer.text
    client = answer.json()
    assert accepts_registration(metadata.server, client), client
    assert client["grant_types"] == ["authorization_code", "refresh_token"]

    scope = " ".join(metadata.resource["scopes_supported"])
    authorized = authorize(browser, metadata, client["client_id"], CALLBACK, scope=scope, state="oauth_s_1")
    form = {"grant_type": "authorization_code", "code": authorized.code, "client_id": client["client_id"],
            "redirect_uri": CALLBACK, "code_verifier": authorized.pkce.verifier,
            "resource": metadata.resource["resource"]}  # fmt: skip
    issued = token(metadata, **form)
    assert issued["refresh_token"] and set(issued["scope"].split()) == set(metadata.resource["scopes_supported"])
    refreshed = token(metadata, grant_type="refresh_token", refresh_token=issued["refresh_token"],
                      client_id=client["client_id"], resource=metadata.resource["resource"])  # fmt: skip
    wire = McpWire(mcp_url, CLIENT_INFO, token=refreshed["access_token"])
    assert result(wire.initialize("2025-06-18"))["protocolVersion"] == "2025-06-18"
    assert wire.notify("notifications/initialized", version="2025-06-18").status_code == 202
    listed = result(wire.legacy("tools/list", version="2025-06-18"))["tools"]
    assert "search_everything" in {tool["name"] for tool in listed}

    # Disconnect, connect again: the same client, no `scope` this time; the person approves what
    # MeSQ offers (everything /mcp can do, docs/decisions.md "no scope asked"), and it works.
    again = authorize(browser, metadata, client["client_id"], CALLBACK, scope=None, state="oauth_s_2")
    reissued = token(metadata, **{**form, "code": again.code, "code_verifier": again.pkce.verifier})
    assert reissued["scope"] == "memo:read memo:write todo:read todo:write reading:read"
    reconnected = McpWire(mcp_url, CLIENT_INFO, token=reissued["access_token"])
    assert result(reconnected.initialize("2025-06-18"))["serverInfo"]["name"] == "mesq"
