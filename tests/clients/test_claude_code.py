"""Claude Code (the CLI), connecting to a remote MCP URL.

What it does, from public reports:
- It probes with `server/discover` at protocol 2026-07-28 (anthropics/claude-code#91099 is the
  report of a build that did not, and modern-only servers became unreachable), and some builds
  then send a 2025-11-25 `initialize` anyway after a successful discover
  (anthropics/claude-code#96183: a server that locks a connection to the modern era answers
  -32022). Its `initialize` carries `capabilities: {"roots": {}}` and `clientInfo.name`
  `claude-code` (cl-ai-project/cl-mcp#26).
- It signs in with its own Client ID Metadata Document since v2.1.81 (dropseed/plain#108;
  `https://claude.ai/oauth/claude-code-client-metadata`, PostHog/posthog#52324), with a loopback
  callback on a port it picks. The document lists the callbacks without a port
  (`http://localhost/callback`, `http://127.0.0.1/callback`) and the authorization request sends
  `http://localhost:<port>/callback` (anthropics/claude-code#90370).
- After discover it lists and calls tools on the 2026-07-28 wire: every request carries its
  `_meta` envelope and the `Mcp-Method` / `Mcp-Name` headers.
"""

from __future__ import annotations

import json

from tests.clients.wire import MODERN, McpWire, authorize, discover, result, token
from tests.conftest import LiveServer, free_port
from tests.oauth.browser import Browser
from tests.oauth.metadata_host import MetadataHost

CLIENT_INFO = {"name": "claude-code", "version": "2.1.280"}
CAPABILITIES = {"roots": {}, "elicitation": {"form": {}, "url": {}}}


def test_claude_code_probes_with_server_discover_and_works_on_the_modern_wire(
    server: LiveServer, browser: Browser, metadata_host: MetadataHost
) -> None:
    mcp_url = f"{server.base_url}/mcp"
    probe = McpWire(mcp_url, CLIENT_INFO).modern("server/discover", capabilities=CAPABILITIES)
    # No credential yet: the probe's answer is the challenge that starts the sign-in.
    metadata = discover(mcp_url, probe)
    assert 'scope="memo:read todo:read reading:read"' in probe.headers["www-authenticate"]

    callback = f"http://localhost:{free_port()}/callback"
    client_id = metadata_host.serve(
        "/oauth/claude-code-client-metadata", client_name="Claude Code", client_uri="https://claude.ai",
        redirect_uris=["http://localhost/callback", "http://127.0.0.1/callback"],
        grant_types=["authorization_code", "refresh_token"], response_types=["code"],
        token_endpoint_auth_method="none",
    )  # fmt: skip
    authorized = authorize(browser, metadata, client_id, callback, scope="memo:read memo:write", state="cc")
    issued = token(
        metadata, grant_type="authorization_code", code=authorized.code, client_id=client_id, redirect_uri=callback,
        code_verifier=authorized.pkce.verifier, resource=metadata.resource["resource"],
    )  # fmt: skip

    wire = McpWire(mcp_url, CLIENT_INFO, token=issued["access_token"])
    discovered = result(wire.modern("server/discover", capabilities=CAPABILITIES))
    assert discovered["supportedVersions"][0] == MODERN and "2025-11-25" in discovered["supportedVersions"]
    assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mesq"
    assert "tools" in discovered["capabilities"]

    # The builds of #96183 send initialize after a successful discover: served, not -32022.
    late = wire.initialize("2025-11-25", {"roots": {}})
    assert result(late)["protocolVersion"] == "2025-11-25"

    tools = result(wire.modern("tools/list"))["tools"]
    assert {"create_memo", "list_memos"} <= {tool["name"] for tool in tools}
    created = result(wire.modern("tools/call", {"name": "create_memo", "arguments": {"content": "from claude code"}}))
    assert not created.get("isError") and created["structuredContent"]["data"]["memo"]["contentSource"] == "mcp"
    assert json.loads(created["content"][0]["text"]) == created["structuredContent"]
