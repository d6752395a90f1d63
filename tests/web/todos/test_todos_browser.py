"""The todo pages in headless Chromium against a real `mesq serve`: a task created on the board,
dragged to another column and reordered within one (the order survives a reload), moved by the
keyboard, a recurring task completed (its next occurrence shown), an inbox item captured with
Enter and filed to the board, a conflict between two tabs resolved without losing text, and
the trash. Every todo page is checked at 390 and 1280 px and photographed (`todos-*.png`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..conftest import fresh_username
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES, check_fits, shots  # noqa: F401  (shots: the screenshot directory fixture)

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
USER = "ada"


#: The names `signed_in` gives its users, one each (a module may share one server among its tests).


@pytest.fixture
def signed_in(server: LiveServer) -> Iterator[tuple[Any, httpx.Client]]:
    """A Chromium page signed in as a fresh user, and a REST client with that user's todo token."""
    username = fresh_username(f"{USER}-board")
    account = server.account(username, scopes="todo:read,todo:write")
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}) as page:
        sign_in_page(page, server.base_url, username, "/todos")
        headers = {"Authorization": f"Bearer {account.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
            yield page, rest
        assert PROBLEMS[page] == [], PROBLEMS[page]  # no script error and no CSP violation on any page


PROBLEMS: dict[Any, list[str]] = {}
SCREENSHOTS: set[Any] = set()


def sign_in_page(page: Any, base_url: str, username: str, landing: str = "/") -> None:
    """Watch `page` (`watch`), sign it in through /login as `username` and wait for `landing`."""
    watch(page)
    page.goto(base_url + "/login" + (f"?next={landing}" if landing != "/" else ""))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(base_url + landing)


def watch(page: Any) -> None:
    """Collect the page's script errors, console errors (CSP violations among them) and failed
    requests into PROBLEMS[page]; not while a screenshot is taken (Playwright
    styles the caret then, which the CSP rightly refuses)."""
    found = PROBLEMS.setdefault(page, [])

    def console(message: Any) -> None:
        expected = "status of 409" in message.text  # the conflict page
        if message.type == "error" and page not in SCREENSHOTS and not expected:
            found.append(f"{message.text} {message.location}")

    page.on("console", console)
    page.on("pageerror", lambda error: found.append(str(error)))
    page.on("response", lambda r: found.append(f"{r.status} {r.url}") if r.status >= 400 and r.status != 409 else None)


def fits(page: Any, name: str, shots: Path) -> None:  # noqa: F811
    SCREENSHOTS.add(page)
    try:
        check_fits(page, name, shots)
        # Playwright hides the caret for a screenshot through the focused input's style and leaves
        # `style=""` behind; htmx's settle step would copy that attribute, which the CSP refuses.
        page.evaluate("document.querySelectorAll('[style]').forEach(e => e.removeAttribute('style'))")
    finally:
        SCREENSHOTS.discard(page)


def column(page: Any, name: str) -> Any:
    return page.locator("section.todo-column", has=page.get_by_role("heading", name=name, exact=True))


def titles(page: Any, name: str) -> list[str]:
    return [t.strip() for t in column(page, name).locator("li.todo-card .title").all_inner_texts()]


def drag(page: Any, card: Any, target: Any, *, edge: str = "bottom", lands: Any = None) -> None:
    """Press on `card`, move in steps (SortableJS needs the moves) to `target` near its top edge
    or its bottom edge (a column's list: the drop zone after its last card), and release once the
    card is where it should land (`lands`: the locator the dragged card must then be; a loaded
    machine is slow to follow the pointer)."""
    title = card.locator(".title").inner_text()
    start, end = card.bounding_box(), target.bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + 10)
    page.mouse.down()
    page.mouse.move(start["x"] + start["width"] / 2 + 5, start["y"] + 15, steps=3)
    expect(page.locator(".sortable-ghost")).to_have_count(1)  # the drag has started
    for attempt in range(5):
        # The target moves while dragging (the card leaves its old list), so aim at where it is
        # now; on a loaded machine Sortable may need another pass over it.
        end = target.bounding_box() if attempt else end
        x, y = end["x"] + end["width"] / 2, end["y"] + (end["height"] * 0.25 if edge == "top" else end["height"] - 6)
        page.mouse.move(x, y, steps=20 if attempt == 0 else 5)
        for nudge in (1, 2, 3):  # a few more moves over the target: Sortable decides on dragover
            page.mouse.move(x, y + (-nudge if edge == "top" else nudge))
        if lands is None or title in lands.inner_text():
            break
    if lands is not None:
        expect(lands).to_contain_text(title)
    page.mouse.up()


