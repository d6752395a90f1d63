"""RFC 7591 registration under the JSON body rules of docs/contract.md §3, and the discovery documents."""

from __future__ import annotations

import pytest

from mesq.auth.oauth.authorization import load_pending
from tests.mcp.conftest import Mcp
from tests.oauth.conftest import INSTANCE
from tests.oauth.helpers import REDIRECT_URI, Pkce, query_of

GOOD = {"client_name": "Agent", "redirect_uris": [REDIRECT_URI]}


@pytest.mark.parametrize(
    ("content", "headers", "needle"),
    [
        (b'{"redirect_uris": []}', {"Content-Type": "text/plain"}, "Content-Type"),
        (b'{"redirect_uris": [', {"Content-Type": "application/json"}, "not valid JSON"),
        (b'{"client_name": "\xff"}', {"Content-Type": "application/json"}, "UTF-8"),
        (b"[1, 2]", {"Content-Type": "application/json"}, "JSON object"),
        (b'{"a": "' + b"x" * (1024 * 1024) + b'"}', {"Content-Type": "application/json"}, "1 MiB"),
        (  # a lone surrogate was stored, then the answer failed to encode (500)
            b'{"redirect_uris": ["http://127.0.0.1:8765/callback"], "client_uri": "https://a.example/\\ud800"}',
            {"Content-Type": "application/json"},
            "lone surrogate",
        ),
        (b'{"client_name": "Claude\\ud800", "redirect_uris": []}', {"Content-Type": "application/json"}, "U+D800"),
    ],
)
def test_registration_body_rules(client, content, headers, needle):
    response = client.post("/oauth/register", content=content, headers=headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and needle in error["message"]


def test_registration_accepts_json_suffix_media_types(client):
    response = client.post(
        "/oauth/register", json=GOOD, headers={"Content-Type": "application/vnd.example+json; charset=utf-8"}
    )
    assert response.status_code == 201 and response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["client_id"].startswith("mesq_client_") and body["token_endpoint_auth_method"] == "none"
    assert body["grant_types"] == ["authorization_code", "refresh_token"] and body["redirect_uris"] == [REDIRECT_URI]


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        ({"redirect_uris": []}, "invalid_redirect_uri"),
        ({"client_name": "x"}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://evil.example/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://app.example/cb#frag"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://app.example/cb\r\nSet-Cookie: x=1"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://127.0.0.1:8765/call\nback"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://app.example/c b"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["javascript:alert(1)"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["javascript://example.com/%0aalert(1)"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["data://x/text/html,hi"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["file:///etc/passwd"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["ws://localhost/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["com.example.app:/oauth2redirect"]}, "invalid_redirect_uri"),  # an app scheme needs a host
        ({"redirect_uris": [REDIRECT_URI], "grant_types": ["client_credentials"]}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "grant_types": ["refresh_token"]}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "response_types": ["token"]}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "client_uri": "not a url"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "client_name": 5}, "invalid_client_metadata"),
        # authlib reads a key set's `keys` without checking it is one: these were 500s.
        ({"redirect_uris": [REDIRECT_URI], "jwks": "x"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "jwks": {}}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "jwks": {"keys": "x"}}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT_URI], "jwks": {"keys": [5]}}, "invalid_client_metadata"),
    ],
)
def test_registration_policy(client, metadata, error):
    response = client.post("/oauth/register", json=metadata)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == error


