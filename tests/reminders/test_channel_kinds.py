"""Email, ntfy and Telegram, end to end against loopback fakes the test starts: two ticking
processes on one SQLite file, and each fake gets each reminder occurrence exactly once, holding
what a person needs (the title, the due time in the task's zone, the link to the task)."""

from __future__ import annotations

import email.header
import json
import os
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.timestamps import format_timestamp, now_timestamp
from mesq.reminders import channels
from mesq.reminders.channels import Destinations

from .conftest import todo_call
from .fakes import HTTPFake, SMTPFake
from .receiver import Receiver
from .tick_process import tick_together

REPO = Path(__file__).resolve().parents[2]
TASKS = 4
PUBLIC = "https://mesq.example"
BOT = "123456:" + "A" * 35


@pytest.fixture
def smtp() -> Iterator[SMTPFake]:
    fake = SMTPFake().start()
    yield fake
    fake.stop()


@pytest.fixture
def ntfy() -> Iterator[HTTPFake]:
    fake = HTTPFake().start()
    yield fake
    fake.stop()


@pytest.fixture
def telegram() -> Iterator[HTTPFake]:
    fake = HTTPFake().start()
    yield fake
    fake.stop()


def test_email_ntfy_and_telegram_each_get_each_reminder_once_from_two_ticking_processes(
    tmp_path: Path, sealer: LocalKeySealer, smtp: SMTPFake, ntfy: HTTPFake, telegram: HTTPFake
) -> None:
    db = tmp_path / "mesq.db"
    items = SQLiteItemStore(db)
    user_id = "u-" + uuid.uuid4().hex[:10]
    soon = datetime.now(UTC) + timedelta(seconds=2)
    due = (soon + timedelta(hours=1)).replace(second=0, microsecond=0)
    tasks = {}
    for number in range(TASKS):
        task = todo_call(items, user_id, "create_todo_task", title=f"Call the plumber {number}",
                         priority=["low", "high", "urgent", "none"][number], timezone="Asia/Shanghai",
                         due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
        todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
        tasks[task["title"]] = task
    rules = Destinations(allow_loopback=True, telegram_api=telegram.base)
    now = now_timestamp()
    mail = {"host": "127.0.0.1", "port": str(smtp.port), "security": "none", "from": "mesq@example.org",
            "to": "me@example.org"}  # fmt: skip
    channels.add_channel(items, sealer, user_id, "email", mail, now, rules)
    channels.add_channel(items, sealer, user_id, "ntfy", {"url": ntfy.base + "/my-topic", "token": "tk_secret"},
                         now, rules)  # fmt: skip
    channels.add_channel(items, sealer, user_id, "telegram", {"token": BOT, "chat": "4242"}, now, rules)
    stored = repr(items.query(f"U#{user_id}", prefix="REMIND#CHANNEL#").items)
    assert BOT not in stored and "tk_secret" not in stored  # sealed at rest

    tick_at = (soon + timedelta(seconds=5)).isoformat()
    reach = json.dumps({"public_url": PUBLIC, "telegram_api": telegram.base})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "layers" / "core"), str(REPO)])}
    reports = tick_together([str(db), str(sealer.key_file), tick_at, reach], REPO, env)
    assert sum(r["delivered"] for r in reports) == TASKS and all(r["due"] >= 1 for r in reports), reports
    local_due = due.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:%M")

    # email: one per occurrence, plain text and HTML, the title, the local due time and the link
    assert len(smtp.messages) == TASKS
    subjects = Counter(str(message["Subject"]) for message in smtp.messages)
    assert subjects == Counter(f"Reminder: {title}" for title in tasks)
    for message in smtp.messages:
        title = str(message["Subject"]).removeprefix("Reminder: ")
        text = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert title in text and f"{local_due} (China Time)" in text
        assert f"{PUBLIC}/todos/tasks/{tasks[title]['id']}" in text
        assert f"/todos/tasks/{tasks[title]['id']}" in message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert smtp.envelopes[0] == ("mesq@example.org", ["me@example.org"])

    # ntfy: the topic POST with title, priority and click URL (and the access token)
    assert len(ntfy.received) == TASKS and {r.path for r in ntfy.received} == {"/my-topic"}
    by_click = {r.headers["click"]: r for r in ntfy.received}
    for number, (title, task) in enumerate(tasks.items()):
        posted = by_click[f"{PUBLIC}/todos/tasks/{task['id']}"]
        decoded = str(email.header.make_header(email.header.decode_header(posted.headers["title"])))
        assert decoded == title and posted.headers["priority"] == ["2", "4", "5", "3"][number]
        assert posted.headers["authorization"] == "Bearer tk_secret" and local_due in posted.body.decode()

    # Telegram: sendMessage with the chat id and a text holding the link
    assert len(telegram.received) == TASKS and {r.path for r in telegram.received} == {f"/bot{BOT}/sendMessage"}
    sent = [json.loads(r.body) for r in telegram.received]
    assert {m["chat_id"] for m in sent} == {"4242"}
    assert Counter(next(t for t in tasks if t in m["text"]) for m in sent) == Counter(list(tasks))
    assert all(f"{PUBLIC}/todos/tasks/" in m["text"] and local_due in m["text"] for m in sent)
    for record in channels.channel_records(items, user_id):
        assert record["lastSuccessAt"] and record["lastFailure"] is None, record