def add_task(page: Any, column_name: str, title: str) -> None:
    field = page.get_by_label(f"New task in {column_name}")
    field.fill(title)
    field.press("Enter")
    expect(column(page, column_name).locator("li.todo-card", has_text=title)).to_be_visible()


def test_board_drag_reorder_keyboard_and_reload(server: LiveServer, signed_in: Any, shots: Path) -> None:  # noqa: F811
    page, rest = signed_in
    add_task(page, "To do", "写周报 weekly report")
    for title in ("alpha", "beta"):
        add_task(page, "Doing", title)
    assert titles(page, "Doing") == ["alpha", "beta"]

    # Between columns: "To do" -> the end of "Doing".
    card = column(page, "To do").locator("li.todo-card", has_text="写周报")
    drag(page, card, column(page, "Doing").locator("ol.cards"), lands=column(page, "Doing").locator("li").nth(2))
    expect(page.locator("#board-status")).to_contain_text("Moved “写周报 weekly report”")
    assert titles(page, "Doing") == ["alpha", "beta", "写周报 weekly report"]
    page.reload()
    assert titles(page, "To do") == [] and titles(page, "Doing") == ["alpha", "beta", "写周报 weekly report"]

    # Within a column: the last card to the top.
    before = titles(page, "Doing")
    last = column(page, "Doing").locator("li.todo-card").nth(2)
    first = column(page, "Doing").locator("li.todo-card").first
    drag(page, last, first, edge="top", lands=column(page, "Doing").locator("li").first)
    assert titles(page, "Doing") == [before[2], before[0], before[1]]
    expect(page.locator("#board-status")).to_contain_text(f"Moved “{before[2]}”")
    page.reload()
    assert titles(page, "Doing") == [before[2], before[0], before[1]]
    listed = rest.get("/api/toolkit/todo", params={"includeInbox": "false"}).json()["data"]["tasks"]
    assert [t["title"] for t in listed] == [before[2], before[0], before[1]]

    # By keyboard: open the "Move" menu of the second card, Up; then move it to "Done".
    second = column(page, "Doing").locator("li.todo-card").nth(1)
    second.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(second.locator("details.move")).to_have_attribute("open", "")
    second.get_by_label("Column").focus()
    page.keyboard.press("Escape")  # closes the menu, focus back on its toggle
    expect(second.locator("details.move")).not_to_have_attribute("open", "")
    expect(second.locator("summary")).to_be_focused()
    page.keyboard.press("Enter")
    second.get_by_role("button", name="↑ Up").focus()
    page.keyboard.press("Enter")
    expect(column(page, "Doing").locator("li.todo-card").first).to_contain_text(before[0])
    expect(page.locator("#board-status")).to_contain_text(f"Moved “{before[0]}”")
    page.reload()
    assert titles(page, "Doing") == [before[0], before[2], before[1]]
    moving = column(page, "Doing").locator("li.todo-card").first
    moving.locator("summary").focus()
    page.keyboard.press("Enter")
    moving.get_by_label("Column").select_option(label="Done")
    moving.get_by_role("button", name="Move to column").press("Enter")
    expect(column(page, "Done").locator("li.todo-card", has_text=before[0])).to_be_visible()

    # The card's checkbox completes it in place (htmx, no reload), and reopens it.
    finished = column(page, "Done").locator("li.todo-card", has_text=before[0])
    page.evaluate("window.notReloaded = true")
    finished.get_by_role("button", name=f"Complete: {before[0]}").click()
    expect(finished).to_have_class(re.compile(r"\bdone\b"))
    expect(finished.get_by_role("button", name=f"Reopen: {before[0]}")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("window.notReloaded === true")
    assert [t["done"] for t in rest.get("/api/toolkit/todo", params={"includeInbox": "false"}).json()["data"]["tasks"]
            if t["title"] == before[0]] == [True]  # fmt: skip
    finished.get_by_role("button", name=f"Reopen: {before[0]}").click()
    expect(finished.get_by_role("button", name=f"Complete: {before[0]}")).to_have_attribute("aria-pressed", "false")

    # A card shows due, priority, tags, subtask progress and the recurrence in words.
    rich = {"title": "季度复盘 quarterly review", "priority": "urgent", "tags": ["work", "团队"],
            "due": {"type": "datetime", "at": "2026-12-04T01:30:00Z"}, "timezone": "Asia/Shanghai",
            "recurrence": "FREQ=MONTHLY"}  # fmt: skip
    task = rest.post("/api/toolkit/todo/tasks", json=rich).json()["data"]["task"]
    for title in ("collect numbers", "write slides"):
        rest.post(f"/api/toolkit/todo/tasks/{task['id']}/subtasks", json={"title": title})
    page.reload()
    shown = page.locator(f"#task-{task['id']}")
    for text in ("urgent", "#团队", "☑ 0/2"):
        expect(shown).to_contain_text(text)
    # The due in words in the browser's zone ("Fri 09:30", "tomorrow 01:30"), the exact moment kept.
    expect(shown.locator("time.due")).to_have_attribute("datetime", "2026-12-04T01:30:00.000000Z")
    expect(shown.locator(".recurs")).to_have_text("↻ Every month")  # in words, not FREQ=MONTHLY
    fits(page, "todos-board", shots)


def test_recurring_task_completes_to_its_next_occurrence(server: LiveServer, signed_in: Any, shots: Path) -> None:  # noqa: F811
    page, _ = signed_in
    add_task(page, "To do", "water the plants 浇花")
    column(page, "To do").get_by_role("link", name="water the plants 浇花").click()
    expect(page.locator("h1")).to_have_text("water the plants 浇花")
    page.get_by_label("Due date").fill("2037-12-01")
    expect(page.locator("#rule")).not_to_be_visible()  # the raw RRULE waits under "Advanced"
    page.get_by_label("Repeats").select_option(value="custom")
    expect(page.locator("#rule")).to_be_focused()  # choosing "Custom rule" opens it
    page.get_by_label("Repeats").select_option(label="Every week")
    page.get_by_label("Notes").fill("the balcony ones · 阳台")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".flash")).to_have_text("Saved.")
    page.get_by_label("New subtask").fill("fill the can")
    page.get_by_label("New subtask").press("Enter")
    expect(page.locator("#subtasks")).to_contain_text("(0/1 done)")
    page.get_by_role("button", name="Mark done: fill the can").click()
    expect(page.locator("#subtasks")).to_contain_text("(1/1 done)")
    page.get_by_label("1 hour before").check()
    page.get_by_role("button", name="Save reminders").click()
    expect(page.locator("#reminder-summary")).to_have_text("1 reminder set.")
    fits(page, "todos-task", shots)

    page.get_by_role("button", name=re.compile("^Complete this occurrence")).click()
    expect(page.locator(".flash")).to_have_text(re.compile(r"^Done for Dec 1, 2037\. Next: Dec 8, 2037\.$"))
    expect(page.locator(".summary time.due")).to_have_attribute("datetime", "2037-12-08")
    expect(page.locator("#subtasks")).to_contain_text("(0/1 done)")  # the next occurrence starts fresh
    expect(page.locator(".occurrences")).to_contain_text("2037-12-01")
    page.goto(server.base_url + "/todos")
    expect(page.locator("li.todo-card", has_text="浇花").locator("time.due")).to_have_attribute(
        "datetime", "2037-12-08"
    )


