"""Inbox subtask operations (toolset `todo_inbox`).

Addressing: an inbox subtask is named by its parent item and its own id (`parentItemId` +
`subtaskId`), the two fields every exposed subtask carries. Inbox subtasks live inside their
item's stored record, so the parent id is what locates the subtask with one key read (no
search through the user's inbox) and its revision is what guards the write.

Every write names `parentRevision` and conditionally rewrites the parent item (its revision goes
up by one); a mismatch is REVISION_CONFLICT whose `recoverData` is `{item: <current parent>,
subtask?: <the current subtask, when it still exists>}`, the same shape as the write's `data`.
"""

from __future__ import annotations

from typing import Any

from ...kernel.context import Call
from ...kernel.errors import ValidationError
from ...kernel.ports.storage import Item
from .. import model
from ..state import TodoState, load_partial
from ..views import budget
from ..writes import create_once
from . import records as inbox_records
from .access import Change, Recover, conflict_for, read_item, rewrite, rewrite_build
from .detail_context import detail_context, effective_timezone

SUBTASK_EDITABLE = ("title", "notes", "isDone", "index")


def _recover(subtask_id: str | None) -> Recover:
    def recover(current: Item) -> dict[str, Any]:
        data: dict[str, Any] = {"item": model.public_inbox_item(current)}
        found = [s for s in current.get("subtasks") or [] if s["id"] == subtask_id]
        if found:
            data["subtask"] = model.public_inbox_subtask(current, found[0])
        return data

    return recover


def _result(item: Item, subtask: Item) -> dict[str, Any]:
    return {"subtask": model.public_inbox_subtask(item, subtask), "item": model.public_inbox_item(item)}


# -- reads -------------------------------------------------------------------------------------


def list_todo_inbox_subtasks(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    item = read_item(call, args["parentItemId"])
    include_notes = bool(args.get("includeNotes", True))
    data = {
        "parentItemId": item["id"],
        "parentRevision": item["revision"],
        "subtasks": [
            model.public_inbox_subtask(item, sub, include_notes=include_notes)
            for sub in inbox_records.ordered_subtasks(item)
        ],
    }
    hints = ["includeNotes"] if include_notes else []
    return budget.ensure_fits(data, f"the subtasks of inbox item {item['id']!r}", hints=hints, record_id=item["id"])


def get_todo_inbox_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    item = read_item(call, args["parentItemId"])
    subtask = inbox_records.find_subtask(item, args["subtaskId"])
    include_context = bool(args.get("includeContext", False))
    state = load_partial(call.services.items, call.principal.user_id) if include_context else None
    data: dict[str, Any] = {
        "subtask": model.public_inbox_subtask(item, subtask),
        "timezone": effective_timezone(call, item.get("timezone"), state),
    }
    if state is not None:
        data.update(detail_context(state))
    return budget.with_notes_page(
        data,
        "subtask",
        args.get("notesOffset", 0),
        args.get("notesLimit"),
        what=f"inbox subtask {subtask['id']!r}" + (" with context" if include_context else ""),
        hints=["includeContext"] if include_context else [],
        record_id=subtask["id"],
        remedy="nothing is left to cut",
    )


# -- writes ------------------------------------------------------------------------------------


def create_todo_inbox_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    item_id = args["parentItemId"]

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, Item]:
        return inbox_records.added_subtask(before, args)

    build = rewrite_build(call, item_id, args["parentRevision"], change, _result, recover=_recover(None))
    return create_once(call, "create_todo_inbox_subtask", args, build, conflict_for(item_id, _recover(None)))


def _change(args: dict[str, Any], changes: dict[str, Any]) -> Change:
    subtask_id = args["subtaskId"]

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, Item]:
        after, subtask = inbox_records.changed_subtask(before, subtask_id, changes)
        if subtask == inbox_records.find_subtask(before, subtask_id):
            return before, subtask  # nothing changes: no new revision
        return after, subtask

    return change


def update_todo_inbox_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    changes: dict[str, Any] = {name: args[name] for name in SUBTASK_EDITABLE if name in args}
    if not changes:
        raise ValidationError(
            "give at least one of %(subtask_editable)s to change", subtask_editable=", ".join(SUBTASK_EDITABLE)
        )
    recover = _recover(args["subtaskId"])
    return rewrite(call, args["parentItemId"], args["parentRevision"], _change(args, changes), _result, recover=recover)


def set_todo_inbox_subtask_done(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    recover = _recover(args["subtaskId"])
    change = _change(args, {"isDone": args["isDone"]})
    return rewrite(call, args["parentItemId"], args["parentRevision"], change, _result, recover=recover)


def delete_todo_inbox_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Removes the subtask from its item (inbox subtasks have no trash of their own); the answer
    carries the removed subtask so it can be added again."""
    subtask_id = args["subtaskId"]

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, Item]:
        return inbox_records.removed_subtask(before, subtask_id)

    recover = _recover(subtask_id)
    return rewrite(call, args["parentItemId"], args["parentRevision"], change, _result, recover=recover)


OPERATIONS = {
    fn.__name__: fn
    for fn in (
        list_todo_inbox_subtasks, get_todo_inbox_subtask, create_todo_inbox_subtask, update_todo_inbox_subtask,
        set_todo_inbox_subtask_done, delete_todo_inbox_subtask,
    )
}  # fmt: skip
