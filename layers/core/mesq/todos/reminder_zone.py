"""The reminder index when the user's zone changes (docs/contract.md §12; sweep F7).

A relative reminder of a root task whose due is a date and that has no zone of its own counts
from the start of that day in the user's zone (`reminder_schedule.instants`), so the instant its
index item names moves with that zone. `set_user_zone` stores a new zone (`auth/user_zone.py`)
and `rezone` moves those items: every task whose instants `reminder_schedule.depends_on_user_zone`
gets the index item of its next instant after `now` in the new zone (put, moved or deleted), each
write conditioned on the item it read, so a task written meanwhile, which re-indexed itself,
wins. Other tasks are not read beyond what finding these costs: on a board in the due index
(`due_index.py`) its open dated tasks' keys (covers say which are date-only and zoneless) and
those tasks by key; on a board written before that index, every task.

`rezone(..., catch_up=True)` is the one-time move of the items written before reminders of such
dues followed the user's zone (they were placed in UTC; `jobs/reminder_tick.py` runs it once for
every user with a zone): a reminder whose new instant has passed while its old one had not yet
come was never sent, so its item goes to the current minute's bucket, and the next tick sends it
late rather than never.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from ..auth.user_zone import set_zone
from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore
from ..store.paging import walk
from . import due_index
from .keys import KIND_PREFIX, UNDATED, prefix_range, record_of
from .reminder_schedule import (
    INDEX_PREFIX,
    depends_on_user_zone,
    from_due,
    index_item,
    index_key,
    instants,
    next_instant,
)
from .views.query import due_moment, floating_zone


def set_user_zone(items: ItemStore, user_id: str, name: str, now: datetime) -> str:
    """Store the user's zone (checked, `user_zone.set_zone`) and move the reminders it places."""
    zone = set_zone(items, user_id, name)
    rezone(items, user_id, zone, now)
    return zone


def rezone(items: ItemStore, user_id: str, zone: str | None, now: datetime, *, catch_up: bool = False) -> int:
    """Point the index item of every task whose reminders the user's zone places at its next
    instant after `now` in `zone`; how many items were put or deleted."""
    placed = {
        str(entry["sk"]).removeprefix(INDEX_PREFIX): entry
        for entry in walk(items, user_partition(user_id), prefix=INDEX_PREFIX)
    }
    moved = 0
    for task in _placed_by_the_zone(items, user_id):
        current = placed.get(str(task["id"]))
        wanted = _wanted(user_id, task, zone, now, current, catch_up)
        if _write(items, user_id, str(task["id"]), current, wanted):
            moved += 1
    return moved


def _placed_by_the_zone(items: ItemStore, user_id: str) -> Iterable[Item]:
    """The live, open root tasks with a date-only due and no zone of their own that have a
    relative reminder (what `depends_on_user_zone` says)."""
    if due_index.is_indexed(items, user_id):
        entries = due_index.entries(items, user_id, statuses=(False,), priorities=None, days=(None, UNDATED))
        ids = [ident for ident, cover in entries if cover is None or _may_depend(cover)]
        found: Iterable[Item] = due_index.tasks_by_id(items, user_id, ids)
    else:
        start, end = prefix_range(KIND_PREFIX["task"])
        found = (record_of(item) for item in walk(items, user_partition(user_id), start=start, end=end))
    return (task for task in found if depends_on_user_zone(task))


def _may_depend(cover: Item) -> bool:
    """What a due-index entry says of a task is no reason to leave it out (its reminders are not
    in the cover: the record says)."""
    due = cover.get("due")
    return (
        cover.get("parentId") is None
        and isinstance(due, dict)
        and due.get("type") == "date"
        and floating_zone(cover.get("timezone"), None, None) is None
    )


def _wanted(
    user_id: str, task: Item, zone: str | None, now: datetime, current: Item | None, catch_up: bool
) -> Item | None:
    """The index item the task should have (None: none)."""
    task_id = str(task["id"])
    if catch_up and current is not None and instants(task, zone):
        missed = _missed(task, zone, now)
        if missed is not None:
            return index_item(user_id, task_id, missed, now)
    following = next_instant(task, now, zone)
    return None if following is None else index_item(user_id, task_id, following)


def _missed(task: Item, zone: str | None, now: datetime) -> datetime | None:
    """The earliest relative reminder whose instant in `zone` has passed while its instant in
    UTC (where the index placed it before) is still to come: one never sent."""
    due, own = task.get("due"), task.get("timezone")
    before, after = due_moment(due, own), due_moment(due, own, floating_zone(zone, None, None))
    if before is None or after is None:
        return None
    late: list[datetime] = []
    for reminder in task.get("reminders") or ():
        if reminder.get("type") != "relative":
            continue
        try:
            text = str(reminder["offset"])
            was, will = from_due(before, text, UTC), from_due(after, text, floating_zone(zone, None, None) or UTC)
            if will <= now < was:
                late.append(will)
        except (ValidationError, OverflowError, KeyError):
            continue  # never stored by our writes; `instants` passes it over too
    return min(late) if late else None


def _write(items: ItemStore, user_id: str, task_id: str, current: Item | None, wanted: Item | None) -> bool:
    """Put or delete the task's index item when it is not `wanted`, conditioned on `current`
    (the item read); whether it wrote."""
    same = ("at", "gsi2pk")
    if current is not None and wanted is not None and all(current.get(k) == wanted.get(k) for k in same):
        return False
    if current is None and wanted is None:
        return False
    guard = Condition(exists=False) if current is None else Condition(equals={"at": current["at"]})
    try:
        if wanted is None:
            items.delete(index_key(user_id, task_id), guard)
        else:
            items.put(wanted, guard)
    except ConditionFailed:  # the task was written meanwhile and indexed itself
        return False
    return True


__all__ = ["rezone", "set_user_zone"]
