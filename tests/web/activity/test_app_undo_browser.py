"""/activity's "Undo everything <app> did since ..." in headless Chromium against a real `mesq
serve`, in Chinese and in English, at 390 and 1280 px: two agents' sessions over REST; the row of
each agent fits the page (no sideways scroll), the page and its preview (htmx, in place of the
row's form) pass axe (no serious or critical violation, light and dark), the preview asks in the
page's language, and its Undo takes back everything that agent did since the time, none of the
other's. Screenshots of the page and the preview at both sizes (`shots`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_accessibility import Audit, axe_source  # noqa: F401  (axe_source: the axe-core fixture)
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES, shots  # noqa: F401  (shots: the screenshot directory fixture)

expect = playwright_sync.expect
USER = "ada"
ALL = "memo:read,memo:write,todo:read,todo:write"
WORDS = {
    "zh-CN": {
        "button": "撤销 Claude Desktop 自此时间起做的所有改动", "asks": "撤销 Claude Desktop 自",
        "would": "将撤销 3 处改动。", "undo": "撤销", "done": "已撤销 3 处改动。",
    },
    "en-US": {
        "button": "Undo everything Claude Desktop did since then", "asks": "Undo everything Claude Desktop did since",
        "would": "This undoes 3 changes.", "undo": "Undo them", "done": "Undid 3 changes.",
    },
}  # fmt: skip


def _rest(server: LiveServer, name: str) -> httpx.Client:
    secret = server.token(USER, ALL, name)
    return httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=30)


@pytest.fixture(params=["zh-CN", "en-US"])
def signed_in(server: LiveServer, request: Any) -> Iterator[tuple[Any, str]]:
    server.account(USER, scopes=ALL)
    problems: list[str] = []
    with chromium_page(
        locale=request.param, viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, bypass_csp=True
    ) as page:  # fmt: skip  (bypass_csp: axe is injected inline)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(server.base_url + "/login?next=/activity")
        page.fill("input[name=username]", USER)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(server.base_url + "/activity")
        yield page, request.param
    assert problems == []


def _fits_at_both_sizes(page: Any, shot: Path) -> None:
    """No sideways scroll at 1280 and 390 px, a full-page screenshot of each (`<shot>-<width>.png`)."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, f"{shot.name} at {width}px scrolls sideways"
        page.screenshot(path=f"{shot}-{width}.png", full_page=True)


def test_undo_everything_an_agent_did_reads_fits_and_passes_axe(
    server: LiveServer,
    signed_in: tuple[Any, str],
    axe_source: str,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    page, locale = signed_in
    words = WORDS[locale]
    with _rest(server, "Claude Desktop") as agent, _rest(server, "Cursor") as other:
        made = [agent.post("/api/toolkit/memo", json={"content": f"草稿 {n}"}).json()["data"]["memo"]["id"]
                for n in range(3)]  # fmt: skip
        kept = other.post("/api/toolkit/memo", json={"content": "别的"}).json()["data"]["memo"]["id"]
        page.goto(server.base_url + "/activity")
        rows = page.locator(".app-undo-row")
        expect(rows).to_have_count(2)
        row = rows.filter(has_text="Claude Desktop")
        audit = Audit(page, axe_source)
        audit.check("/activity with the apps' undo")
        _fits_at_both_sizes(page, shots / f"activity-app-undo-{locale}")
        page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})

        row.get_by_role("button", name=words["button"]).click()
        preview = row.locator(".undo-preview")
        expect(preview).to_contain_text(words["asks"])
        expect(preview).to_contain_text(words["would"])
        audit.check("/activity, an app's undo previewed")
        _fits_at_both_sizes(page, shots / f"activity-app-undo-preview-{locale}")
        assert audit.problems == [], audit.problems
        preview.get_by_role("button", name=words["undo"], exact=True).click()
        expect(page.locator(".flash")).to_have_text(words["done"])
        for memo_id in made:
            assert agent.get(f"/api/toolkit/memo/{memo_id}").json()["data"]["memo"]["status"] == "DELETED"
        assert other.get(f"/api/toolkit/memo/{kept}").json()["data"]["memo"]["status"] == "NORMAL"
        expect(page.locator(".app-undo-row").filter(has_text="Claude Desktop")).to_have_count(0)  # nothing left
