"""The MCP Inspector (modelcontextprotocol/inspector), a web page at http://localhost:6274.

What it does, from its source (client/src/lib/auth.ts) and public reports:
- The OAuth flow runs in the browser page, so every discovery document, the registration and
  the token request are cross-origin fetches from `http://localhost:6274`; the TypeScript SDK
  sends `MCP-Protocol-Version` on discovery, which makes them preflighted. It asks for the
  MCP-path protected-resource document first (routecraftjs/routecraft#320) and takes its scopes
  from `scopes_supported` (`discoverScopes`).
- Its registration: both callbacks (`/oauth/callback`, `/oauth/callback/debug`), `none`, both
  grant types, `client_name` "MCP Inspector", `client_uri` its repository, and `scope` "" when it
  has none saved yet (`InspectorOAuthClientProvider.clientMetadata`).
- It connects "via proxy" by default (its Node proxy posts to /mcp, no Origin) or "direct" from
  the page; direct needs CORS on the MCP URL itself, with `WWW-Authenticate` readable by the page
  (doitintl/doit-mcp-server#181). MeSQ answers the page's origin on /mcp only when it is an origin
  the DNS-rebinding check admits: on a loopback `mesq serve` any loopback page
  (docs/decisions.md, "Slow clients, anonymous limits and DNS rebinding").
"""

from __future__ import annotations

import httpx

from tests.clients.wire import ACCEPT, McpWire, authorize, discover, result, token
from tests.conftest import LiveServer
from tests.oauth.browser import Browser

PAGE = "http://localhost:6274"
CALLBACK = f"{PAGE}/oauth/callback"
CLIENT_INFO = {"name": "mcp-inspector", "version": "0.17.2"}
SDK_HEADERS = {"Origin": PAGE, "MCP-Protocol-Version": "2025-11-25"}


def preflight(url: str, method: str, headers: str) -> httpx.Response:
    asking = {"Origin": PAGE, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}
    response = httpx.options(url, headers=asking)
    assert response.status_code in (200, 204), (url, response.status_code, response.text)
    assert response.headers["access-control-allow-origin"] in ("*", PAGE), (url, response.headers)
    return response


def test_inspector_signs_in_from_the_page_and_connects_via_its_proxy_and_directly(
    server: LiveServer, browser: Browser
) -> None:
    base = server.base_url
    mcp_url = f"{base}/mcp"
    proxy = McpWire(mcp_url, CLIENT_INFO)  # the Node proxy: no Origin
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"):
        preflight(f"{base}{path}", "GET", "mcp-protocol-version")
    metadata = discover(mcp_url, proxy.initialize("2025-11-25"), SDK_HEADERS)
    scope = " ".join(metadata.resource["scopes_supported"])

    preflight(metadata.server["registration_endpoint"], "POST", "content-type")
    registration = {
        "redirect_uris": [CALLBACK, f"{CALLBACK}/debug"], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "client_name": "MCP Inspector", "client_uri": "https://github.com/modelcontextprotocol/inspector", "scope": "",
    }  # fmt: skip
    registered = httpx.post(metadata.server["registration_endpoint"], json=registration, headers={"Origin": PAGE})
    assert registered.status_code == 201, registered.text
    assert registered.headers["access-control-allow-origin"] in ("*", PAGE)
    client_id = registered.json()["client_id"]

    authorized = authorize(browser, metadata, client_id, CALLBACK, scope=scope, state="inspector")
    preflight(metadata.server["token_endpoint"], "POST", "content-type")
    issued = token(
        metadata, {"Origin": PAGE}, grant_type="authorization_code", code=authorized.code, client_id=client_id,
        redirect_uri=CALLBACK, code_verifier=authorized.pkce.verifier, resource=metadata.resource["resource"],
    )  # fmt: skip
    assert set(issued["scope"].split()) == set(metadata.resource["scopes_supported"])

    # Via proxy (the default): the SDK's handshake, its GET for server messages, a call.
    proxied = McpWire(mcp_url, CLIENT_INFO, token=issued["access_token"])
    assert result(proxied.initialize("2025-11-25"))["serverInfo"]["name"] == "mesq"
    assert proxied.notify("notifications/initialized", version="2025-11-25").status_code == 202
    assert proxied.get().status_code == 405
    assert result(proxied.legacy("tools/call", {"name": "list_tags", "arguments": {}}, version="2025-11-25"))

    # Direct: the page itself posts to /mcp on this loopback server.
    asked = "authorization,content-type,mcp-protocol-version,accept"
    allowed = preflight(mcp_url, "POST", asked)
    assert allowed.headers["access-control-allow-origin"] == PAGE
    granted = {name.strip().lower() for name in allowed.headers["access-control-allow-headers"].split(",")}
    assert set(asked.split(",")) <= granted
    direct = McpWire(mcp_url, CLIENT_INFO, token=issued["access_token"], headers={"Origin": PAGE})
    answered = direct.initialize("2025-11-25")
    assert result(answered)["protocolVersion"] == "2025-11-25"
    assert answered.headers["access-control-allow-origin"] == PAGE
    challenge = httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                           headers={"Origin": PAGE, "Accept": ACCEPT})  # fmt: skip
    assert challenge.status_code == 401 and challenge.headers["access-control-allow-origin"] == PAGE
    assert "www-authenticate" in challenge.headers["access-control-expose-headers"].lower()
    # A page of another site never gets an answer it may read.
    elsewhere = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    foreign = httpx.options(mcp_url, headers=elsewhere)
    assert "access-control-allow-origin" not in foreign.headers
