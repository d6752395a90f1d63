"""The memo browser tests' start: the person signs in through the login form and lands on the
timeline, and a REST client with their token writes what a test needs behind the page."""

from __future__ import annotations

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
