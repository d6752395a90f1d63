"""In Chromium (390 and 1280 px, zh-CN and en-US), against a real `mesq serve`: the todo pages a
person reaches that the agents' answers would refuse or a stale link would break. An inbox item
whose subtasks' notes pass the agents' 25,000-character response budget still opens, in the
page's language, and its subtasks still tick."""

from __future__ import annotations

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_layout import SIZES
from .test_todos_browser import PROBLEMS, sign_in_page

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
LOCALES = ("en-US", "zh-CN")
#: What each page language calls the subtasks section and the tick of the first subtask.
SUBTASKS = {"zh-CN": "子任务", "en-US": "Subtasks"}
TICK = {"zh-CN": "标记完成：装箱 1", "en-US": "Mark done: 装箱 1"}


def _fits(page: object, width: int) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")  # type: ignore[attr-defined]
    assert scroll_width <= inner_width, f"scrolls sideways at {width}px: {scroll_width} > {inner_width}"


@pytest.mark.parametrize("locale", LOCALES)
def test_an_inbox_item_whose_subtasks_notes_pass_the_budget_opens(server: LiveServer, locale: str) -> None:
    account = server.account(f"inbox-{locale.lower()}", scopes="todo:read,todo:write")
    headers = {"Authorization": f"Bearer {account.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        made = rest.post("/api/toolkit/todo/inbox", json={"title": "搬家清单", "notes": "先联系搬家公司"})
        assert made.status_code < 300, made.text
        item = made.json()["data"]["item"]
        revision = item["revision"]
        for number in (1, 2, 3):
            body = {"title": f"装箱 {number}", "notes": "易碎物品单独包好" * 1200, "parentRevision": revision}
            added = rest.post(f"/api/toolkit/todo/inbox/{item['id']}/subtasks", json=body)
            assert added.status_code < 300, added.text
            revision = added.json()["data"]["item"]["revision"]
        # The agents' read refuses it whole: the page must not be bound by that.
        read = rest.get(f"/api/toolkit/todo/inbox/{item['id']}")
        assert read.json()["error"]["code"] == "RESPONSE_TOO_LARGE"
        for width, height in SIZES:
            with chromium_page(viewport={"width": width, "height": height}, locale=locale) as page:
                sign_in_page(page, server.base_url, account.username, "/todos")
                answer = page.goto(f"{server.base_url}/todos/inbox/{item['id']}")
                assert answer is not None and answer.status == 200, page.inner_text("main")
                expect(page.locator("#item-heading")).to_have_text("搬家清单")
                expect(page.locator("textarea[name=notes]")).to_have_value("先联系搬家公司")
                expect(page.locator("#subtasks-title")).to_contain_text(SUBTASKS[locale])
                expect(page.locator(".subtask-title")).to_have_text(["装箱 1", "装箱 2", "装箱 3"])
                assert "budget" not in page.inner_text("main") and "get_todo_inbox_subtask" not in page.content()
                _fits(page, width)
                if width == SIZES[0][0]:  # ticking a subtask answers with the list again (htmx)
                    page.get_by_role("button", name=TICK[locale]).click()
                    expect(page.locator(".subtask.done .subtask-title")).to_have_text("装箱 1")
                assert PROBLEMS[page] == [], PROBLEMS[page]
        subtasks = rest.get(f"/api/toolkit/todo/inbox/{item['id']}/subtasks", params={"includeNotes": "false"})
        assert [s["isDone"] for s in subtasks.json()["data"]["subtasks"]] == [True, False, False]


#: The note an old link of a renamed space and of a deleted one gives, in each page language.
RENAMED = {"zh-CN": "这个空间已改名为“家务”，已为你打开。", "en-US": "That space was renamed to “家务”; here it is."}
GONE = {
    "zh-CN": "这个空间已不存在，已为你打开默认空间。",
    "en-US": "That space no longer exists; here is your default space.",
}


@pytest.mark.parametrize("locale", LOCALES)
def test_an_old_link_to_a_renamed_or_deleted_space_opens_a_board(server: LiveServer, locale: str) -> None:
    account = server.account(f"old-link-{locale.lower()}", scopes="todo:read,todo:write")
    headers = {"Authorization": f"Bearer {account.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        space = rest.post("/api/toolkit/todo/spaces", json={"name": "Chores", "slug": "chores"}).json()["data"]["space"]
        change = {"name": "家务", "slug": "jiawu", "expectedRevision": space["revision"]}
        assert rest.patch(f"/api/toolkit/todo/spaces/{space['id']}", json=change).status_code == 200
        temp = rest.post("/api/toolkit/todo/spaces", json={"name": "Temp"}).json()["data"]["space"]
        gone = rest.request(
            "DELETE", f"/api/toolkit/todo/spaces/{temp['id']}", json={"expectedRevision": temp["revision"]}
        )
        assert gone.status_code == 200, gone.text
    for width, height in SIZES:
        with chromium_page(viewport={"width": width, "height": height}, locale=locale) as page:
            sign_in_page(page, server.base_url, account.username, "/todos")
            answer = page.goto(f"{server.base_url}/todos?space=chores")
            assert answer is not None and answer.status == 200
            expect(page.locator(".flash")).to_have_text(RENAMED[locale])
            expect(page.locator(f'a[href="/todos?space={space["id"]}"][aria-current=page]')).to_have_text("家务")
            _fits(page, width)
            answer = page.goto(f"{server.base_url}/todos?space={temp['id']}")
            assert answer is not None and answer.status == 200 and page.url == f"{server.base_url}/todos"
            expect(page.locator(".flash")).to_have_text(GONE[locale])
            _fits(page, width)
            assert PROBLEMS[page] == [], PROBLEMS[page]


#: The task page's Move control and its note after a move, in each page language.
MOVED = {"zh-CN": "已移动，子任务也随之移动。", "en-US": "Moved; its subtasks went with it."}
MOVE = {"zh-CN": "移动", "en-US": "Move"}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_task_moves_to_another_space_from_its_page_with_its_subtasks(server: LiveServer, locale: str) -> None:
    account = server.account(f"move-{locale.lower()}", scopes="todo:read,todo:write")
    headers = {"Authorization": f"Bearer {account.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        made = rest.post("/api/toolkit/todo/spaces", json={"name": "家务", "columns": ["本周", "以后"]})
        assert made.status_code < 300, made.text
        home = made.json()["data"]
        later = next(c for c in home["columns"] if c["name"] == "以后")
        for width, height in SIZES:
            task = rest.post("/api/toolkit/todo/tasks", json={"title": f"修水龙头 {width}"}).json()["data"]["task"]
            for title in ("买垫圈", "关总阀"):
                added = rest.post(f"/api/toolkit/todo/tasks/{task['id']}/subtasks", json={"title": title})
                assert added.status_code < 300, added.text
            with chromium_page(viewport={"width": width, "height": height}, locale=locale) as page:
                sign_in_page(page, server.base_url, account.username, "/todos")
                page.goto(f"{server.base_url}/todos/tasks/{task['id']}")
                _fits(page, width)
                page.select_option("#move-column", later["id"])
                page.get_by_role("button", name=MOVE[locale], exact=True).click()
                expect(page.locator(".flash")).to_have_text(MOVED[locale])
                expect(page).to_have_url(f"{server.base_url}/todos/tasks/{task['id']}")
                expect(page.locator(".crumbs")).to_have_text("家务 › 以后")
                expect(page.locator("#move-column")).to_have_value(later["id"])
                _fits(page, width)
                assert PROBLEMS[page] == [], PROBLEMS[page]
            moved = rest.get(f"/api/toolkit/todo/tasks/{task['id']}").json()["data"]
            assert (moved["task"]["spaceId"], moved["task"]["columnId"]) == (home["space"]["id"], later["id"])
            assert [(s["title"], s["spaceId"]) for s in moved["subtasks"]] == [
                ("买垫圈", home["space"]["id"]),
                ("关总阀", home["space"]["id"]),
            ]


@pytest.mark.parametrize("locale", LOCALES)
def test_a_task_whose_subtasks_notes_pass_the_budget_opens(server: LiveServer, locale: str) -> None:
    account = server.account(f"task-{locale.lower()}", scopes="todo:read,todo:write")
    headers = {"Authorization": f"Bearer {account.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        task = rest.post("/api/toolkit/todo/tasks", json={"title": "搬家"}).json()["data"]["task"]
        for number in (1, 2, 3):
            body = {"title": f"装箱 {number}", "notes": "易碎物品单独包好" * 1200}
            assert rest.post(f"/api/toolkit/todo/tasks/{task['id']}/subtasks", json=body).status_code < 300
        assert rest.get(f"/api/toolkit/todo/tasks/{task['id']}").json()["error"]["code"] == "RESPONSE_TOO_LARGE"
    for width, height in SIZES:
        with chromium_page(viewport={"width": width, "height": height}, locale=locale) as page:
            sign_in_page(page, server.base_url, account.username, "/todos")
            answer = page.goto(f"{server.base_url}/todos/tasks/{task['id']}")
            assert answer is not None and answer.status == 200, page.inner_text("main")
            expect(page.locator("#task-heading")).to_have_text("搬家")
            expect(page.locator("#subtasks-title")).to_contain_text(SUBTASKS[locale])
            expect(page.locator(".subtask-list .rename input[name=title]")).to_have_count(3)
            _fits(page, width)
            if width == SIZES[0][0]:  # ticking a subtask answers with the list again (htmx)
                page.get_by_role("button", name=TICK[locale]).click()
                expect(page.locator(".subtask.done")).to_have_count(1)
            assert PROBLEMS[page] == [], PROBLEMS[page]
