"""Leaving the timeline (a link, a reload, closing the tab) while a memo's text is not saved asks
first, with the browser's own "Leave site?" prompt (beforeunload), in headless Chromium against a
real `mesq serve`: an open in-place editor with changed text, and the composer holding text. Never
when nothing is unsaved: an editor opened and left as it was, after a save, after Cancel, nor the
composer's own Save (its submit loads the next page). In Chinese at 390 px, in English at 1280."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..conftest import fresh_username
from ..kit.test_layout import SIZES
from .sign_in import EDITOR, on_the_timeline, open_editor

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
USER = "ada"
#: The number of each test's own user (the module's tests share one server).


WORDS = {
    "zh-CN": {"edit": "编辑", "cancel": "取消", "save": "保存"},
    "en-US": {"edit": "Edit", "cancel": "Cancel", "save": "Save"},
}
RUNS = [("zh-CN", SIZES[0]), ("en-US", SIZES[1])]


@pytest.fixture(params=RUNS, ids=lambda run: f"{run[0]}-{run[1][0]}px")
def signed_in(server: LiveServer, request: Any) -> Iterator[tuple[Any, httpx.Client, dict[str, str], list[str]]]:
    """A Chromium page on the timeline and the list of the browser dialogs it raised (each
    dismissed: the person stays); no script error."""
    locale, (width, height) = request.param
    username = fresh_username(USER)
    account = server.account(username, scopes="memo:read,memo:write")
    problems: list[str] = []
    asked: list[str] = []
    with chromium_page(locale=locale, viewport={"width": width, "height": height}) as page:
        page.on("console", lambda message: problems.append(message.text) if message.type == "error"
                and not message.text.startswith("Failed to load resource") else None)  # fmt: skip
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
        with on_the_timeline(page, server, username, account.token) as rest:
            yield page, rest, WORDS[locale], asked
    assert problems == []


def _leave(page: Any) -> None:
    """Follow a link off the timeline (the header's Settings), as a person leaves the page; a
    dismissed prompt keeps the page where it was."""
    page.evaluate(
        "() => { const a = document.createElement('a'); a.href = '/settings'; document.body.append(a); a.click(); }"
    )


def _left(page: Any) -> None:
    """The browser followed the link (under load it may take longer than a glance)."""
    page.wait_for_url("**/settings", timeout=10_000)


def _asked(page: Any, asked: list[str], count: int) -> None:
    """Wait up to 10 s for the browser's prompt to have been raised `count` times (then settled)."""
    for _ in range(100):
        if len(asked) >= count:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(200)  # a second prompt, if one were wrongly raised, shows here


def test_leaving_with_an_edited_memo_asks_first(signed_in: tuple[Any, httpx.Client, dict[str, str], list[str]]) -> None:
    page, rest, words, asked = signed_in
    memo = rest.post("/api/toolkit/memo", json={"content": "周末去爬山"}).json()["data"]["memo"]
    page.reload()
    timeline = page.url

    # Opened and left as it was: nothing to lose, nothing asked.
    open_editor(page, "周末去爬山", words["edit"])
    _leave(page)
    _left(page)
    assert asked == []
    page.goto(timeline)

    # Text typed in the editor: leaving asks; dismissed, the page and the text stay.
    editor = open_editor(page, "周末去爬山", words["edit"])
    editor.press_sequentially("，带上水", delay=10)
    _leave(page)
    _asked(page, asked, 1)
    assert asked == ["beforeunload"] and page.url == timeline
    expect(editor).to_have_value("周末去爬山，带上水")
    page.evaluate("() => setTimeout(() => location.reload(), 0)")  # a reload asks too
    _asked(page, asked, 2)
    assert asked == ["beforeunload", "beforeunload"]
    expect(editor).to_have_value("周末去爬山，带上水")

    # Cancel (the explicit choice to drop it): leaving no longer asks.
    page.locator("li.memo.editing").get_by_role("link", name=words["cancel"]).click()
    expect(page.locator(EDITOR)).to_have_count(0)
    _leave(page)
    _left(page)
    assert len(asked) == 2
    page.goto(timeline)

    # Saved: nothing unsaved any more.
    editor = open_editor(page, "周末去爬山", words["edit"])
    editor.press_sequentially("！", delay=10)
    page.locator("li.memo.editing").get_by_role("button", name=words["save"]).click()
    expect(page.locator(EDITOR)).to_have_count(0)
    assert rest.get(f"/api/toolkit/memo/{memo['id']}").json()["data"]["memo"]["content"] == "周末去爬山！"
    _leave(page)
    _left(page)
    assert len(asked) == 2


def test_leaving_with_text_in_the_composer_asks_first(
    signed_in: tuple[Any, httpx.Client, dict[str, str], list[str]],
) -> None:
    page, rest, words, asked = signed_in
    timeline = page.url
    composer = page.locator("#composer-text")
    composer.click()
    composer.press_sequentially("买菜：西红柿", delay=10)
    _leave(page)
    _asked(page, asked, 1)
    assert asked == ["beforeunload"] and page.url == timeline
    expect(composer).to_have_value("买菜：西红柿")
    page.close(run_before_unload=True)  # closing the tab asks too (the dialog event fires; dismissed, it stays)
    _asked(page, asked, 2)
    assert asked == ["beforeunload", "beforeunload"] and not page.is_closed()

    # The composer's own Save loads the next page: no prompt for that, and none after it.
    page.locator("#composer").get_by_role("button", name=words["save"], exact=True).click()
    expect(page.locator(".memos-timeline > li.memo", has_text="买菜：西红柿")).to_have_count(1)
    assert len(asked) == 2
    expect(page.locator("#composer-text")).to_have_value("")
    _leave(page)
    _left(page)
    assert len(asked) == 2
    assert [item["content"] for item in rest.get("/api/toolkit/memo").json()["data"]["timelineItems"]] == [
        "买菜：西红柿"
    ]
