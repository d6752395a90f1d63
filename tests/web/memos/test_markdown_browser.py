"""Memo Markdown as Chinese writers type it, in headless Chromium (zh-CN) against a real `mesq
serve`, at 390 and 1280 px (sweep F1, F11): bold around quotes and book titles on the card and in
the composer's preview, bare URLs as links that end before Chinese punctuation, a URL's `#fragment`
never a tag, and a long URL wraps instead of scrolling the page sideways. Screenshots
`memos-markdown-zh-*.png` go where `test_layout.py` puts them ($MESQ_SCREENSHOTS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_layout import SIZES, shots
from ..todos.test_todos_browser import PROBLEMS, sign_in_page

pytestmark = pytest.mark.shared_server

__all__ = ["shots"]  # the fixture
expect = playwright_sync.expect
USER = "lin"
MEMO = (
    "这是**“重点”**内容，还有**《三体》**很好看。\n"
    "普通**加粗**文字\n"
    "链接：<https://example.com/路径>，和 www.example.org 以及 https://en.wikipedia.org/wiki/Foo#plot，"
    "看https://example.com/a很好 #读书\n"
    "长链接 https://example.com/" + "a" * 150
)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}px")
def test_chinese_markdown_on_the_card_and_in_the_preview(
    server: LiveServer, size: tuple[int, int], shots: Path
) -> None:
    width, height = size
    username = f"{USER}{width}"
    account = server.account(username, scopes="memo:read,memo:write")
    headers = {"Authorization": f"Bearer {account.token}"}
    with (
        chromium_page(viewport={"width": width, "height": height}, locale="zh-CN") as page,
        httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest,
    ):
        sign_in_page(page, server.base_url, username)
        memo = rest.post("/api/toolkit/memo", json={"content": MEMO}).json()["data"]["memo"]
        page.reload()

        card = page.locator(f"#memo-{memo['id']} .memo-body")
        _check_rendering(card)
        assert "**" not in card.inner_text()
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, f"{scroll_width} > {inner_width} at {width}px"
        card.screenshot(path=str(shots / f"memos-markdown-zh-{width}.png"))

        page.locator("#composer-text").fill(MEMO)
        page.locator("#composer-tab-preview").click()
        _check_rendering(page.locator("#composer-preview"))
        assert PROBLEMS[page] == [], PROBLEMS[page]


def _check_rendering(body: Any) -> None:
    expect(body.locator("strong")).to_have_text(["“重点”", "《三体》", "加粗"])
    links = body.locator("a:not(.memo-tag)")
    expect(links).to_have_text(
        [
            "https://example.com/路径",
            "www.example.org",
            "https://en.wikipedia.org/wiki/Foo#plot",
            "https://example.com/a",
            "https://example.com/" + "a" * 150,
        ]
    )
    expect(links.first).to_have_attribute("href", "https://example.com/%E8%B7%AF%E5%BE%84")
    expect(links.first).to_have_attribute("rel", "noopener noreferrer nofollow")
    expect(body.locator("a.memo-tag")).to_have_text(["#读书"])
