"""set_todo_reminders / clear_todo_reminders: a root task's reminders (docs/contract.md §12).

The write is the task's own (revision-conditioned); the reminder index item the scheduled tick
reads is rewritten in the same transaction by `writes.apply` (`reminder_schedule.index_ops`).
Delivery channels are not here: they are browser-only (mesq/reminders).
"""

from __future__ import annotations

from typing import Any

from ...kernel.context import Call
from ...kernel.ports.storage import Item, WriteOp
from ..reminder_schedule import check_reminders
from ..state import TodoState
from ..writes import bump
from .tasks import root_write


def set_todo_reminders(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp], None]:
        reminders = check_reminders(args["reminders"], before.get("due"))
        return {**before, **bump(before, now), "reminders": reminders}, [], None

    return root_write(call, args, change, tool="set_todo_reminders")


def clear_todo_reminders(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp], None]:
        if not before.get("reminders"):
            return before, [], None
        return {**before, **bump(before, now), "reminders": []}, [], None

    return root_write(call, args, change, tool="clear_todo_reminders")
