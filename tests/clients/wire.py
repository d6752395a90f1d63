"""The HTTP a client sends, written out: each test in tests/clients replays one client's handshake
with these, byte-level choices (headers, envelopes, versions, registration bodies) set by the
test from that client's public reports. Plain httpx, no SDK: an SDK would smooth over exactly the
quirks these tests exist to pin down."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.oauth.browser import Browser
from tests.oauth.helpers import Pkce, query_of

MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
#: JSON-RPC methods whose `name` (or `uri`) the 2026-07-28 wire repeats in `Mcp-Name`.
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


@dataclass
class McpWire:
    """One client's conversation with an MCP URL."""

    url: str
    client_info: dict[str, str]
    token: str | None = None
    #: Headers this client sends on every request (User-Agent, Origin, ...).
    headers: dict[str, str] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(0))

    def _base_headers(self) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **self.headers}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def _post(self, headers: dict[str, str], body: Any) -> httpx.Response:
        return httpx.post(self.url, headers=headers, json=body, timeout=30)

    def next_id(self) -> int:
        return next(self._ids)

    # -- 2026-07-28: every request stands alone, with its envelope in `_meta` ------------------

    def modern(
        self, method: str, params: dict[str, Any] | None = None, capabilities: dict[str, Any] | None = None
    ) -> httpx.Response:
        envelope = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": self.client_info,
            "io.modelcontextprotocol/clientCapabilities": capabilities or {},
        }
        headers = {**self._base_headers(), "Mcp-Protocol-Version": MODERN, "Mcp-Method": method}
        if method in NAME_BEARING and params:
            headers["Mcp-Name"] = str(params[NAME_BEARING[method]])
        body = {"jsonrpc": "2.0", "id": self.next_id(), "method": method,
                "params": {**(params or {}), "_meta": envelope}}  # fmt: skip
        return self._post(headers, body)

    # -- the initialize handshake (2025-11-25 back to 2024-11-05) -------------------------------

    def initialize(self, version: str, capabilities: dict[str, Any] | None = None) -> httpx.Response:
        """No `MCP-Protocol-Version` header on initialize: the version is negotiated in the body."""
        params = {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": self.client_info}
        return self._post(self._base_headers(), {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize",
                                                 "params": params})  # fmt: skip

    def legacy(self, method: str, params: dict[str, Any] | None = None, *, version: str) -> httpx.Response:
        """A request after initialize: the negotiated version in `MCP-Protocol-Version`."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id(), "method": method}
        if params is not None:
            body["params"] = params
        return self._post({**self._base_headers(), "MCP-Protocol-Version": version}, body)

    def notify(self, method: str, *, version: str) -> httpx.Response:
        headers = {**self._base_headers(), "MCP-Protocol-Version": version}
        return self._post(headers, {"jsonrpc": "2.0", "method": method})

    def get(self) -> httpx.Response:
        """The GET a handshake-era client opens for server-sent messages."""
        headers = {"Accept": "text/event-stream", **self.headers}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return httpx.get(self.url, headers=headers, timeout=30)


def result(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    payload = response.json()
    assert "error" not in payload, payload
    answer: dict[str, Any] = payload["result"]
    return answer


# -- OAuth, as an MCP client discovers and runs it ---------------------------------------------


@dataclass(frozen=True)
class Discovered:
    resource: dict[str, Any]  # RFC 9728 protected-resource metadata
    server: dict[str, Any]  # RFC 8414 authorization-server metadata


def discover(mcp_url: str, unauthenticated: httpx.Response, headers: dict[str, str] | None = None) -> Discovered:
    """From a 401 on the MCP URL: its `resource_metadata`, then the authorization server's metadata."""
    assert unauthenticated.status_code == 401, unauthenticated.text
    match = re.search(r'resource_metadata="([^"]+)"', unauthenticated.headers["www-authenticate"])
    assert match, unauthenticated.headers
    resource = httpx.get(match.group(1), headers=headers, timeout=30)
    assert resource.status_code == 200 and resource.json()["resource"] == mcp_url, resource.text
    issuer = resource.json()["authorization_servers"][0]
    server = httpx.get(f"{issuer}/.well-known/oauth-authorization-server", headers=headers, timeout=30)
    assert server.status_code == 200 and server.json()["issuer"] == issuer, server.text
    return Discovered(resource.json(), server.json())


@dataclass(frozen=True)
class Authorized:
    code: str
    pkce: Pkce
    callback: dict[str, str]  # every query parameter the redirect carried


def authorize(
    browser: Browser, metadata: Discovered, client_id: str, redirect_uri: str, *, scope: str | None, state: str
) -> Authorized:
    """Send the person's browser to the authorization endpoint; they sign in and approve."""
    pkce = Pkce.new()
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "state": state,
              "code_challenge": pkce.challenge, "code_challenge_method": "S256",
              "resource": metadata.resource["resource"]}  # fmt: skip
    if scope is not None:
        params["scope"] = scope
    response = httpx.get(metadata.server["authorization_endpoint"], params=params, timeout=30)
    assert response.status_code == 302, response.text
    redirect = browser.decide(response.headers["location"], approve=True)
    assert redirect.startswith(redirect_uri + "?"), redirect
    callback = query_of(redirect)
    assert callback["state"] == state and callback["iss"] == metadata.server["issuer"], callback
    return Authorized(callback["code"], pkce, callback)


def token(metadata: Discovered, headers: dict[str, str] | None = None, **form: str) -> dict[str, Any]:
    response = httpx.post(metadata.server["token_endpoint"], data=form, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    issued: dict[str, Any] = response.json()
    return issued
