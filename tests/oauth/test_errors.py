"""Every rejection the issue names, each with the RFC's error code: wrong verifier, wrong
redirect URI, wrong resource / audience, expired or reused code, missing PKCE, plain PKCE."""

from __future__ import annotations

from mesq.auth.oauth.keys import code_key, digest
from mesq.kernel.ports.storage import Update
from tests.mcp.conftest import Mcp
from tests.oauth.conftest import INSTANCE
from tests.oauth.helpers import Pkce, query_of


def _error(response) -> str:
    assert response.status_code in (400, 401), response.text
    assert response.headers["cache-control"] == "no-store"
    return response.json()["error"]


def _redirect_error(response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    params = query_of(response.headers["location"])
    assert response.headers["location"].startswith("http://127.0.0.1:8765/callback?")
    assert params["state"] == "xyz-state" and params["iss"] == INSTANCE
    return params


def test_wrong_code_verifier_is_invalid_grant(flow):
    pkce = Pkce.new()
    code = flow.code(pkce)
    assert _error(flow.exchange(code, Pkce.new())) == "invalid_grant"
    # A code is single-use whatever the outcome: the failed attempt spent it.
    replay = flow.exchange(code, pkce)
    assert _error(replay) == "invalid_grant" and "already used" in replay.json()["error_description"]


def test_every_failed_exchange_spends_the_code(flow):
    failures = {
        "redirect_uri": {"redirect_uri": "http://127.0.0.1:8765/elsewhere"},
        "malformed verifier": {"code_verifier": "short"},
        "resource": {"resource": f"{INSTANCE}/api/toolkit"},
    }
    for label, extra in failures.items():
        pkce = Pkce.new()
        code = flow.code(pkce)
        assert _error(flow.exchange(code, pkce, **extra)) in ("invalid_grant", "invalid_target"), label
        assert _error(flow.exchange(code, pkce)) == "invalid_grant", label


def test_malformed_or_missing_code_verifier(flow):
    pkce = Pkce.new()
    code = flow.code(pkce)
    assert _error(flow.exchange(code, pkce, code_verifier="short")) == "invalid_grant"
    missing = flow.token(grant_type="authorization_code", code=code, redirect_uri="http://127.0.0.1:8765/callback")
    assert _error(missing) == "invalid_request"


def test_wrong_redirect_uri_at_authorize_is_not_followed(flow):
    for uri in ("https://evil.example/callback", "http://127.0.0.1:8765/other", "http://localhost.evil/callback"):
        response = flow.authorize(Pkce.new(), redirect_uri=uri)
        assert response.status_code == 400 and "location" not in response.headers
        assert _error(response) == "invalid_request"


def test_redirect_uri_with_a_fragment_or_control_characters_is_refused_at_authorize(flow):
    for uri in (
        "http://127.0.0.1:8765/callback#frag",
        "http://127.0.0.1:40123/callback#",
        "http://127.0.0.1:8765/call\nback",
        "http://127.0.0.1:8765/callback\r\n",
    ):
        response = flow.authorize(Pkce.new(), redirect_uri=uri)
        assert response.status_code == 400 and "location" not in response.headers, uri
        assert _error(response) == "invalid_request"


def test_loopback_redirect_port_may_vary(flow):
    # RFC 8252 §7.3: native apps pick a free port at request time.
    params = flow.approve(flow.authorize(Pkce.new(), redirect_uri="http://127.0.0.1:40123/callback"))
    assert "code" in params


def test_wrong_redirect_uri_at_token_is_invalid_grant(flow):
    pkce = Pkce.new()
    code = flow.code(pkce)
    response = flow.exchange(code, pkce, redirect_uri="http://127.0.0.1:8765/elsewhere")
    assert _error(response) == "invalid_grant"


def test_wrong_resource_at_authorize_is_invalid_target(flow):
    for resource in ("https://other.example/mcp", f"{INSTANCE}/api/other", f"{INSTANCE}/mcp#x"):
        assert _redirect_error(flow.authorize(Pkce.new(), resource=resource))["error"] == "invalid_target"


def test_other_resource_at_token_is_invalid_target(flow):
    for other in (f"{INSTANCE}/mcp", "https://other.example/mcp"):
        pkce = Pkce.new()
        code = flow.code(pkce, resource=f"{INSTANCE}/mcp/readonly")
        assert _error(flow.exchange(code, pkce, resource=other)) == "invalid_target"
    pkce = Pkce.new()
    code = flow.code(pkce, resource=f"{INSTANCE}/mcp/readonly")
    assert flow.exchange(code, pkce, resource=f"{INSTANCE}/mcp/readonly").status_code == 200


def test_audience_is_checked_on_every_endpoint(flow, client):
    readonly = flow.tokens(resource=f"{INSTANCE}/mcp/readonly")["access_token"]
    full = flow.tokens()["access_token"]  # no resource: bound to /mcp
    rest = flow.tokens(resource=f"{INSTANCE}/api/toolkit")["access_token"]

    assert Mcp(client, readonly, path="/mcp/readonly").post("tools/list").status_code == 200
    for token, path in ((readonly, "/mcp"), (readonly, "/mcp/x/memo"), (rest, "/mcp")):
        refused = Mcp(client, token, path=path).post("tools/list")
        assert refused.status_code == 401, (path, refused.text)
        challenge = refused.headers["www-authenticate"]
        assert 'error="invalid_token"' in challenge
        assert f'resource_metadata="{INSTANCE}/.well-known/oauth-protected-resource{path}"' in challenge
    for path in ("/mcp", "/mcp/readonly", "/mcp/x/memo", "/mcp/x/memo/readonly"):
        assert Mcp(client, full, path=path).post("tools/list").status_code == 200, path

    def rest_status(token: str) -> int:
        return client.get("/api/toolkit/memo", headers={"Authorization": f"Bearer {token}"}).status_code

    # REST takes its own tokens and /mcp's (MCP tools hand out REST URLs), never a narrowed variant's.
    assert (rest_status(rest), rest_status(full), rest_status(readonly)) == (200, 200, 401)


def test_expired_code_is_invalid_grant(flow):
    pkce = Pkce.new()
    code = flow.code(pkce)
    flow.services.items.update(Update(key=code_key(digest(code)), set={"expiresAtEpoch": 1}))
    response = flow.exchange(code, pkce)
    assert _error(response) == "invalid_grant" and "expired" in response.json()["error_description"]


def test_reused_code_is_invalid_grant_and_revokes_its_tokens(flow, client):
    pkce = Pkce.new()
    code = flow.code(pkce)
    first = flow.exchange(code, pkce)
    assert first.status_code == 200
    tokens = first.json()
    assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 200

    replay = flow.exchange(code, pkce)
    assert _error(replay) == "invalid_grant" and "already used" in replay.json()["error_description"]
    assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 401
    assert _error(flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])) == "invalid_grant"


