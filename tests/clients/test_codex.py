"""OpenAI's Codex CLI (its Rust MCP client, rmcp), on the legacy handshake with a bearer token.

What it does, from public reports:
- Before anything else it GETs the OAuth discovery documents; a server that answers them with a
  body-less 404 ends the start-up with "Unexpected content type: missing-content-type", never
  reaching `initialize` (openai/codex#26955).
- Its `initialize` is strict Streamable HTTP: an answer older than 2025-03-26 (the revision that
  introduced the transport) fails it silently (pgEdge/pgedge-postgres-mcp#277); it sends
  `Accept: application/json, text/event-stream` (openai/codex#5619).
- It then sends `notifications/initialized` and expects 202 Accepted: answering it otherwise
  ends the start-up with "Transport channel closed, when send initialized notification"
  (openai/codex#21903, netdata/netdata#22594).
- It is configured with `bearer_token_env_var`: a personal access token on every request.
"""

from __future__ import annotations

import httpx

from tests.clients.wire import McpWire, result
from tests.conftest import LiveServer

CLIENT_INFO = {"name": "codex-mcp-client", "version": "0.137.0"}
RMCP = {"User-Agent": "rmcp"}


def test_codex_discovers_initializes_and_is_answered_202_for_initialized(server: LiveServer, pat: str) -> None:
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"):
        found = httpx.get(f"{server.base_url}{path}", headers=RMCP)
        assert found.status_code == 200 and found.headers["content-type"] == "application/json", path
    # What MeSQ does not serve is still a typed answer, never a body-less 404.
    missing = httpx.get(f"{server.base_url}/.well-known/openid-configuration", headers=RMCP)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"

    wire = McpWire(f"{server.base_url}/mcp", CLIENT_INFO, token=pat, headers=RMCP)
    for asked in ("2025-06-18", "2025-03-26"):
        initialized = wire.initialize(asked)
        assert result(initialized)["protocolVersion"] == asked >= "2025-03-26"
    initialized_notice = wire.notify("notifications/initialized", version="2025-03-26")
    assert initialized_notice.status_code == 202 and initialized_notice.content == b""
    listed = result(wire.legacy("tools/list", version="2025-03-26"))["tools"]
    called = result(wire.legacy("tools/call", {"name": "list_tags", "arguments": {}}, version="2025-03-26"))
    assert "list_tags" in {tool["name"] for tool in listed} and not called.get("isError")
