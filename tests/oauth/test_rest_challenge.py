"""A REST 401 names the protected-resource metadata (RFC 9728) like /mcp's does, and the document
it names is served and points at this instance's authorization server."""

from __future__ import annotations

import re


def _metadata_url(response) -> str:
    header = response.headers["www-authenticate"]
    assert header.startswith("Bearer ")
    match = re.search(r'resource_metadata="([^"]+)"', header)
    assert match, header
    return match.group(1)


def test_rest_401_points_at_served_resource_metadata(client):
    for response in (
        client.get("/api/toolkit/memo"),
        client.get("/api/toolkit/memo/resources/read", params={"path": "users/x/memo/y"}),
        client.get("/api/toolkit/todo", headers={"Authorization": "Bearer mesq_pat_not-a-token"}),
    ):
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "UNAUTHORIZED"
        url = _metadata_url(response)
        assert url == "http://testserver/.well-known/oauth-protected-resource/api/toolkit"
        document = client.get(url.removeprefix("http://testserver")).json()
        assert document["resource"] == "http://testserver/api/toolkit"
        assert document["authorization_servers"] == ["http://testserver"]


def test_each_mcp_url_challenges_with_its_own_resource_metadata(client):
    """RFC 9728 §3.3: metadata found through a challenge must name the URL that was called as its
    `resource`, or the client must not use it; so each /mcp variant points at its own document."""
    for path in ("/mcp", "/mcp/readonly", "/mcp/x/todo", "/mcp/x/memo,todo/readonly"):
        response = client.post(path, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert response.status_code == 401, path
        url = _metadata_url(response)
        assert url == f"http://testserver/.well-known/oauth-protected-resource{path}"
        assert client.get(url.removeprefix("http://testserver")).json()["resource"] == f"http://testserver{path}"


def test_rest_401_to_a_token_says_invalid_token(client, flow):
    """RFC 6750 §3.1: a request that sent a token which is not accepted (unknown, revoked, expired,
    or an OAuth token of another resource) is told `error="invalid_token"`, the signal an OAuth
    client refreshes on; a request without any credential is not (as on /mcp)."""
    narrowed = flow.tokens(resource="http://testserver/mcp/readonly")["access_token"]
    for token in ("mesq_pat_not-a-token", "mesq_at_unknown", narrowed):
        response = client.get("/api/toolkit/memo", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith('Bearer realm="mesq", error="invalid_token", ')
    anonymous = client.get("/api/toolkit/memo")
    assert "error=" not in anonymous.headers["www-authenticate"]
