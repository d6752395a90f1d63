"""What your agents did, in headless Chromium against a real `mesq serve`: an agent's edits show
as its group on /activity, "Undo this session" reverts them after a preview, and the memo page's
History panel shows every version with its author and restores one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer, start_server, stop_server
from ..chromium import chromium_page
from ..kit.test_browser import PASSWORD

expect = playwright_sync.expect


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path / "live", {"MESQ_SEARCH_PROVIDER": "none"})
    yield live
    stop_server(live)


def _agent(server: LiveServer, name: str) -> httpx.Client:
    token = server.token("admin", "memo:read,memo:write,todo:read,todo:write", name)
    return httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def _memo(rest: httpx.Client, memo_id: str) -> dict[str, Any]:
    memo: dict[str, Any] = rest.get(f"/api/toolkit/memo/{memo_id}").json()["data"]["memo"]
    return memo


def test_an_agents_group_is_undone_and_the_history_panel_restores(server: LiveServer) -> None:
    base = server.base_url
    with chromium_page(viewport={"width": 1280, "height": 800}) as page:
        page.goto(base + "/")
        page.fill("input[name=username]", "admin")
        page.fill("input[name=password]", PASSWORD)
        page.fill("input[name=confirm]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(base + "/")

        person = _agent(server, "me")
        kept = person.post("/api/toolkit/memo", json={"content": "groceries: milk"}).json()["data"]["memo"]
        agent = _agent(server, "Claude Desktop")
        tidied = agent.patch(
            f"/api/toolkit/memo/{kept['id']}", json={"expectedRevision": 1, "content": "groceries: milk, eggs"}
        )
        assert tidied.status_code == 200, tidied.text
        task = agent.post("/api/toolkit/todo/tasks", json={"title": "buy eggs"})
        assert task.status_code == 201, task.text

        page.goto(base + "/activity")
        groups = page.locator("section.activity-group")
        expect(groups).to_have_count(2)  # the agent's session, the person's
        group = groups.first
        expect(group.locator("h2")).to_contain_text("Claude Desktop")
        expect(group.locator(".session-summary")).to_contain_text("2 changes: created 1 task, edited 1 memo")
        expect(group.locator("li.change")).to_have_count(2)  # two REST calls, one session
        expect(group.locator("li.change", has_text="groceries: milk")).to_have_count(1)

        group.get_by_role("button", name="Undo this session").click()
        expect(group.locator(".undo-preview")).to_contain_text("This undoes 2 changes.")
        group.locator(".undo-preview").get_by_role("button", name="Undo them").click()
        expect(page.locator(".flash")).to_contain_text("Undid 2 changes.")
        assert _memo(person, kept["id"])["content"] == "groceries: milk"
        trash = person.get("/api/toolkit/todo/trash").json()["data"]
        assert task.json()["data"]["task"]["id"] in str(trash)
        newest = page.locator("section.activity-group").first
        expect(newest.locator(".undo-badge")).to_have_count(1)  # the undo: a group of its own, marked
        expect(newest.locator("h2")).to_contain_text("Web app")
        expect(newest.get_by_role("button", name="Redo these changes")).to_have_count(1)

        page.goto(f"{base}/memos/{kept['id']}/edit")
        panel = page.locator("section.history-panel")
        versions = panel.locator("li.version")
        expect(versions).to_have_count(3)  # created, edited by the agent, undone from the web
        expect(versions.nth(1)).to_contain_text("Claude Desktop")
        expect(versions.nth(0)).to_contain_text("Web app")
        expect(versions.nth(2)).to_contain_text("me ·")
        versions.nth(1).get_by_role("button", name="Restore this version").click()
        expect(page.locator("body")).to_contain_text("Version restored.")
        memo = _memo(person, kept["id"])
        assert memo["content"] == "groceries: milk, eggs" and memo["revision"] == 4
