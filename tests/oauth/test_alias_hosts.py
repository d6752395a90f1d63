"""A client that connects by another name of the instance (`localhost` when the public URL is
`http://127.0.0.1:PORT`, a `MESQ_ALLOWED_HOSTS` name on the public URL's scheme and port) gets
protected-resource metadata and 401 challenges naming the URL it used, as RFC 9728 §3.3 has it
check; the issuer stays the public URL, and the token is bound to the public URL's resource, so
it works by either name (sweep finding 4: the official client aborted on `localhost`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from mesq.auth.oauth.authorization import decide, load_pending
from mesq.auth.users import create_user
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services
from tests.mcp.conftest import Mcp
from tests.oauth.helpers import REDIRECT_URI, Pkce, authorize_params, query_of

PUBLIC = "http://127.0.0.1:18787"
ALIAS = "http://localhost:18787"


@pytest.fixture
def app_for(services: Services) -> Iterator:
    clients: list[TestClient] = []

    def make(public_url: str, base_url: str, allowed_hosts: tuple[str, ...] = ()) -> TestClient:
        settings = services.settings.with_overrides(public_url=public_url, allowed_hosts=allowed_hosts)
        app = create_local_app(Services(settings=settings, items=services.items, blobs=services.blobs))
        client = TestClient(app, base_url=base_url)
        clients.append(client.__enter__())
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


def _metadata_url(response) -> str:
    match = re.search(r'resource_metadata="([^"]+)"', response.headers["www-authenticate"])
    assert match, response.headers
    return match.group(1)


@pytest.mark.parametrize("path", ["/mcp", "/mcp/readonly", "/mcp/x/memo,todo"])
def test_metadata_and_challenge_name_the_url_the_client_used(app_for, path):
    client = app_for(PUBLIC, ALIAS)
    challenge = client.post(path, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert challenge.status_code == 401
    url = _metadata_url(challenge)
    assert url == f"{ALIAS}/.well-known/oauth-protected-resource{path}"
    document = client.get(url).json()
    assert document["resource"] == f"{ALIAS}{path}"
    assert document["authorization_servers"] == [PUBLIC]  # one issuer
    assert client.get("/.well-known/oauth-authorization-server").json()["issuer"] == PUBLIC
    rest = client.get("/api/toolkit/memo")
    assert _metadata_url(rest) == f"{ALIAS}/.well-known/oauth-protected-resource/api/toolkit"
    assert client.get(_metadata_url(rest)).json()["resource"] == f"{ALIAS}/api/toolkit"


def test_a_token_for_the_alias_resource_is_bound_to_the_public_one(app_for, services):
    alias = app_for(PUBLIC, ALIAS)
    public = app_for(PUBLIC, PUBLIC)
    user = create_user(services.items, "aliasuser", "correct horse battery")
    client_id = alias.post("/oauth/register", json={"client_name": "Agent", "redirect_uris": [REDIRECT_URI]}).json()[
        "client_id"
    ]
    pkce = Pkce.new()
    params = authorize_params(client_id, pkce, resource=f"{ALIAS}/mcp/readonly", scope="memo:read")
    response = public.get("/oauth/authorize", params=params, follow_redirects=False)  # the browser, on the issuer
    request_id = query_of(response.headers["location"])["request"]
    assert load_pending(services.items, request_id).resource == f"{PUBLIC}/mcp/readonly"
    code = query_of(decide(services.items, user["id"], request_id, True))["code"]
    form = {"grant_type": "authorization_code", "code": code, "client_id": client_id, "redirect_uri": REDIRECT_URI,
            "code_verifier": pkce.verifier, "resource": f"{ALIAS}/mcp/readonly"}  # fmt: skip
    tokens = public.post("/oauth/token", data=form)
    assert tokens.status_code == 200, tokens.text
    access = tokens.json()["access_token"]
    for client in (alias, public):
        assert Mcp(client, access, path="/mcp/readonly").post("tools/list").status_code == 200
        assert Mcp(client, access).post("tools/list").status_code == 401  # still only its own variant
    refreshed = public.post(
        "/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": tokens.json()["refresh_token"],
            "client_id": client_id,
            "resource": f"{ALIAS}/mcp/readonly",
        },
    )
    assert refreshed.status_code == 200, refreshed.text


ALIASES = [  # public URL, the URL used, MESQ_ALLOWED_HOSTS, what the metadata names
    (PUBLIC, "http://[::1]:18787", (), "http://[::1]:18787"),
    ("https://mesq.example", "https://mesq.lan", ("mesq.lan",), "https://mesq.lan"),
    (PUBLIC, "http://localhost:9999", (), PUBLIC),  # another port is another server
    ("https://mesq.example", "http://mesq.lan", ("mesq.lan",), "https://mesq.example"),  # another scheme
    ("https://mesq.example", "https://localhost", (), "https://mesq.example"),  # loopback is not this instance
]


def test_which_names_are_aliases(app_for):
    """Only the host may differ, and only to a name the deployment declares (or any loopback
    name when the public URL is on loopback); other names keep the public URL's metadata, and a
    resource on them stays invalid_target."""
    for public_url, base_url, allowed, named in ALIASES:
        client = app_for(public_url, base_url, allowed)
        document = client.get("/.well-known/oauth-protected-resource/mcp").json()
        assert document["resource"] == f"{named}/mcp", (public_url, base_url)
    client = app_for(PUBLIC, PUBLIC)
    client_id = client.post("/oauth/register", json={"client_name": "Agent", "redirect_uris": [REDIRECT_URI]}).json()[
        "client_id"
    ]
    for resource, error in [
        (f"{ALIAS}/mcp", None),
        ("http://localhost:9999/mcp", "invalid_target"),
        ("https://localhost:18787/mcp", "invalid_target"),
        ("http://evil.example:18787/mcp", "invalid_target"),
        ("http://u:p@localhost:18787/mcp", "invalid_target"),
    ]:
        params = authorize_params(client_id, Pkce.new(), resource=resource)
        response = client.get("/oauth/authorize", params=params, follow_redirects=False)
        assert query_of(response.headers["location"]).get("error") == error, resource
