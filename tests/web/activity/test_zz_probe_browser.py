from __future__ import annotations

from pathlib import Path

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_layout import SIZES, shots  # noqa: F401
from ..todos.test_todos_browser import sign_in_page
from .test_activity_browser import ALL, USER, _ok, _rest


def test_probe(server: LiveServer, shots: Path) -> None:  # noqa: F811
    server.account(USER, scopes=ALL)
    agent = _rest(server, "Claude Desktop")
    memo = _ok(agent.post("/api/toolkit/memo", json={"content": "第 0 版"}))["memo"]
    for n in range(1, 105):
        memo = _ok(
            agent.patch(
                f"/api/toolkit/memo/{memo['id']}", json={"expectedRevision": memo["revision"], "content": f"第 {n} 版"}
            )
        )["memo"]
    for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
        with chromium_page(viewport={"width": 390, "height": 844}, locale=locale) as page:
            sign_in_page(page, server.base_url, USER, "/activity")
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                page.goto(server.base_url + f"/activity/history/{memo['id']}")
                sw, iw = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
                print(lang, width, sw, iw)
                page.locator(".history-panel > p.muted").first.scroll_into_view_if_needed()
                page.screenshot(path=f"/tmp/hist/hist-{lang}-{width}.png")
                print(page.locator(".history-panel > p").all_inner_texts())
            page.set_viewport_size({"width": 390, "height": 844})
            page.goto(server.base_url + f"/activity?recordId={memo['id']}")
            page.locator("section.activity-group").first.get_by_role("button").first.click()
            page.locator(".undo-preview").wait_for()
            print(page.locator(".undo-preview p").inner_text())
            page.locator(".undo-preview button").click()
            page.locator(".flash").wait_for()
            print(page.locator(".flash").inner_text())
            page.screenshot(path=f"/tmp/hist/after-{lang}.png")
            if lang == "zh":
                redo = page.locator("section.activity-group").first
                print(redo.inner_text()[:200])
                redo.get_by_role("button").first.click()
                page.locator(".undo-preview").wait_for()
                print(page.locator(".undo-preview p").inner_text())
                page.locator(".undo-preview button").click()
                page.locator(".flash").wait_for()
                print(page.locator(".flash").inner_text())
