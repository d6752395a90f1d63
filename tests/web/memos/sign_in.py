"""The memo browser tests' start: the person signs in through the login form and lands on the
timeline, and a REST client with their token writes what a test needs behind the page; and the
timeline's memo cards and in-place editor, as the tests find them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..kit.test_browser import PASSWORD


@contextmanager
def on_the_timeline(page: Any, server: LiveServer, username: str, token: str) -> Iterator[httpx.Client]:
    page.goto(server.base_url + "/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(server.base_url + "/")
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        yield rest


#: The in-place editor of the memo being edited on the timeline.
EDITOR = "li.memo.editing textarea[data-editor]"


def memo_card(page: Any, text: str) -> Any:
    return page.locator(".memos-timeline > li.memo", has_text=text)


def open_editor(page: Any, text: str, edit_word: str) -> Any:
    """The memo card holding `text` opened in its in-place editor (its link starts with
    `edit_word`, the page's language), the editor focused."""
    memo_card(page, text).get_by_role("link", name=re.compile("^" + edit_word)).click()
    editor = page.locator(EDITOR)
    playwright_sync.expect(editor).to_be_focused()
    return editor
