"""The dark theme in a real headless Chromium against a real `mesq serve`: with the system set to
dark (`prefers-color-scheme`) the pages have a dark background, light otherwise; the header's
switch overrides the system's choice, and the choice survives a reload (localStorage)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from .test_browser import PASSWORD

PAGES = ("/", "/todos", "/settings")
#: The body's background as its relative luminance (WCAG), 0 black .. 1 white.
LUMINANCE = """() => {
    const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number);
    const lin = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}"""
DARK, LIGHT = 0.05, 0.8


@pytest.fixture
def page() -> Iterator[Any]:
    with chromium_page() as opened:
        yield opened


def _background(page: Any, url: str) -> float:
    page.goto(url)
    return float(page.evaluate(LUMINANCE))


def test_dark_theme_follows_the_system_and_the_switch(server: LiveServer, page: Any) -> None:
    base, expect = server.base_url, playwright_sync.expect
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.emulate_media(color_scheme="dark")
    assert _background(page, base + "/setup") < DARK  # signed out too
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(base + "/")
    for path in PAGES:
        assert _background(page, base + path) < DARK, f"{path} is not dark with prefers-color-scheme: dark"
    page.emulate_media(color_scheme="light")
    for path in PAGES:
        assert _background(page, base + path) > LIGHT, f"{path} is not light with prefers-color-scheme: light"

    # The switch: Auto -> Dark (the system says light), kept across a reload, -> Light -> Auto.
    switch = page.locator("#theme-switch")
    expect(switch).to_have_text("Theme: Auto")
    switch.click()
    expect(switch).to_have_text("Theme: Dark")
    assert page.evaluate(LUMINANCE) < DARK
    assert _background(page, base + "/todos") < DARK
    expect(page.locator("#theme-switch")).to_have_text("Theme: Dark")
    page.locator("#theme-switch").click()
    page.emulate_media(color_scheme="dark")
    assert page.evaluate(LUMINANCE) > LIGHT  # Light wins over the system's dark
    page.locator("#theme-switch").click()
    expect(page.locator("#theme-switch")).to_have_text("Theme: Auto")
    assert _background(page, base + "/settings") < DARK  # Auto: the system's dark again
    assert problems == [], problems


def test_the_switch_reads_as_chinese_on_a_chinese_page(server: LiveServer) -> None:
    """On a zh-CN page the switch is one Chinese phrase, its colon the fullwidth one Chinese text
    uses, not an English colon and space glued between two Chinese words."""
    expect = playwright_sync.expect
    with chromium_page(locale="zh-CN") as page:
        page.goto(server.base_url + "/setup")
        switch = page.locator("#theme-switch")
        expect(switch).to_have_text("主题：自动")
        switch.click()
        expect(switch).to_have_text("主题：深色")