def test_inbox_capture_and_file_to_the_board(server: LiveServer, signed_in: Any, shots: Path) -> None:  # noqa: F811
    page, rest = signed_in
    page.get_by_role("navigation", name="Todos").get_by_role("link", name=re.compile("^Inbox")).click()
    expect(page.locator("#inbox-empty")).to_be_visible()
    for title in ("buy milk 买牛奶", "call the plumber"):
        page.get_by_label(re.compile("^Quick capture")).fill(title)
        page.get_by_label(re.compile("^Quick capture")).press("Enter")
        expect(page.locator(".inbox-item", has_text=title)).to_be_visible()
        expect(page.get_by_label(re.compile("^Quick capture"))).to_have_value("")
    fits(page, "todos-inbox", shots)
    item = page.locator(".inbox-item", has_text="buy milk")
    item.get_by_role("button", name="More actions for “buy milk 买牛奶”").click()
    item.get_by_role("menuitem", name="File to Default › Doing").click()
    expect(page.locator(".flash")).to_contain_text("filed to the board")
    expect(page.locator(".inbox-item")).to_have_count(1)
    page.get_by_role("link", name="show it").click()
    expect(column(page, "Doing").locator("li.todo-card", has_text="buy milk 买牛奶")).to_be_visible()
    assert [i["title"] for i in rest.get("/api/toolkit/todo/inbox").json()["data"]["items"]] == ["call the plumber"]

    # Quick add in the inbox's box (issue 30): chips before saving, then the item carries them.
    page.get_by_role("navigation", name="Todos").get_by_role("link", name=re.compile("^Inbox")).click()
    capture = page.get_by_label(re.compile("^Quick capture"))
    capture.press_sequentially("renew passport next monday !low #admin", delay=10)
    expect(page.locator("#capture-chips")).to_contain_text("Priority Low")
    expect(page.locator("#capture-chips")).to_contain_text("#admin")
    expect(page.locator("#capture-chips")).to_contain_text("Due Mon")
    capture.press("Enter")
    expect(page.locator(".inbox-item", has_text="renew passport")).to_be_visible()
    items = {i["title"]: i for i in rest.get("/api/toolkit/todo/inbox").json()["data"]["items"]}
    renew = items["renew passport"]
    assert renew["priority"] == "low" and renew["tags"] == ["admin"] and renew["due"]["type"] == "date"


