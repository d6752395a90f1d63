"""Scopes MeSQ does not have (`offline_access`, `openid`, `claudeai`...) are ignored, never an
error: RFC 6749 §3.3 lets the server grant less than asked and RFC 7591 §3.2.1 lets registration
replace what was asked. Refusing them refused the whole connection (Claude Code appends
`offline_access`, Claude Desktop sent `scope=+offline_access`, claude.ai once registered
`scope: "claudeai"`)."""

from __future__ import annotations

import pytest

from mesq.auth.oauth.authorization import load_pending
from tests.oauth.helpers import Pkce, query_of
from tests.oauth.test_metadata_documents import JSON, _app, _authorize, _document, documents  # noqa: F401

DEFAULT = ("memo:read", "todo:read", "reading:read")
#: What a request that asks no scope of ours is offered on `/mcp` (docs/decisions.md "no scope asked").
OFFERED = ("memo:read", "memo:write", "todo:read", "todo:write", "reading:read")


@pytest.mark.parametrize(
    ("scope", "granted"),
    [
        ("memo:read todo:read reading:read offline_access", DEFAULT),
        (" offline_access", OFFERED),  # nothing of ours left: as if no scope was sent
        ("openid memo:read", ("memo:read",)),
        ("claudeai", OFFERED),
        ("openid profile email offline_access", OFFERED),
        ("memo:read memo:write memo:admin", ("memo:read", "memo:write")),
    ],
)
def test_unknown_scopes_are_ignored_at_authorize(flow, scope, granted):
    pkce = Pkce.new()
    response = flow.authorize(pkce, scope=scope)
    assert response.status_code == 302
    location = response.headers["location"]
    assert "error" not in query_of(location), location
    pending = load_pending(flow.services.items, query_of(location)["request"])
    assert pending.scopes == granted  # what the consent page shows
    tokens = flow.exchange(flow.approve(response)["code"], pkce)
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["scope"] == " ".join(granted)  # RFC 6749 §5.1: what was granted


def test_nothing_known_falls_back_to_the_registered_default(flow, register):
    flow.client_id = register(scope="memo:read memo:write")["client_id"]
    response = flow.authorize(Pkce.new(), scope="offline_access")
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert pending.scopes == ("memo:read",)


@pytest.mark.parametrize(
    ("scope", "registered", "defaulted"),
    [
        ("openid profile offline_access", None, OFFERED),  # registered as if without scope
        ("claudeai", None, OFFERED),
        ("memo:read offline_access", "memo:read", ("memo:read",)),
        ("offline_access todo:write memo:read", "memo:read todo:write", ("memo:read",)),
    ],
)
def test_registration_drops_unknown_scopes(flow, register, scope, registered, defaulted):
    answer = register(scope=scope)
    assert answer.get("scope") == registered  # RFC 7591 §3.2.1: the metadata as stored
    flow.client_id = answer["client_id"]
    response = flow.authorize(Pkce.new(), scope=None)
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert pending.scopes == defaulted


def test_refresh_ignores_unknown_scopes(flow):
    tokens = flow.tokens(scope="memo:read memo:write offline_access")
    assert tokens["scope"] == "memo:read memo:write"
    kept = flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"], scope="offline_access")
    assert kept.status_code == 200, kept.text
    assert kept.json()["scope"] == "memo:read memo:write"
    narrowed = flow.token(
        grant_type="refresh_token", refresh_token=kept.json()["refresh_token"], scope="memo:read offline_access"
    )
    assert narrowed.status_code == 200, narrowed.text
    assert narrowed.json()["scope"] == "memo:read"
    wider = flow.token(
        grant_type="refresh_token", refresh_token=narrowed.json()["refresh_token"], scope="memo:write openid"
    )
    assert wider.status_code == 400 and wider.json()["error"] == "invalid_scope"


def test_metadata_document_with_unknown_scopes_is_accepted(services, documents):  # noqa: F811
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url, scope="openid offline_access memo:read"))
    with _app(services, allow_loopback=True) as client:
        response = _authorize(client, url)
    assert response.status_code == 302 and "/oauth/consent?request=" in response.headers["location"]


@pytest.mark.parametrize(
    ("resource_path", "scope", "granted"),
    [
        ("/mcp/x/todo", None, ("todo:read", "todo:write")),
        ("/mcp/x/memo,reading/readonly", "offline_access", ("memo:read", "reading:read")),
        ("/mcp/x/code,todo_inbox", None, ("todo:read", "todo:write")),
        ("/mcp/x/code", None, OFFERED),
        ("/mcp/readonly", None, DEFAULT),
        ("/mcp/x/todo", "memo:read todo:read", ("memo:read", "todo:read")),  # asked for: the person decides
    ],
)
def test_a_request_without_scope_for_a_narrowed_url_asks_for_what_it_shows(flow, resource_path, scope, granted):
    """No `scope` (ChatGPT's reconnect) means what the connection's tool groups can use (its
    `scopes_supported`, writes included, the person free to untick them): a todos-only URL asks
    for todos, not memos and the shelf it can never show. An explicit scope is kept as asked."""
    response = flow.authorize(Pkce.new(), scope=scope, resource=f"http://testserver{resource_path}")
    assert response.status_code == 302 and "error" not in query_of(response.headers["location"])
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert pending.scopes == granted


@pytest.mark.parametrize(
    ("registered", "resource_path", "granted"),
    [
        ("memo:read", "/mcp/x/todo", ("todo:read",)),  # registered on /mcp/x/memo, now connects todos
        ("memo:read memo:write", "/mcp/x/reading/readonly", ("reading:read",)),
        ("todo:write", "/mcp/x/todo", ("todo:read",)),  # writes only: connecting needs the read
        ("memo:read", "/mcp/x/memo,todo", ("memo:read",)),  # what it registered, within the URL's reach
    ],
)
def test_a_registered_client_without_scope_gets_a_scope_its_narrowed_url_can_use(
    flow, register, registered, resource_path, granted
):
    """A client that registered scopes for memos (it first connected /mcp/x/memo) and then asks
    for /mcp/x/todo without `scope` was defaulted to `memo:read`: the person approved it, the token
    was bound to /mcp/x/todo, and that connection listed no tool at all (and, holding a read
    scope, got no challenge either). Nothing of its default the URL can use -> the URL's reads,
    what its 401 challenge asks for; the person approves them on the consent page as always."""
    flow.client_id = register(scope=registered)["client_id"]
    pkce = Pkce.new()
    response = flow.authorize(pkce, scope=None, resource=f"http://testserver{resource_path}")
    assert response.status_code == 302 and "error" not in query_of(response.headers["location"])
    pending = load_pending(flow.services.items, query_of(response.headers["location"])["request"])
    assert pending.scopes == granted
    tokens = flow.exchange(flow.approve(response)["code"], pkce)
    assert tokens.status_code == 200 and tokens.json()["scope"] == " ".join(granted), tokens.text
    listed = flow.client.post(
        resource_path,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={
            "Authorization": f"Bearer {tokens.json()['access_token']}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18",
        },
    )
    assert listed.status_code == 200, listed.text
    assert listed.json()["result"]["tools"], f"{resource_path} lists no tool for {granted}"
