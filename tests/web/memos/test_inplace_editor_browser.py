"""The in-place editor of a memo card in headless Chromium against a real `mesq serve`: `#` offers
the user's tags as the composer does (the same listbox, the same keys, the same input-method
rules), and Escape never throws an edited text away without asking, in the page's language
(an in-page dialog, never the browser's `confirm()`). In Chinese and in English, at 390 and 1280 px."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..conftest import fresh_username
from ..kit.test_layout import SIZES
from .sign_in import EDITOR, memo_card, on_the_timeline, open_editor
from .test_memos_browser import COMPOSING_KEY

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
USER = "ada"
#: The number of each test's own user (the module's tests share one server).


WORDS = {
    "zh-CN": {
        "edit": "编辑", "two": "有 2 个标签建议。", "ask": "放弃对这条笔记的修改吗？", "keep": "继续编辑",
        "discard": "放弃修改", "save": "保存",
    },
    "en-US": {
        "edit": "Edit", "two": "2 tags suggested.", "ask": "Discard your changes to this memo?",
        "keep": "Keep editing", "discard": "Discard changes", "save": "Save",
    },
}  # fmt: skip
RUNS = [("zh-CN", SIZES[0]), ("en-US", SIZES[1])]


@pytest.fixture(params=RUNS, ids=lambda run: f"{run[0]}-{run[1][0]}px")
def signed_in(server: LiveServer, request: Any) -> Iterator[tuple[Any, httpx.Client, dict[str, str]]]:
    """A Chromium page signed in (in the run's language and size), a REST client for the checks;
    no script error, and never a dialog of the browser's own."""
    locale, (width, height) = request.param
    username = fresh_username(USER)
    account = server.account(username, scopes="memo:read,memo:write")
    problems: list[str] = []
    with chromium_page(locale=locale, viewport={"width": width, "height": height}) as page:
        # (A 409 merge prompt is an answer the page expects; Chromium logs its status all the same.)
        page.on("console", lambda message: problems.append(message.text) if message.type == "error"
                and not message.text.startswith("Failed to load resource") else None)  # fmt: skip
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("dialog", lambda dialog: (problems.append(f"browser dialog: {dialog.message}"), dialog.dismiss()))
        with on_the_timeline(page, server, username, account.token) as rest:
            yield page, rest, WORDS[locale]
    assert problems == []


def _fits(page: Any) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width


def test_the_editor_suggests_tags_as_the_composer_does(signed_in: tuple[Any, httpx.Client, dict[str, str]]) -> None:
    page, rest, words = signed_in
    memo = rest.post("/api/toolkit/memo", json={"content": "周报 #work/weekly"}).json()["data"]["memo"]
    rest.post("/api/toolkit/memo", json={"content": "好书 #读书 #读书/科幻"})
    page.reload()
    editor = open_editor(page, "周报", words["edit"])
    box = page.locator(f"#memo-{memo['id']}")
    suggestions = box.locator("[role=listbox]")  # hidden until `#`
    options = suggestions.get_by_role("option")
    expect(editor).to_have_attribute("aria-autocomplete", "list")
    expect(editor).to_have_attribute("aria-controls", f"edit-{memo['id']}-tag-list")

    # `#` and a letter: the user's tags, by keyboard; Down, then Enter inserts (no new line, no save).
    editor.press_sequentially(" #读", delay=10)
    expect(options).to_have_text(["#读书", "#读书/科幻"])
    expect(box.get_by_role("status")).to_have_text(words["two"])
    expect(editor).to_have_attribute("aria-activedescendant", f"edit-{memo['id']}-tag-option-0")
    editor.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    editor.press("Enter")
    expect(editor).to_have_value("周报 #work/weekly #读书/科幻 ")
    expect(suggestions).to_be_hidden()
    _fits(page)

    # Escape with the list open closes the list only: the edit stays open, nothing asked.
    editor.press_sequentially("#wo", delay=10)
    expect(options).to_have_text(["#work", "#work/weekly"])
    editor.press("Escape")
    expect(suggestions).to_be_hidden()
    expect(editor).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)
    editor.press_sequentially("rk ", delay=10)
    expect(suggestions).to_be_hidden()

    # An input method: the Enter that commits the pinyin is its own, and the list follows the
    # committed Chinese text (读), not the letters on the way.
    cdp = page.context.new_cdp_session(page)
    editor.press_sequentially("#", delay=10)
    cdp.send("Input.imeSetComposition", {"text": "du", "selectionStart": 2, "selectionEnd": 2})
    assert page.evaluate(COMPOSING_KEY, [EDITOR, "Enter", False]) is False
    cdp.send("Input.insertText", {"text": "读"})
    expect(options).to_have_text(["#读书", "#读书/科幻"])
    editor.press("Enter")
    expect(editor).to_have_value("周报 #work/weekly #读书/科幻 #work #读书 ")

    # The edit saves as before (Ctrl+Enter), with the tags it took.
    editor.press("Control+Enter")
    expect(memo_card(page, "周报").locator("a.memo-tag")).to_have_count(4)
    saved = rest.get(f"/api/toolkit/memo/{memo['id']}").json()["data"]["memo"]
    assert saved["content"].strip() == "周报 #work/weekly #读书/科幻 #work #读书"

    # The editor's own page (no sidebar there) suggests the same tags.
    page.goto(f"{str(rest.base_url).rstrip('/')}/memos/{memo['id']}/edit")
    editor = page.locator(EDITOR)
    editor.evaluate("box => { box.focus(); box.setSelectionRange(box.value.length, box.value.length); }")
    editor.press_sequentially("#科", delay=10)
    expect(page.locator("[role=listbox] [role=option]")).to_have_text(["#读书/科幻"])


