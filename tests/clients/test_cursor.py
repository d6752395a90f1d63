"""Cursor (the desktop app), on the legacy handshake.

What it does, from public reports:
- It speaks the `initialize` handshake (2025-11-25 at most, with a session if the server gives
  one; blazium-games/blazium#746), then `notifications/initialized` and `tools/list`; its
  `initialize` may arrive again when a server is toggled off and on
  (modelcontextprotocol/typescript-sdk#1400).
- For OAuth it runs Dynamic Client Registration with three redirect URIs in one request: its own
  scheme `cursor://anysphere.cursor-mcp/oauth/callback`, `https://www.cursor.com/agents/mcp/oauth/callback`
  and a loopback one; a server that refuses the `cursor://` URI refuses the whole registration,
  and Cursor never shows "Authenticate" (soflyy/agent-connector-for-wp#111, trypostit/trypost#336,
  TanStack/tanstack.com#652). The desktop app then authorizes with the `cursor://` callback.
- It falls back to SSE (a GET) when Streamable HTTP fails (pgEdge/pgedge-postgres-mcp#277); on a
  Streamable HTTP server that has no stream to offer, the GET is answered 405.
"""

from __future__ import annotations

import httpx

from tests.clients.wire import McpWire, authorize, discover, result, token
from tests.conftest import LiveServer
from tests.oauth.browser import Browser

NATIVE_CALLBACK = "cursor://anysphere.cursor-mcp/oauth/callback"
REDIRECT_URIS = [NATIVE_CALLBACK, "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"]
CLIENT_INFO = {"name": "cursor-vscode", "version": "1.0.0"}


def test_cursor_registers_its_native_callback_and_connects_on_the_handshake(
    server: LiveServer, browser: Browser
) -> None:
    mcp_url = f"{server.base_url}/mcp"
    anonymous = McpWire(mcp_url, CLIENT_INFO).initialize("2025-11-25")
    metadata = discover(mcp_url, anonymous)
    registration = {"client_name": "Cursor", "redirect_uris": REDIRECT_URIS, "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}  # fmt: skip
    answer = httpx.post(metadata.server["registration_endpoint"], json=registration)
    assert answer.status_code == 201, answer.text
    client = answer.json()
    assert client["redirect_uris"] == REDIRECT_URIS

    authorized = authorize(browser, metadata, client["client_id"], NATIVE_CALLBACK, scope=None, state="cursor")
    issued = token(
        metadata, grant_type="authorization_code", code=authorized.code, client_id=client["client_id"],
        redirect_uri=NATIVE_CALLBACK, code_verifier=authorized.pkce.verifier,
    )  # fmt: skip

    wire = McpWire(mcp_url, CLIENT_INFO, token=issued["access_token"])
    for _ in range(2):  # disabled and enabled again: a second initialize on the same URL
        initialized = wire.initialize("2025-11-25", {"roots": {"listChanged": False}})
        assert result(initialized)["protocolVersion"] == "2025-11-25"
    assert wire.notify("notifications/initialized", version="2025-11-25").status_code == 202
    tools = result(wire.legacy("tools/list", {}, version="2025-11-25"))["tools"]
    assert "list_memos" in {tool["name"] for tool in tools}
    assert "create_memo" in {tool["name"] for tool in tools}  # no scope asked: writes offered and approved
    stream = wire.get()
    assert stream.status_code == 405 and stream.headers["allow"] == "POST"
