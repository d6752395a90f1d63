"""Reminders of a date-only due start its day in the task's zone, else the user's, else UTC
(sweep F7): the reading get_todo_task's `timezone` and the overdue and today views use. The
index moves when the user's zone changes, and the first tick after the upgrade moves the items
written while such reminders were placed in UTC, sending late (once) one whose new time passed
while its old one had not come."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.auth.user_zone import set_zone
from mesq.auth.users import create_user
from mesq.jobs.reminder_tick import CURSOR_KEY, INDEX_VERSION, run_due_reminder_tick
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.timestamps import format_timestamp, now_timestamp
from mesq.reminders import channels
from mesq.todos.reminder_schedule import INDEX_PREFIX, bucket, index_item

from .conftest import todo_call
from .receiver import Receiver

SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YORK = ZoneInfo("America/New_York")


def _day() -> date:
    """A date three days on: every reminder of it is still to come."""
    return datetime.now(UTC).date() + timedelta(days=3)


def _start(day: date, zone: Any) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def _index(items: ItemStore, user_id: str) -> dict[str, str]:
    """task id -> the instant its index item names."""
    return {e["taskId"]: e["at"] for e in items.query(f"U#{user_id}", prefix=INDEX_PREFIX).items}


def _at(moment: datetime) -> str:
    return format_timestamp(moment)


def _task(items: ItemStore, user_id: str, day: date, offsets: list[str], **fields: Any) -> dict[str, Any]:
    task = todo_call(items, user_id, "create_todo_task", title="交房租", due={"type": "date", "date": day.isoformat()},
                     **fields)["task"]  # fmt: skip
    reminders = [{"type": "relative", "offset": offset} for offset in offsets]
    return dict(todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                          reminders=reminders)["task"])  # fmt: skip


def _user(items: ItemStore, name: str, zone: str | None) -> str:
    user_id = str(create_user(items, name, "correct horse battery")["id"])
    if zone is not None:
        set_zone(items, user_id, zone)
    return user_id


def test_a_date_only_due_is_reminded_in_the_users_zone(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    """A Shanghai user's "9:00 that day" arrives at 09:00 Shanghai (01:00Z), not 17:00; the task's
    own zone wins over the user's; a user without a zone keeps UTC."""
    items = SQLiteItemStore(tmp_path / "mesq.db")
    day = _day()
    lin = _user(items, "lin", "Asia/Shanghai")
    rent = _task(items, lin, day, ["PT9H"])
    assert todo_call(items, lin, "get_todo_task", id=rent["id"])["timezone"] == "Asia/Shanghai"
    nine = _start(day, SHANGHAI) + timedelta(hours=9)
    assert _index(items, lin) == {rent["id"]: _at(nine)}
    own = _task(items, lin, day, ["PT9H"], timezone="America/New_York")
    assert _index(items, lin)[own["id"]] == _at(_start(day, NEW_YORK) + timedelta(hours=9))
    ada = _user(items, "ada", None)
    plain = _task(items, ada, day, ["PT9H"])
    assert _index(items, ada) == {plain["id"]: _at(_start(day, UTC) + timedelta(hours=9))}

    hook = channels.add_webhook(items, sealer, lin, receiver.url, now_timestamp(), allow_loopback=True)
    receiver.secrets.append(hook.secret)
    run_due_reminder_tick(items, sealer, nine - timedelta(minutes=1), backoff=(0.0,))  # the cursor, a minute before
    report = run_due_reminder_tick(items, sealer, nine + timedelta(seconds=5), backoff=(0.0,))
    assert report.delivered == 1 and [r["remindAt"] for r in receiver.received] == [_at(nine)]
    assert receiver.received[0]["task"]["timezone"] == "Asia/Shanghai"
    assert rent["id"] not in _index(items, lin)  # its only reminder is sent: the item is gone


def test_a_new_zone_moves_the_reminders_it_places(tmp_path: Path) -> None:
    """set_time_zone (REST, MCP, the settings page, `mesq user set-timezone`) moves the index
    items of date-only dues without a zone; a task with its own zone stays."""
    items = SQLiteItemStore(tmp_path / "mesq.db")
    day = _day()
    wei = _user(items, "wei", None)
    floating = _task(items, wei, day, ["PT9H", "-P1D"])
    fixed = _task(items, wei, day, ["PT9H"], timezone="Europe/Berlin")
    berlin = _at(_start(day, ZoneInfo("Europe/Berlin")) + timedelta(hours=9))
    assert _index(items, wei) == {floating["id"]: _at(_start(day, UTC) - timedelta(days=1)), fixed["id"]: berlin}
    todo_call(items, wei, "set_time_zone", timeZone="Asia/Shanghai")
    assert _index(items, wei) == {floating["id"]: _at(_start(day, SHANGHAI) - timedelta(days=1)), fixed["id"]: berlin}
    todo_call(items, wei, "set_time_zone", timeZone="America/New_York")
    assert _index(items, wei) == {floating["id"]: _at(_start(day, NEW_YORK) - timedelta(days=1)), fixed["id"]: berlin}


def _as_before_the_upgrade(items: ItemStore, user_id: str, task_id: str, utc_instant: datetime) -> None:
    """The index item as a write before sweep F7 left it (placed in UTC), and a cursor of then."""
    items.put(index_item(user_id, task_id, utc_instant))


def test_the_first_tick_after_the_upgrade_moves_old_items_and_sends_a_missed_one_late(
    tmp_path: Path, sealer: LocalKeySealer, receiver: Receiver
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    day = _day()
    lin = _user(items, "lin", "Asia/Shanghai")
    hook = channels.add_webhook(items, sealer, lin, receiver.url, now_timestamp(), allow_loopback=True)
    receiver.secrets.append(hook.secret)
    later = _task(items, lin, day + timedelta(days=1), ["PT9H"])  # both instants still to come
    missed = _task(items, lin, day, ["PT9H"])  # its Shanghai 09:00 passes before the tick, its UTC one not
    nine = _start(day, SHANGHAI) + timedelta(hours=9)
    _as_before_the_upgrade(items, lin, later["id"], _start(day + timedelta(days=1), UTC) + timedelta(hours=9))
    _as_before_the_upgrade(items, lin, missed["id"], _start(day, UTC) + timedelta(hours=9))
    tick_at = nine + timedelta(hours=2)  # 11:00 Shanghai, 03:00Z: the old item waits for 09:00Z
    items.put({"pk": CURSOR_KEY[0], "sk": CURSOR_KEY[1], "bucket": bucket(tick_at - timedelta(minutes=1))})

    report = run_due_reminder_tick(items, sealer, tick_at, backoff=(0.0,))
    assert report.delivered == 1 and [r["remindAt"] for r in receiver.received] == [_at(nine)]
    assert _index(items, lin) == {later["id"]: _at(_start(day + timedelta(days=1), SHANGHAI) + timedelta(hours=9))}
    assert items.get(CURSOR_KEY)["index"] == INDEX_VERSION  # once
    again = run_due_reminder_tick(items, sealer, _start(day, UTC) + timedelta(hours=9, seconds=5), backoff=(0.0,))
    assert again.delivered == 0 and len(receiver.received) == 1  # the old 09:00Z is no reminder any more
