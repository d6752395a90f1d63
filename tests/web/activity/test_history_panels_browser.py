"""The History panels of a task's page and of its page in Activity (each with its subtasks' changes)
and of an inbox item's page in
headless Chromium against a real `mesq serve`, in zh-CN and en-US at 390 and 1280 px: an agent
adds, completes, renames and trashes subtasks of a task and edits an inbox item over REST; each
page shows its panel with those changes in the page's language, newest first, and never scrolls
sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..conftest import fresh_username
from ..kit.test_layout import SIZES, shots  # noqa: F401  (shots: the screenshot directory fixture)
from ..todos.test_todos_browser import PROBLEMS, sign_in_page
from .test_activity_browser import ALL, USER, _ok, _rest

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
#: What each page's panel says first (newest first), by language.
TASK_LINES = {
    "zh-CN": ["把子任务“租货车”移到了回收站", "把子任务“租车”重命名为“租货车”", "添加了子任务“租车”",
              "完成了子任务“打包”", "添加了子任务“打包”", "新建了任务“搬家”"],
    "en-US": ["moved the subtask “租货车” to the trash", "renamed the subtask “租车” to “租货车”",
              "added the subtask “租车”", "completed the subtask “打包”", "added the subtask “打包”",
              "created the task “搬家”"],
}  # fmt: skip
ITEM_LINES = {"zh-CN": ["编辑了收件箱条目“取快递”", "新建了收件箱条目“拿快递”"],
              "en-US": ["edited the inbox item “取快递”", "created the inbox item “拿快递”"]}  # fmt: skip


#: The number of each test's own account (the module's tests share one server).


@pytest.fixture
def user(server: LiveServer) -> str:
    username = fresh_username(USER)
    server.account(username, scopes=ALL)
    return username


def _seed(server: LiveServer, user: str) -> tuple[str, str]:
    """A task whose subtasks an agent added, completed, renamed and trashed; an inbox item it renamed."""
    with _rest(server, "Claude Desktop", user) as agent:
        task = _ok(agent.post("/api/toolkit/todo/tasks", json={"title": "搬家"}))["task"]
        box = _ok(agent.post(f"/api/toolkit/todo/tasks/{task['id']}/subtasks", json={"title": "打包"}))["subtask"]
        _ok(agent.post(f"/api/toolkit/todo/subtasks/{box['id']}/complete", json={"expectedRevision": 1}))
        van = _ok(agent.post(f"/api/toolkit/todo/tasks/{task['id']}/subtasks", json={"title": "租车"}))["subtask"]
        _ok(agent.patch(f"/api/toolkit/todo/subtasks/{van['id']}", json={"expectedRevision": 1, "title": "租货车"}))
        _ok(agent.request("DELETE", f"/api/toolkit/todo/subtasks/{van['id']}", json={"expectedRevision": 2}))
        item = _ok(agent.post("/api/toolkit/todo/inbox", json={"title": "拿快递"}))["item"]
        _ok(agent.patch(f"/api/toolkit/todo/inbox/{item['id']}", json={"expectedRevision": 1, "title": "取快递",
                                                                         "priority": "high"}))  # fmt: skip
    return task["id"], item["id"]


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_the_task_and_inbox_item_history_panels_in_each_language_and_width(
    server: LiveServer,
    user: str,
    locale: str,
    shots: Path,  # noqa: F811
) -> None:
    task_id, item_id = _seed(server, user)
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale) as page:
        sign_in_page(page, server.base_url, user, f"/todos/tasks/{task_id}")
        for url, lines, name in ((f"/todos/tasks/{task_id}", TASK_LINES, "task"),
                                 (f"/activity/history/{task_id}", TASK_LINES, "activity-task"),
                                 (f"/todos/inbox/{item_id}", ITEM_LINES, "inbox-item")):  # fmt: skip
            _check_panel(page, server.base_url + url, lines[locale], shots / f"history-panel-{name}-{locale}")
        assert PROBLEMS[page] == [], PROBLEMS[page]


#: A trashed task's history (its page in Activity and its own page, gone from the board): its
#: trash first, then its subtasks' changes as the live task's page showed them.
TRASHED_TASK_LINES = {
    "zh-CN": ["把任务“搬家”移到了回收站", *TASK_LINES["zh-CN"]],
    "en-US": ["moved the task “搬家” to the trash", *TASK_LINES["en-US"]],
}


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_a_trashed_task_history_shows_its_subtasks_changes_in_each_language_and_width(
    server: LiveServer,
    user: str,
    locale: str,
    shots: Path,  # noqa: F811
) -> None:
    """The task of `_seed` moved to the trash: its page in Activity listed only its own changes
    (get_todo_task refuses a trashed task); now its subtasks' too, as before the trash, on a phone
    and a desktop, in both languages, never scrolling sideways."""
    task_id, _item_id = _seed(server, user)
    with _rest(server, "Claude Desktop", user) as agent:
        task = _ok(agent.get(f"/api/toolkit/todo/tasks/{task_id}"))["task"]
        _ok(agent.request("DELETE", f"/api/toolkit/todo/tasks/{task_id}", json={"expectedRevision": task["revision"]}))
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale) as page:
        sign_in_page(page, server.base_url, user, f"/activity/history/{task_id}")
        for url, name in ((f"/activity/history/{task_id}", "activity-trashed-task"),
                          (f"/todos/tasks/{task_id}", "trashed-task")):  # fmt: skip
            _check_panel(
                page, server.base_url + url, TRASHED_TASK_LINES[locale], shots / f"history-panel-{name}-{locale}"
            )
        # the task's own page answers 404 (gone from the board) by design, with its history
        assert [problem for problem in PROBLEMS[page] if f"/todos/tasks/{task_id}" not in problem] == []


def _check_panel(page: Any, url: str, lines: list[str], shot: Path) -> None:
    """The page's History panel says `lines`, names the agent, and fits at every width (a
    screenshot of each beside `shot`)."""
    page.goto(url)
    panel = page.locator("section.history-panel")
    expect(panel).to_be_visible()
    said = [" ".join(text.split()).replace("“ ", "“").replace(" ”", "”")
            for text in panel.locator(".version-says").all_inner_texts()]  # fmt: skip
    assert said == lines, (url, said)
    expect(panel.locator(".version-who").first).to_contain_text("Claude Desktop")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, f"{url} at {width}px scrolls sideways"
        panel_box: Any = panel.bounding_box()
        assert panel_box["x"] >= 0 and panel_box["x"] + panel_box["width"] <= width, (width, panel_box)
        page.screenshot(path=f"{shot}-{width}.png", full_page=True)