def test_two_tabs_conflict_resolved_without_losing_text(server: LiveServer, signed_in: Any, shots: Path) -> None:  # noqa: F811
    first, rest = signed_in
    created = rest.post("/api/toolkit/todo/tasks", json={"title": "trip plan", "notes": "v1"}).json()["data"]["task"]
    url = f"{server.base_url}/todos/tasks/{created['id']}"
    second = first.context.new_page()
    watch(second)
    first.goto(url)
    second.goto(url)
    first.get_by_label("Title").fill("trip plan: Kyoto 京都")
    first.get_by_role("button", name="Save", exact=True).click()
    expect(first.locator(".flash")).to_have_text("Saved.")

    mine = "Day 1: temples\nDay 2: 岚山 bamboo grove\n(a long paragraph I must not lose)"
    second.get_by_label("Notes").fill(mine)
    second.get_by_role("button", name="Save", exact=True).click()
    expect(second.locator("#conflict")).to_be_visible()
    expect(second.locator("#conflict tr[data-field=title] .theirs")).to_have_text("trip plan: Kyoto 京都")
    expect(second.get_by_label("Notes")).to_have_value(mine)
    expect(second.get_by_label("Title")).to_have_value("trip plan: Kyoto 京都")  # theirs, merged in
    fits(second, "todos-conflict", shots)
    second.get_by_role("button", name="Save", exact=True).click()
    expect(second.locator(".flash")).to_have_text("Saved.")
    stored = rest.get(f"/api/toolkit/todo/tasks/{created['id']}").json()["data"]["task"]
    assert (stored["title"], stored["notes"]) == ("trip plan: Kyoto 京都", mine)
    assert PROBLEMS[second] == [], PROBLEMS[second]
    second.close()