def test_missing_pkce_is_invalid_request(flow):
    assert _redirect_error(flow.authorize(Pkce.new(), code_challenge=None))["error"] == "invalid_request"
    # No method means "plain" (RFC 7636 §4.3): refused as well.
    assert _redirect_error(flow.authorize(Pkce.new(), code_challenge_method=None))["error"] == "invalid_request"


def test_plain_pkce_is_invalid_request(flow):
    pkce = Pkce.new()
    params = _redirect_error(flow.authorize(pkce, code_challenge=pkce.verifier, code_challenge_method="plain"))
    assert params["error"] == "invalid_request" and "S256" in params["error_description"]


def test_other_authorize_errors(flow):
    assert _redirect_error(flow.authorize(Pkce.new(), response_type="token"))["error"] == "unsupported_response_type"
    unknown = flow.client.get("/oauth/authorize", params={"client_id": "nobody", "response_type": "code"})
    assert unknown.status_code == 400 and unknown.json()["error"] == "invalid_client"
    repeated = flow.client.get(
        f"/oauth/authorize?client_id={flow.client_id}&client_id={flow.client_id}", follow_redirects=False
    )
    assert repeated.status_code == 400 and repeated.json()["error"] == "invalid_request"


def test_token_endpoint_errors(flow):
    pkce = Pkce.new()
    code = flow.code(pkce)
    as_json = flow.client.post(
        "/oauth/token", json={"grant_type": "authorization_code", "code": code, "client_id": flow.client_id}
    )
    assert _error(as_json) == "invalid_request"
    assert _error(flow.token(grant_type="password", username="a", password="b")) == "unsupported_grant_type"
    assert _error(flow.token(grant_type="authorization_code", code="mesq_ac_nope", code_verifier=pkce.verifier)) == (
        "invalid_grant"
    )
    stranger = flow.client.post("/oauth/token", data={"client_id": "nobody", "grant_type": "authorization_code"})
    assert stranger.status_code == 401 and _error(stranger) == "invalid_client"
    with_secret = flow.token(grant_type="authorization_code", code=code, client_secret="s")
    assert with_secret.status_code == 401 and _error(with_secret) == "invalid_client"
    assert flow.exchange(code, pkce).status_code == 200  # none of the above consumed the code


