"""Settings -> Connected apps lists an app once however often its host registered again.

Claude, ChatGPT and Cursor register a new client (RFC 7591) when their stored one is lost, or when
the person removes and adds the connector. Each reconnection left the older grant listed under the
same name: the page showed "Claude" three times and the person could not tell which was live, and
disconnecting one left the others refreshing. Grants of the same name, redirect URI (a loopback
port aside) and connection URL are one row now, and disconnecting it ends them all; a client that
borrowed the name but returns elsewhere stays apart, named by its host; another account's grants
are never touched."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import anyio
import httpx
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from playwright.sync_api import expect

from mesq.auth.oauth.connected_apps import NotDisconnected, disconnect_app, list_apps
from mesq.auth.oauth.grants import authenticate_access_token
from mesq.kernel.errors import NotFound
from tests.conftest import LiveServer, start_server, stop_server
from tests.mcp.conftest import Mcp
from tests.oauth.browser import Browser, hidden_fields
from tests.oauth.conftest import INSTANCE, Flow
from tests.oauth.helpers import Pkce, RefreshingMeanwhile, authorize_params, query_of
from tests.oauth.test_grants import any_store_flow  # noqa: F401
from tests.oauth.test_official_client import MemoryStorage, _provider
from tests.web.chromium import chromium_page

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

PASSWORD = "correct horse battery"
CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback"


#: The number of each test's own pair of people (the module's tests share one server).
_PEOPLE = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the module (in each xdist worker): each test signs in as people of its own."""
    live = start_server(tmp_path_factory.mktemp("connected-apps") / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    yield live
    stop_server(live)


@pytest.fixture
def people(server: LiveServer) -> tuple[str, str]:
    """The usernames of the test's own two accounts (bob's and carol's) on the module's server."""
    number = next(_PEOPLE)
    names = (f"bob{number}", f"carol{number}")
    for name in names:
        created = server.cli_here("user", "create", name, "--password-stdin", stdin=PASSWORD + "\n")
        assert created.returncode == 0, created.stderr
    return names


def _sdk_connects(base_url: str, browser: Browser) -> str:
    """The official client connects with an empty store (it registers anew, as a host that lost its
    client does), the person approving; its access token."""
    storage = MemoryStorage()
    auth = _provider(f"{base_url}/mcp", browser, storage, "memo:read")

    async def scenario() -> None:
        http = httpx2.AsyncClient(auth=auth, timeout=30)
        async with http, Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode="auto") as client:
            await client.list_tools()

    anyio.run(scenario)
    assert storage.tokens is not None
    return storage.tokens.access_token


def _raw_connects(base_url: str, browser: Browser, name: str, redirect_uri: str, scope: str = "memo:read") -> str:
    """Raw HTTP: register `name` returning to `redirect_uri`, authorize, approve, exchange."""
    registered = httpx.post(f"{base_url}/oauth/register", json={"client_name": name, "redirect_uris": [redirect_uri]})
    assert registered.status_code == 201, registered.text
    client_id, pkce = registered.json()["client_id"], Pkce.new()
    params = authorize_params(client_id, pkce, redirect_uri=redirect_uri, scope=scope, resource=f"{base_url}/mcp")
    authorized = browser.http.get("/oauth/authorize", params=params)
    assert authorized.status_code == 302, authorized.text
    code = query_of(browser.decide(authorized.headers["location"], True))["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": pkce.verifier, "client_id": client_id}  # fmt: skip
    tokens = httpx.post(f"{base_url}/oauth/token", data=form)
    assert tokens.status_code == 200, tokens.text
    token: str = tokens.json()["access_token"]
    return token


def _mcp_status(base_url: str, token: str) -> int:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(f"{base_url}/mcp", json=ping, headers=headers, timeout=10).status_code


def _rows(page: str) -> list[str]:
    return re.findall(r'<tr data-grant-id="[^"]+">.*?</tr>', page, flags=re.S)


