"""Settings -> Reminders in headless Chromium against a real `mesq serve`: the page registers its
service worker and subscribes with the instance's VAPID key (the browser cannot reach a real
push service here, so what it produced is recorded), and a channel whose reminder failed all its
retries is shown as failing, with its error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

from tests.reminders.receiver import Receiver

from ...conftest import Account, LiveServer, start_server, stop_server
from ..chromium import chromium_page
from ..conftest import fresh_username
from ..kit.test_browser import PASSWORD

expect = playwright_sync.expect
SPY = """
(() => {
  if (!window.PushManager) return;
  const subscribe = PushManager.prototype.subscribe;
  PushManager.prototype.subscribe = function (options) {
    const bytes = new Uint8Array(options.applicationServerKey);
    window.__subscribedWith = btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_")
      .replace(/=+$/, "");
    return subscribe.call(this, options);
  };
})();
"""

#: The notification the worker shows for a push of `tag` (its id), as the page reads it, or null.
SHOWN = """tag => navigator.serviceWorker.getRegistration('/settings/').then(r => r.getNotifications({tag}))
  .then(list => list.length ? {title: list[0].title, body: list[0].body, lang: list[0].lang} : null)"""


#: The number of each test's own account (the module's tests share one server).


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the module's tests, each signed in as an account of its own."""
    env = {"MESQ_SEARCH_PROVIDER": "none", "MESQ_REMINDER_WEBHOOK_ALLOW_LOOPBACK": "true",
           "MESQ_REMINDER_TICK_SECONDS": "1"}  # fmt: skip
    live = start_server(tmp_path_factory.mktemp("reminders-browser") / "live", env)
    yield live
    stop_server(live)


@pytest.fixture
def failing() -> Iterator[Receiver]:
    receiver = Receiver(status=503).start()
    yield receiver
    receiver.stop()


def _sign_in(page: Any, server: LiveServer) -> Account:
    """A new account of this test's, signed in on `page` through the login form."""
    account = server.account(fresh_username("admin"), scopes="todo:read,todo:write")
    page.goto(server.base_url + "/login")
    page.fill("input[name=username]", account.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(server.base_url + "/")
    return account


def _agent(server: LiveServer, account: Account) -> httpx.Client:
    headers = {"Authorization": f"Bearer {account.token}"}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=10)


def test_the_page_registers_the_worker_and_subscribes_with_the_instances_vapid_key(
    server: LiveServer, tmp_path: Path
) -> None:
    base = server.base_url
    with chromium_page(viewport={"width": 1280, "height": 900}, permissions=["notifications"]) as page:
        # record the options the page passes to pushManager.subscribe (the key it subscribes with)
        page.add_init_script(SPY)
        _sign_in(page, server)
        page.goto(base + "/settings/reminders")
        key = page.get_attribute("#webpush", "data-vapid-key")
        assert key and len(key) == 87  # base64url of a 65-byte P-256 point
        page.click("#push-subscribe")
        # Selector waits, not wait_for_function: its string predicate is compiled in the page,
        # which the page's CSP (no unsafe-eval) refuses at times.
        expect(page.locator("#webpush")).to_have_attribute("data-registered", "true")
        page.locator("#push-subscription:not([hidden]), #webpush[data-error]").first.wait_for()
        worker = page.evaluate(
            "navigator.serviceWorker.getRegistration('/settings/').then(r => r && r.active && r.active.scriptURL)"
        )
        assert worker == base + "/settings/reminders-sw.js"
        applied = page.evaluate("window.__subscribedWith")
        assert applied == key  # subscribed with the instance's VAPID public key, byte for byte
        produced = page.text_content("#push-subscription")
        error = page.get_attribute("#webpush", "data-error")
        record = {"subscription": json.loads(produced) if produced else None, "error": error, "applied_key": applied}
        (tmp_path / "subscription.json").write_text(json.dumps(record, indent=2))
        print("browser push subscription:", json.dumps(record))
        if record["subscription"] is None:
            # Debian's Chromium has no push service (no GCM keys): it refuses every subscribe, and
            # the page says so rather than failing silently
            assert error == "AbortError: Registration failed - permission denied", record
            expect(page.locator("#push-status")).to_contain_text("could not subscribe")
        else:
            assert record["subscription"]["keys"]["p256dh"] and record["subscription"]["keys"]["auth"]
            expect(page.locator("#push-status")).to_have_text("This browser is subscribed.")


