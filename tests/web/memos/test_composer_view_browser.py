"""The composer keeps the view it was written in (headless Chromium against a real `mesq serve`):
a memo saved on a tag view, the archive or a day stays on that view; the new memo shows there
when the view lists it, and a short notice says so when it does not. With script and without
(the plain form post and its redirect), in Chinese and in English, at 390 and 1280 px."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..conftest import fresh_username
from ..kit.test_layout import SIZES
from .sign_in import on_the_timeline

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
USER = "ada"
#: The number of each test's own user (the module's tests share one server).


#: The notice for a memo saved outside the view, and the page's own words for the checks.
WORDS = {
    "zh-CN": {"outside": "已保存（不在当前筛选中）。", "lang": "zh-Hans"},
    "en-US": {"outside": "Saved (not in this view).", "lang": "en"},
}


#: (locale, script, size): each language with and without script, each at both widths.
RUNS = [("zh-CN", True, SIZES[0]), ("en-US", True, SIZES[1]), ("zh-CN", False, SIZES[1]), ("en-US", False, SIZES[0])]


@pytest.fixture(
    params=RUNS,
    ids=lambda p: f"{p[0]}-{'script' if p[1] else 'no-script'}-{p[2][0]}px",
)
def signed_in(server: LiveServer, request: Any) -> Iterator[tuple[Any, httpx.Client, str]]:
    locale, script, (width, height) = request.param
    username = fresh_username(USER)
    account = server.account(username, scopes="memo:read,memo:write")
    problems: list[str] = []
    with chromium_page(
        locale=locale, java_script_enabled=script, viewport={"width": width, "height": height},
        timezone_id="Asia/Shanghai",
    ) as page:  # fmt: skip
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        # The browser's zone as memos.js sets it, so the day views are the same with and without script.
        page.context.add_cookies([{"name": "mesq_tz", "value": "Asia/Shanghai", "url": server.base_url}])
        with on_the_timeline(page, server, username, account.token) as rest:
            yield page, rest, locale
    assert problems == []


def _write(page: Any, text: str) -> None:
    page.fill("#composer-text", text)
    page.locator("#composer-save").click()


def _card(page: Any, text: str) -> Any:
    return page.locator(".memos-timeline > li.memo", has_text=text)


def _fits(page: Any) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width


def test_a_memo_written_on_a_view_stays_on_that_view(signed_in: tuple[Any, httpx.Client, str]) -> None:
    page, rest, locale = signed_in
    words = WORDS[locale]
    base = str(rest.base_url).rstrip("/")
    rest.post("/api/toolkit/memo", json={"content": "旧书 #读书"})
    flash = page.locator(".flash")

    # A tag view: a memo with the tag shows there, at once, with no notice.
    reading = base + "/?tag=" + quote("读书", safe="")
    page.goto(reading)
    expect(page.locator("html")).to_have_attribute("lang", words["lang"])
    _write(page, "新书 #读书/科幻")
    expect(page).to_have_url(reading)
    expect(_card(page, "新书")).to_be_visible()
    expect(flash).to_have_count(0)
    _fits(page)

    # One without the tag is saved, the view stays, and the notice says why it is not here.
    _write(page, "买菜 #生活")
    expect(page).to_have_url(reading)
    expect(flash).to_have_text(words["outside"])
    expect(_card(page, "买菜")).to_have_count(0)
    expect(_card(page, "新书")).to_be_visible()
    _fits(page)
    contents = [memo["content"] for memo in rest.get("/api/toolkit/memo").json()["data"]["timelineItems"]]
    assert "买菜 #生活" in contents

    # The archive: a new memo is never archived, so it is saved outside the view.
    archive = base + "/?status=ARCHIVED"
    page.goto(archive)
    _write(page, "归档页写的")
    expect(page).to_have_url(archive)
    expect(flash).to_have_text(words["outside"])

    # Today's day view (the browser's zone) lists it; an older day does not.
    today = page.evaluate("new Date().toLocaleDateString('sv-SE', {timeZone: 'Asia/Shanghai'})")
    page.goto(f"{base}/?day={today}")
    _write(page, "今天写的")
    expect(page).to_have_url(f"{base}/?day={today}")
    expect(_card(page, "今天写的")).to_be_visible()
    expect(flash).to_have_count(0)
    page.goto(base + "/?day=2020-01-01")
    _write(page, "旧日子里写的")
    expect(page).to_have_url(base + "/?day=2020-01-01")
    expect(flash).to_have_text(words["outside"])

    # A later page of the timeline: back to its first page, where the new memo is on top.
    page.goto(base + "/?offset=20")
    _write(page, "第一页")
    expect(page).to_have_url(base + "/")
    expect(page.locator(".memos-timeline > li.memo").first).to_contain_text("第一页")
    expect(flash).to_have_count(0)