def test_a_task_without_a_zone_is_reminded_in_the_users_todo_zone(
    tmp_path: Path, sealer: LocalKeySealer, smtp: SMTPFake, ntfy: HTTPFake, telegram: HTTPFake, receiver: Receiver
) -> None:
    """Email, ntfy, Telegram and the webhook's `task.timezone` use the user's todo default zone
    (as get_todo_task reports it), not UTC, when the task has none."""
    from mesq.jobs.reminder_tick import run_due_reminder_tick
    from mesq.kernel.ports.storage import Update
    from mesq.reminders.transport import Reach
    from mesq.todos import keys as todo_keys

    items = SQLiteItemStore(tmp_path / "mesq.db")
    user_id = "u-" + uuid.uuid4().hex[:10]
    soon = datetime.now(UTC) + timedelta(seconds=1)
    due = (soon + timedelta(hours=1)).replace(second=0, microsecond=0)
    task = todo_call(items, user_id, "create_todo_task", title="Water the plants",
                     due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
    todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
              reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
    items.update(Update(key=todo_keys.settings_key(user_id), set={"timezone": "America/New_York"}))
    assert todo_call(items, user_id, "get_todo_task", id=task["id"])["timezone"] == "America/New_York"
    rules = Destinations(allow_loopback=True, telegram_api=telegram.base)
    now = now_timestamp()
    mail = {"host": "127.0.0.1", "port": str(smtp.port), "security": "none", "from": "mesq@example.org",
            "to": "me@example.org"}  # fmt: skip
    channels.add_channel(items, sealer, user_id, "email", mail, now, rules)
    channels.add_channel(items, sealer, user_id, "ntfy", {"url": ntfy.base + "/my-topic"}, now, rules)
    channels.add_channel(items, sealer, user_id, "telegram", {"token": BOT, "chat": "4242"}, now, rules)
    receiver.secrets.append(channels.add_webhook(items, sealer, user_id, receiver.url, now, allow_loopback=True).secret)

    report = run_due_reminder_tick(items, sealer, soon + timedelta(seconds=5), backoff=(0.0,),
                                   reach=Reach(rules, PUBLIC))  # fmt: skip
    assert report.delivered == 1 and report.failed == 0, report
    local = f"{due.astimezone(ZoneInfo('America/New_York')):%Y-%m-%d %H:%M} (Eastern Time)"
    assert local != f"{due:%Y-%m-%d %H:%M} (Eastern Time)"  # the zone moves the clock time
    (message,) = smtp.messages
    assert local in message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert local in message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    (posted,) = ntfy.received
    assert local in posted.body.decode()
    (sent,) = telegram.received
    assert local in json.loads(sent.body)["text"]
    (hook,) = receiver.received
    assert hook["task"]["timezone"] == "America/New_York" and hook["task"]["due"]["at"] == task["due"]["at"]


def test_reminders_speak_the_users_language(
    tmp_path: Path, sealer: LocalKeySealer, smtp: SMTPFake, ntfy: HTTPFake, telegram: HTTPFake, receiver: Receiver
) -> None:
    """Issue 41: a person whose language is Chinese (Settings → Language, else the browser's at
    their last sign-in) gets Chinese reminders on every channel: the subject, the due, the zone
    by its Chinese name; the webhook's JSON (for programs) is the same in every language."""
    from mesq.auth.users import create_user, note_browser_language, set_setting
    from mesq.jobs.reminder_tick import run_due_reminder_tick
    from mesq.reminders.transport import Reach

    items = SQLiteItemStore(tmp_path / "mesq.db")
    soon = datetime.now(UTC) + timedelta(seconds=30)  # after the two accounts are made (argon2)
    due = (soon + timedelta(hours=1)).replace(second=0, microsecond=0)
    rules = Destinations(allow_loopback=True, telegram_api=telegram.base)
    mail = {"host": "127.0.0.1", "port": str(smtp.port), "security": "none", "from": "mesq@example.org",
            "to": "me@example.org"}  # fmt: skip
    users = []
    for name, how in (("lin", "setting"), ("wei", "browser")):
        user_id = create_user(items, name, "correct horse battery")["id"]
        if how == "setting":
            set_setting(items, user_id, "language", "zh")
        else:
            note_browser_language(items, user_id, "zh")
        task = todo_call(items, user_id, "create_todo_task", title="给花浇水", timezone="Asia/Shanghai",
                         due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
        todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
        now = now_timestamp()
        channels.add_channel(items, sealer, user_id, "email", mail, now, rules)
        channels.add_channel(items, sealer, user_id, "ntfy", {"url": ntfy.base + "/my-topic"}, now, rules)
        channels.add_channel(items, sealer, user_id, "telegram", {"token": BOT, "chat": "4242"}, now, rules)
        receiver.secrets.append(channels.add_webhook(items, sealer, user_id, receiver.url, now,
                                                     allow_loopback=True).secret)  # fmt: skip
        users.append(user_id)

    report = run_due_reminder_tick(items, sealer, soon + timedelta(seconds=5), backoff=(0.0,),
                                   reach=Reach(rules, PUBLIC))  # fmt: skip
    assert report.delivered == 2 and report.failed == 0, report
    local = f"{due.astimezone(ZoneInfo('Asia/Shanghai')):%Y-%m-%d %H:%M}（中国时间）"
    for message in smtp.messages:
        assert str(message["Subject"]) == "提醒：给花浇水"
        assert message["Date"] is not None and message["Message-ID"] is not None  # RFC 5322 §3.6
        plain = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert f"截止：{local}" in plain and "Due" not in plain and "Reminder" not in plain
        assert "打开任务" in message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert [r.body.decode() for r in ntfy.received] == [f"截止 {local}"] * 2
    assert all(json.loads(r.body)["text"].startswith("提醒：给花浇水\n截止：") for r in telegram.received)
    assert [hook["type"] for hook in receiver.received] == ["todo.reminder"] * 2  # the JSON: no words


def test_a_refused_bot_token_is_the_channels_last_failure_and_never_shown(
    tmp_path: Path, sealer: LocalKeySealer, telegram: HTTPFake
) -> None:
    import anyio

    from mesq.adapters.reminders.delivery import new_client
    from mesq.jobs.reminder_tick import deliver
    from mesq.reminders.transport import Reach

    items = SQLiteItemStore(tmp_path / "mesq.db")
    rules = Destinations(allow_loopback=True, telegram_api=telegram.base)
    channel = channels.add_channel(
        items, sealer, "u-1", "telegram", {"token": BOT, "chat": "1"}, now_timestamp(), rules
    )
    telegram.status = 401

    async def send() -> dict[str, str]:
        async with new_client() as client:
            return await deliver(items, sealer, "u-1", {"type": "test", "id": "t", "task": None}, client=client,
                                 attempts=1, reach=Reach(rules, PUBLIC))  # fmt: skip

    failures = anyio.run(send)
    assert failures == {channel.id: "Telegram refused the bot token"}
    (record,) = channels.channel_records(items, "u-1")
    assert BOT not in repr(record)


@pytest.mark.parametrize(
    ("kind", "fields", "error"),
    [
        ("telegram", {"token": "nope", "chat": "1"}, "bot token"),
        ("telegram", {"token": BOT, "chat": "x y"}, "chat id"),
        (
            "email",
            {"host": "10.0.0.2", "port": "25", "from": "a@b.c", "to": "d@e.f"},
            "MESQ_ALLOW_PRIVATE_DESTINATIONS",
        ),
        ("email", {"host": "smtp.example", "port": "99999", "from": "a@b.c", "to": "d@e.f"}, "port"),
        ("email", {"host": "smtp.example", "security": "none", "from": "a@b.c", "to": "d@e.f"}, "without TLS"),
        ("email", {"host": "smtp.example", "from": "nobody", "to": "d@e.f"}, "From address"),
        ("ntfy", {"url": "http://192.168.1.10/topic"}, "MESQ_ALLOW_PRIVATE_DESTINATIONS"),
        ("ntfy", {"url": "https://ntfy.sh/"}, "topic"),
        ("pager", {}, "unknown channel kind"),
    ],
)
def test_bad_channel_fields_are_refused_with_their_reason(
    tmp_path: Path, sealer: LocalKeySealer, kind: str, fields: dict[str, str], error: str
) -> None:
    from mesq.kernel.errors import ValidationError

    items = SQLiteItemStore(tmp_path / "mesq.db")
    with pytest.raises(ValidationError, match=error):
        channels.add_channel(items, sealer, "u-1", kind, fields, now_timestamp(), Destinations())
    assert channels.channel_records(items, "u-1") == []