def test_a_channel_that_failed_its_retries_is_shown_as_failing_with_its_error(
    server: LiveServer, failing: Receiver
) -> None:
    base = server.base_url
    with chromium_page(viewport={"width": 1280, "height": 900}) as page:
        account = _sign_in(page, server)
        page.goto(base + "/settings/reminders")
        page.fill("#webhook-url", failing.url)
        page.click("#add-webhook button[type=submit]")
        failing.secrets.append(page.text_content("#secret-value") or "")
        agent = _agent(server, account)
        task = agent.post("/api/toolkit/todo/tasks", json={"title": "pay rent"}).json()["data"]["task"]
        soon = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        reminders = {"expectedRevision": task["revision"], "reminders": [{"type": "absolute", "at": soon}]}
        answer = agent.put(f"/api/toolkit/todo/tasks/{task['id']}/reminders", json=reminders)
        assert answer.status_code == 200, answer.text
        deadline = datetime.now(UTC) + timedelta(seconds=40)
        while failing.attempts < 3 and datetime.now(UTC) < deadline:
            page.wait_for_timeout(500)
        page.wait_for_timeout(1500)  # the outcome is recorded after the third attempt
        page.goto(base + "/settings/reminders")  # not a reload: that would post the form again
        row = page.locator("#channels tr[data-kind=webhook]")
        expect(row).to_have_class("failing")
        expect(row.locator(".channel-state")).to_have_text("Failing")
        expect(row.locator(".last-failure")).to_contain_text("HTTP 503 after 3 attempts")
        assert failing.attempts == 3 and failing.bad_signatures == 0


def test_a_channel_with_a_long_url_fits_a_phone(server: LiveServer) -> None:
    """A real destination URL is one long word (`https://hooks.example.com/services/…`): on a
    390 px phone it wraps inside its channel card instead of widening the settings page."""
    base = server.base_url
    with chromium_page(viewport={"width": 390, "height": 844}) as page:
        _sign_in(page, server)
        page.goto(base + "/settings/reminders")
        page.fill("#add-ntfy input[name=url]", "http://127.0.0.1:9/my-family-reminders-topic")
        page.click("#add-ntfy button[type=submit]")
        page.goto(base + "/settings/reminders")
        page.fill("#webhook-url", "http://127.0.0.1:9/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX")
        page.click("#add-webhook button[type=submit]")
        page.goto(base + "/settings/reminders")
        expect(page.locator("#channels tbody tr")).to_have_count(2)
        for width in (390, 1280):
            page.set_viewport_size({"width": width, "height": 844})
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, f"/settings/reminders at {width}px: {scroll_width} > {inner_width}"


def test_the_worker_shows_a_push_in_the_language_it_names(server: LiveServer) -> None:
    """A reminder push names its language (`lang`, the account's: senders.push_body); the service
    worker showed the notification without it, so the device guessed (a Chinese reminder perhaps
    drawn in Japanese glyph forms). The push is handed to the worker as the browser would after
    decrypting it (DevTools' `ServiceWorker.deliverPushMessage`), and the notification it shows
    carries the language."""
    from mesq.adapters.reminders.senders import push_body

    base = server.base_url
    payload = {"type": "todo.reminder", "id": "d-1", "task": {"id": "T1", "title": "给花浇水", "due": None}}
    with chromium_page(viewport={"width": 1280, "height": 900}, permissions=["notifications"]) as page:
        _sign_in(page, server)
        page.goto(base + "/settings/reminders")
        session = page.context.new_cdp_session(page)
        registrations: list[dict[str, Any]] = []
        updated = "ServiceWorker.workerRegistrationUpdated"
        session.on(updated, lambda event: registrations.extend(event["registrations"]))
        session.send("ServiceWorker.enable")
        page.click("#push-subscribe")  # registers the worker (the subscribe itself may be refused here)
        expect(page.locator("#webpush")).to_have_attribute("data-registered", "true")
        page.wait_for_function("navigator.serviceWorker.getRegistration('/settings/').then(r => !!(r && r.active))")
        scope = base + "/settings/"
        for language, tag, body in (("zh", "zh-Hans", "提醒"), ("en", "en", "Reminder")):
            deadline = datetime.now(UTC) + timedelta(seconds=10)
            while not [r for r in registrations if r["scopeURL"] == scope] and datetime.now(UTC) < deadline:
                page.wait_for_timeout(100)
            (registration,) = {r["registrationId"] for r in registrations if r["scopeURL"] == scope}
            data = push_body({**payload, "id": f"d-{language}"}, base, language).decode()
            session.send("ServiceWorker.deliverPushMessage",
                         {"origin": base, "registrationId": registration, "data": data})  # fmt: skip
            # Polled through the driver (a wait_for_function predicate is compiled in the page,
            # which its CSP refuses at times).
            shown, deadline = None, datetime.now(UTC) + timedelta(seconds=10)
            while shown is None and datetime.now(UTC) < deadline:
                page.wait_for_timeout(100)
                shown = page.evaluate(SHOWN, f"d-{language}")
            assert shown == {"title": "给花浇水", "body": body, "lang": tag}, shown