def test_a_null_member_is_an_absent_one(client):
    """Serializers that keep unset fields send `"jwks": null` (authlib imported it: a 500)."""
    body = {"redirect_uris": [REDIRECT_URI], "jwks": None, "logo_uri": None, "contacts": None, "client_name": None}
    response = client.post("/oauth/register", json=body)
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("requested", "granted"),
    [
        ({"token_endpoint_auth_method": "client_secret_post"}, {}),
        ({"token_endpoint_auth_method": "client_secret_basic"}, {}),
        ({"token_endpoint_auth_method": "private_key_jwt"}, {}),
        ({"grant_types": ["authorization_code"]}, {}),
        ({"grant_types": ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"]}, {}),
        ({"redirect_uris": ["cursor://anysphere.cursor-mcp/oauth/callback", REDIRECT_URI]}, None),
        ({"redirect_uris": ["vscode://vscode.github-authentication/did-authenticate"]}, None),
    ],
)
def test_registration_answers_what_mesq_grants(client, requested, granted):
    """RFC 7591 §3.2.1: the server may replace requested values, and clients read the answer. Every
    client is public (no secret, whatever method was asked for) and gets refresh tokens; a native
    app's own scheme with a host is a redirect URI (RFC 8252 §7.1)."""
    response = client.post("/oauth/register", json={**GOOD, **requested})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["token_endpoint_auth_method"] == "none" and "client_secret" not in body
    assert body["grant_types"] == ["authorization_code", "refresh_token"]
    assert body["redirect_uris"] == requested.get("redirect_uris", GOOD["redirect_uris"])


def test_registered_scope_is_no_ceiling_for_step_up(flow, register):
    """MCP step-up: a client registered for memo:read that is told (403 insufficient_scope) to get
    memo:write asks for the union without registering again; the person approves both."""
    limited = register(scope="memo:read")
    flow.client_id = limited["client_id"]
    pkce = Pkce.new()
    response = flow.authorize(pkce, scope="memo:read memo:write")
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert set(pending.scopes) == {"memo:read", "memo:write"}
    tokens = flow.exchange(flow.approve(response)["code"], pkce)
    assert set(tokens.json()["scope"].split()) == {"memo:read", "memo:write"}


@pytest.mark.parametrize("scope", [None, "", "   "])
def test_default_scope_when_omitted_or_blank(flow, scope):
    """No scope asked (and none registered): MeSQ offers what the connection can use, writes
    included (docs/decisions.md "no scope asked"); the person unticks what they do not want."""
    pkce = Pkce.new()
    response = flow.authorize(pkce, scope=scope)
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert pending.scopes == ("memo:read", "memo:write", "todo:read", "todo:write", "reading:read")
    assert pending.offered
    assert pending.resource == f"{INSTANCE}/mcp" and pending.state == "xyz-state"
    tokens = flow.exchange(flow.approve(response)["code"], pkce)
    assert tokens.json()["scope"] == "memo:read memo:write todo:read todo:write reading:read"


@pytest.mark.parametrize(
    ("registered", "defaulted"),
    [
        ("memo:read memo:write", ("memo:read",)),
        ("memo:write todo:read todo:write", ("todo:read",)),
        ("memo:write", ("memo:write",)),  # no read scope registered: what the client registered
    ],
)
def test_default_scope_is_narrowed_to_the_registered_scopes(flow, register, registered, defaulted):
    flow.client_id = register(scope=registered)["client_id"]
    pkce = Pkce.new()
    response = flow.authorize(pkce, scope=None)
    assert response.headers["location"].startswith(f"{INSTANCE}/oauth/consent?request=")  # still asks the person
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert pending.scopes == defaulted
    assert flow.exchange(flow.approve(response)["code"], pkce).json()["scope"] == " ".join(defaulted)


def test_write_only_token_is_refused_with_insufficient_scope(flow, client):
    access = flow.tokens(scope="memo:write")["access_token"]
    response = Mcp(client, access).post("tools/list")
    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="memo:read todo:read reading:read"' in challenge


def test_authorization_server_metadata(client):
    response = client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    document = response.json()
    assert document["issuer"] == INSTANCE
    endpoints = {"authorization": "authorize", "token": "token", "registration": "register", "revocation": "revoke"}
    for name, path in endpoints.items():
        assert document[f"{name}_endpoint"] == f"{INSTANCE}/oauth/{path}"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["token_endpoint_auth_methods_supported"] == ["none"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert document["scopes_supported"] == ["memo:read", "memo:write", "todo:read", "todo:write", "reading:read"]
    preflight = client.options(
        "/oauth/token", headers={"Origin": "https://agent.example", "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize(
    "path", ["/mcp", "", "/mcp/readonly", "/mcp/x/memo,todo", "/mcp/x/memo/readonly", "/api/toolkit"]
)
def test_protected_resource_metadata(client, path):
    response = client.get(f"/.well-known/oauth-protected-resource{path}")
    assert response.status_code == 200
    document = response.json()
    assert document["resource"] == INSTANCE + (path or "/mcp")
    assert document["authorization_servers"] == [INSTANCE]
    assert document["bearer_methods_supported"] == ["header"]


ALL = ["memo:read", "memo:write", "todo:read", "todo:write", "reading:read"]


@pytest.mark.parametrize(
    ("path", "scopes"),
    [
        ("/mcp", ALL),
        ("/api/toolkit", ALL),
        ("/mcp/readonly", ["memo:read", "todo:read", "reading:read"]),
        ("/mcp/x/todo", ["todo:read", "todo:write"]),
        ("/mcp/x/todo/readonly", ["todo:read"]),
        ("/mcp/x/memo,reading", ["memo:read", "memo:write", "reading:read"]),
        ("/mcp/x/reading", ["reading:read"]),
        ("/mcp/x/search", ["memo:read", "todo:read", "reading:read"]),
        ("/mcp/x/history", ["memo:read", "memo:write", "todo:read", "todo:write"]),
        ("/mcp/x/todo,code", ["todo:read", "todo:write"]),
        ("/mcp/x/code", ALL),
        ("/mcp/x/all/readonly", ["memo:read", "todo:read", "reading:read"]),
    ],
)
def test_protected_resource_metadata_lists_the_scopes_its_tools_can_use(client, path, scopes):
    """A narrowed MCP URL listed all five scopes, while its 401 challenge asks only for the read
    scopes of its tools: `scopes_supported` is now the read and write scopes of its groups (only
    the reads on a `/readonly` URL), and it holds every scope its challenge asks for."""
    document = client.get(f"/.well-known/oauth-protected-resource{path}").json()
    assert document["scopes_supported"] == scopes
    if path.startswith("/mcp"):
        challenge = Mcp(client=client, token=None, path=path).post("tools/list").headers["www-authenticate"]
        asked = challenge.split('scope="')[1].split('"')[0].split()
        assert set(asked) == {scope for scope in scopes if scope.endswith(":read")}, challenge


@pytest.mark.parametrize(
    "path", ["/mcp", "", "/mcp/readonly", "/mcp/x/memo,todo", "/mcp/x/memo/readonly", "/api/toolkit"]
)
def test_protected_resource_metadata_is_open_to_browser_clients(client, path):
    """The document the 401 points to is a browser-hosted client's first discovery step."""
    url = f"/.well-known/oauth-protected-resource{path}"
    origin = {"Origin": "https://agent.example"}
    document = client.get(url, headers=origin)
    assert document.status_code == 200 and document.headers["access-control-allow-origin"] == "*"
    preflight = client.options(url, headers={**origin, "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200, preflight.text
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "GET" in preflight.headers["access-control-allow-methods"]


def test_public_url_is_the_issuer_and_the_audience(services, make_account):
    from starlette.testclient import TestClient

    from mesq.runtime.server import create_local_app

    settings = services.settings.with_overrides(public_url="https://mesq.example")
    app = create_local_app(services.__class__(settings=settings, items=services.items, blobs=services.blobs))
    with TestClient(app) as client:
        assert client.get("/.well-known/oauth-authorization-server").json()["issuer"] == "https://mesq.example"
        assert client.get("/.well-known/oauth-protected-resource/mcp").json()["authorization_servers"] == [
            "https://mesq.example"
        ]
