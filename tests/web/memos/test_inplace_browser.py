"""In-place writes in headless Chromium against a real `mesq serve` (issue 30 item 4): a memo
trashed from its "⋯" menu leaves the page where it was (no reload, the scroll kept) and the
toast's Undo puts it back at its place, un-trashed in the store; pin in place; the menu by
keyboard alone; a task completed from its card and undone; on a phone the memo sidebar behind
the "Filters" button. At 390 and 1280 px."""

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
from .sign_in import on_the_timeline

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
USER = "ada"
MEMOS = 32


#: The number of each test's own user (the module's tests share one server).


@pytest.fixture(params=SIZES, ids=lambda size: f"{size[0]}px")
def signed_in(server: LiveServer, request: Any) -> Iterator[tuple[Any, httpx.Client]]:
    """A Chromium page signed in as a fresh user (at each size), a REST client with the user's
    memo and todo token, and no script error nor CSP violation on any page."""
    width, height = request.param
    username = fresh_username(USER)
    account = server.account(username, scopes="memo:read,memo:write,todo:read,todo:write")
    problems: list[str] = []
    with chromium_page(viewport={"width": width, "height": height}) as page:
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        with on_the_timeline(page, server, username, account.token) as rest:
            yield page, rest
    assert problems == []


def _memos(rest: httpx.Client, count: int) -> list[dict[str, Any]]:
    return [rest.post("/api/toolkit/memo", json={"content": f"memo number {n:02d}"}).json()["data"]["memo"]
            for n in range(count)]  # fmt: skip


def _cards(page: Any) -> Any:
    return page.locator(".memos-timeline > li.memo")


def _card(page: Any, memo_id: str) -> Any:
    return page.locator(f"#memo-{memo_id}")


def _ids(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".memos-timeline > li", "items => items.map(i => i.id)"))


def test_trash_then_undo_keeps_the_place_and_the_scroll(signed_in: Any) -> None:
    page, rest = signed_in
    _memos(rest, MEMOS)
    page.reload()
    page.evaluate("window.notReloaded = true")
    order = _ids(page)
    target = order[12]  # well below the first screen
    card = page.locator("#" + target)
    card.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 40)")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 300

    card.get_by_role("button", name="More actions").click()
    expect(card.get_by_role("button", name="More actions")).to_have_attribute("aria-expanded", "true")
    card.get_by_role("menuitem", name="Move to trash").click()
    toast = page.locator("#toasts [data-toast]")
    expect(toast).to_contain_text("Moved to the trash")
    expect(page.locator("#toasts")).to_have_attribute("role", "status")
    expect(page.locator("#" + target)).to_be_hidden()  # the placeholder keeps its place
    assert page.evaluate("window.scrollY") == scrolled
    memo_id = target.removeprefix("memo-")
    assert rest.get(f"/api/toolkit/memo/{memo_id}").json()["data"]["memo"]["status"] == "DELETED"

    toast.get_by_role("button", name="Undo").click()
    expect(page.locator("#" + target)).to_be_visible()
    expect(page.locator("#toasts [data-toast]")).to_contain_text("Undone: back from the trash.")
    assert _ids(page) == order  # back at its place
    assert page.evaluate("window.scrollY") == scrolled
    assert page.evaluate("window.notReloaded === true")
    assert rest.get(f"/api/toolkit/memo/{memo_id}").json()["data"]["memo"]["status"] == "NORMAL"

    # Escape dismisses the toast; the restored card's menu still works.
    page.keyboard.press("Escape")
    expect(page.locator("#toasts [data-toast]")).to_have_count(0)


def test_pin_in_place_and_the_menu_by_keyboard(signed_in: Any) -> None:
    page, rest = signed_in
    made = _memos(rest, 3)
    page.reload()
    page.evaluate("window.notReloaded = true")
    order = _ids(page)
    card = _card(page, made[0]["id"])  # the oldest: last on the timeline
    button = card.get_by_role("button", name="More actions")
    expect(button).to_have_attribute("aria-haspopup", "menu")
    button.focus()
    page.keyboard.press("Enter")
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(card.get_by_role("menuitem", name="Pin")).to_be_focused()
    page.keyboard.press("ArrowUp")  # wraps to the last item
    expect(card.get_by_role("menuitem", name="Move to trash")).to_be_focused()
    page.keyboard.press("Home")
    expect(card.get_by_role("menuitem", name="Pin")).to_be_focused()
    page.keyboard.press("Escape")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(card.get_by_role("menu")).to_be_hidden()
    expect(button).to_be_focused()
    # Open it again, then a click outside closes it.
    page.keyboard.press("ArrowDown")
    expect(card.get_by_role("menu")).to_be_visible()
    page.locator("h1").click()
    expect(card.get_by_role("menu")).to_be_hidden()

    button.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # Pin
    expect(card.locator(".badge", has_text="Pinned")).to_be_visible()
    expect(page.locator("#toasts [data-toast]")).to_contain_text("Pinned.")
    assert _ids(page) == order  # pinned in place, not moved to the top until the next load
    assert page.evaluate("window.notReloaded === true")
    assert rest.get(f"/api/toolkit/memo/{made[0]['id']}").json()["data"]["memo"]["pinned"] is True
    page.locator("#toasts").get_by_role("button", name="Dismiss").click()
    expect(page.locator("#toasts [data-toast]")).to_have_count(0)


