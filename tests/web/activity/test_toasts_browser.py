"""Undo toasts in headless Chromium (zh-CN) against a real `mesq serve`, at 1280 and 390 px: a
memo pinned from its "⋯" menu moves the sidebar's Pinned count without a reload; trashed next,
two toasts stand; the older one's Undo undoes both in order, retires the newer toast, says in
Chinese what the memo is now (no API text, revision or id) and the memo is that: back on the
timeline, not pinned, not in the trash."""

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
from ..todos.test_todos_browser import PROBLEMS, sign_in_page

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
USER = "ada"
#: The number of each test's own user (the module's tests share one server).


@pytest.fixture(params=SIZES, ids=lambda size: f"{size[0]}px")
def signed_in(server: LiveServer, request: Any) -> Iterator[tuple[Any, httpx.Client]]:
    width, height = request.param
    username = fresh_username(USER)
    account = server.account(username, scopes="memo:read,memo:write")
    with chromium_page(viewport={"width": width, "height": height}, locale="zh-CN") as page:
        sign_in_page(page, server.base_url, username)
        headers = {"Authorization": f"Bearer {account.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
            yield page, rest
        assert PROBLEMS[page] == [], PROBLEMS[page]


def _action(page: Any, card: Any, name: str) -> None:
    """From the card's "⋯" menu by keyboard (on a phone the toasts cover the lower cards)."""
    card.get_by_role("button", name="更多操作").focus()
    page.keyboard.press("Enter")
    item = card.get_by_role("menuitem", name=name)
    item.focus()
    page.keyboard.press("Enter")


def test_pin_then_trash_then_the_older_undo(signed_in: Any) -> None:
    page, rest = signed_in
    memo = rest.post("/api/toolkit/memo", json={"content": "周报\n本周完成"}).json()["data"]["memo"]
    page.reload()
    page.evaluate("window.notReloaded = true")
    page.evaluate("document.getElementById('toasts').dataset.toastSeconds = '300'")  # a slow machine: keep them
    pinned_count = page.locator("#memo-count-pinned")
    expect(pinned_count).to_have_text("0")
    card = page.locator(f"#memo-{memo['id']}")

    _action(page, card, "置顶")
    toasts = page.locator("#toasts [data-toast]")
    expect(toasts).to_have_count(1)
    expect(pinned_count).to_have_text("1")  # the sidebar follows the pin, no reload
    _action(page, card, "移到回收站")
    expect(toasts).to_have_count(2)
    expect(card).to_be_hidden()
    expect(pinned_count).to_have_text("0")

    toasts.first.get_by_role("button", name="撤销").click()  # the older toast: the pin's
    said = page.locator("#toasts [data-toast]")
    expect(said).to_have_count(1)  # the trash's toast retired, the answer's own shown
    expect(said).to_contain_text("已撤销：已从回收站恢复，已取消置顶。")
    text = said.inner_text()
    assert memo["id"] not in text and not re.search(r"[A-Za-z]{3,}|revision|版本", text), text
    now = rest.get(f"/api/toolkit/memo/{memo['id']}").json()["data"]["memo"]
    assert now["status"] == "NORMAL" and now["pinned"] is False  # what the toast says
    expect(page.locator(f"#memo-{memo['id']}")).to_be_visible()
    expect(pinned_count).to_have_text("0")
    assert page.evaluate("window.notReloaded === true")
