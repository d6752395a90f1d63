"""Grants as the Connected-apps page sees them (list, revoke), and refresh-token rules."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.auth.oauth.authorization import list_grants, load_pending, revoke_grant
from mesq.auth.oauth.grants import _supersede_earlier
from mesq.auth.oauth.keys import REFRESH_SECONDS, access_key, digest, grant_key
from mesq.auth.users import create_user
from mesq.kernel.errors import NotFound
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services, build_services
from tests.mcp.conftest import Mcp
from tests.oauth.conftest import INSTANCE, Flow
from tests.oauth.helpers import REDIRECT_URI, Pkce, query_of
from tests.settings import inprocess_settings

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401


def test_list_and_revoke_grants(flow, client, register):
    first = flow.tokens()
    dataclasses.replace(flow, client_id=register()["client_id"]).tokens(scope="memo:read")
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


def test_a_new_authorization_supersedes_the_earlier_grant_of_the_same_client(flow, client, register):
    """The MCP step-up: a 403 `insufficient_scope`, and the same client has the same person approve
    the union of scopes for the same resource. The new grant replaces the first one, its refresh
    and its access token with it; Connected apps lists the client once. Another client, another
    resource (a second connector on a narrowed URL) and another person are left alone. The first
    grant stayed alive: the client was listed twice, and disconnecting one left the other working."""
    first = flow.tokens(scope="memo:read")
    other_client = dataclasses.replace(flow, client_id=register(client_name="Other")["client_id"])
    theirs = other_client.tokens(scope="memo:read")
    readonly = flow.tokens(scope="memo:read", resource=f"{INSTANCE}/mcp/readonly")
    someone = create_user(flow.services.items, "someone", "correct horse battery")["id"]
    someones = dataclasses.replace(flow, user_id=someone).tokens(scope="memo:read")

    stepped_up = flow.tokens(scope="memo:read memo:write")

    assert Mcp(client, first["access_token"]).post("tools/list").status_code == 401
    refreshed = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
    listed = list_grants(flow.services.items, flow.user_id)
    assert sorted((g["clientId"], g["resource"], tuple(g["scopes"])) for g in listed) == sorted(
        [
            (flow.client_id, f"{INSTANCE}/mcp", ("memo:read", "memo:write")),
            (flow.client_id, f"{INSTANCE}/mcp/readonly", ("memo:read",)),
            (other_client.client_id, f"{INSTANCE}/mcp", ("memo:read",)),
        ]
    )
    for tokens in (stepped_up, theirs, someones):
        assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 200
    assert Mcp(client, readonly["access_token"], path="/mcp/readonly").post("tools/list").status_code == 200
    assert [g["scopes"] for g in list_grants(flow.services.items, someone)] == [["memo:read"]]
    # The new grant holds what the person approved, no more: its refresh still cannot widen it.
    wider = flow.token(
        grant_type="refresh_token", refresh_token=stepped_up["refresh_token"], scope="memo:read memo:write todo:write"
    )
    assert wider.status_code == 400 and wider.json()["error"] == "invalid_scope"
    kept = flow.token(grant_type="refresh_token", refresh_token=stepped_up["refresh_token"])
    assert kept.status_code == 200 and kept.json()["scope"] == "memo:read memo:write"
    # Disconnecting the one listed connection of the client on /mcp ends its access.
    listed = list_grants(flow.services.items, flow.user_id)
    (current,) = [g for g in listed if g["resource"] == f"{INSTANCE}/mcp" and g["clientId"] == flow.client_id]
    revoke_grant(flow.services.items, flow.user_id, current["id"])
    assert Mcp(client, kept.json()["access_token"]).post("tools/list").status_code == 401


def test_the_same_app_on_a_second_device_never_signs_the_first_one_out(flow, client):
    """A client whose id is a metadata-document URL is the same app on every machine: a person
    connecting it on a laptop and then on a phone authorizes the same scopes twice. Only a wider
    authorization (the step-up) supersedes; the same scopes or fewer leave the first device
    connected (superseding every earlier grant signed the laptop out when the phone connected,
    and the laptop's reconnection the phone)."""
    laptop = flow.tokens(scope="memo:read memo:write")
    phone = flow.tokens(scope="memo:read memo:write")
    narrower = flow.tokens(scope="memo:read")
    for tokens in (laptop, phone, narrower):
        assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 200
    refreshed = flow.token(grant_type="refresh_token", refresh_token=laptop["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    assert len(list_grants(flow.services.items, flow.user_id)) == 3
    # The narrower one's step-up supersedes it alone: the other two hold no less than it asks.
    wider = flow.tokens(scope="memo:read memo:write")
    assert Mcp(client, narrower["access_token"]).post("tools/list").status_code == 401
    for tokens in (refreshed.json(), phone, wider):
        assert Mcp(client, tokens["access_token"]).post("tools/list").status_code == 200


def test_racing_exchanges_never_revoke_the_newer_grant(flow, client):
    """Two codes of the same client exchanged at once: each exchange stores its grant, then looks
    for earlier ones. The older exchange's look may come after the newer grant is stored; it must
    leave that one alone (only grants created before it are superseded), or the two would revoke
    each other and the client would hold nothing that works."""
    older = flow.tokens(scope="memo:read")
    older_grant = flow.services.items.get(access_key(digest(older["access_token"])))
    assert older_grant is not None
    newer = flow.tokens(scope="memo:read memo:write")
    # The older exchange's supersede step, run after the newer grant was stored.
    record = flow.services.items.get(grant_key(flow.user_id, older_grant["grantId"]))
    assert record is not None
    _supersede_earlier(flow.services.items, record)
    assert Mcp(client, newer["access_token"]).post("tools/list").status_code == 200
    assert [g["scopes"] for g in list_grants(flow.services.items, flow.user_id)] == [["memo:read", "memo:write"]]


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
    kept, dropped = flow.tokens(), flow.tokens(scope="memo:read", resource=f"{INSTANCE}/mcp/readonly")
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


@pytest.fixture(params=["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def any_store_flow(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Flow]:
    """A Flow (a registered client and its person) over SQLite and over DynamoDB Local."""
    settings = inprocess_settings(data_dir=tmp_path / "data")
    if request.param == "sqlite":
        services = build_services(settings)
    else:
        services = Services(settings=settings, items=request.getfixturevalue("dynamodb_local"),
                            blobs=LocalBlobStore(tmp_path / "blobs"))  # fmt: skip
    with TestClient(create_local_app(services)) as client:
        registered = client.post(
            "/oauth/register", json={"client_name": "Store Agent", "redirect_uris": [REDIRECT_URI]}
        )
        assert registered.status_code == 201, registered.text
        user = create_user(services.items, "storeuser", "correct horse battery")
        yield Flow(client=client, services=services, client_id=registered.json()["client_id"], user_id=user["id"])
    if request.param == "sqlite":
        services.items.close()


def test_a_step_up_supersedes_the_first_grant_on_either_store(any_store_flow: Flow):
    """The same rule on DynamoDB as on SQLite: the person's grants are one Query of their own
    partition, each superseded grant one transaction."""
    flow = any_store_flow
    first = flow.tokens(scope="memo:read")
    readonly = flow.tokens(scope="memo:read", resource=f"{INSTANCE}/mcp/readonly")
    stepped_up = flow.tokens(scope="memo:read memo:write")
    assert Mcp(flow.client, first["access_token"]).post("tools/list").status_code == 401
    assert flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"]).status_code == 400
    assert Mcp(flow.client, stepped_up["access_token"]).post("tools/list").status_code == 200
    assert Mcp(flow.client, readonly["access_token"], path="/mcp/readonly").post("tools/list").status_code == 200
    listed = list_grants(flow.services.items, flow.user_id)
    assert sorted((g["resource"], tuple(g["scopes"])) for g in listed) == [
        (f"{INSTANCE}/mcp", ("memo:read", "memo:write")),
        (f"{INSTANCE}/mcp/readonly", ("memo:read",)),
    ]
