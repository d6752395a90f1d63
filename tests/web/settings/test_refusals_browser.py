"""The refusals this branch put in the reader's language, in headless Chromium against a real
`mesq serve`, in zh-CN and en-US at 390 and 1280 px: Settings → Import with a file that is not a
ZIP (the archive / Markdown form and "from another app"), a flomo ZIP whose member (named by its
long path) is corrupt, OAuth's authorize with an unknown
client, the sign-in form without its cookie, and the timeline with an unknown status. Each page
is in one language (no English sentence on the Chinese one) and fits its width."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES
from .test_import_broken_files import _corrupt_member

expect = playwright_sync.expect
#: A run of three English words: what a Chinese page must not hold outside code (docs/i18n.md).
ENGLISH_SENTENCE = re.compile(r"[A-Za-z]+[ ,;:]+[A-Za-z]+[ ,;:]+[A-Za-z]+")
WORDS = {
    "zh-CN": {
        "markdown": "bogus.zip：不是可读的 ZIP 文件",
        "flomo": "bogus.zip 不是 ZIP 文件：flomo 的导出是“导出全部（HTML）”得到的 ZIP",
        "flomo-corrupt": "flomo.zip 中的 flomo@tester-20240101/index.html：压缩数据已损坏",
        "authorize": "MeSQ 不认识让你来到这里的应用",
        "login": "登录表单已过期",
        "status": "状态：须为 'NORMAL', 'ARCHIVED', 'ALL' 之一",
    },
    "en-US": {
        "markdown": "bogus.zip: not a readable ZIP archive",
        "flomo": "bogus.zip is not a ZIP file: flomo's export is the ZIP",
        "flomo-corrupt": "flomo.zip: flomo@tester-20240101/index.html: its compressed data is corrupt",
        "authorize": "The app that sent you here is not known to MeSQ",
        "login": "The sign-in form is out of date",
        "status": "status: one of 'NORMAL', 'ARCHIVED', 'ALL'",
    },
}


def _checked(page: Any, locator: str, words: str, locale: str, shots: Path, name: str) -> None:
    """The refusal says `words`, the page is in one language and fits every width (a
    screenshot of each under `shots`, to look at when it does not)."""
    said = page.locator(locator).first
    expect(said).to_contain_text(words)
    if locale == "zh-CN":
        assert not ENGLISH_SENTENCE.search(said.inner_text()), said.inner_text()
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        page.screenshot(path=str(shots / f"{name}_{locale}_{width}.png"), full_page=True)
        assert scroll_width <= inner_width, (locator, width)


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_refusals_in_one_language_at_both_widths(server: LiveServer, tmp_path: Path, locale: str) -> None:
    bogus = tmp_path / "bogus.zip"
    bogus.write_bytes(b"this is a text file, not a ZIP archive\n" * 4)
    username = "refused" + locale[:2]
    server.account(username)
    words = WORDS[locale]
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale) as page:
        page.goto(f"{server.base_url}/login")
        page.context.clear_cookies()  # the sign-in form's cookie gone: its CSRF check fails
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        _checked(page, "main", words["login"], locale, tmp_path, "login")

        page.goto(f"{server.base_url}/login?next=/settings/import")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(server.base_url + "/settings/import")
        page.check("#import-form input[name=kind][value=markdown]")
        page.set_input_files("#import-file", str(bogus))
        page.click("#import-form button[type=submit]")
        _checked(page, "#import-error", words["markdown"], locale, tmp_path, "markdown")

        page.check("#app-import-form input[name=kind][value=flomo]")
        page.set_input_files("#app-import-file", str(bogus))
        page.click("#app-import-form button[type=submit]")
        _checked(page, "#app-import-error", words["flomo"], locale, tmp_path, "flomo")

        # A refusal that names a member by its long path (no space to wrap at) still fits 390 px.
        corrupt = tmp_path / "flomo.zip"
        (tmp_path / "made").mkdir()
        corrupt.write_bytes(_corrupt_member(tmp_path / "made"))
        page.check("#app-import-form input[name=kind][value=flomo]")
        page.set_input_files("#app-import-file", str(corrupt))
        page.click("#app-import-form button[type=submit]")
        _checked(page, "#app-import-error", words["flomo-corrupt"], locale, tmp_path, "flomo-corrupt")

        page.goto(f"{server.base_url}/oauth/authorize?client_id=x")
        _checked(page, "main", words["authorize"], locale, tmp_path, "authorize")

        page.goto(f"{server.base_url}/?status=WHATEVER")
        _checked(page, "main", words["status"], locale, tmp_path, "status")
