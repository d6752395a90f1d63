"""When a root task's reminders fire, and the index the scheduled tick finds them through
(docs/contract.md §12). Pure: no I/O.

A reminder is `{"type": "absolute", "at": <ISO with offset>}` or `{"type": "relative", "offset":
<ISO 8601 duration>}` (from the due: -PT15M, -P1D; a date-only due counts from the start of its
day in the task's zone, else the user's zone, else UTC: `views/query.due_moment`, the reading of
a due the overdue and today views and get_todo_task's `timezone` use). Relative reminders follow
each occurrence of a recurring task, since the due advances. A done, trashed or subtask record
has none that fire.

Only the instants of a task with a date-only due and no zone of its own depend on the user's
zone; when that zone changes, `reminder_zone.rezone` moves their index items.

The index: one item per task with a reminder still to fire, `U#<user>` / `REMIND#TASK#<taskId>`
(`at` = the next instant), whose GSI2 partition is the minute bucket `REMINDERS#<yyyy-mm-ddThh:mm>`
(UTC) of that instant. The tick queries buckets, never users. Every todo write that changes a
task's next instant rewrites the item in the same transaction (`index_ops`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

import isodate

from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Delete, Item, Key, Put, WriteOp
from ..kernel.timestamps import format_timestamp, parse_timestamp, wall_clock
from .keys import KIND_PREFIX, live, record_of
from .views.query import due_moment, floating_zone

MAX_REMINDERS = 5
INDEX_PREFIX = "REMIND#TASK#"
BUCKET_PREFIX = "REMINDERS#"


def parse_offset(text: str, field: str = "offset") -> timedelta:
    """An ISO 8601 duration in weeks, days, hours, minutes, seconds (the schema's pattern)."""
    try:
        value = isodate.parse_duration(text)
    except (isodate.ISO8601Error, ValueError):
        raise ValidationError(
            "%(field)s: %(text)s is not an ISO 8601 duration like -PT15M or -P1D", field=field, text=quoted(text)
        ) from None
    if not isinstance(value, timedelta):
        raise ValidationError("%(field)s: use weeks, days, hours, minutes or seconds (no years or months)", field=field)
    return value


def offset_parts(text: str) -> tuple[int, timedelta]:
    """An offset as RFC 5545 §3.3.6 reads a duration: its weeks and days as whole nominal days
    (calendar days: the same wall-clock time that many days away, however long a DST change
    makes them) and the exact rest (hours, minutes, seconds). `-P1DT2H` -> (-1, -2 hours)."""
    total = parse_offset(text)
    body = text.strip()
    negative = body.startswith("-")
    dated = body.lstrip("+-")[1:].split("T", 1)[0]  # after the P: the weeks and days
    nominal = parse_offset("P" + dated) if dated else timedelta(0)
    days = -nominal.days if negative else nominal.days
    return days, total - timedelta(days=days)


def from_due(due: datetime, text: str, zone: tzinfo) -> datetime:
    """The instant `text` (a relative reminder's offset) stands for from `due`, its days counted
    on the wall clock of `zone` (the zone a calendar shows the due in, so the feed's
    `TRIGGER:-P1D` and the reminder agree)."""
    days, exact = offset_parts(text)
    if days:
        wall = due.astimezone(zone).replace(tzinfo=None) + timedelta(days=days)
        due = wall.replace(tzinfo=zone).astimezone(UTC)  # a wall time in a DST gap: zoneinfo's reading
    return due.astimezone(UTC) + exact  # exact: counted on the instant, never on a wall clock


def check_reminders(reminders: Sequence[dict[str, Any]], due: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The reminders as stored (only checked; given order kept, duplicates dropped)."""
    unique = list({_identity(r): r for r in reminders}.values())
    for index, reminder in enumerate(unique):
        field = f"reminders[{index}]"
        if reminder["type"] == "absolute":
            parse_timestamp(str(reminder["at"]), f"{field}.at")
        else:
            parse_offset(str(reminder["offset"]), f"{field}.offset")
            if due is None:
                raise ValidationError(
                    "%(field)s: a relative reminder needs the task's due; set a due first", field=field
                )
    return [dict(r) for r in unique]


def _identity(reminder: dict[str, Any]) -> tuple[str, str]:
    return (str(reminder["type"]), str(reminder.get("at") or reminder.get("offset")))


def instants(task: Item, user_zone: str | None = None) -> list[datetime]:
    """Every instant (UTC) the task's reminders stand for now, sorted. `user_zone`: the user's
    zone (auth/user_zone.py), where a date-only due without a zone of its own starts its day."""
    if task.get("parentId") is not None or task.get("done") or not live(task):
        return []
    due = due_moment(task.get("due"), task.get("timezone"), floating_zone(user_zone, None, None))
    zone = _days_zone(task, user_zone) if due is not None else UTC
    found: set[datetime] = set()
    for reminder in task.get("reminders") or ():
        try:
            if reminder.get("type") == "absolute":
                found.add(parse_timestamp(str(reminder["at"]), "at"))
            elif due is not None:
                found.add(from_due(_on_its_clock(task, due, zone), str(reminder["offset"]), zone))
        except (ValidationError, OverflowError):
            continue  # never stored by our writes; a bad one must not stop the others
    return sorted(found)


def _on_its_clock(task: Item, due: datetime, zone: tzinfo) -> datetime:
    """A timed due on `zone`'s wall clock as written: a time the zone skips (02:30 on a spring
    change day, which a series keeps: `timestamps.wall_clock`) stays 02:30, so its days count from
    02:30 as a calendar counts the feed's TRIGGER from that DTSTART. Other dues: the instant."""
    written = task.get("due") or {}
    if written.get("type") != "datetime":
        return due
    try:
        return wall_clock(str(written["at"]), zone)
    except ValidationError:
        return due


def _days_zone(task: Item, user_zone: str | None) -> tzinfo:
    """Where a relative reminder counts its days: the task's own zone; else, for a date-only due,
    the zone its day starts in (the user's, else UTC); else the timed due's own offset (the
    user's zone would move these reminders when it changes, which `reminder_zone` does not
    follow: it moves those of date-only dues)."""
    own = floating_zone(task.get("timezone"), None, None)
    if own is not None:
        return own
    due = task.get("due") or {}
    if due.get("type") == "date":
        return floating_zone(user_zone, None, None) or UTC
    return datetime.fromisoformat(str(due.get("at"))).tzinfo or UTC


def next_instant(task: Item | None, after: datetime, user_zone: str | None = None) -> datetime | None:
    """The first instant strictly after `after`, or None."""
    if task is None:
        return None
    return next((moment for moment in instants(task, user_zone) if moment > after), None)


def depends_on_user_zone(task: Item) -> bool:
    """Whether the user's zone places some of the task's reminders: a root task with a date-only
    due, no zone of its own (or one this tzdata does not know) and a relative reminder."""
    due = task.get("due")
    return (
        isinstance(due, dict)
        and due.get("type") == "date"
        and task.get("parentId") is None
        and floating_zone(task.get("timezone"), None, None) is None
        and any(reminder.get("type") == "relative" for reminder in task.get("reminders") or ())
    )


def bucket(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


def bucket_partition(moment: datetime) -> str:
    return BUCKET_PREFIX + bucket(moment)


def index_key(user_id: str, task_id: str) -> Key:
    return (user_partition(user_id), INDEX_PREFIX + task_id)


def index_item(user_id: str, task_id: str, moment: datetime, found_at: datetime | None = None) -> Item:
    """The index item of the task's next instant `moment`, in the bucket of `found_at` (default:
    `moment`'s own; a reminder past due that a tick should still send goes in the current one)."""
    at = format_timestamp(moment)
    pk, sk = index_key(user_id, task_id)
    return {
        "pk": pk,
        "sk": sk,
        "gsi2pk": bucket_partition(found_at or moment),
        "gsi2sk": f"{at}#{user_id}#{task_id}",
        "userId": user_id,
        "taskId": task_id,
        "at": at,
    }


def index_ops(
    user_id: str, before_of: dict[str, Item], ops: Iterable[WriteOp], now: datetime, user_zone: str | None = None
) -> list[WriteOp]:
    """The index writes a todo transaction needs: for each task it puts, the next instant after
    `now` before and after the write (a date-only due read in `user_zone` when the task has no
    zone); when they differ, the index item is put or deleted."""
    extra: list[WriteOp] = []
    for op in ops:
        if not isinstance(op, Put) or not str(op.item.get("sk", "")).startswith(KIND_PREFIX["task"]):
            continue
        after = record_of(op.item)
        was = next_instant(before_of.get(str(after["id"])), now, user_zone)
        will = next_instant(after, now, user_zone)
        if was == will:
            continue
        task_id = str(after["id"])
        extra.append(
            Put(index_item(user_id, task_id, will)) if will is not None else Delete(index_key(user_id, task_id))
        )
    return extra
