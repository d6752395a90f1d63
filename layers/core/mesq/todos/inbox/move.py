"""move_todo_inbox_item_to_board: an inbox item becomes a root task, its inbox subtasks become
that task's subtasks, and the item leaves the inbox — in ONE transaction.

The transaction: the root task and each subtask (conditional "must not exist" Puts), a Check
that the destination column still exists and is not archived, the removal of the inbox item
conditioned on the revision the caller named, and registrations of tags the registry lost
meanwhile. So a concurrent edit of the item, a concurrent move (of the same item) or an archived
or deleted column leaves everything as it was. At most 1 + 50 + 1 + 1 + 20 = 73 operations
(MAX_INBOX_SUBTASKS, MAX_TAGS_PER_RECORD), under DynamoDB's 100.

The task keeps the item's id (and each subtask its inbox subtask's id), so references an agent
holds stay valid, and the item's `createdAt` (it was captured then).
"""

from __future__ import annotations

from typing import Any

from ...kernel.context import Call
from ...kernel.errors import MesqError, ValidationError
from ...kernel.ports.storage import Check, Condition, Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model, recurrence
from ..destinations import resolve_destination
from ..reminder_schedule import check_reminders
from ..state import TodoState
from ..sync.links import SYNC_FIELD, alarms_kept_for_the_app, held_of
from ..writes import Built, apply, delete_revised, put_new, tag_registrations
from . import records as inbox_records
from .access import conflict_for, item_in


def board_records(item: Item, space_id: str, column_id: str, position: str, now: str) -> tuple[Item, list[Item]]:
    """The root task and subtasks an inbox item turns into (pure)."""
    task: Item = {
        "id": item["id"],
        "spaceId": space_id,
        "columnId": column_id,
        "parentId": None,
        **{name: item.get(name) for name in ("title", "notes", "priority", "tags", "due", "timezone", "recurrence")},
        "reminders": list(item.get("reminders") or []),
        "attachments": list(item.get("attachments") or []),
        "done": bool(item.get("done")),
        "completedAt": item.get("completedAt"),
        "position": position,
        "revision": 1,
        "createdAt": item["createdAt"],
        "updatedAt": now,
        "deletedAt": None,
    }
    if item.get(SYNC_FIELD):  # a sync client's name and UID go with it: it sees the task move calendars
        task.update(_taken_over(task, item[SYNC_FIELD]))
    subtasks = [
        {
            "id": sub["id"],
            "spaceId": space_id,
            "columnId": None,
            "parentId": task["id"],
            "title": sub["title"],
            "notes": sub.get("notes") or "",
            "priority": "none",
            "tags": [],
            "due": None,
            "timezone": None,
            "recurrence": None,
            "reminders": [],
            "attachments": list(sub.get("attachments") or []),
            "done": bool(sub.get("isDone")),
            # Inbox subtasks keep no completion time; the move is the first moment one is known.
            "completedAt": now if sub.get("isDone") else None,
            "position": sub["position"],
            "revision": 1,
            "createdAt": now,
            "updatedAt": now,
            "deletedAt": None,
        }
        for sub in inbox_records.ordered_subtasks(item)
    ]
    return task, subtasks


def _taken_over(task: Item, link: dict[str, Any]) -> Item:
    """The app's RRULE and VALARMs, which the inbox item only kept for the app (`held`), become
    the task's recurrence and reminders when the task can act on them (the checks a CalDAV PUT
    on a board calendar makes); each one taken over leaves `kept`, so the app's own lines come
    back once, as the task's. One the checks refuse (a rule that never gives a date) stays the
    app's own data, given back unchanged, and the move goes on."""
    held = held_of(link)  # an item from before `held` was kept: the reading stored with its lines
    kept = list(link.get("kept") or [])
    taken: Item = {}
    rule = held.get("recurrence")
    if isinstance(rule, str) and rule and not task.get("recurrence") and "recurrence" in kept:
        try:
            rule = recurrence.normalized(rule)
            recurrence.check_rule(rule, task.get("due"), task.get("timezone"))
        except ValidationError:
            pass  # the app's own rule, as the inbox item kept it
        else:
            taken["recurrence"], kept = rule, [f for f in kept if f != "recurrence"]
    alarms = held.get("reminders")
    rest = {name: value for name, value in link.items() if name != "held"}
    if isinstance(alarms, list) and alarms and not task.get("reminders") and "reminders" in kept:
        accepted, refused = _checked_alarms(alarms, task.get("due"))
        if accepted:
            taken["reminders"] = accepted
        if not refused:
            kept = [f for f in kept if f != "reminders"]
        elif accepted and (own := alarms_kept_for_the_app(rest, refused)) is not None:
            # each alarm taken over comes back once as the task's, each refused one as the app's
            rest, kept = own, [f for f in kept if f != "reminders"]
    return {**taken, SYNC_FIELD: {**rest, "kept": kept}}


def _checked_alarms(alarms: list[Any], due: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """The alarms the reminder checks accept one by one (as the task's reminders) and the ones
    they refuse (a relative one once the item has no due): one refused alarm no longer keeps
    the others from the task."""
    accepted: list[dict[str, Any]] = []
    refused: list[Any] = []
    for alarm in alarms:
        try:
            accepted += check_reminders([alarm], due)
        except (ValidationError, KeyError, TypeError, AttributeError):  # a held value of another shape too
            refused.append(alarm)
    return check_reminders(accepted, due), refused


def move_todo_inbox_item_to_board(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id, item_id = call.principal.user_id, args["id"]

    def build(state: TodoState) -> Built:
        before = item_in(state, item_id, args["expectedRevision"])
        space, column = resolve_destination(state, args.get("spaceId"), args.get("spaceSlug"), args.get("columnId"))
        now = now_timestamp()
        position = model.position_for_index(state.root_positions(column["id"]), None)
        task, subtasks = board_records(before, space["id"], column["id"], position, now)
        ops: list[WriteOp] = [put_new(user_id, "task", task)]
        ops += [put_new(user_id, "task", sub) for sub in subtasks]
        ops.append(Check(keys.column_key(user_id, column["id"]), Condition(equals={"archived": False})))
        ops.append(delete_revised(user_id, "inbox", before))
        ops += tag_registrations(state, user_id, task["tags"], now)
        data = {
            "task": model.public_task(task),
            "subtasks": [model.public_task(sub) for sub in subtasks],
            "movedItemId": before["id"],
        }
        return data, ops

    def conflict(state: TodoState) -> MesqError:
        current = state.inbox_item(item_id)
        if current is None or current["revision"] != args["expectedRevision"] or not keys.live(current):
            return conflict_for(item_id)(state)
        return ValidationError(
            "the destination column was archived or deleted while moving; nothing was changed: "
            "check the destination and try again"
        )

    # `apply` makes the default space first (its own idempotent transaction), so a move without a
    # destination never fails for a new user.
    return apply(call, build, conflict)
