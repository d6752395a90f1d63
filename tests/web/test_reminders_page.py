"""Settings -> Reminders: add a webhook (secret shown once, sealed at rest), send a test reminder
to a loopback receiver that verifies the signature, see a failing receiver's last failure, delete."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from mesq.context import Services
from mesq.reminders.delivery import SEND_DEADLINE_SECONDS
from tests.reminders.receiver import Receiver

from .conftest import Browser

SECRET = re.compile(r'<code id="secret-value">([^<]+)</code>')


@pytest.fixture
def services(services: Services) -> Services:
    return replace(services, settings=services.settings.with_overrides(reminder_webhook_allow_loopback=True))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    started = Receiver().start()
    yield started
    started.stop()


def test_add_test_fail_and_delete_a_webhook(
    services: Services, browser: Callable[..., Browser], receiver: Receiver
) -> None:
    person = browser()
    assert "No channel yet" in person.get("/settings/reminders").text
    added = person.post("/settings/reminders/webhooks", {"url": receiver.url})
    assert added.status_code == 200
    secret = SECRET.search(added.text)
    assert secret, added.text
    receiver.secrets.append(secret.group(1))
    stored = services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items[0]
    assert secret.group(1) not in repr(stored)  # sealed at rest
    assert secret.group(1) not in person.get("/settings/reminders").text  # shown once
    channel_id = stored["id"]

    sent = person.post("/settings/reminders/test", {"channel": channel_id})
    assert sent.status_code == 303 and len(receiver.received) == 1 and receiver.received[0]["type"] == "test"
    page = person.get("/settings/reminders").text
    assert 'class="last-success">never' not in page

    receiver.status = 503
    person.post("/settings/reminders/test", {"channel": channel_id})
    assert receiver.attempts == 1 + 1  # a test send is one attempt
    page = person.get("/settings/reminders").text
    assert "HTTP 503 after 1 attempt," in page

    person.post("/settings/reminders/delete", {"channel": channel_id})
    assert "No channel yet" in person.get("/settings/reminders").text


def test_private_and_plain_http_urls_are_refused(browser: Callable[..., Browser], services: Services) -> None:
    person = browser()
    for url in ("http://example.com/hook", "https://10.0.0.1/hook", "ftp://example.com/x", "not a url",
                "https://0177.0.0.1/hook", "https://①②⑦.⓪.⓪.①/hook", "https://127.1/hook", "https://x.example:70000/",
                "https://user:pw@x.example/"):  # fmt: skip
        answer = person.post("/settings/reminders/webhooks", {"url": url})
        assert answer.status_code == 400, url
    assert services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items == []


def test_another_user_cannot_test_or_delete_my_channel(browser: Callable[..., Browser], receiver: Receiver) -> None:
    me, other = browser(), browser()
    added = me.post("/settings/reminders/webhooks", {"url": receiver.url})
    channel_id = re.search(r'name="channel" value="([^"]+)"', added.text)
    assert channel_id
    answer: Any = other.post("/settings/reminders/test", {"channel": channel_id.group(1)})
    assert answer.status_code == 404 and receiver.attempts == 0
    deleted = other.post("/settings/reminders/delete", {"channel": channel_id.group(1)})
    assert deleted.status_code == 404 and "does not exist" in deleted.text and "deleted" not in deleted.text
    assert channel_id.group(1) in me.get("/settings/reminders").text


def test_a_test_send_to_a_receiver_that_never_answers_ends_within_its_deadline(
    browser: Callable[..., Browser], services: Services
) -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (the kernel's backlog), never answers
    try:
        person = browser()
        person.post("/settings/reminders/webhooks", {"url": f"http://127.0.0.1:{silent.getsockname()[1]}/hook"})
        channel_id = services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items[0]["id"]
        started = time.monotonic()
        sent = person.post("/settings/reminders/test", {"channel": channel_id})
        elapsed = time.monotonic() - started
        assert sent.status_code == 303 and SEND_DEADLINE_SECONDS <= elapsed < SEND_DEADLINE_SECONDS + 3, elapsed
        assert "no answer within 10 s after 1 attempt," in person.get("/settings/reminders").text
    finally:
        silent.close()
