"""Settings -> Calendar says how to connect a CalDAV app (docs/caldav.md), in headless Chromium
against a real `mesq serve`, in zh-CN and en-US at 390 and 1280 px: the server address, the
username and a link that creates a token with the todo scopes, whose page repeats the address and
the username beside the new token; the address and a token made
through that link sign a CalDAV client in and list the calendars. Before, no page named the
CalDAV address at all, and the token form's default scope (memo:read) was refused by CalDAV."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright import sync_api as playwright_sync

from mesq.wiring.config import Settings

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES
from .test_refusals_browser import ENGLISH_SENTENCE

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
HEADING = {"zh-CN": "在日历应用中同步任务（CalDAV）", "en-US": "Tasks in calendar apps (CalDAV)"}
TOKEN_NAME = {"zh-CN": "日历应用", "en-US": "Calendar app"}
PROPFIND = '<D:propfind xmlns:D="DAV:"><D:prop><D:displayname/></D:prop></D:propfind>'


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_the_calendar_page_connects_a_caldav_app(server: LiveServer, tmp_path: Path, locale: str) -> None:
    username = "phone" + locale[:2]
    server.account(username)
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale) as page:
        page.goto(f"{server.base_url}/login?next=/settings/calendar")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(server.base_url + "/settings/calendar")
        section = page.locator("#caldav")
        expect(section.locator("h2")).to_have_text(HEADING[locale])
        address = page.input_value("#dav-url")
        assert address == server.base_url + "/dav/"
        expect(page.locator("#dav-username")).to_have_text(username)
        expect(section.locator("button[data-copy=dav-url]")).to_be_visible()  # copy.js ran
        if locale == "zh-CN":
            said = section.inner_text().replace("Apple", "").replace("todo:read", "").replace("todo:write", "")
            assert not ENGLISH_SENTENCE.search(said), said
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(tmp_path / f"caldav_{locale}_{width}.png"), full_page=True)
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, (locale, width, scroll_width, inner_width)

        section.locator("a[href='/settings/tokens?for=caldav']").click()
        expect(page.locator("input[name=name]")).to_have_value(TOKEN_NAME[locale])
        ticked = page.eval_on_selector_all("input[name=scopes]:checked", "boxes => boxes.map(b => b.value)")
        assert sorted(ticked) == ["todo:read", "todo:write"]
        page.locator("form[action='/settings/tokens'] button[type=submit]").click()
        token = page.input_value("#token-value")
        # beside the new token, what the calendar app asks for: no going back to Settings -> Calendar
        beside = page.locator("#new-token")
        assert page.input_value("#dav-url") == address
        expect(beside.locator("#dav-username")).to_have_text(username)
        expect(beside.locator("button[data-copy=dav-url]")).to_be_visible()
        if locale == "zh-CN":
            said = beside.inner_text().replace("iPhone", "").replace("Thunderbird", "").replace("DAVx⁵", "")
            assert not ENGLISH_SENTENCE.search(said), said
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, (locale, width, scroll_width, inner_width)
            page.screenshot(path=str(tmp_path / f"caldav_token_{locale}_{width}.png"), full_page=True)

    answer = httpx.request("PROPFIND", address, content=PROPFIND, auth=(username, token), headers={"Depth": "1"})
    assert answer.status_code == 207, answer.text
    assert f"<D:href>/dav/{username}/</D:href>" in answer.text  # the principal, found from the address
    home = address + username + "/"
    answer = httpx.request("PROPFIND", home, content=PROPFIND, auth=(username, token), headers={"Depth": "1"})
    assert answer.status_code == 207 and f"/dav/{username}/inbox/" in answer.text, answer.text


def test_the_caldav_address_on_its_own_host_is_read_in_its_normal_form() -> None:
    settings = Settings.from_env({"MESQ_DAV_URL": "https://ABC.lambda-url.us-east-1.on.aws/"})
    assert settings.dav_url == "https://abc.lambda-url.us-east-1.on.aws"
    assert Settings.from_env({}).dav_url is None
