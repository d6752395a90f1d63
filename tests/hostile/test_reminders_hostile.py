"""Hostile reminder content (issue 38, finding 8) against real receivers: an SMTP server
(aiosmtpd), an ntfy topic, a signed webhook and a Web Push endpoint, all on loopback.

- A task title with line breaks (and a header-injection attempt) must not cost any channel its
  reminder: every header-bound value is folded to one line, and the email stays one message with
  the headers MeSQ wrote.
- One channel's unexpected failure (a stored push subscription whose key is not a P-256 point:
  the encryption raises) is that channel's failure only; the user's other channels deliver.
- A Web Push subscribe while the server's public URL is not https answers 400 with the reason,
  and nothing is stored (no push could ever be signed); a channel stored earlier fails its sends
  with that reason instead of a 500.
"""

from __future__ import annotations

import base64
import email.header
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.jobs.reminder_tick import Reach, run_due_reminder_tick
from mesq.kernel.errors import ValidationError
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.timestamps import format_timestamp, now_timestamp
from mesq.reminders import channels
from mesq.reminders.channels import Destinations
from mesq.wiring.services import Services
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint, dynamodb_local_env  # noqa: F401
from tests.reminders.conftest import todo_call
from tests.reminders.fakes import HTTPFake, SMTPFake
from tests.reminders.receiver import Receiver
from tests.web.conftest import Browser, browser, clock, new_client, web_app  # noqa: F401

PUBLIC = "https://mesq.example"
UNEXPECTED = "the send failed unexpectedly (an error in MeSQ, logged on the server)"
RULES = Destinations(allow_loopback=True)
TITLES = ("Pay the rent", "Line one\nLine two", "Bcc: victim@example.org\r\nX-Injected: yes", "Tab\tand\u2028sep")
FOLDED = ("Pay the rent", "Line one Line two", "Bcc: victim@example.org X-Injected: yes", "Tab and sep")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _subscription_keys() -> dict[str, str]:
    point = ec.generate_private_key(ec.SECP256R1()).public_key()
    raw = point.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"p256dh": _b64(raw), "auth": _b64(b"0123456789abcdef")}


class Receivers:
    """One of each real receiver a user's channels go to."""

    def __init__(self) -> None:
        self.smtp = SMTPFake().start()
        self.ntfy = HTTPFake().start()
        self.push = HTTPFake(status=201, answer=b"").start()
        self.hook = Receiver().start()

    def stop(self) -> None:
        self.smtp.stop()
        self.ntfy.stop()
        self.push.stop()
        self.hook.stop()

    def add_channels(self, items: ItemStore, sealer: LocalKeySealer, user_id: str) -> None:
        now = now_timestamp()
        mail = {"host": "127.0.0.1", "port": str(self.smtp.port), "security": "none", "from": "mesq@example.org",
                "to": "me@example.org"}  # fmt: skip
        channels.add_channel(items, sealer, user_id, "email", mail, now, RULES)
        channels.add_channel(items, sealer, user_id, "ntfy", {"url": self.ntfy.base + "/topic"}, now, RULES)
        push = {"endpoint": self.push.base + "/push/1", **_subscription_keys()}
        channels.add_channel(items, sealer, user_id, "webpush", push, now, RULES)
        self.hook.secrets.append(channels.add_webhook(items, sealer, user_id, self.hook.url, now,
                                                      allow_loopback=True).secret)  # fmt: skip


@pytest.fixture
def receivers() -> Iterator[Receivers]:
    started = Receivers()
    yield started
    started.stop()


