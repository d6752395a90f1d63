"""Grants as the Connected-apps page sees them (list, revoke), and refresh-token rules."""

from __future__ import annotations

import time

import pytest

from mesq.auth.oauth.authorization import list_grants, load_pending, revoke_grant
from mesq.auth.oauth.keys import REFRESH_SECONDS, grant_key
from mesq.kernel.errors import NotFound
from tests.mcp.conftest import Mcp
from tests.oauth.conftest import INSTANCE
from tests.oauth.helpers import Pkce, query_of


def test_list_and_revoke_grants(flow, client):
    first = flow.tokens()
    flow.tokens(scope="memo:read")
    grants = list_grants(flow.services.items, flow.user_id)
    assert len(grants) == 2
    assert {tuple(g["scopes"]) for g in grants} == {("memo:read", "memo:write"), ("memo:read",)}
    assert all(g["clientName"] == "Test Agent" and g["resource"] == f"{INSTANCE}/mcp" for g in grants)
    assert list_grants(flow.services.items, "someone-else") == []

    assert Mcp(client, first["access_token"]).post("tools/list").status_code == 200
    used = next(g for g in list_grants(flow.services.items, flow.user_id) if "lastUsedAt" in g)
    revoke_grant(flow.services.items, flow.user_id, used["id"])
    assert Mcp(client, first["access_token"]).post("tools/list").status_code == 401
    assert flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"]).json()["error"] == (
        "invalid_grant"
    )
    assert [g["id"] for g in list_grants(flow.services.items, flow.user_id)] != [used["id"]]
    assert len(list_grants(flow.services.items, flow.user_id)) == 1
    with pytest.raises(NotFound):
        revoke_grant(flow.services.items, "someone-else", grants[0]["id"])


def test_refresh_can_narrow_but_not_widen_scopes(flow, client):
    tokens = flow.tokens()
    wider = flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"], scope="memo:read todo:read")
    assert wider.status_code == 400 and wider.json()["error"] == "invalid_scope"
    narrowed = flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"], scope="memo:read")
    assert narrowed.status_code == 200 and narrowed.json()["scope"] == "memo:read"
    tools = Mcp(client, narrowed.json()["access_token"]).result("tools/list")["tools"]
    assert tools and all(not tool["name"].startswith(("create_", "update_", "delete_")) for tool in tools)
    # The narrowing sticks: a later refresh without `scope` keeps the narrowed set.
    again = flow.token(grant_type="refresh_token", refresh_token=narrowed.json()["refresh_token"])
    assert again.status_code == 200 and again.json()["scope"] == "memo:read"
    assert [grant["scopes"] for grant in list_grants(flow.services.items, flow.user_id)] == [["memo:read"]]
    narrowed = again
    other = flow.token(
        grant_type="refresh_token", refresh_token=narrowed.json()["refresh_token"], resource=f"{INSTANCE}/api/toolkit"
    )
    assert other.json()["error"] == "invalid_target"


def test_refresh_token_of_another_client_is_invalid_grant(flow, register):
    tokens = flow.tokens()
    stranger = register(client_name="Other")["client_id"]
    response = flow.client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": stranger},
    )
    assert response.json()["error"] == "invalid_grant"
    # ...and that did not count as a reuse: the rightful client still refreshes.
    assert flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"]).status_code == 200


def test_pending_requests_are_answered_once(flow):
    response = flow.authorize(Pkce.new())
    request_id = query_of(response.headers["location"])["request"]
    assert load_pending(flow.services.items, request_id).client_name == "Test Agent"
    flow.approve(response)
    with pytest.raises(NotFound):
        load_pending(flow.services.items, request_id)
    with pytest.raises(NotFound):
        flow.approve(response)


def test_revocation_endpoint_forms(flow, client):
    tokens = flow.tokens()
    mine = {"client_id": flow.client_id}
    assert client.post("/oauth/revoke", data={"token": "mesq_rt_unknown", **mine}).status_code == 200
    missing = client.post("/oauth/revoke", json={"token_type_hint": "refresh_token", **mine})
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"
    wrong_type = client.post("/oauth/revoke", content=b"token=x", headers={"Content-Type": "text/plain"})
    assert wrong_type.status_code == 400 and wrong_type.json()["error"] == "invalid_request"
    assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 200
    assert client.post("/oauth/revoke", data={"token": tokens["refresh_token"], **mine}).status_code == 200
    assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 401


def _days_later(monkeypatch: pytest.MonkeyPatch, start: float, seconds: float) -> None:
    """Move every clock the grants and the store read (`time.time`) to `start + seconds`."""
    monkeypatch.setattr(time, "time", lambda: start + seconds)


def test_a_grant_whose_refresh_token_expired_leaves_connected_apps(flow, monkeypatch):
    """A grant is dead once its refresh token has expired (30 days without a refresh): the
    Connected-apps page listed it for ever, as if the app could still reach the account, and
    every reconnection added a row that never went away."""
    start = time.time()
    kept, dropped = flow.tokens(), flow.tokens(scope="memo:read")
    assert len(list_grants(flow.services.items, flow.user_id)) == 2
    _days_later(monkeypatch, start, REFRESH_SECONDS - 3600)
    refreshed = flow.token(grant_type="refresh_token", refresh_token=kept["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    _days_later(monkeypatch, start, REFRESH_SECONDS + 3600)
    # The refreshed grant started a new 30 days; the other one is gone, and so is its token.
    listed = list_grants(flow.services.items, flow.user_id)
    assert [grant["scopes"] for grant in listed] == [["memo:read", "memo:write"]]
    assert flow.token(grant_type="refresh_token", refresh_token=dropped["refresh_token"]).status_code == 400


def test_a_grant_stored_before_grants_expired_leaves_with_its_refresh_token(flow, monkeypatch):
    start = time.time()
    flow.tokens()
    (grant,) = list_grants(flow.services.items, flow.user_id)
    record = flow.services.items.get(grant_key(flow.user_id, grant["id"]))
    assert record is not None
    flow.services.items.put({name: value for name, value in record.items() if name != "ttl"})
    assert len(list_grants(flow.services.items, flow.user_id)) == 1
    _days_later(monkeypatch, start, REFRESH_SECONDS + 3600)
    assert list_grants(flow.services.items, flow.user_id) == []