def test_trash_restores_a_task(server: LiveServer, signed_in: Any, shots: Path) -> None:  # noqa: F811
    page, _ = signed_in
    add_task(page, "To do", "旧的计划 old plan")
    column(page, "To do").get_by_role("link", name="旧的计划 old plan").click()
    page.get_by_role("button", name=re.compile("^Move to trash")).click()
    expect(page.locator(".flash")).to_contain_text("moved to the todo trash")
    page.get_by_role("navigation", name="Todos").get_by_role("link", name=re.compile("^Trash")).click()
    entry = page.locator(".trash-entry", has_text="旧的计划 old plan")
    expect(entry).to_be_visible()
    fits(page, "todos-trash", shots)
    entry.get_by_role("button", name=re.compile("^Restore task")).click()  # in place, with an Undo toast
    expect(page.locator("#toasts")).to_contain_text("restored")
    expect(entry).to_be_hidden()
    page.reload()
    expect(page.locator("#trash-empty")).to_be_visible()
    page.goto(server.base_url + "/todos")
    expect(column(page, "To do").locator("li.todo-card", has_text="旧的计划")).to_be_visible()


def test_a_big_column_loads_more_and_its_cards_still_move(server: LiveServer, signed_in: Any) -> None:
    page, rest = signed_in
    doing = rest.get("/api/toolkit/todo/spaces").json()["data"]["columns"][1]
    for n in range(101):
        made = rest.post("/api/toolkit/todo/tasks", json={"title": f"task {n:03d}"})
        assert made.status_code == 201, made.text
    page.reload()
    cards = column(page, "To do").locator("li.todo-card")
    shown = cards.count()
    assert 0 < shown < 101  # one page: at most PAGE_SIZE, fewer when list_todos' response budget cuts it
    while page.locator("#board-more").count():
        page.get_by_role("link", name=re.compile("^Load more tasks")).click()
        expect(cards.nth(shown)).to_be_attached()  # the next page appended
        shown = cards.count()
    expect(cards).to_have_count(101)  # every page appended to its column, and no link after the last
    last = cards.last
    expect(last).to_contain_text("task 100")
    # The appended card moves like the others (its index is exact), in place: nothing reloads.
    last.locator("summary").click()
    last.get_by_role("button", name="↑ Up").click()
    expect(cards.nth(99)).to_contain_text("task 100")
    moving = cards.nth(99)
    moving.get_by_label("Column").select_option(label="Doing")
    moving.get_by_role("button", name="Move to column").click()
    expect(column(page, "Doing").locator("li.todo-card", has_text="task 100")).to_be_visible()
    expect(cards).to_have_count(100)
    moved_id = column(page, "Doing").locator("li.todo-card", has_text="task 100").get_attribute("data-task-id")
    stored = rest.get(f"/api/toolkit/todo/tasks/{moved_id}").json()["data"]["task"]
    assert stored["columnId"] == doing["id"]


def test_down_is_disabled_on_a_columns_last_card(server: LiveServer, signed_in: Any) -> None:
    """Up is disabled on a column's first card; Down on its last one was not: pressing it wrote a
    move that changed nothing (a new revision, a history entry) and said "Moved"."""
    page, rest = signed_in
    for title in ("one", "two", "three"):
        assert rest.post("/api/toolkit/todo/tasks", json={"title": title}).status_code == 201
    page.reload()
    cards = column(page, "To do").locator("li.todo-card")
    expect(cards.last.locator("button.move-down")).to_be_disabled()
    expect(cards.first.locator("button.move-down")).to_be_enabled()
    last_id = cards.last.get_attribute("data-task-id")
    # moved up, the card that was last gains Down, and the one now last loses it
    cards.last.locator("summary").click()
    cards.last.get_by_role("button", name="↑ Up").click()
    expect(cards.nth(1)).to_contain_text("three")
    expect(cards.nth(1).locator("button.move-down")).to_be_enabled()
    expect(cards.last).to_contain_text("two")
    expect(cards.last.locator("button.move-down")).to_be_disabled()
    revision = rest.get(f"/api/toolkit/todo/tasks/{last_id}").json()["data"]["task"]["revision"]
    assert revision == 2  # created, moved up once: nothing else written


