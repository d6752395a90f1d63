"""A real headless Chromium (Debian `chromium`, driven by Playwright) against a real `mesq serve`:
first-run set-up, sign-out and sign-in, an OAuth consent approved (DCR client, PKCE), a PAT
created and seen exactly once, revoked, and a memo restored and permanently deleted from the trash."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page

PASSWORD = "correct horse battery"
CALLBACK = "http://127.0.0.1:9/callback"  # never reached: the browser's request is answered by the test
TOKEN = re.compile(r"mesq_pat_[A-Za-z0-9_-]{43}")


@pytest.fixture
def page() -> Iterator[object]:
    with chromium_page() as opened:
        yield opened


def _rest(server: LiveServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def test_browser_flow(server: LiveServer, page) -> None:  # type: ignore[no-untyped-def]
    base = server.base_url
    expect = playwright_sync.expect
    csp_violations: list[str] = []  # an inline script or style blocked by the page's CSP shows up here
    page.on(
        "console",
        lambda message: csp_violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    consent_posts: list[str] = []
    page.on(
        "request",
        lambda request: (
            consent_posts.append(request.headers.get("content-type", ""))
            if request.url.endswith("/api/oauth/consent")
            else None
        ),
    )

    # First-run set-up, then sign out and sign in through the login form.
    page.goto(base + "/")
    expect(page).to_have_url(base + "/setup")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(base + "/")  # signed in: the memo timeline
    page.get_by_role("button", name=re.compile("^Sign out")).click()
    expect(page).to_have_url(base + "/login")
    page.goto(base + "/setup")
    expect(page).to_have_url(base + "/login")  # set-up is gone once an account exists: sign in instead
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", "wrong password")
    page.click("button[type=submit]")
    expect(page.locator(".error")).to_contain_text("Wrong username or password")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(base + "/")

    # Access credentials: create a token, see it once, reload: gone.
    page.locator("header").get_by_role("link", name="Settings", exact=True).click()  # one entry, then its menu
    page.locator("nav.settings-menu").get_by_role("link", name=re.compile("^Access credentials")).click()
    page.fill("input[name=name]", "browser test")
    page.check("input[name=scopes][value='memo:write']")
    page.select_option("select[name=expiry]", "30")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_be_visible()
    token = page.input_value("#token-value")
    assert TOKEN.fullmatch(token)
    page.reload()
    expect(page.locator("#new-token")).to_have_count(0)
    assert token not in page.content()
    expect(page.locator("tr", has_text="browser test")).to_contain_text("memo:write")

    # The token works over REST: make a memo and move it to the trash, twice.
    with _rest(server, token) as rest:
        memos = []
        for text in ("restore me #keep", "destroy me #gone"):
            created = rest.post("/api/toolkit/memo", json={"content": text}).json()["data"]["memo"]
            trashed = rest.request(
                "DELETE", f"/api/toolkit/memo/{created['id']}", json={"expectedRevision": created["revision"]}
            )
            assert trashed.status_code == 200
            memos.append(created["id"])

        # Trash: restore one, permanently delete the other (after the confirmation page).
        page.get_by_role("link", name=re.compile("^Trash")).click()
        keep = page.locator(f"[data-memo-id='{memos[0]}']")
        gone = page.locator(f"[data-memo-id='{memos[1]}']")
        expect(keep).to_contain_text("restore me")
        keep.get_by_role("button", name=re.compile("^Restore")).click()
        expect(page.locator(f"[data-memo-id='{memos[0]}']")).to_have_count(0)
        gone.get_by_role("link", name=re.compile("^Delete permanently")).click()
        expect(page.locator("h1")).to_have_text("Delete this memo permanently?")
        page.get_by_role("button", name=re.compile("^Delete permanently")).click()
        expect(page.locator(".muted", has_text="The trash is empty")).to_be_visible()
        assert rest.get(f"/api/toolkit/memo/{memos[0]}").json()["data"]["memo"]["status"] == "NORMAL"
        assert rest.get(f"/api/toolkit/memo/{memos[1]}").status_code == 404

        # Revoke the token on the page: REST refuses it from then on.
        page.get_by_role("link", name=re.compile("^Access credentials")).click()
        page.locator("tr", has_text="browser test").get_by_role("link", name=re.compile("^Revoke")).click()
        expect(page.locator("h1")).to_have_text("Revoke this token?")
        page.get_by_role("button", name=re.compile("^Revoke")).click()
        expect(page.locator(".flash")).to_contain_text("revoked")
        expect(page.locator("tr", has_text="browser test")).to_contain_text("revoked")
        assert rest.get("/api/toolkit/memo").status_code == 401

    # OAuth: register a client (DCR), authorize in the browser, approve, exchange the code.
    registered = httpx.post(
        base + "/oauth/register", json={"client_name": "Browser Agent", "redirect_uris": [CALLBACK]}, timeout=10
    )
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    page.route(
        CALLBACK + "*", lambda route: route.fulfill(status=200, body="callback reached", content_type="text/plain")
    )
    query = {
        "response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "scope": "memo:read",
        "state": "st-browser", "code_challenge": challenge, "code_challenge_method": "S256",
        "resource": base + "/mcp",
    }  # fmt: skip
    page.goto(base + "/oauth/authorize?" + urlencode(query))
    expect(page.locator("h1")).to_contain_text("Browser Agent")
    expect(page.locator("ul.scopes")).to_contain_text("Read your memos")
    with page.expect_navigation(url=re.compile(re.escape(CALLBACK) + r"\?")):
        page.get_by_role("button", name=re.compile("^Approve")).click()
    answer = parse_qs(urlsplit(page.url).query)
    assert answer["state"] == ["st-browser"] and answer["code"]
    assert consent_posts == ["application/json"]  # the page's script answered, as the seed describes

    # A second request, denied: the browser lands on the callback with error=access_denied and the state.
    page.goto(base + "/oauth/authorize?" + urlencode({**query, "state": "st-deny"}))
    with page.expect_navigation(url=re.compile(re.escape(CALLBACK) + r"\?")):
        page.get_by_role("button", name=re.compile("^Deny")).click()
    denied = parse_qs(urlsplit(page.url).query)
    assert denied["error"] == ["access_denied"] and denied["state"] == ["st-deny"] and "code" not in denied
    tokens = httpx.post(
        base + "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": answer["code"][0],
            "redirect_uri": CALLBACK,
            "client_id": client_id,
            "code_verifier": verifier,
            "resource": base + "/mcp",
        },
        timeout=10,
    )
    assert tokens.status_code == 200, tokens.text

    # Connected apps lists it; revoking it there ends the grant.
    page.goto(base + "/settings/apps")
    row = page.locator("tr", has_text="Browser Agent")
    expect(row).to_be_visible()
    row.get_by_role("link", name=re.compile("^Revoke")).click()
    expect(page.locator("h1")).to_contain_text("Disconnect")
    page.get_by_role("button", name=re.compile("^Revoke")).click()
    expect(page.locator(".flash")).to_contain_text("Browser Agent")
    expect(page.locator("text=No connected apps")).to_be_visible()
    refreshed = httpx.post(
        base + "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"], "client_id": client_id},
        timeout=10,
    )
    assert refreshed.status_code == 400
    assert csp_violations == []
