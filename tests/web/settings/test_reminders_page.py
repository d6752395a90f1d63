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

from mesq.reminders.transport import SEND_DEADLINE_SECONDS
from mesq.wiring.services import Services
from tests.reminders.receiver import Receiver

from ..conftest import Browser

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
    # Post/redirect/get: the answer to the POST was the page with the secret, so a reload posted
    # the form again and added a second webhook with a second secret.
    assert added.status_code == 303 and added.headers["location"] == "/settings/reminders"
    assert not SECRET.search(added.text)
    shown = person.get("/settings/reminders")
    secret = SECRET.search(shown.text)
    assert secret, shown.text
    receiver.secrets.append(secret.group(1))
    (stored,) = services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items  # one channel
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
                "https://user:pw@x.example/", "https://exa mple.com/hook"):  # fmt: skip
        answer = person.post("/settings/reminders/webhooks", {"url": url})
        assert answer.status_code == 400, url
    assert services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items == []


def test_another_user_cannot_test_or_delete_my_channel(browser: Callable[..., Browser], receiver: Receiver) -> None:
    me, other = browser(), browser()
    added = me.post("/settings/reminders/webhooks", {"url": receiver.url})
    channel_id = re.search(r'name="channel" value="([^"]+)"', me.get(added.headers["location"]).text)
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


BOT = "123456:" + "A" * 35
MAIL = {"kind": "email", "host": "10.0.0.2", "port": "2525", "security": "tls", "user": 'me"><b>bold</b>',
        "password": "pw-refused-secret", "from": "mesq@example.org", "to": "me@example.org"}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "reason", "kept", "secret"),
    [
        (
            MAIL,
            "MESQ_ALLOW_PRIVATE_DESTINATIONS",
            ['value="10.0.0.2"', 'value="2525"', '<option value="tls" selected>', 'value="me&#34;&gt;&lt;b&gt;bold',
             'value="mesq@example.org"', 'value="me@example.org"'],
            "pw-refused-secret",
        ),
        (
            {"kind": "ntfy", "url": "https://ntfy.sh/", "token": "tk-refused-secret"},
            "must end with the topic",
            ['value="https://ntfy.sh/"'],
            "tk-refused-secret",
        ),
        (
            {"kind": "telegram", "token": "not-a-bot-token-secret", "chat": "4242"},
            "the bot token looks like",
            ['value="4242"'],
            "not-a-bot-token-secret",
        ),
    ],
    ids=["email", "ntfy", "telegram"],
)  # fmt: skip
def test_a_refused_channel_form_shows_why_beside_it_and_keeps_the_input_but_not_the_secret(
    browser: Callable[..., Browser], services: Services, fields: dict[str, str], reason: str, kept: list[str],
    secret: str,
) -> None:  # fmt: skip
    person = browser()
    answer = person.post("/settings/reminders/channels", fields)
    assert answer.status_code == 400
    kind = fields["kind"]
    form = answer.text.split(f'id="add-{kind}"', 1)[1].split("</form>", 1)[0]  # the form that was sent
    assert f'<p class="error" role="alert" id="{kind}-error">' in form and reason in form
    for value in kept:
        assert value in form, value
    assert secret not in answer.text and "<b>bold</b>" not in answer.text  # secrets typed again; text escaped
    others = [other for other in ("email", "ntfy", "telegram", "webhook") if other != kind]
    assert all(f'id="{other}-error"' not in answer.text for other in others)
    assert services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items == []
    fresh = person.get("/settings/reminders").text  # a new page: no error, nothing kept
    assert 'role="alert" id="' not in fresh and 'value="4242"' not in fresh and 'value="2525"' not in fresh


def test_valid_email_ntfy_and_telegram_forms_are_saved_with_their_secrets_sealed(
    browser: Callable[..., Browser], services: Services
) -> None:
    from mesq.reminders import channels

    person = browser()
    sent = {
        "email": {**MAIL, "host": "smtp.example.com", "port": "587", "security": "starttls", "user": "me",
                  "password": "pw-kept-secret"},
        "ntfy": {"kind": "ntfy", "url": "https://ntfy.sh/mesq-route-test", "token": "tk-kept-secret"},
        "telegram": {"kind": "telegram", "token": BOT, "chat": "4242"},
    }  # fmt: skip
    for fields in sent.values():
        answer = person.post("/settings/reminders/channels", fields)
        assert answer.status_code == 303, answer.text
    records = {record["kind"]: record for record in channels.channel_records(services.items, person.user_id)}
    assert set(records) == set(sent)
    page = person.get("/settings/reminders").text
    for kind, secret in (("email", "pw-kept-secret"), ("ntfy", "tk-kept-secret"), ("telegram", BOT)):
        assert secret not in repr(records[kind]) and secret not in page  # sealed at rest, never shown
        assert channels.opened(services.sealer, person.user_id, records[kind]).secret == secret
    assert records["email"]["url"] == "smtp://smtp.example.com:587"
    assert records["email"]["config"] == {"security": "starttls", "user": "me", "from": "mesq@example.org",
                                          "to": "me@example.org"}  # fmt: skip
    assert records["ntfy"]["url"] == "https://ntfy.sh/mesq-route-test"
    assert records["telegram"]["config"] == {"chat": "4242"} and BOT not in records["telegram"]["url"]
    assert "me@example.org" in page and "4242" in page


def test_the_page_says_reminders_are_set_on_a_tasks_page_too(browser: Callable[..., Browser]) -> None:
    """A task's page sets reminders (its Reminders card links here); this page said they were
    set by MCP clients alone, in both languages."""
    person = browser()
    english = person.get("/settings/reminders", headers={"accept-language": "en"}).text
    assert "Todo reminders (set on a task’s page, or by your MCP clients with" in english
    chinese = person.get("/settings/reminders", headers={"accept-language": "zh-CN"}).text
    assert "待办提醒（在任务页面上设置，或由你的 MCP 客户端通过" in chinese
