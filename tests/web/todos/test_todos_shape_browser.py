"""Shaping the board in headless Chromium against a real `mesq serve`, at 390 and 1280 px: a
column added, renamed, dragged by its handle to a new place (the order checked through the REST
API), moved by its keyboard buttons and deleted; the space renamed; a done column marked, and a
task completed from its card moving there; an inbox item opened from the inbox, given a due date,
a note and a subtask on its own page. No script error and no CSP violation on any page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..kit.test_layout import SIZES, shots  # noqa: F401  (shots: the screenshot directory fixture)
from .test_todos_browser import add_task, column, fits, signed_in  # noqa: F401  (signed_in: a fixture)

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect


def open_menu(page: Any, name: str) -> Any:
    """A column's menu, opened; the locator of its forms."""
    page.get_by_label(f"Edit column {name}").click()
    return column(page, name).locator(".column-forms")


def column_names(rest: Any) -> list[str]:
    listing = rest.get("/api/toolkit/todo/spaces").json()["data"]
    return [c["name"] for c in listing["columns"] if c["spaceId"] == listing["defaultSpaceId"]]


def heading_names(page: Any) -> list[str]:
    shown = page.locator("section.todo-column:not(.sortable-fallback) h2")  # not the dragged copy
    return [name.strip() for name in shown.all_inner_texts()]


def drag_column(page: Any, name: str, onto: str) -> None:
    """Press on the handle of column `name`, move over the column `onto` (on its left) in steps
    (SortableJS decides on the moves) until `name` stands before it, and release."""
    board = page.locator("#board")
    # On a phone the board scrolls sideways: show where the two columns meet.
    page.evaluate(
        "name => { const board = document.getElementById('board');"
        " const dragged = [...board.querySelectorAll('section.todo-column')]"
        ".find(s => s.querySelector('h2').textContent.trim() === name);"
        " board.scrollLeft = dragged.offsetLeft - board.offsetLeft - board.clientWidth / 2; }",
        name,
    )
    handle = column(page, name).locator(".column-handle").bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(handle["x"] + handle["width"] / 2 - 20, handle["y"] + handle["height"] / 2 + 8, steps=5)
    expect(page.locator("section.todo-column.sortable-ghost")).to_have_count(1)  # the drag has started
    for _attempt in range(5):
        target = column(page, onto).bounding_box()
        x, y = max(target["x"], 0) + 30, target["y"] + 20  # its visible part
        page.mouse.move(x, y, steps=15)
        for nudge in (1, 2, 3):
            page.mouse.move(x - nudge, y)
        names = heading_names(page)
        if names.index(name) < names.index(onto):
            break
    page.mouse.up()
    expect(board).to_be_visible()


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}px")
def test_shape_the_board(server: LiveServer, signed_in: Any, size: tuple[int, int], shots: Path) -> None:  # noqa: F811
    page, rest = signed_in
    page.set_viewport_size({"width": size[0], "height": size[1]})
    tag = f"{size[0]}"

    # Add a column, then rename it from its menu.
    page.locator("details.add-column > summary").click()
    page.locator("details.add-column").get_by_label("Column name").fill("Later 以后")
    page.locator("details.add-column form").get_by_role("button", name="Add column").click()
    expect(column(page, "Later 以后")).to_be_visible()
    forms = open_menu(page, "Later 以后")
    forms.get_by_label("Column name").fill("Someday")
    forms.get_by_role("button", name="Rename").click()
    expect(column(page, "Someday")).to_be_visible()
    assert column_names(rest) == ["To do", "Doing", "Done", "Someday"]

    # Drag it by its handle before "Done": the new order is stored.
    drag_column(page, "Someday", "Done")
    expect(page.locator("#board-status")).to_contain_text("Moved column “Someday”")
    assert column_names(rest) == ["To do", "Doing", "Someday", "Done"]
    page.reload()
    assert heading_names(page) == ["To do", "Doing", "Someday", "Done"]

    # The keyboard way: Move left, then delete the (empty) column.
    open_menu(page, "Someday").get_by_role("button", name="← Move left").click()
    expect(page.locator("section.todo-column h2").nth(1)).to_have_text("Someday")
    assert column_names(rest) == ["To do", "Someday", "Doing", "Done"]
    open_menu(page, "Someday").get_by_role("button", name="Delete column").click()
    expect(column(page, "Someday")).to_have_count(0)
    assert column_names(rest) == ["To do", "Doing", "Done"]

    # Rename the space.
    page.locator("details.space-menu > summary").click()
    page.locator("details.space-menu").get_by_label("Space name").fill("个人 Personal")
    page.get_by_role("button", name="Rename space").click()
    expect(page.locator("h1")).to_have_text("个人 Personal")

    # A new board's last column, "Done", is its done column; a task completed from its card moves there.
    expect(column(page, "Done").locator(".done-badge")).to_be_visible()
    add_task(page, "To do", "交报告 report")
    column(page, "To do").get_by_role("button", name="Complete: 交报告 report").click()
    moved = column(page, "Done").locator("li.todo-card.done", has_text="交报告 report")
    expect(moved).to_be_visible()
    expect(column(page, "To do").locator("li.todo-card")).to_have_count(0)
    tasks = rest.get("/api/toolkit/todo", params={"includeInbox": "false"}).json()["data"]
    done_id = next(c["id"] for c in tasks["columns"] if c["name"] == "Done")
    assert [(t["title"], t["columnId"], t["done"]) for t in tasks["tasks"]] == [("交报告 report", done_id, True)]
    fits(page, f"todos-shaped-{tag}", shots)
    # The toast's Undo puts it back where it was (and out of the done column), open again.
    page.locator("#toasts").get_by_role("button", name="Undo").click()
    expect(column(page, "To do").get_by_role("button", name="Complete: 交报告 report")).to_be_visible()
    expect(column(page, "Done").locator("li.todo-card", has_text="交报告 report")).to_have_count(0)
    tasks = rest.get("/api/toolkit/todo", params={"includeInbox": "false"}).json()["data"]
    back = [(t["title"], t["columnId"] != done_id, t["done"]) for t in tasks["tasks"]]
    assert back == [("交报告 report", True, False)]

    # An inbox item opens like a task: a due date, a note and a subtask on its page.
    created = rest.post("/api/toolkit/todo/inbox", json={"title": "续签护照 passport"}).json()["data"]["item"]
    page.goto(server.base_url + "/todos/inbox")
    page.get_by_role("link", name="续签护照 passport").click()
    expect(page).to_have_url(server.base_url + f"/todos/inbox/{created['id']}")
    page.get_by_label("Due date").fill("2026-12-20")
    page.get_by_label("Notes").fill("先拍照 photos first")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("p.flash, .flash")).to_contain_text("Saved")
    page.get_by_label("New subtask").fill("预约 book")
    page.get_by_role("button", name="Add subtask").click()
    expect(page.locator(".subtask", has_text="预约 book")).to_be_visible()
    stored = rest.get(f"/api/toolkit/todo/inbox/{created['id']}").json()["data"]["item"]
    assert stored["due"] == {"type": "date", "date": "2026-12-20"} and stored["notes"] == "先拍照 photos first"
    assert [s["title"] for s in stored["subtasks"]] == ["预约 book"]
    fits(page, f"todos-inbox-item-{tag}", shots)