def test_an_app_that_registered_again_is_one_row_and_one_disconnect(server, people):
    base = server.base_url
    bob, carol = Browser(base, people[0], PASSWORD), Browser(base, people[1], PASSWORD)
    try:
        reconnections = [_sdk_connects(base, bob) for _ in range(3)]
        borrowed = _raw_connects(base, bob, "SDK Agent", "https://elsewhere.example/callback")
        carols = _sdk_connects(base, carol)

        page = bob.http.get("/settings/apps", headers={"Accept-Language": "en-US"})
        assert page.status_code == 200, page.text
        rows = _rows(page.text)
        assert len(rows) == 2, rows
        (same,) = [row for row in rows if "127.0.0.1" in row]
        (other,) = [row for row in rows if "elsewhere.example" in row]
        assert "<bdi>SDK Agent</bdi>" in same and "3 connections" in same
        assert 'returns to <code class="wrap">elsewhere.example</code>' in other and "connections" not in other
        zh = bob.http.get("/settings/apps", headers={"Accept-Language": "zh-CN"}).text
        assert "3 个连接" in zh and "回调到" in zh

        grant_id = re.search(r'data-grant-id="([^"]+)"', same)
        assert grant_id
        question = bob.http.get(f"/settings/apps/{grant_id.group(1)}/revoke", headers={"Accept-Language": "en-US"})
        assert "This ends all 3 connections of this app" in question.text
        answer = bob.http.post(
            f"/settings/apps/{grant_id.group(1)}/revoke", data=hidden_fields(question.text), headers={"Origin": base}
        )
        assert answer.status_code == 303, answer.text
        assert [_mcp_status(base, token) for token in reconnections] == [401, 401, 401]
        assert _mcp_status(base, borrowed) == 200
        assert _mcp_status(base, carols) == 200
        left = _rows(bob.http.get("/settings/apps").text)
        assert len(left) == 1 and "elsewhere.example" in left[0]
        assert len(_rows(carol.http.get("/settings/apps").text)) == 1
    finally:
        bob.close()
        carol.close()


def _register(flow: Flow, name: str, redirect_uri: str) -> Flow:
    registered = flow.client.post("/oauth/register", json={"client_name": name, "redirect_uris": [redirect_uri]})
    assert registered.status_code == 201, registered.text
    return Flow(client=flow.client, services=flow.services, client_id=registered.json()["client_id"],
                user_id=flow.user_id)  # fmt: skip


def _connect(flow: Flow, redirect_uri: str, **overrides: str) -> str:
    pkce = Pkce.new()
    code = flow.approve(flow.authorize(pkce, redirect_uri=redirect_uri, scope="memo:read", **overrides))["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": pkce.verifier}  # fmt: skip
    answer = flow.token(**form)
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["access_token"]
    return token


def test_grouping_and_disconnecting_on_either_store(any_store_flow: Flow):  # noqa: F811
    """The same rows on DynamoDB as on SQLite: Claude three times through new registrations is one
    app; Claude Code on two loopback ports is one app; a "Claude" returning elsewhere, Claude on
    another connection URL, and another person's Claude stay apart."""
    flow = any_store_flow
    claude = [_connect(_register(flow, "Claude", CLAUDE_CALLBACK), CLAUDE_CALLBACK) for _ in range(3)]
    code_cli = [_connect(_register(flow, "Claude Code", f"http://localhost:{port}/callback"),
                         f"http://localhost:{port}/callback") for port in (50001, 50002)]  # fmt: skip
    impostor = _connect(_register(flow, "Claude", "https://claude.ai.example/cb"), "https://claude.ai.example/cb")
    readonly = _connect(
        _register(flow, "Claude", CLAUDE_CALLBACK), CLAUDE_CALLBACK, resource=f"{INSTANCE}/mcp/readonly"
    )
    from mesq.auth.users import create_user

    someone = create_user(flow.services.items, "someone", PASSWORD)["id"]
    theirs_flow = _register(flow, "Claude", CLAUDE_CALLBACK)
    theirs = _connect(Flow(flow.client, flow.services, theirs_flow.client_id, someone), CLAUDE_CALLBACK)

    apps = list_apps(flow.services.items, flow.user_id)
    shown = sorted((app["clientName"], app["redirectHost"], app["resource"], app["connections"]) for app in apps)
    assert shown == [
        ("Claude", "claude.ai", f"{INSTANCE}/mcp", 3),
        ("Claude", "claude.ai", f"{INSTANCE}/mcp/readonly", 1),
        ("Claude", "claude.ai.example", f"{INSTANCE}/mcp", 1),
        ("Claude Code", "localhost", f"{INSTANCE}/mcp", 2),
    ]
    (group,) = [app for app in apps if app["connections"] == 3]
    with pytest.raises(NotFound):
        disconnect_app(flow.services.items, someone, group["id"])
    disconnect_app(flow.services.items, flow.user_id, group["id"])
    assert [Mcp(flow.client, token).post("tools/list").status_code for token in claude] == [401, 401, 401]
    for token in (*code_cli, impostor, theirs):
        assert Mcp(flow.client, token).post("tools/list").status_code == 200
    assert Mcp(flow.client, readonly, path="/mcp/readonly").post("tools/list").status_code == 200
    assert len(list_apps(flow.services.items, flow.user_id)) == 3
    assert [app["connections"] for app in list_apps(flow.services.items, someone)] == [1]