def test_a_subtasks_buttons_keep_their_words_on_one_line_on_a_phone(server: LiveServer, signed_in: Any) -> None:
    """At 390 px the subtask row squeezed its Rename button to one character a line (重/命/名)
    on the Chinese page: a button keeps its words whole, the title's input takes what is left."""
    page, rest = signed_in
    task = rest.post("/api/toolkit/todo/tasks", json={"title": "搬家"}).json()["data"]["task"]
    rest.post(f"/api/toolkit/todo/tasks/{task['id']}/subtasks", json={"title": "打包书 packing the books"})
    page.goto(server.base_url + "/settings")
    for language in ("zh", "en"):
        page.goto(server.base_url + "/settings")
        page.locator(f"#language-form input[name=language][value='{language}']").check()
        page.locator("#language-form button[type=submit]").click()
        expect(page.locator("html")).to_have_attribute("lang", {"zh": "zh-Hans", "en": "en"}[language])
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{server.base_url}/todos/tasks/{task['id']}")
        row = page.locator("li.subtask").first
        heights = [box["height"] for box in (b.bounding_box() for b in row.locator("button").all()) if box]
        assert len(heights) == 3 and max(heights) - min(heights) < 2, (language, heights)  # one line each
        title = row.locator("input[name=title]").bounding_box()
        assert title and title["width"] >= 100, (language, title)
    page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})


