"""/activity in headless Chromium (zh-CN) against a real `mesq serve`, at 1280 and 390 px: after
an agent's session of 30 memo edits and a task move (a token named "Claude Desktop", over REST),
the page shows one group for it with the agent's name, the time span and a summary line; the
group is under 600 px tall at 1280 until its changes are opened; its text has no id, revision,
`None` or `False` and no English word but the names the person typed. "Undo this session" shows
the dry run's sentence, asks, reverts the session and reports in Chinese."""

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
from ..kit.test_layout import SIZES, shots  # noqa: F401  (shots: the screenshot directory fixture)
from ..todos.test_todos_browser import PROBLEMS, sign_in_page
from .seed import COLUMN_NAMES, EDITS

expect = playwright_sync.expect
USER = "ada"
ALL = "memo:read,memo:write,todo:read,todo:write"
#: Latin words the Chinese page may show: the agent's name, which the person typed.
TYPED = {"Claude", "Desktop"}


def _rest(server: LiveServer, name: str, user: str = USER) -> httpx.Client:
    secret = server.token(user, ALL, name)
    return httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=30)


def _ok(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code in (200, 201), answer.text
    data: dict[str, Any] = answer.json()["data"]
    return data


def _agent_session(server: LiveServer) -> tuple[httpx.Client, list[str], str]:
    """The person's memos, task and column names (their script's session), then the agent's
    session: 30 edits and a move. Answers the person's client, the memo ids and the task id."""
    person = _rest(server, "我的脚本")
    memos = [_ok(person.post("/api/toolkit/memo", json={"content": f"周报 {n}\n本周完成了第 {n} 项"}))["memo"]
             for n in range(EDITS)]  # fmt: skip
    task = _ok(person.post("/api/toolkit/todo/tasks", json={"title": "买牛奶"}))["task"]
    board = [c for c in _ok(person.get("/api/toolkit/todo/spaces"))["columns"] if c["spaceId"] == task["spaceId"]]
    for column, name in zip(board, COLUMN_NAMES, strict=False):
        _ok(person.patch(f"/api/toolkit/todo/columns/{column['id']}",
                         json={"expectedRevision": column["revision"], "name": name}))  # fmt: skip
    with _rest(server, "Claude Desktop") as agent:
        for memo in memos:
            edited = memo["content"].replace("完成了", "认真完成了")
            _ok(agent.patch(f"/api/toolkit/memo/{memo['id']}",
                            json={"expectedRevision": memo["revision"], "content": edited}))  # fmt: skip
        target = next(column for column in board if column["id"] != task["columnId"])
        _ok(agent.post(f"/api/toolkit/todo/tasks/{task['id']}/move",
                       json={"expectedRevision": task["revision"], "columnId": target["id"]}))  # fmt: skip
    return person, [memo["id"] for memo in memos], task["id"]


def _never_shown(person: httpx.Client) -> set[str]:
    """Every id the page must not show: the records', the changes', the runs' and the sessions'."""
    found: set[str] = set()
    for change in _ok(person.get("/api/toolkit/changes", params={"limit": 100}))["changes"]:
        found |= {change["id"], change["runId"], change["sessionId"], change["record"]["id"]}
        for side in ("before", "after"):
            found |= {str(value) for name, value in change[side].items() if name.endswith("Id") and value}
    return found


@pytest.fixture
def zh_page(server: LiveServer) -> Iterator[Any]:
    server.account(USER, scopes=ALL)
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale="zh-CN") as page:
        sign_in_page(page, server.base_url, USER, "/activity")
        yield page
        assert PROBLEMS[page] == [], PROBLEMS[page]


def test_an_agent_session_reads_as_one_group_and_undoes_after_a_preview(
    server: LiveServer,
    zh_page: Any,
    shots: Path,  # noqa: F811
) -> None:
    page = zh_page
    person, memo_ids, task_id = _agent_session(server)
    never = _never_shown(person) | {"None", "False", "True"}
    page.goto(server.base_url + "/activity")
    agent = page.locator("section.activity-group").first
    expect(agent.locator(".session-who")).to_contain_text("Claude Desktop")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.lang").startswith("zh")
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, f"/activity at {width}px scrolls sideways"
        page.screenshot(path=str(shots / f"activity-zh-{width}.png"), full_page=True)
        text = agent.inner_text()
        assert re.search(r"\d{1,2}:\d{2}\s*[–-]\s*\d{1,2}:\d{2}|\d{1,2}:\d{2}", text), text  # the time span
        assert "31 处改动：编辑了 30 条笔记，移动了 1 个任务" in text, text
        assert not [found for found in never if found in text]
        assert not re.search(r"版本|revision", text, re.IGNORECASE)
        assert set(re.findall(r"[A-Za-z]+", text)) <= TYPED, text
    page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})
    folded = agent.bounding_box()["height"]
    assert folded < 600, folded
    agent.locator("details.session-changes > summary").click()
    opened = agent.inner_text()
    assert agent.bounding_box()["height"] > folded
    assert "编辑了笔记" in opened and "周报 29" in opened and COLUMN_NAMES[1] in opened
    assert not [found for found in never if found in opened]
    assert set(re.findall(r"[A-Za-z]+", opened)) <= TYPED, opened

    agent.get_by_role("button", name="撤销这次会话").click()
    preview = agent.locator(".undo-preview")
    expect(preview).to_contain_text("将撤销 31 处改动。")
    memo = _ok(person.get(f"/api/toolkit/memo/{memo_ids[0]}"))["memo"]
    assert "认真" in memo["content"]  # the preview wrote nothing
    preview.get_by_role("button", name="撤销", exact=True).click()
    flash = page.locator(".flash")
    expect(flash).to_have_text("已撤销 31 处改动。")  # one sentence, in Chinese
    for memo_id in memo_ids:
        assert "认真" not in _ok(person.get(f"/api/toolkit/memo/{memo_id}"))["memo"]["content"]
    moved = _ok(person.get(f"/api/toolkit/todo/tasks/{task_id}"))["task"]
    board = {c["id"]: c["name"] for c in _ok(person.get("/api/toolkit/todo/spaces"))["columns"]}
    assert board[moved["columnId"]] == COLUMN_NAMES[0]  # back where the person left it
    undo_group = page.locator("section.activity-group").first
    expect(undo_group.locator(".undo-badge")).to_have_text("撤销")
    person.close()