def test_escape_asks_before_an_edited_memo_is_thrown_away(signed_in: tuple[Any, httpx.Client, dict[str, str]]) -> None:
    page, rest, words = signed_in
    memo = rest.post("/api/toolkit/memo", json={"content": "周末去爬山"}).json()["data"]["memo"]
    page.reload()
    dialog = page.get_by_role("dialog")

    # Nothing changed: Escape closes the editor at once, as before.
    editor = open_editor(page, "周末去爬山", words["edit"])
    editor.press("Escape")
    expect(page.locator("li.memo.editing")).to_have_count(0)
    expect(dialog).to_have_count(0)

    # Changed: Escape asks, in the page's language; "keep editing" (and Escape) go back to the text.
    editor = open_editor(page, "周末去爬山", words["edit"])
    editor.press_sequentially("，带上水", delay=10)
    editor.press("Escape")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(words["ask"])
    keep = dialog.get_by_role("button", name=words["keep"])
    expect(keep).to_be_focused()
    _fits(page)
    keep.click()
    expect(dialog).to_be_hidden()
    expect(editor).to_be_focused()
    expect(editor).to_have_value("周末去爬山，带上水")
    editor.press("Escape")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(editor).to_be_focused()
    expect(editor).to_have_value("周末去爬山，带上水")

    # "Discard changes": the card as it was, nothing saved.
    editor.press("Escape")
    dialog.get_by_role("button", name=words["discard"]).click()
    expect(page.locator("li.memo.editing")).to_have_count(0)
    expect(memo_card(page, "周末去爬山")).not_to_contain_text("带上水")
    assert rest.get(f"/api/toolkit/memo/{memo['id']}").json()["data"]["memo"]["content"] == "周末去爬山"

    # The merge prompt: the text in the box is yours and not saved, so Escape asks though it is untouched.
    editor = open_editor(page, "周末去爬山", words["edit"])
    editor.fill("周末去爬山，带上午饭")
    rest.patch(f"/api/toolkit/memo/{memo['id']}", json={"expectedRevision": memo["revision"], "content": "改期了"})
    page.locator("li.memo.editing").get_by_role("button", name=re.compile("^" + words["save"])).click()
    expect(page.locator("textarea.memos-theirs")).to_have_value("改期了")
    editor.press("Escape")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name=words["keep"]).click()
    expect(editor).to_have_value("周末去爬山，带上午饭")