def _tasks_reminded_now(items: ItemStore, user_id: str, titles: tuple[str, ...]) -> datetime:
    """Tasks titled `titles`, each reminded two minutes from now; a moment when they are all due."""
    soon = datetime.now(UTC) + timedelta(minutes=2)  # still ahead after a slow setup; the tick is told the time
    due = (soon + timedelta(hours=1)).replace(second=0, microsecond=0)
    for title in titles:
        task = todo_call(items, user_id, "create_todo_task", title=title,
                         due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
        assert task["title"] == title  # the title is stored as typed
        todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
    return soon + timedelta(seconds=5)


def _every_channel_delivers_titles_with_line_breaks(items: ItemStore, sealer: LocalKeySealer, got: Receivers) -> None:
    user_id = "u-" + uuid.uuid4().hex[:10]
    got.add_channels(items, sealer, user_id)
    tick_at = _tasks_reminded_now(items, user_id, TITLES)

    report = run_due_reminder_tick(items, sealer, tick_at, backoff=(0.0,), reach=Reach(RULES, PUBLIC))

    assert (report.delivered, report.failed, report.errors) == (len(TITLES), 0, 0), (report, report.failures)
    assert len(got.smtp.messages) == len(got.ntfy.received) == len(got.push.received) == len(TITLES)
    assert sorted(str(task["task"]["title"]) for task in got.hook.received) == sorted(TITLES)  # JSON: as typed
    subjects = sorted(str(message["Subject"]) for message in got.smtp.messages)
    assert subjects == sorted(f"Reminder: {title}" for title in FOLDED)
    for message in got.smtp.messages:  # nothing a title carried became a header or a recipient
        assert message["X-Injected"] is None and message["Bcc"] is None
    assert all(recipients == ["me@example.org"] for _, recipients in got.smtp.envelopes)
    titles = sorted(str(email.header.make_header(email.header.decode_header(r.headers["title"])))
                    for r in got.ntfy.received)  # fmt: skip
    assert titles == sorted(FOLDED)
    for record in channels.channel_records(items, user_id):
        assert record["lastSuccessAt"] and record.get("lastFailure") is None, record


def test_a_line_break_in_a_title_costs_no_channel_its_reminder(tmp_path: Path, receivers: Receivers) -> None:
    sealer = LocalKeySealer(tmp_path / "keys" / "secrets.key")
    _every_channel_delivers_titles_with_line_breaks(SQLiteItemStore(tmp_path / "mesq.db"), sealer, receivers)


def test_a_line_break_in_a_title_costs_no_channel_its_reminder_on_dynamodb_local(
    tmp_path: Path,
    receivers: Receivers,
    dynamodb_local: ItemStore,  # noqa: F811
) -> None:
    sealer = LocalKeySealer(tmp_path / "keys" / "secrets.key")
    _every_channel_delivers_titles_with_line_breaks(dynamodb_local, sealer, receivers)


def test_one_channels_unexpected_failure_is_that_channels_only(tmp_path: Path, receivers: Receivers) -> None:
    """A push subscription stored with a key that is no curve point (a channel stored before keys
    were checked at subscribe can be): its encryption raises."""
    items = SQLiteItemStore(tmp_path / "mesq.db")
    sealer = LocalKeySealer(tmp_path / "keys" / "secrets.key")
    user_id = "u-" + uuid.uuid4().hex[:10]
    receivers.add_channels(items, sealer, user_id)
    broken = {"endpoint": receivers.push.base + "/push/broken", "p256dh": _b64(b"\x04" + b"\x01" * 64),
              "auth": _b64(b"0123456789abcdef")}  # fmt: skip
    with pytest.raises(ValidationError, match="p256dh is not a P-256 public key"):  # refused when subscribing
        channels.add_channel(items, sealer, user_id, "webpush", broken, now_timestamp(), RULES)
    keys = json.dumps({"p256dh": broken["p256dh"], "auth": broken["auth"]})
    bad = channels._store(items, sealer, user_id, "webpush", broken["endpoint"], {}, keys, now_timestamp())
    tick_at = _tasks_reminded_now(items, user_id, ("Water the plants", "Call mum"))

    report = run_due_reminder_tick(items, sealer, tick_at, backoff=(0.0,), reach=Reach(RULES, PUBLIC))

    assert (report.delivered, report.failed, report.errors) == (0, 2, 0), report
    assert {failure.split(":")[0] for failure in report.failures} == {bad.id}  # only the broken channel
    assert len(receivers.smtp.messages) == len(receivers.ntfy.received) == len(receivers.hook.received) == 2
    assert {r.path for r in receivers.push.received} == {"/push/1"} and len(receivers.push.received) == 2
    records = {record["id"]: record for record in channels.channel_records(items, user_id)}
    assert records[bad.id]["lastFailure"]["reason"] == UNEXPECTED
    assert all(record["lastSuccessAt"] for channel_id, record in records.items() if channel_id != bad.id)


@pytest.fixture
def services(services: Services) -> Services:
    """The default public URL (none set: http://localhost:8000), loopback receivers allowed."""
    return replace(services, settings=services.settings.with_overrides(reminder_webhook_allow_loopback=True))


def test_web_push_on_a_server_without_https_is_refused_with_the_reason(
    services: Services,
    browser: Callable[..., Browser],  # noqa: F811
    receivers: Receivers,
) -> None:
    assert services.settings.public_url is None  # reminders' links and VAPID name http://localhost:8000
    person = browser()
    page = person.get("/settings/reminders").text
    assert 'id="push-https"' in page and "MESQ_PUBLIC_URL" in page  # said before anyone subscribes
    form = {"kind": "webpush", "endpoint": receivers.push.base + "/push/1", **_subscription_keys()}
    answer = person.post("/settings/reminders/channels", form)
    assert answer.status_code == 400, answer.status_code
    assert "Web Push needs this server on an https:// address" in answer.text
    assert "MESQ_PUBLIC_URL" in answer.text
    assert services.items.query(f"U#{person.user_id}", prefix="REMIND#CHANNEL#").items == []

    # A subscription stored while the server was on https (or before this check): its test send
    # is a failure with the same reason, never a 500.
    fields = {name: value for name, value in form.items() if name != "kind"}
    stored = channels.add_channel(services.items, services.sealer, person.user_id, "webpush", fields, now_timestamp(),
                                  RULES)  # fmt: skip
    sent = person.post("/settings/reminders/test", {"channel": stored.id})
    assert sent.status_code == 303, sent.status_code
    record = channels.find_channel(services.items, person.user_id, stored.id)
    assert record["lastFailure"]["reason"].startswith("Web Push needs this server on an https:// address")
    assert receivers.push.received == []


def test_mesq_serve_links_reminders_to_the_port_it_binds():
    """Without a public URL, `mesq serve --port 8877` links reminders to http://localhost:8877 (what
    its banner prints), not to a port nothing listens on; a public URL still wins."""
    from mesq.runtime.cli.serve import served
    from mesq.wiring.config import Settings
    from mesq.wiring.services import reminder_reach

    assert reminder_reach(served(Settings(), "127.0.0.1", 8877)).public_url == "http://localhost:8877"
    assert reminder_reach(served(Settings(), "192.168.1.5", 9000)).public_url == "http://192.168.1.5:9000"
    assert reminder_reach(served(Settings(), "fe80::1", 9000)).public_url == "http://[fe80::1]:9000"
    public = Settings(public_url="https://mesq.example")
    assert reminder_reach(served(public, "127.0.0.1", 8877)).public_url == "https://mesq.example"