def test_archive_then_undo(signed_in: Any) -> None:
    page, rest = signed_in
    made = _memos(rest, 2)
    page.reload()
    card = _card(page, made[1]["id"])
    card.get_by_role("button", name="More actions").click()
    card.get_by_role("menuitem", name="Archive").click()
    expect(card).to_be_hidden()
    assert rest.get(f"/api/toolkit/memo/{made[1]['id']}").json()["data"]["memo"]["status"] == "ARCHIVED"
    page.locator("#toasts").get_by_role("button", name="Undo").click()
    expect(card).to_be_visible()
    assert rest.get(f"/api/toolkit/memo/{made[1]['id']}").json()["data"]["memo"]["status"] == "NORMAL"


def test_a_task_completed_from_its_card_and_undone(signed_in: Any, server: LiveServer) -> None:
    page, rest = signed_in
    task = rest.post("/api/toolkit/todo/tasks", json={"title": "water the plants"}).json()["data"]["task"]
    page.goto(server.base_url + "/todos")
    page.evaluate("window.notReloaded = true")
    card = page.locator(f"#task-{task['id']}")
    card.get_by_role("button", name="Complete: water the plants").click()
    expect(card).to_have_class(re.compile(r"\bdone\b"))
    assert rest.get(f"/api/toolkit/todo/tasks/{task['id']}").json()["data"]["task"]["done"] is True
    page.locator("#toasts").get_by_role("button", name="Undo").click()
    expect(card.get_by_role("button", name="Complete: water the plants")).to_have_attribute("aria-pressed", "false")
    assert rest.get(f"/api/toolkit/todo/tasks/{task['id']}").json()["data"]["task"]["done"] is False
    assert page.evaluate("window.notReloaded === true")


def test_filters_button_on_a_phone(signed_in: Any) -> None:
    page, rest = signed_in
    _memos(rest, 2)
    page.reload()
    sidebar = page.locator("#memos-sidebar")
    toggle = page.get_by_role("button", name="Filters")
    if page.viewport_size["width"] > 600:
        expect(toggle).to_be_hidden()
        expect(sidebar).to_be_visible()
        return
    expect(toggle).to_be_visible()
    expect(sidebar).to_be_hidden()
    toggle_box = toggle.bounding_box()
    assert toggle_box["y"] < page.locator(".memos-timeline").bounding_box()["y"]  # at the top
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(sidebar).to_be_visible()
    assert sidebar.bounding_box()["y"] < page.locator(".memos-timeline").bounding_box()["y"]  # above the memos
    toggle.click()
    expect(sidebar).to_be_hidden()


def test_both_trashes_restore_in_place_and_undo(signed_in: Any, server: LiveServer) -> None:
    page, rest = signed_in
    memo = _memos(rest, 1)[0]
    rest.request("DELETE", f"/api/toolkit/memo/{memo['id']}", json={"expectedRevision": memo["revision"]})
    page.goto(server.base_url + "/trash")
    page.evaluate("window.notReloaded = true")
    entry = page.locator(f"#trash-{memo['id']}")
    entry.get_by_role("button", name=re.compile("^Restore")).click()
    expect(entry).to_be_hidden()
    assert rest.get(f"/api/toolkit/memo/{memo['id']}").json()["data"]["memo"]["status"] == "NORMAL"
    page.locator("#toasts").get_by_role("button", name="Undo").click()
    expect(entry).to_be_visible()
    assert rest.get(f"/api/toolkit/memo/{memo['id']}").json()["data"]["memo"]["status"] == "DELETED"

    task = rest.post("/api/toolkit/todo/tasks", json={"title": "sweep the yard"}).json()["data"]["task"]
    rest.request("DELETE", f"/api/toolkit/todo/tasks/{task['id']}", json={"expectedRevision": task["revision"]})
    page.goto(server.base_url + "/todos/trash")
    page.evaluate("window.notReloaded = true")
    entry = page.locator(f"#todo-trash-{task['id']}")
    entry.get_by_role("button", name="Restore task: sweep the yard").click()
    expect(entry).to_be_hidden()
    expect(page.locator("#toasts")).to_contain_text("restored")
    page.locator("#toasts").get_by_role("button", name="Undo").click()
    expect(entry).to_be_visible()
    assert [i["id"] for i in rest.get("/api/toolkit/todo/trash").json()["data"]["items"]] == [task["id"]]
    assert page.evaluate("window.notReloaded === true")


def test_restoring_the_last_trashed_memo_in_place_says_the_trash_is_empty(signed_in: Any, server: LiveServer) -> None:
    """The trash's last memo restored in place: the page says the trash is empty and its "Empty
    the trash…" link goes (it stayed, over nothing, and led to "0 memos will be deleted
    permanently"); the toast's Undo brings both back as they were."""
    page, rest = signed_in
    memo = _memos(rest, 1)[0]
    rest.request("DELETE", f"/api/toolkit/memo/{memo['id']}", json={"expectedRevision": memo["revision"]})
    page.goto(server.base_url + "/trash")
    empty_link = page.get_by_role("link", name="Empty the trash…")
    empty_words = page.get_by_text("The trash is empty.")
    expect(empty_link).to_be_visible()
    expect(empty_words).to_be_hidden()
    page.locator(f"#trash-{memo['id']}").get_by_role("button", name=re.compile("^Restore")).click()
    expect(page.locator(f"#trash-{memo['id']}")).to_be_hidden()
    expect(empty_words).to_be_visible()
    expect(empty_link).to_be_hidden()
    page.locator("#toasts").get_by_role("button", name="Undo").click()
    expect(page.locator(f"#trash-{memo['id']}")).to_be_visible()
    expect(empty_link).to_be_visible()
    expect(empty_words).to_be_hidden()
