"""Reminder fixtures: a loopback receiver, a local sealer, and a helper that gives a user a task
with reminders (through the real todo operations) and a webhook channel."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.timestamps import format_timestamp, now_timestamp
from mesq.reminders import channels
from mesq.wiring.services import Services
from tests.settings import inprocess_settings
from tests.support.operations import call_of, run_operation

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint, dynamodb_local_env  # noqa: F401
from .receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    started = Receiver().start()
    yield started
    started.stop()


@pytest.fixture
def sealer(tmp_path: Path) -> LocalKeySealer:
    return LocalKeySealer(tmp_path / "keys" / "secrets.key")


def todo_call(items: ItemStore, user_id: str, operation_id: str, **arguments: Any) -> dict[str, Any]:
    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    call = call_of(services, user_id, {"todo:read", "todo:write"}, trace_id=uuid.uuid4().hex)
    return dict(run_operation(call, operation_id, arguments))


def user_with_reminders(
    items: ItemStore,
    sealer: LocalKeySealer,
    receiver: Receiver,
    tasks: int,
    *,
    seconds_ahead: int = 3,
    url: str | None = None,
) -> tuple[str, datetime]:
    """A new user with `tasks` tasks, each reminded `seconds_ahead` from now (absolute) and at
    its due minus 15 minutes (relative), and one webhook to `receiver` (or to `url`). Returns the user and
    the moment by which every reminder is due."""
    user_id = "u-" + uuid.uuid4().hex[:10]
    now = datetime.now(UTC)
    soon = now + timedelta(seconds=seconds_ahead)
    due = soon + timedelta(minutes=15, seconds=1)
    for number in range(tasks):
        task = todo_call(items, user_id, "create_todo_task", title=f"task {number}",
                         due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
        reminders = [{"type": "absolute", "at": format_timestamp(soon)}, {"type": "relative", "offset": "-PT15M"}]
        todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=reminders)  # fmt: skip
    channel = channels.add_webhook(items, sealer, user_id, url or receiver.url, now_timestamp(), allow_loopback=True)
    receiver.secrets.append(channel.secret)
    return user_id, due
