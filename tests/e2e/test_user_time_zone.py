"""Issue 40 §5, done when: with the zone set to Asia/Shanghai, at 07:30 Shanghai time (23:30 UTC
the day before), `query_todos {overdue: true}`, `get_context.today`, the Today page and quick-add
"明天" all use the Shanghai date; and the first sign-in offers the browser's zone.

The clock is driven, not waited for: the app (REST, MCP and the pages, as `mesq serve` mounts
them, on SQLite) runs in this process under uvicorn on loopback, with
`mesq.kernel.timestamps.utc_now` held at NOW and the pages' clock at the same instant. The agent
is the official `mcp` client; the browser is headless Chromium in zh-CN whose own zone is
America/Los_Angeles (so neither UTC nor the browser's zone can pass for the user's)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from playwright import sync_api as playwright_sync

from mesq.asgi.app import starlette_app
from mesq.auth.tokens import create_token
from mesq.auth.user_zone import configured_zone
from mesq.auth.users import create_user
from mesq.http.app import api_routes
from mesq.kernel import timestamps
from mesq.mcp import mcp_routes
from mesq.web import browser_error_page, web_routes
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.support.mcp_client import connect, ok
from tests.support.threaded_server import serving as serving_app
from tests.web.chromium import chromium_page
from tests.web.conftest import PASSWORD, FakeClock
from tests.web.kit.test_accessibility import Audit, axe_source  # noqa: F401  (axe_source: a fixture)
from tests.web.kit.test_layout import SIZES

expect = playwright_sync.expect
#: 23:30 UTC tomorrow (real time: a browser session's expiry and the store's TTLs are checked
#: against the real clock too): 07:30 the day after in Shanghai, 15:30 the same day in Los Angeles.
NOW = datetime.combine(datetime.now(UTC).date() + timedelta(days=1), dt_time(23, 30), tzinfo=UTC)
UTC_TODAY = NOW.date().isoformat()
SHANGHAI_TODAY, SHANGHAI_TOMORROW = ((NOW.date() + timedelta(days=n)).isoformat() for n in (1, 2))
TODO = "todo:read,todo:write"


@contextmanager
def serving(services: Services, clock: FakeClock) -> Iterator[str]:
    """REST, MCP and the pages in one app on a loopback port (uvicorn in a thread)."""
    routes = [*api_routes(services), *mcp_routes(services), *web_routes(services, clock=clock)]
    app = starlette_app(routes, services.settings, error_page=browser_error_page)
    with serving_app(app) as base_url:
        yield base_url


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Services, str]]:
    monkeypatch.setattr(timestamps, "utc_now", lambda: NOW)
    services = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    try:
        with serving(services, FakeClock(NOW.timestamp())) as base_url:
            yield services, base_url
    finally:
        services.items.close()


def account(services: Services, name: str) -> tuple[str, str]:
    user = create_user(services.items, name, PASSWORD)
    token, _ = create_token(services.items, user["id"], name="agent", scopes=TODO)
    return user["id"], token


def titles(data: dict[str, Any]) -> list[str]:
    return [item["title"] for item in data["items"]]


def day(text: str) -> dict[str, str]:
    return {"type": "date", "date": text}


def test_shanghai_dates_at_half_past_seven_in_the_morning(held: tuple[Services, str]) -> None:
    services, base_url = held
    user_id, token = account(services, "mei")

    async def agent() -> None:
        async with connect(base_url, token, timeout=30) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            described = " ".join((tools["get_context"].description or "").split()).lower()
            assert "ask the user when `timezoneset` is false" in described
            for title, due in (("昨天的", UTC_TODAY), ("今天的", SHANGHAI_TODAY), ("明天的", SHANGHAI_TOMORROW)):
                await ok(client, "create_todo_task", {"title": title, "due": day(due)})
            context = await ok(client, "get_context", {})
            assert (context["timeZone"], context["timeZoneSet"], context["today"]) == ("UTC", False, UTC_TODAY)
            assert titles(await ok(client, "query_todos", {"overdue": True})) == []  # in UTC, that day is today

            refused = await client.call_tool("set_time_zone", {"timeZone": "Shanghai"})
            assert refused.is_error and refused.structured_content is not None
            error = refused.structured_content["error"]
            assert error["code"] == "VALIDATION_ERROR" and "Asia/Shanghai" in error["message"], error

            context = await ok(client, "set_time_zone", {"timeZone": "Asia/Shanghai"})
            assert (context["timeZone"], context["timeZoneSet"], context["today"]) == (
                "Asia/Shanghai", True, SHANGHAI_TODAY
            )  # fmt: skip
            assert (await ok(client, "get_context", {}))["today"] == SHANGHAI_TODAY
            assert titles(await ok(client, "query_todos", {"overdue": True})) == ["昨天的"]

    anyio.run(agent)
    assert configured_zone(services.items, user_id) == "Asia/Shanghai"

    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10) as rest:
        assert rest.get("/api/toolkit/todo/context").json()["data"]["today"] == SHANGHAI_TODAY
        overdue = rest.get("/api/toolkit/todo/query", params={"overdue": "true"})
        assert titles(overdue.json()["data"]) == ["昨天的"]

        with chromium_page(locale="zh-CN", timezone_id="America/Los_Angeles", viewport=viewport(1280)) as page:
            sign_in(page, base_url, "mei", "/todos/today")
            expect(page.locator("h1")).to_have_text("今天")
            assert f"{SHANGHAI_TODAY}" in page.locator("main p.muted").first.inner_text()
            assert "中国时间" in page.locator("main p.muted").first.inner_text()  # the zone by its CLDR name
            assert page.locator("#zone-offer").count() == 0  # the zone is set: nothing offered
            today_text = page.locator("main").inner_text()
            assert "今天的" in today_text and "昨天的" in today_text and "明天的" not in today_text
            fits(page)

            page.fill("#today-add-title", "买牛奶 明天")
            page.press("#today-add-title", "Enter")
            expect(page.locator("#today-added")).to_be_visible()
            found = rest.get("/api/toolkit/todo/query", params={"query": "买牛奶"}).json()["data"]["items"]
            assert [(item["title"], item["due"]) for item in found] == [("买牛奶", day(SHANGHAI_TOMORROW))]


def test_the_first_sign_in_offers_the_browsers_zone(held: tuple[Services, str], axe_source: str) -> None:  # noqa: F811
    services, base_url = held
    user_id, _token = account(services, "lin")
    # bypass_csp: axe is injected inline (tests/web/kit/test_accessibility.py).
    with chromium_page(locale="zh-CN", timezone_id="Asia/Shanghai", viewport=viewport(390), bypass_csp=True) as page:
        sign_in(page, base_url, "lin", "/todos/today")
        offer = page.locator("#zone-offer")
        expect(offer).to_contain_text("使用 Asia/Shanghai？")
        audit = Audit(page, axe_source)
        audit.check("the zone offer")
        assert audit.problems == [], audit.problems
        # Not saved until the person confirms; meanwhile the page is in the browser's zone.
        assert configured_zone(services.items, user_id) is None
        assert SHANGHAI_TODAY in page.locator("main p.muted").first.inner_text()
        fits(page)
        offer.get_by_role("button", name="使用 Asia/Shanghai").click()
        expect(page.locator("p.flash")).to_have_text("时区已设为 Asia/Shanghai。")
        assert page.url == f"{base_url}/todos/today"  # the person stays on the page they confirmed it on
        assert configured_zone(services.items, user_id) == "Asia/Shanghai"
        assert page.locator("#zone-offer").count() == 0
        page.goto(f"{base_url}/settings")
        expect(page.locator("#time-zone-name")).to_have_value("Asia/Shanghai")
        fits(page)
        # Settings → General changes it, in the page's language, with a clear error for a bad name.
        page.fill("#time-zone-name", "Europe/Berlin")
        page.locator("#time-zone-form button").click()
        expect(page.locator("p.flash")).to_have_text("时区已设为 Europe/Berlin。")
        assert configured_zone(services.items, user_id) == "Europe/Berlin"


def viewport(width: int) -> dict[str, int]:
    return next({"width": w, "height": h} for w, h in SIZES if w == width)


def sign_in(page: Any, base_url: str, username: str, target: str) -> None:
    page.goto(f"{base_url}/login?next={target}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(base_url + target)


def fits(page: Any) -> None:
    """zh-CN at 390 and 1280 px: the page's language is Chinese and nothing scrolls sideways."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, f"{page.url} at {width}px scrolls sideways"
        assert page.evaluate("document.documentElement.lang") == "zh-Hans"
