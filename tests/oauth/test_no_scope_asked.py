"""A host that asks for no scope (no `scope` at authorize, none registered) is offered what its
connection can use, writes included, and the person unticks what they do not want on the consent
page (docs/decisions.md "no scope asked"). It got read-only access: the agent's first write failed
with a scope error the person could not place."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from tests.conftest import LiveServer, start_server, stop_server
from tests.oauth.browser import Browser, hidden_fields
from tests.oauth.helpers import Pkce, authorize_params, query_of
from tests.web.chromium import chromium_page

PASSWORD = "correct horse battery"
CALLBACK = "https://agent.example/oauth/callback"
EVERYTHING = "memo:read memo:write todo:read todo:write reading:read"


#: The number of each test's own person (the module's tests share one server).
_PEOPLE = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the module (in each xdist worker): each test signs in as a person of its own."""
    live = start_server(tmp_path_factory.mktemp("no-scope") / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    yield live
    stop_server(live)


@pytest.fixture
def person(server: LiveServer) -> str:
    """The username of the test's own account on the module's server."""
    name = f"bob{next(_PEOPLE)}"
    created = server.cli_here("user", "create", name, "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    return name


def _authorize_url(base: str, path: str = "/mcp") -> tuple[str, str, Pkce]:
    """Register a client that names no scope; the authorization URL of a request without `scope`."""
    registered = httpx.post(f"{base}/oauth/register", json={"client_name": "Agent", "redirect_uris": [CALLBACK]})
    assert registered.status_code == 201, registered.text
    client_id, pkce = registered.json()["client_id"], Pkce.new()
    params = authorize_params(client_id, pkce, redirect_uri=CALLBACK, scope=None, resource=base + path)
    return f"{base}/oauth/authorize?{urlencode(params)}", client_id, pkce


def _exchange(base: str, client_id: str, pkce: Pkce, code: str) -> dict[str, str]:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
            "code_verifier": pkce.verifier, "client_id": client_id}  # fmt: skip
    answer = httpx.post(f"{base}/oauth/token", data=form)
    assert answer.status_code == 200, answer.text
    tokens: dict[str, str] = answer.json()
    return tokens


def _call(base: str, token: str, tool: str, arguments: dict[str, object]) -> dict[str, object]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip
    answer = httpx.post(f"{base}/mcp", json=body, headers=headers, timeout=10)
    reply: dict[str, object] = answer.json()
    return reply


def test_no_scope_asked_offers_writes_and_the_agent_can_write(server, person):
    """Raw HTTP through `mesq serve`: the consent page lists all five scopes ticked and says why;
    approving as shown gives a token that writes."""
    base = server.base_url
    url, client_id, pkce = _authorize_url(base)
    bob = Browser(base, person, PASSWORD)
    try:
        consent = bob.http.get(url).headers["location"]
        page = bob._follow(consent)
        boxes = re.findall(r'<input type="checkbox" name="scopes" value="([^"]+)" form="consent" checked>', page.text)
        assert " ".join(boxes) == EVERYTHING
        assert "The app did not say what it needs" in page.text
        tokens = _exchange(base, client_id, pkce, query_of(bob.decide(consent, True))["code"])
    finally:
        bob.close()
    assert tokens["scope"] == EVERYTHING
    created = _call(base, tokens["access_token"], "create_memo", {"content": "first write #agent"})
    assert "error" not in created and not created["result"]["isError"], created  # type: ignore[index]


def test_the_person_unticks_and_the_answer_is_checked(server, person):
    """A plain form post (no script) with memo:write unticked grants the rest; unticking every box
    or every read is a clear 400, the request still waiting; a scope that was not offered is refused."""
    base = server.base_url
    bob = Browser(base, person, PASSWORD)
    try:
        url, client_id, pkce = _authorize_url(base, "/mcp/x/todo")
        consent = bob.http.get(url).headers["location"]
        page = bob._follow(consent)
        assert re.findall(r'name="scopes" value="([^"]+)"', page.text) == ["todo:read", "todo:write"]
        fields = {**hidden_fields(page.text), "decision": "approve"}
        form_headers = {"Origin": base, "Accept": "text/html"}
        for kept, problem in (([], "tick at least one permission"), (["todo:write"], "read permission")):
            refused = bob.http.post("/api/oauth/consent", data={**fields, "scopes": kept}, headers=form_headers)
            assert refused.status_code == 400 and problem in refused.text, refused.text
        foreign = bob.http.post(
            "/api/oauth/consent",
            json={"requestId": fields["requestId"], "decision": "approve", "scopes": ["memo:read"]},
            headers={"X-CSRF-Token": fields["csrf"], "Origin": base},
        )
        assert foreign.status_code == 400 and foreign.json()["error"]["code"] == "VALIDATION_ERROR"
        answered = bob.http.post("/api/oauth/consent", data={**fields, "scopes": ["todo:read"]}, headers=form_headers)
        assert answered.status_code == 303, answered.text
        tokens = _exchange(base, client_id, pkce, query_of(answered.headers["location"])["code"])
        assert tokens["scope"] == "todo:read"
    finally:
        bob.close()


@pytest.mark.parametrize(
    ("locale", "hint"), [("zh-CN", "没有说明它需要哪些权限"), ("en-US", "did not say what it needs")]
)
def test_unticking_write_on_the_consent_page_in_chromium(server, person, tmp_path, locale, hint):
    base = server.base_url
    url, client_id, pkce = _authorize_url(base)
    with chromium_page(locale=locale) as page:
        page.route(CALLBACK + "*", lambda route: route.fulfill(status=200, body="ok", content_type="text/plain"))
        page.goto(url)
        page.fill("input[name=username]", person)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page.locator("#consent-scope-hint")).to_contain_text(hint)
        boxes = page.locator("input[name=scopes]")
        expect(boxes).to_have_count(5)
        for width, height in ((390, 844), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, f"{width}px scrolls sideways: {scroll_width} > {inner_width}"
            page.screenshot(path=str(tmp_path / f"consent-{locale}-{width}.png"), full_page=True)
        for box in boxes.all():
            box.uncheck()
        page.locator("button[value=approve]").click()
        expect(page.locator("#consent-status")).to_be_visible()
        page.locator("input[name=scopes][value='memo:read']").check()
        page.locator("input[name=scopes][value='todo:read']").check()
        page.locator("input[name=scopes][value='todo:write']").check()
        with page.expect_navigation(url=re.compile(re.escape(CALLBACK) + r"\?")):
            page.locator("button[value=approve]").click()
        code = parse_qs(urlsplit(page.url).query)["code"][0]
    tokens = _exchange(base, client_id, pkce, code)
    assert tokens["scope"] == "memo:read todo:read todo:write"
