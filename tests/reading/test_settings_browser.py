"""Settings -> Reading sync in a real headless Chromium against a real `mesq serve` whose
WeChat Reading URLs point at the loopback fake: an expired credential shows as a sync error on
the page; after a fresh key, "sync now" shows the counts; the JSON file upload imports, and the
page never trips its CSP. The credential is never echoed back."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from tests.conftest import LiveServer, start_server, stop_server
from tests.web.kit.test_browser import PASSWORD, page  # noqa: F401  (the Chromium fixture)

from .export_files import export
from .fake_weread import API_KEY, FakeWeRead, running, sample_shelf


@pytest.fixture
def fake() -> FakeWeRead:
    return sample_shelf(books=2, highlights=3, thoughts=2)


@pytest.fixture
def server(tmp_path: Path, fake: FakeWeRead) -> Iterator[LiveServer]:
    with running(fake) as url:
        env = {"MESQ_WECHAT_READING_GATEWAY_URL": f"{url}/api/agent/gateway", "MESQ_WECHAT_READING_WEB_URL": url}
        live = start_server(tmp_path / "live", env)
        try:
            yield live
        finally:
            stop_server(live)


def _signed_in_to_the_page(server: LiveServer, browser_page: Any, username: str) -> None:
    """A new account, signed in through the form the settings page sends a stranger to."""
    created = server.cli_here("user", "create", username, "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    browser_page.goto(server.base_url + "/settings/reading")
    browser_page.fill("input[name=username]", username)
    browser_page.fill("input[name=password]", PASSWORD)
    browser_page.click("button[type=submit]")
    playwright_sync.expect(browser_page).to_have_url(server.base_url + "/settings/reading")


def test_reading_settings_page(server: LiveServer, fake: FakeWeRead, page, tmp_path: Path) -> None:  # noqa: F811
    expect = playwright_sync.expect
    csp_violations: list[str] = []
    page.on("console", lambda m: csp_violations.append(m.text) if "Content Security Policy" in m.text else None)
    _signed_in_to_the_page(server, page, "reader")

    # An expired credential: the sync error is on the page, nothing crashed.
    fake.expired = -2012
    page.fill("#credential-secret", API_KEY)
    page.get_by_role("button", name=re.compile("^Save")).click()
    expect(page.locator("#credential-hint")).to_contain_text("wrk-…6789")
    assert API_KEY not in page.content()
    page.click("#sync-now")
    expect(page.locator("#sync-error")).to_have_attribute("data-code", "CREDENTIAL_EXPIRED")
    expect(page.locator("#sync-error")).to_contain_text("expired")
    expect(page.locator("#last-success")).to_have_text("never")

    # The credential works again: sync now fills the shelf.
    fake.expired = None
    page.click("#sync-now")
    expect(page.locator("#sync-error")).to_have_count(0)
    expect(page.locator("#count-books")).to_have_text("2")
    expect(page.locator("#count-highlights")).to_have_text("6")
    expect(page.locator("#count-thoughts")).to_have_text("4")
    expect(page.locator("#last-run")).to_contain_text("10 added")

    # The JSON file upload (people without a credential), then again: nothing changes.
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export(books=3, notes=30), ensure_ascii=False), encoding="utf-8")
    for expected in (
        "Imported 3 books: 30 notes added",
        "0 notes added, 0 updated, 0 marked deleted upstream, 30 unchanged",
    ):
        page.set_input_files("#import-file", str(path))
        page.get_by_role("button", name="Import").click()
        expect(page.locator("#import-result")).to_contain_text(expected)
    expect(page.locator("#count-books")).to_have_text("5")  # the status follows the import, no reload
    bad = export(books=1, notes=3)
    bad["books"][0]["notes"][2]["noteType"] = "thought"
    path.write_text(json.dumps(bad), encoding="utf-8")
    page.set_input_files("#import-file", str(path))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-result")).to_contain_text("books[0].notes[2].noteType")
    solo = export(books=1, notes=1)  # one book, one note: said in the singular
    solo["books"][0]["id"], solo["books"][0]["notes"][0]["id"] = "book-solo", "solo-1"
    path.write_text(json.dumps(solo), encoding="utf-8")
    page.set_input_files("#import-file", str(path))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-result")).to_contain_text("Imported 1 book: 1 note added,")
    expect(page.locator("#count-books")).to_have_text("6")
    page.reload()
    expect(page.locator("#count-books")).to_have_text("6")

    # A file that is not UTF-8 is refused, as the CLI refuses it, never imported with U+FFFD in
    # place of its broken bytes; a UTF-8 file that starts with a byte order mark is imported.
    broken = export(books=1, notes=1)
    broken["books"][0]["id"], broken["books"][0]["title"] = "book-broken", "TITLE"
    path.write_bytes(json.dumps(broken).encode().replace(b"TITLE", b"caf\xe9"))  # Latin-1, not UTF-8
    page.set_input_files("#import-file", str(path))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-result")).to_contain_text("not UTF-8")
    expect(page.locator("#import-result")).to_have_class("error")
    page.reload()
    expect(page.locator("#count-books")).to_have_text("6")  # nothing was imported
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(broken).replace("TITLE", "café").encode())
    page.set_input_files("#import-file", str(path))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-result")).to_contain_text("Imported 1 book: 1 note added,")
    expect(page.locator("#count-books")).to_have_text("7")
    assert csp_violations == []


def test_sync_now_answers_at_once_and_the_page_follows_the_sync(
    server: LiveServer,
    fake: FakeWeRead,
    page,  # noqa: F811
) -> None:
    """On `mesq serve` the sync runs in the background: the button's page is back before a slow
    upstream answers, says so in the reader's language, reloads itself until the sync is over and
    then shows its counts; a second click meanwhile starts no second sync."""
    expect = playwright_sync.expect
    _signed_in_to_the_page(server, page, "slow")
    page.fill("#credential-secret", API_KEY)
    page.get_by_role("button", name=re.compile("^Save")).click()
    expect(page.locator("#credential-hint")).to_contain_text("wrk-…6789")
    page.set_extra_http_headers({"Accept-Language": "zh-CN"})  # the reader reads Chinese
    fake.delay["notebooks"] = 4.0

    started = time.monotonic()
    page.click("#sync-now")
    expect(page.locator("#sync-running")).to_have_text("正在同步，完成后本页会显示结果。")
    assert time.monotonic() - started < 3.0  # the upstream is still thinking: the page did not wait for it
    page.click("#sync-now")  # again, while it runs
    expect(page.locator("#sync-running")).to_be_visible()

    expect(page.locator("#count-books")).to_have_text("2", timeout=20_000)  # no reload of ours
    expect(page.locator("#sync-running")).to_have_count(0)
    expect(page.locator("#last-run")).to_contain_text("10")
    with fake.lock:
        assert fake.calls.count("notebooks") == 1, fake.calls


SKIPPED_SAID = {
    "zh-CN": ["跳过了 2 项", "一本没有书名的书（编号 9001）", "《书名 0》中的 1 条笔记", "重新获取的书中未变"],
    "en-US": ["skipped 2 items", "a book without a title (id 9001)", "1 note of “书名 0”", "unchanged in the books"],
}


def test_a_sync_that_skipped_items_says_so_at_phone_and_desktop_widths(
    server: LiveServer,
    fake: FakeWeRead,
    page,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A book without a title and a highlight without a time are skipped, the rest synced, and the
    page says what was skipped in either language, at 390 and 1280 px, within the page's width;
    the shelf says each book's time as its last change."""
    expect = playwright_sync.expect
    fake.books["9001"].title = ""
    fake.books["9000"].bookmarks.append({"bookmarkId": "x", "markText": "no time", "createTime": "soon"})
    _signed_in_to_the_page(server, page, "skipper")
    page.fill("#credential-secret", API_KEY)
    page.get_by_role("button", name=re.compile("^Save")).click()
    page.click("#sync-now")
    expect(page.locator("#sync-skipped")).to_be_visible()
    expect(page.locator("#sync-error")).to_have_count(0)
    expect(page.locator("#count-highlights")).to_have_text("3")  # book 9000's, synced all the same
    for language, said in SKIPPED_SAID.items():
        page.set_extra_http_headers({"Accept-Language": language})
        for width in (390, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(server.base_url + "/settings/reading")
            text = " ".join(page.locator("#sync-status").inner_text().split())
            for words in said:
                assert words in text, (language, width, text)
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, (language, width, scroll_width)
            page.locator("#sync-status").screenshot(path=str(tmp_path / f"skipped-{language}-{width}.png"))
            page.goto(server.base_url + "/reading")  # the shelf says a book's time as its last change
            shelf = page.locator("main").inner_text()
            assert ("最近变动" if language == "zh-CN" else "last changed") in shelf, shelf
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, (language, width, scroll_width)
            page.screenshot(path=str(tmp_path / f"shelf-{language}-{width}.png"))