def test_expired_access_token_is_invalid_token(flow, client):
    from mesq.auth.oauth.keys import access_key

    tokens = flow.tokens()
    flow.services.items.update(Update(key=access_key(digest(tokens["access_token"])), set={"expiresAtEpoch": 1}))
    response = Mcp(client, tokens["access_token"]).post("tools/list")
    assert response.status_code == 401 and 'error="invalid_token"' in response.headers["www-authenticate"]
    # The refresh token still works: that is what it is for.
    assert flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"]).status_code == 200


def test_a_browser_is_told_on_a_page_in_its_language(flow):
    """RFC 6749 §4.1.2.1: an unknown client, an unregistered redirect_uri or a malformed link is
    not redirected; a browser (Accept: text/html) gets the site's error page in the person's
    language, an API client keeps the JSON (above)."""
    zh = {"accept": "text/html,application/xhtml+xml", "accept-language": "zh-CN,zh;q=0.9"}
    en = {"accept": "text/html,application/xhtml+xml", "accept-language": "en-US"}
    unknown = flow.client.get("/oauth/authorize", params={"client_id": "x"}, headers=zh, follow_redirects=False)
    assert unknown.status_code == 400 and "location" not in unknown.headers
    assert unknown.headers["content-type"].startswith("text/html")
    assert '<html lang="zh-Hans"' in unknown.text and "MeSQ 不认识让你来到这里的应用" in unknown.text
    assert "invalid_client" not in unknown.text and "register the client first" not in unknown.text
    english = flow.client.get("/oauth/authorize", params={"client_id": "x"}, headers=en, follow_redirects=False)
    assert "The app that sent you here is not known to MeSQ" in english.text
    params = {"client_id": flow.client_id, "response_type": "code", "redirect_uri": "https://evil.example/callback"}
    wrong_uri = flow.client.get("/oauth/authorize", params=params, headers=zh, follow_redirects=False)
    assert wrong_uri.status_code == 400 and "location" not in wrong_uri.headers
    assert "它没有登记过的地址" in wrong_uri.text
    missing = flow.client.get("/oauth/authorize", headers=en, follow_redirects=False)
    assert missing.status_code == 400 and "This sign-in link is incomplete or malformed" in missing.text
    api = flow.client.get("/oauth/authorize", params={"client_id": "x"}, headers={"accept": "application/json"})
    assert api.json()["error"] == "invalid_client"


def test_a_registered_localhost_redirect_port_may_vary_too(client, register, flow):
    """A registration listing `http://localhost/callback` (as Claude Code's metadata does) is used
    with `http://localhost:<port>/callback`; the code is bound to that exact URI."""
    client_id = register(redirect_uris=["http://localhost/callback"])["client_id"]
    flow.client_id = client_id
    pkce = Pkce.new()
    code = flow.approve(flow.authorize(pkce, redirect_uri="http://localhost:51234/callback"))["code"]
    elsewhere = flow.exchange(code, pkce, redirect_uri="http://localhost:51235/callback")
    assert _error(elsewhere) == "invalid_grant"
    pkce = Pkce.new()
    code = flow.approve(flow.authorize(pkce, redirect_uri="http://localhost:51234/callback"))["code"]
    exchanged = flow.exchange(code, pkce, redirect_uri="http://localhost:51234/callback")
    assert exchanged.status_code == 200, exchanged.text
