"""Settings → Export and Import in headless Chromium against a real `mesq serve` (issue 28 items
1-2): one user downloads the archive from Settings → Export, a second, fresh user uploads it on
Settings → Import and sees the first user's memos on their own timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES

expect = playwright_sync.expect


def _sign_in(page: Any, server: LiveServer, username: str, target: str) -> None:
    page.goto(f"{server.base_url}/login?next={target}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(server.base_url + target)


def test_export_then_import_into_a_fresh_account(server: LiveServer, tmp_path: Path) -> None:
    source = server.account("mover")
    server.account("arrival")
    headers = {"Authorization": f"Bearer {source.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        for text in ("packed for the move #搬家", "the second box"):
            assert rest.post("/api/toolkit/memo", json={"content": text}).status_code in (200, 201)
    problems: list[str] = []
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, accept_downloads=True) as page:
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        _sign_in(page, server, "mover", "/settings/export")
        with page.expect_download() as waiting:
            page.get_by_role("button", name="Download the archive").click()
        download = waiting.value
        assert download.suggested_filename.startswith("mesq-export-") and download.suggested_filename.endswith(".zip")
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
        page.context.clear_cookies()

        _sign_in(page, server, "arrival", "/settings/import")
        expect(page.get_by_role("radio", name="An archive from Export")).to_be_checked()
        page.set_input_files("#import-file", str(saved))
        page.get_by_role("button", name="Import", exact=True).click()
        result = page.locator("#import-result")
        expect(result).to_contain_text("new, 0 already there")
        page.get_by_role("link", name="See your memos").click()
        expect(page.get_by_text("packed for the move")).to_be_visible()
        expect(page.get_by_text("the second box")).to_be_visible()
    assert problems == [], problems
