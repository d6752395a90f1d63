"""MESQ_ALLOW_PRIVATE_DESTINATIONS: with it, an http://127.0.0.1:PORT webhook added on the
Settings page receives its reminder from the tick; without it, the same URL is refused when the
channel is added, with a message that names the setting."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from mesq.jobs.reminder_tick import run_due_reminder_tick
from mesq.kernel.timestamps import format_timestamp
from mesq.wiring.config import Settings
from mesq.wiring.services import Services, reminder_reach
from tests.reminders.conftest import todo_call
from tests.reminders.receiver import Receiver

from ..conftest import Browser


@pytest.fixture
def services(services: Services, request: pytest.FixtureRequest) -> Services:
    """The owner's setting as the test's parameter (off unless given)."""
    allowed = bool(getattr(request, "param", False))
    return replace(services, settings=services.settings.with_overrides(allow_private_destinations=allowed))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    started = Receiver().start()
    yield started
    started.stop()


@pytest.mark.parametrize("services", [True], indirect=True)
def test_the_owners_setting_admits_a_loopback_http_webhook_that_then_receives_its_reminder(
    services: Services, browser: Callable[..., Browser], receiver: Receiver
) -> None:
    assert Settings.from_env({"MESQ_ALLOW_PRIVATE_DESTINATIONS": "true"}).allow_private_destinations
    assert services.settings.allow_private_destinations
    person = browser()
    added = person.post("/settings/reminders/webhooks", {"url": receiver.url})
    assert added.status_code == 303, added.text
    shown = person.get(added.headers["location"])  # the secret is shown on the page after the POST
    receiver.secrets.append(shown.text.split('<code id="secret-value">')[1].split("<")[0])
    soon = datetime.now(UTC) + timedelta(seconds=1)
    task = todo_call(services.items, person.user_id, "create_todo_task", title="Feed the cat")["task"]
    todo_call(services.items, person.user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
              reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
    report = run_due_reminder_tick(services.items, services.sealer, soon + timedelta(seconds=2), backoff=(0.0,),
                                   reach=reminder_reach(services.settings))  # fmt: skip
    assert report.delivered == 1, report
    (body,) = receiver.received
    assert body["type"] == "todo.reminder" and body["task"]["title"] == "Feed the cat"


def test_without_the_setting_the_same_url_is_refused_naming_it(
    browser: Callable[..., Browser], services: Services, receiver: Receiver
) -> None:
    person = browser()
    for url in (receiver.url, "http://192.168.1.10:8123/api/webhook/x", "https://10.0.0.7/hook"):
        answer = person.post("/settings/reminders/webhooks", {"url": url})
        assert answer.status_code == 400 and "MESQ_ALLOW_PRIVATE_DESTINATIONS=true" in answer.text, url
    assert services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items == []