def test_a_drop_on_a_stale_card_is_refused_and_put_back(server: LiveServer, signed_in: Any) -> None:
    page, rest = signed_in
    add_task(page, "To do", "edited elsewhere")
    card = column(page, "To do").locator("li.todo-card", has_text="edited elsewhere")
    task_id = card.get_attribute("data-task-id")
    changed = rest.patch(f"/api/toolkit/todo/tasks/{task_id}", json={"expectedRevision": 1, "notes": "from an agent"})
    assert changed.status_code == 200, changed.text
    drag(page, card, column(page, "Doing").locator("ol.cards"), lands=column(page, "Doing").locator("li").first)
    expect(page.locator("#board-status")).to_contain_text("“edited elsewhere” changed meanwhile")
    expect(column(page, "To do").locator("li.todo-card", has_text="edited elsewhere")).to_be_visible()  # put back
    assert (
        rest.get(f"/api/toolkit/todo/tasks/{task_id}").json()["data"]["task"]["columnId"]
        != (rest.get("/api/toolkit/todo/spaces").json()["data"]["columns"][1]["id"])
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}px")
def test_quick_add_shows_chips_and_creates_the_task(server: LiveServer, size: tuple[int, int], shots: Path) -> None:  # noqa: F811
    """Issue 30: "明天下午5点 !high #家" and "call mom tomorrow 5pm !urgent #family" in the board's
    add box: chips of what was understood before saving (a chip can be removed), then a task due
    tomorrow 17:00 in the browser's zone with that priority and tag."""
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    account = server.account(f"{USER}{size[0]}", scopes="todo:read,todo:write")
    zone = "Asia/Shanghai"
    with chromium_page(viewport={"width": size[0], "height": size[1]}, timezone_id=zone) as page:
        watch(page)
        page.goto(server.base_url + "/login?next=/todos")
        page.fill("input[name=username]", f"{USER}{size[0]}")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(server.base_url + "/todos")
        page.reload()  # todos.js has set the zone cookie
        field = page.get_by_label("New task in To do")
        chips = column(page, "To do").locator(".quick-chips")
        tomorrow = datetime.now(ZoneInfo(zone)).date() + timedelta(days=1)
        expected_at = datetime(tomorrow.year, tomorrow.month, tomorrow.day, 17, tzinfo=ZoneInfo(zone)).astimezone(UTC)

        field.press_sequentially("明天下午5点 !high #家", delay=10)
        expect(chips).to_contain_text("Priority High")
        expect(chips).to_contain_text("#家")
        expect(chips).to_contain_text(f"Due {tomorrow:%a}, {tomorrow:%b} {tomorrow.day} 17:00")
        fits(page, f"todos-quick-add-{size[0]}", shots)
        field.press("Enter")
        expect(column(page, "To do").locator("li.todo-card", has_text="明天下午5点")).to_be_visible()

        # English, and a removed chip: its words stay in the title.
        field = page.get_by_label("New task in To do")
        field.press_sequentially("call mom tomorrow 5pm !urgent #family #later", delay=10)
        expect(chips).to_contain_text("#later")
        chips.get_by_role("button", name="Remove #later").click()
        expect(chips.get_by_role("button", name="Remove #later")).to_have_count(0)
        expect(chips).to_contain_text("Priority Urgent")
        field.press("Enter")
        expect(column(page, "To do").locator("li.todo-card", has_text="call mom")).to_be_visible()

        headers = {"Authorization": f"Bearer {account.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
            tasks = {
                t["title"]: t
                for t in rest.get("/api/toolkit/todo", params={"includeInbox": "false"}).json()["data"]["tasks"]
            }
        zh, en = tasks["明天下午5点"], tasks["call mom #later"]
        at = {"type": "datetime", "at": expected_at.strftime("%Y-%m-%dT%H:%M:%SZ")}
        assert (zh["due"], zh["timezone"], zh["priority"], zh["tags"]) == (at, zone, "high", ["家"])
        assert (en["due"], en["timezone"], en["priority"], en["tags"]) == (at, zone, "urgent", ["family"])
        assert PROBLEMS[page] == [], PROBLEMS[page]


#: A colour's relative luminance and the contrast of two (WCAG 2), and the first opaque
#: background behind an element, both computed in the page.
CONTRAST = """(element) => {
    const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
    let node = element, background = null;
    while (node && node.nodeType === 1) {
        const colour = rgb(getComputedStyle(node).backgroundColor);
        if (colour.length < 4 || colour[3] > 0) { background = colour; break; }
        node = node.parentElement;
    }
    background = background || [255, 255, 255];
    const linear = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    const lum = ([r, g, b]) => [r, g, b].map(linear).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const [a, b] = [lum(rgb(getComputedStyle(element).color)), lum(background)];
    return [getComputedStyle(element).color, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
}"""


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}px")
def test_today_quick_add_in_the_browsers_zone_and_overdue_in_red(
    server: LiveServer,
    size: tuple[int, int],
    shots: Path,  # noqa: F811
) -> None:
    """Issue 30 items 6 and 7: Today's box reads "明天下午5点 !high #家" and "tomorrow 5pm !high #home"
    in the browser's zone (Asia/Shanghai: the context's zone, put in the `mesq_tz` cookie by the
    page's own script), so both are due tomorrow 17:00 there, high, with the tag; Upcoming shows
    them in words; an overdue task is listed on Today in red, readable in both themes."""
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    username = f"today{size[0]}"
    account = server.account(username, scopes="todo:read,todo:write")
    zone = "Asia/Shanghai"
    headers = {"Authorization": f"Bearer {account.token}"}
    with (
        chromium_page(viewport={"width": size[0], "height": size[1]}, timezone_id=zone) as page,
        httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest,
    ):
        watch(page)
        late_at = (datetime.now(UTC) - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
        late = rest.post(
            "/api/toolkit/todo/tasks", json={"title": "pay the rent", "due": {"type": "datetime", "at": late_at}}
        )
        assert late.status_code in (200, 201), late.text
        page.goto(server.base_url + "/login?next=/todos/today")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(server.base_url + "/todos/today")
        assert {c["name"]: c["value"] for c in page.context.cookies()}.get("mesq_tz") == zone
        tomorrow = datetime.now(ZoneInfo(zone)).date() + timedelta(days=1)
        expected_at = datetime(tomorrow.year, tomorrow.month, tomorrow.day, 17, tzinfo=ZoneInfo(zone)).astimezone(UTC)

        for line, tag in (("明天下午5点 !high #家", "#家"), ("tomorrow 5pm !high #home", "#home")):
            field = page.get_by_label("Quick add")
            field.press_sequentially(line, delay=10)
            chips = page.locator("#today-add-chips")
            expect(chips).to_contain_text("Priority High")
            expect(chips).to_contain_text(tag)
            expect(chips).to_contain_text(f"Due {tomorrow:%a}, {tomorrow:%b} {tomorrow.day} 17:00")
            if tag == "#家":
                fits(page, f"todos-today-add-{size[0]}", shots)
            field.press("Enter")
            expect(page.locator("#today-added")).to_contain_text("Added")

        tasks = {
            t["title"]: t
            for t in rest.get("/api/toolkit/todo", params={"includeInbox": "false"}).json()["data"]["tasks"]
        }
        at = {"type": "datetime", "at": expected_at.strftime("%Y-%m-%dT%H:%M:%SZ")}
        for title, tag in (("明天下午5点", "家"), ("tomorrow 5pm", "home")):
            task = tasks[title]
            assert (task["due"], task["timezone"], task["priority"], task["tags"]) == (at, zone, "high", [tag]), task

        # Overdue in red, on Today (and above the day's list), readable in both themes.
        due = page.locator("#overdue-list li", has_text="pay the rent").locator("time.due.overdue")
        expect(due).to_contain_text("Overdue:")
        for scheme, red in (("light", "rgb(194, 51, 43)"), ("dark", "rgb(255, 143, 133)")):
            page.emulate_media(color_scheme=scheme)
            colour, contrast = due.evaluate(CONTRAST)
            assert colour == red and contrast >= 4.5, (scheme, colour, contrast)
        page.emulate_media(color_scheme="light")
        fits(page, f"todos-today-{size[0]}", shots)

        page.get_by_role("link", name="Upcoming").click()
        listed = page.locator("#upcoming-list")
        expect(listed.locator("li", has_text="明天下午5点")).to_contain_text("Due tomorrow 17:00")
        expect(listed.locator("li", has_text="tomorrow 5pm")).to_contain_text("Due tomorrow 17:00")
        fits(page, f"todos-upcoming-{size[0]}", shots)
        page.get_by_role("link", name="Overdue").first.click()
        expect(page.locator("#overdue-list")).to_contain_text("pay the rent")
        assert PROBLEMS[page] == [], PROBLEMS[page]


def test_saving_the_task_and_inbox_item_pages_leaves_a_zoneless_due_where_it_was(
    server: LiveServer,
    shots: Path,  # noqa: F811
) -> None:
    """A due set through the API at 12:00 UTC without a zone, in a browser in Shanghai: the task
    page's and the inbox item page's time fields say 20:00, as the header does, and saving with
    only the priority changed leaves the due exactly as stored, no zone added."""
    username = "zoned"
    account = server.account(username, scopes="todo:read,todo:write")
    headers = {"Authorization": f"Bearer {account.token}"}
    due = {"type": "datetime", "at": "2026-12-08T12:00:00Z"}
    with (
        chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, timezone_id="Asia/Shanghai") as page,
        httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest,
    ):
        watch(page)
        task = rest.post("/api/toolkit/todo/tasks", json={"title": "dentist 牙医", "due": due}).json()["data"]["task"]
        item = rest.post("/api/toolkit/todo/inbox", json={"title": "护照 passport", "due": due}).json()["data"]["item"]
        page.goto(server.base_url + f"/login?next=/todos/tasks/{task['id']}")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(server.base_url + f"/todos/tasks/{task['id']}")
        for address, kind in ((f"/todos/tasks/{task['id']}", "tasks"), (f"/todos/inbox/{item['id']}", "inbox")):
            page.goto(server.base_url + address)  # again: the zone cookie is set by now
            expect(page.locator("#due-time")).to_have_value("20:00")
            page.get_by_label("Priority").select_option("high")
            page.get_by_role("button", name="Save", exact=True).click()
            expect(page.locator(".flash")).to_contain_text("Saved")
            expect(page.locator("#due-time")).to_have_value("20:00")
            fits(page, f"todos-zoned-{kind}", shots)
            stored = rest.get(f"/api/toolkit/todo/{kind}/{task['id'] if kind == 'tasks' else item['id']}").json()
            record = stored["data"]["task" if kind == "tasks" else "item"]
            assert (record["priority"], record["due"], record["timezone"]) == ("high", due, None), record
        assert PROBLEMS[page] == [], PROBLEMS[page]
