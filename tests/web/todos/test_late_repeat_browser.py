"""In Chromium (390 and 1280 px, zh-CN and en-US), against a real `mesq serve`: a daily task
missed for five days, ticked on the Overdue page, leaves Overdue and comes back tomorrow
(docs/decisions.md, "a late completion")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_layout import SIZES
from .test_todos_browser import PROBLEMS, sign_in_page

pytestmark = pytest.mark.shared_server

ZONE = ZoneInfo("Asia/Shanghai")
LABELS = {"zh-CN": "完成：吃维生素", "en-US": "Complete: 吃维生素"}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}px")
@pytest.mark.parametrize("locale", sorted(LABELS))
def test_ticking_a_missed_daily_task_on_the_overdue_page(
    server: LiveServer, size: tuple[int, int], locale: str
) -> None:
    account = server.account(f"ada-{locale.lower()}-{size[0]}", scopes="todo:read,todo:write")
    today = datetime.now(UTC).astimezone(ZONE).date()
    headers = {"Authorization": f"Bearer {account.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as rest:
        missed = {"type": "date", "date": (today - timedelta(days=5)).isoformat()}
        body = {"title": "吃维生素", "due": missed, "timezone": "Asia/Shanghai", "recurrence": "FREQ=DAILY"}
        made = rest.post("/api/toolkit/todo/tasks", json=body)
        assert made.status_code < 300, made.text
        task_id = made.json()["data"]["task"]["id"]
        viewport = {"width": size[0], "height": size[1]}
        with chromium_page(viewport=viewport, locale=locale, timezone_id="Asia/Shanghai") as page:
            sign_in_page(page, server.base_url, account.username, "/todos")
            page.goto(server.base_url + "/todos/overdue")
            button = page.get_by_role("button", name=LABELS[locale])
            playwright_sync.expect(button).to_be_visible()
            button.click()
            playwright_sync.expect(page.get_by_role("button", name=LABELS[locale])).to_have_count(0)
            assert PROBLEMS[page] == [], PROBLEMS[page]
        task = rest.get(f"/api/toolkit/todo/tasks/{task_id}").json()["data"]["task"]
    assert task["due"] == {"type": "date", "date": (today + timedelta(days=1)).isoformat()} and not task["done"]
