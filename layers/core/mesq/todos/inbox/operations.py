"""The todo inbox operations (toolset `todo_inbox`): list, read, capture, change, complete,
trash and move-to-board of inbox items. Inbox subtask operations are in `subtasks.py`.

Each function takes the Call and arguments already validated against the operation's input
schema and returns the operation's `data` or raises a typed MesqError. Every key is built from
the caller's user id (tenant isolation); every write is one conditional store transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...kernel import timestamps
from ...kernel.context import Call
from ...kernel.errors import ValidationError
from ...kernel.messages import quoted
from ...kernel.pages import behind, page
from ...kernel.ports.storage import Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..attachments import bound
from ..state import TodoState, load_partial
from ..views import budget
from ..writes import Built, create_once, put_new, tag_registrations
from . import records as inbox_records
from .access import read_item, rewrite
from .detail_context import detail_context, effective_timezone
from .dictated import dictated, said
from .move import move_todo_inbox_item_to_board
from .subtasks import OPERATIONS as SUBTASK_OPERATIONS

DEFAULT_LIMIT = 50


# -- reading -----------------------------------------------------------------------------------


_STATUS: dict[str, Callable[[Item], bool]] = {
    "all": lambda item: True,
    "open": lambda item: not item.get("done"),
    "done": lambda item: bool(item.get("done")),
}


def list_todo_inbox_items(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    offset, limit = args.get("offset", 0), args.get("limit", DEFAULT_LIMIT)
    include_notes = bool(args.get("includeNotes", False))
    keep = _STATUS[args.get("status", "all")]
    state = load_partial(call.services.items, call.principal.user_id)
    matching = [item for item in state.live_inbox() if keep(item)]
    # Whole items only: add items while the page stays within the budget; the first item of a
    # page must fit on its own, else RESPONSE_TOO_LARGE (a page never makes zero progress).
    shown: list[dict[str, Any]] = []
    empty = {"items": [], "page": page(offset, limit, 0, len(matching), has_more=behind)}
    used = budget.json_size(empty) + 40  # room for the page numbers growing
    for item in matching[offset : offset + limit]:
        view = model.public_inbox_item(item, include_notes=include_notes)
        cost = budget.item_cost(view)
        if used + cost > budget.RESPONSE_BUDGET_CHARACTERS:
            if not shown:
                # Already alone on its page: only leaving out notes can make it smaller.
                hints = ["includeNotes"] if include_notes else []
                raise budget.response_too_large(
                    f"inbox item {quoted(item['id'])} with its subtasks",
                    used + cost,
                    hints=hints,
                    record_id=item["id"],
                )
            break
        shown.append(view)
        used += cost
    return {"items": shown, "page": page(offset, limit, len(shown), len(matching), has_more=behind)}


def get_todo_inbox_item(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    item = read_item(call, args["id"])
    data: dict[str, Any] = {"item": model.public_inbox_item(item)}
    include_context = bool(args.get("includeContext", False))
    state = load_partial(call.services.items, call.principal.user_id) if include_context else None
    data["timezone"] = effective_timezone(call, item.get("timezone"), state)
    if state is not None:
        data.update(detail_context(state))
    what = f"inbox item {item['id']!r} with its subtasks" + (" and context" if include_context else "")
    return budget.with_notes_page(
        data,
        "item",
        args.get("notesOffset", 0),
        args.get("notesLimit"),
        what=what,
        hints=["includeContext"] if include_context else [],
        record_id=item["id"],
        remedy="read each subtask with get_todo_inbox_subtask (its notes are paged the same way)",
    )


# -- writing -----------------------------------------------------------------------------------


def _item_data(item: Item, _extra: Any = None) -> dict[str, Any]:
    return {"item": model.public_inbox_item(item)}


def create_todo_inbox_item(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Capture: no destination needed, so nothing can be missing; appended to the inbox."""
    user_id = call.principal.user_id
    args = bound(call, args)

    def build(state: TodoState) -> Built:
        now = now_timestamp()
        # `parse: true`: the title read as the web's quick add reads it, in the user's zone (a
        # Shortcut's dictated line); the answer's `read` says what was understood.
        fields = dictated(args, state.user_zone, timestamps.utc_now()) if args.get("parse") else args
        item = inbox_records.new_item(fields, model.position_for_index(state.inbox_positions(), None), now)
        ops: list[WriteOp] = [put_new(user_id, "inbox", item)]
        ops += tag_registrations(state, user_id, item["tags"], now)
        data = _item_data(item)
        if args.get("parse"):
            data["read"] = said(item, state.user_zone)
        return data, ops

    def conflict(state: TodoState) -> ValidationError:
        return ValidationError("the inbox item could not be captured because tags changed meanwhile; retry")

    return create_once(call, "create_todo_inbox_item", args, build, conflict)


def update_todo_inbox_item(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    args = bound(call, args)
    changes = {name: args[name] for name in inbox_records.EDITABLE if name in args}
    if not changes:
        raise ValidationError("give at least one of %(editable)s to change", editable=", ".join(inbox_records.EDITABLE))

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, None]:
        return inbox_records.edited(before, changes), None

    return rewrite(call, args["id"], args["expectedRevision"], change, _item_data)


def complete_todo_inbox_item(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    done = bool(args.get("done", True))

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, None]:
        return inbox_records.with_done(before, done, now), None

    return rewrite(call, args["id"], args["expectedRevision"], change, _item_data)


def delete_todo_inbox_item(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Soft delete: `deletedAt` set and the item stays under its key, so the trash
    (list_todo_trash) finds it and restore_todo_item clears `deletedAt` again. Deleting a trashed
    item changes nothing."""

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, None]:
        return (before if not keys.live(before) else {**before, "deletedAt": now}), None

    return rewrite(call, args["id"], args["expectedRevision"], change, _item_data, trashed_ok=True)


OPERATIONS = {
    fn.__name__: fn
    for fn in (
        list_todo_inbox_items, get_todo_inbox_item, create_todo_inbox_item, update_todo_inbox_item,
        complete_todo_inbox_item, delete_todo_inbox_item, move_todo_inbox_item_to_board,
    )
} | SUBTASK_OPERATIONS  # fmt: skip