@pytest.mark.parametrize(
    ("locale", "many", "returns"), [("zh-CN", "3 个连接", "回调到"), ("en-US", "3 connections", "returns to")]
)
def test_the_settings_page_in_chromium(server, people, tmp_path, locale, many, returns):
    """The rows as a person sees them, on a phone and a desktop in both languages: one row for the
    app that registered three times, saying so, and the namesake apart, named by its host; the
    page never scrolls sideways; disconnecting the row ends all three connections."""
    base = server.base_url
    bob = Browser(base, people[0], PASSWORD)
    try:
        tokens = [_raw_connects(base, bob, "Claude 助手", CLAUDE_CALLBACK) for _ in range(3)]
        namesake = _raw_connects(base, bob, "Claude 助手", "https://claude-ai.example/oauth/callback")
    finally:
        bob.close()
    with chromium_page(locale=locale) as page:
        page.goto(base + "/login")
        page.fill("input[name=username]", people[0])
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.goto(base + "/settings/apps")
        rows = page.locator("tr[data-grant-id]")
        expect(rows).to_have_count(2)
        live = page.locator("tr[data-grant-id]", has_text="claude.ai")
        expect(live).to_contain_text(many)
        expect(live.locator(".redirect-host")).to_contain_text("claude.ai")
        other = page.locator("tr[data-grant-id]", has_text="claude-ai.example")
        expect(other.locator(".redirect-host")).to_contain_text(returns)
        expect(other.locator(".connections")).to_have_count(0)
        for width, height in ((390, 844), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, f"{width}px scrolls sideways: {scroll_width} > {inner_width}"
            expect(live.locator(".connections")).to_be_visible()
            page.screenshot(path=str(tmp_path / f"apps-{locale}-{width}.png"), full_page=True)
        live.locator("a.button.danger").click()
        expect(page.locator("p.connections")).to_contain_text("3")
        page.locator("form.actions button[type=submit]").click()
        expect(page.locator("tr[data-grant-id]")).to_have_count(1)
    assert [_mcp_status(base, token) for token in tokens] == [401, 401, 401]
    assert _mcp_status(base, namesake) == 200


def _memo_through(base_url: str, token: str, content: str) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as http:
        called = Mcp(client=http, token=token).result(  # type: ignore[arg-type]
            "tools/call", {"name": "create_memo", "arguments": {"content": content}}
        )
    assert not called.get("isError"), called


def _fits(page, width: int) -> None:  # type: ignore[no-untyped-def]
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"{width}px scrolls sideways: {scroll_width} > {inner_width}"


def _sign_in(page, base: str, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(base + "/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")


@pytest.mark.parametrize(("locale", "by"), [("zh-CN", "由 Claude 助手"), ("en-US", "by Claude 助手")])
def test_a_rows_activity_is_every_connections_in_chromium(server, people, tmp_path, locale, by):
    """The app wrote on one device, reconnected (a new registration, a second connection) and wrote
    there, then wrote on the first device again: the row's last session is the first device's
    newest one (not the session of the connection used last), and its activity link shows what
    both connections did, by the app's name, on a phone and a desktop."""
    base = server.base_url
    bob = Browser(base, people[0], PASSWORD)
    try:
        scope = "memo:read memo:write"
        first = _raw_connects(base, bob, "Claude 助手", CLAUDE_CALLBACK, scope)
        _memo_through(base, first, "第一台设备写的 first device")
        second = _raw_connects(base, bob, "Claude 助手", CLAUDE_CALLBACK, scope)
        _memo_through(base, second, "重新连接后写的 after reconnecting")
        _memo_through(base, first, "旧连接又写的 first device again")  # within a minute: its last use stays
    finally:
        bob.close()
    with chromium_page(locale=locale) as page:
        _sign_in(page, base, people[0])
        for width, height in ((390, 844), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(base + "/settings/apps")
            row = page.locator("tr[data-grant-id]")
            expect(row).to_have_count(1)
            expect(row.locator(".connections")).to_contain_text("2")
            _fits(page, width)
            page.screenshot(path=str(tmp_path / f"apps-{locale}-{width}.png"), full_page=True)
            row.locator(".last-activity a").first.click()
            expect(page.locator("main")).to_contain_text("first device again")
            expect(page.locator("main")).not_to_contain_text("after reconnecting")
            page.goto(base + "/settings/apps")
            page.locator("tr[data-grant-id] a.all-changes").click()
            main = page.locator("main")
            expect(page.locator(".activity-filter")).to_contain_text(by)
            for content in ("first device again", "after reconnecting", "第一台设备写的 first device"):
                expect(main).to_contain_text(content)
            _fits(page, width)
            page.screenshot(path=str(tmp_path / f"app-activity-{locale}-{width}.png"), full_page=True)


def _grant_of(flow: Flow, access_token: str) -> str:
    return authenticate_access_token(flow.services.items, access_token, lambda _resource: True).credential_id[6:]


def _connections(flow: Flow, count: int) -> tuple[str, dict[str, dict[str, str]]]:
    """`count` connections of one app (its client authorizing again with the same scopes); the
    row's id and each grant's token response by grant id, in the order the disconnect ends them."""
    answers = [flow.tokens(scope="memo:read") for _ in range(count)]
    by_grant = {_grant_of(flow, answer["access_token"]): answer for answer in answers}
    (app,) = list_apps(flow.services.items, flow.user_id)
    assert app["connections"] == count
    return app["id"], {grant_id: by_grant[grant_id] for grant_id in app["grantIds"]}


def _statuses(flow: Flow, tokens: list[dict[str, str]]) -> list[int]:
    return [Mcp(flow.client, answer["access_token"]).post("tools/list").status_code for answer in tokens]


def test_a_disconnect_that_meets_a_refresh_ends_all_or_none(any_store_flow: Flow):  # noqa: F811
    """Two connections of one app; the one ended last refreshes its tokens before every write of
    the disconnect (a client rotating while the person clicks). The grants were ended one by one:
    the first went, the second kept changing, and the page answered an internal error with half
    the app signed out. Now they end in one transaction: it is read and tried again, and when the
    refreshes never stop nothing is ended and the error says so (a refresh that happens once is
    absorbed: both end)."""
    flow = any_store_flow
    row, tokens = _connections(flow, 2)
    first, last = tokens.values()
    busy = RefreshingMeanwhile(flow.services.items, last, flow.client_id, INSTANCE, times=None)
    with pytest.raises(Exception) as raised:
        disconnect_app(busy, flow.user_id, row)  # type: ignore[arg-type]
    assert _statuses(flow, [first, busy.tokens]) == [200, 200], "half the app was disconnected"
    assert isinstance(raised.value, NotDisconnected), raised.value
    assert raised.value.ended == 0 and raised.value.still == 2
    assert "none of its connections was ended" in raised.value.message and "'Store Agent'" in raised.value.message
    assert [app["connections"] for app in list_apps(flow.services.items, flow.user_id)] == [2]

    once = RefreshingMeanwhile(flow.services.items, busy.tokens, flow.client_id, INSTANCE, times=1)
    disconnect_app(once, flow.user_id, row)  # type: ignore[arg-type]
    assert _statuses(flow, [first, once.tokens]) == [401, 401]
    assert list_apps(flow.services.items, flow.user_id) == []


def test_an_app_past_one_transaction_says_what_is_still_connected(
    any_store_flow: Flow,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
):
    """More connections than one transaction ends (here one a part, so three parts): the parts
    before the one that keeps failing stay ended (their tokens are gone for good), and the error
    counts what ended and what is still connected; revoking again ends the rest."""
    from mesq.auth.oauth import connected_apps

    monkeypatch.setattr(connected_apps, "GRANTS_PER_TRANSACTION", 1)
    flow = any_store_flow
    row, tokens = _connections(flow, 3)
    *earlier, last = tokens.values()
    busy = RefreshingMeanwhile(flow.services.items, last, flow.client_id, INSTANCE, times=None)
    with pytest.raises(NotDisconnected) as raised:
        disconnect_app(busy, flow.user_id, row)  # type: ignore[arg-type]
    assert (raised.value.ended, raised.value.still) == (2, 1)
    assert "only partly disconnected: 2 of its connections ended and 1 are still connected" in raised.value.message
    assert _statuses(flow, [*earlier, busy.tokens]) == [401, 401, 200]
    (left,) = list_apps(flow.services.items, flow.user_id)
    assert left["connections"] == 1
    disconnect_app(flow.services.items, flow.user_id, left["id"])
    assert _statuses(flow, [busy.tokens]) == [401]
