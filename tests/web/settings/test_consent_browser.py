"""The consent flow in headless Chromium against a real `mesq serve`, as a person meets it when
the app is a native one (Cursor's `cursor://` callback): the browser hands the answer to the app
and stays on MeSQ's page, which must then say what happened in the page's language, not keep
asking the question with its buttons dead. The first connection on a fresh instance also passes
through the set-up, which must come back to the consent page."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import urlencode

import httpx
from playwright import sync_api as playwright_sync

from ...conftest import start_server, stop_server
from ..chromium import chromium_page

PASSWORD = "correct horse battery"
NATIVE_CALLBACK = "cursor://anysphere.cursor-mcp/oauth/callback"


def _authorize_url(base: str, state: str) -> str:
    registered = httpx.post(
        base + "/oauth/register", json={"client_name": "Cursor", "redirect_uris": [NATIVE_CALLBACK]}, timeout=10
    )
    assert registered.status_code == 201, registered.text
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code", "client_id": registered.json()["client_id"], "redirect_uri": NATIVE_CALLBACK,
        "state": state, "code_challenge": challenge, "code_challenge_method": "S256",
    }  # fmt: skip
    return base + "/oauth/authorize?" + urlencode(query)


def _on_consent_page(page: playwright_sync.Page, base: str, username: str, state: str) -> list[str]:
    """Open a new authorization request for the native app and sign in as `username` (an existing
    account) until its consent page shows; the app hand-overs (`cursor:` requests) the page makes
    from then on are collected in the list returned."""
    handed: list[str] = []
    page.on("request", lambda request: handed.append(request.url) if request.url.startswith("cursor:") else 0)
    page.goto(_authorize_url(base, state))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page.locator("#consent")).to_be_visible()
    return handed


def _wait_for_hand_over(page: playwright_sync.Page, handed: list[str]) -> None:
    """The hand-over to the app (`location.assign` of its callback) follows the page's words: wait
    up to 5 s for the browser to make it."""
    for _ in range(50):
        if handed:
            return
        page.wait_for_timeout(100)


def _sign_out_elsewhere(page: playwright_sync.Page, base: str) -> playwright_sync.Page:
    """Another tab of the same browser signs out; returns that tab, on the sign-in page."""
    other_tab = page.context.new_page()
    other_tab.goto(base + "/settings")
    other_tab.evaluate("document.querySelector('form.signout').submit()")
    other_tab.wait_for_url("**/login**")
    return other_tab


def test_consent_for_a_native_app_says_what_happened_in_the_pages_language(tmp_path) -> None:
    live = start_server(tmp_path / "live")
    expect = playwright_sync.expect
    try:
        base = live.base_url
        with chromium_page(locale="zh-CN", extra_http_headers={"Accept-Language": "zh-CN"}) as page:
            handed: list[str] = []
            page.on("request", lambda request: handed.append(request.url) if request.url.startswith("cursor:") else 0)
            # A fresh instance: sign-in sends the person to the set-up, which comes back here.
            page.goto(_authorize_url(base, "st-zh"))
            expect(page.locator("h1")).to_have_text("欢迎使用 MeSQ")
            page.fill("input[name=username]", "admin")
            page.fill("input[name=password]", PASSWORD)
            page.fill("input[name=confirm]", PASSWORD)
            page.click("button[type=submit]")
            expect(page.locator("h1")).to_contain_text("Cursor")
            page.get_by_role("button", name="允许").click()
            status = page.locator("#consent-done")
            expect(status).to_be_visible()
            expect(status).to_contain_text("已允许")
            expect(status).to_contain_text("cursor://anysphere.cursor-mcp")
            expect(page.locator("#consent")).to_be_hidden()
            _wait_for_hand_over(page, handed)
            assert handed and "code=" in handed[0] and "state=st-zh" in handed[0]

        with chromium_page(locale="en-US", extra_http_headers={"Accept-Language": "en-US"}) as page:
            page.goto(_authorize_url(base, "st-en"))
            page.fill("input[name=username]", "admin")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.get_by_role("button", name="Deny").click()
            status = page.locator("#consent-done")
            expect(status).to_be_visible()
            expect(status).to_contain_text("denied")
            expect(page.locator("#consent")).to_be_hidden()
            assert "已" not in status.inner_text()
    finally:
        stop_server(live)


def test_a_consent_tab_whose_session_ended_signs_in_and_comes_back(tmp_path) -> None:
    """A stale tab: the consent page is open, the person signs out in another tab (or the session
    ends), then presses Approve. The answer is refused ("sign in and try again") and the buttons
    stayed dead, so the only way on was to guess a reload. The page now takes the person to sign
    in and back to the same request, which they answer; the app gets its code."""
    live = start_server(tmp_path / "live")
    expect = playwright_sync.expect
    try:
        base = live.base_url
        created = live.cli_here("user", "create", "stale", "--password-stdin", stdin=PASSWORD + "\n")
        assert created.returncode == 0, created.stderr
        with chromium_page(locale="zh-CN", extra_http_headers={"Accept-Language": "zh-CN"}) as page:
            handed = _on_consent_page(page, base, "stale", "st-stale")
            consent_url = page.url
            _sign_out_elsewhere(page, base).close()
            page.get_by_role("button", name="允许").click()
            expect(page.locator("input[name=username]")).to_be_visible()
            page.fill("input[name=username]", "stale")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(consent_url)
            page.get_by_role("button", name="允许").click()
            expect(page.locator("#consent-done")).to_contain_text("已允许")
            _wait_for_hand_over(page, handed)
            assert handed and "code=" in handed[0] and "state=st-stale" in handed[0]
    finally:
        stop_server(live)


def _sign_in_again_elsewhere(page: playwright_sync.Page, base: str, username: str) -> None:
    """Another tab of the same browser signs out and in again: a new session, a new CSRF token."""
    other_tab = _sign_out_elsewhere(page, base)
    other_tab.fill("input[name=username]", username)
    other_tab.fill("input[name=password]", PASSWORD)
    other_tab.click("button[type=submit]")
    other_tab.wait_for_url(base + "/")
    other_tab.close()


def test_a_consent_tab_whose_form_went_stale_reloads_once_and_lets_the_person_choose_again(tmp_path) -> None:
    """The person signed in again in another tab, so the consent page's CSRF token is the ended
    session's: Approve was refused with "reload the page and try again" and dead buttons. The page
    now reloads itself once (the request still waiting), says why, and answers nothing until the
    person clicks again; a second stale refusal is said, not reloaded again."""
    live = start_server(tmp_path / "live")
    expect = playwright_sync.expect
    try:
        base = live.base_url
        created = live.cli_here("user", "create", "again", "--password-stdin", stdin=PASSWORD + "\n")
        assert created.returncode == 0, created.stderr
        with chromium_page(locale="zh-CN", extra_http_headers={"Accept-Language": "zh-CN"}) as page:
            handed = _on_consent_page(page, base, "again", "st-again")
            consent_url = page.url
            expect(page.locator("#consent-reloaded")).to_be_hidden()

            _sign_in_again_elsewhere(page, base, "again")
            page.evaluate("window.notReloaded = true")
            page.get_by_role("button", name="允许").click()
            expect(page.locator("#consent-reloaded")).to_be_visible()
            expect(page.locator("#consent-reloaded")).to_contain_text("已自动刷新")
            assert page.url == consent_url and page.evaluate("window.notReloaded") is None  # a fresh page
            expect(page.get_by_role("button", name="允许")).to_be_enabled()
            assert handed == []  # nothing answered by itself

            # Stale again on the reloaded page: said, no second reload.
            _sign_in_again_elsewhere(page, base, "again")
            page.evaluate("window.notReloaded = true")
            page.get_by_role("button", name="允许").click()
            expect(page.locator("#consent-status")).to_be_visible()
            assert page.evaluate("window.notReloaded") is True and handed == []

            page.reload()
            expect(page.locator("#consent-reloaded")).to_be_hidden()  # the note is for the one reload it made
            page.get_by_role("button", name="允许").click()
            expect(page.locator("#consent-done")).to_contain_text("已允许")
            _wait_for_hand_over(page, handed)
            assert len(handed) == 1 and "code=" in handed[0] and "state=st-again" in handed[0]
    finally:
        stop_server(live)
