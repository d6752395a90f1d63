"""Inbox records as plain data: building, changing and checking an inbox item and its embedded
subtasks. Pure (no storage), so every rule here is testable without a store.

An inbox item is one stored item (`TODO#INBOX#<id>`) that embeds its subtasks
(`subtasks: [{id, title, notes, isDone, position, attachments}]`). Subtasks have no revision of
their own: every change to one is a change of the item (new item revision), so the item's
revision is the `parentRevision` a subtask write must name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...kernel.errors import NotFound, ValidationError
from ...kernel.i18n import Text
from ...kernel.messages import quoted
from ...kernel.ports.storage import Item
from .. import model

#: Subtasks per inbox item: the same cap as a board task, so a move to the board (task +
#: subtasks + removing the item in one transaction) always fits DynamoDB's 100 operations.
MAX_INBOX_SUBTASKS = model.MAX_SUBTASKS
#: DynamoDB stores at most 400 KB per item; an item with embedded subtasks (each with up to
#: 50,000 characters of notes, up to 4 bytes each) could pass that, so the stored JSON is capped
#: below it with room for attribute names and keys.
MAX_STORED_BYTES = 350_000


def subtask_sort_key(subtask: Mapping[str, Any]) -> tuple[str, str]:
    return (str(subtask["position"]), str(subtask["id"]))


def ordered_subtasks(item: Mapping[str, Any]) -> list[Item]:
    return sorted(item.get("subtasks") or [], key=subtask_sort_key)


def new_subtask(args: Mapping[str, Any], position: str, field: str = "") -> Item:
    prefix = f"{field}." if field else ""
    return {
        "id": model.new_id(),
        "title": model.check_title(args["title"], f"{prefix}title"),
        "notes": model.check_notes(args.get("notes"), f"{prefix}notes"),
        "isDone": bool(args.get("isDone", False)),
        "position": position,
        "attachments": [],
    }


def new_item(args: Mapping[str, Any], position: str, now: str) -> Item:
    """A fresh inbox item from validated create arguments (subtasks in the given order)."""
    specs: Sequence[Mapping[str, Any]] = args.get("subtasks", [])
    if len(specs) > MAX_INBOX_SUBTASKS:
        raise ValidationError(
            "subtasks: at most %(max_inbox_subtasks)s per inbox item", max_inbox_subtasks=MAX_INBOX_SUBTASKS
        )
    positions = model.positions_between(None, None, len(specs)) if specs else []
    fields = model.new_task_fields(dict(args), now)
    item: Item = {
        "id": model.new_id(),
        **fields,
        "position": position,
        "subtasks": [
            new_subtask(spec, pos, f"subtasks[{index}]")
            for index, (spec, pos) in enumerate(zip(specs, positions, strict=True))
        ],
    }
    return check_size(item, new=True)


#: The content fields update_todo_inbox_item may change.
EDITABLE = ("title", "notes", "priority", "tags", "due", "timezone", "attachments")


def edited(item: Item, changes: Mapping[str, Any]) -> Item:
    """`item` with the given content fields changed (revision and times are the caller's)."""
    return check_size(model.with_content(item, changes))


def with_done(item: Item, done: bool, now: str) -> Item:
    if bool(item.get("done")) == done:
        return dict(item)
    return {**item, "done": done, "completedAt": now if done else None}


class InboxItemTooLarge(ValidationError):
    """An inbox item over MAX_STORED_BYTES. Its words say what a REST, MCP or CalDAV client can do
    (a new item: create it as a board task; an existing one: move it to the board); a caller
    that cannot do that from where it is says its own, from `size` (the inbox item page:
    web/todos/inbox_item.py; an import: imports/todo_writes.py)."""

    def __init__(self, size: int, *, new: bool) -> None:
        self.size = size
        if new:
            words = Text(
                "this inbox item with its subtasks would need %(size)s bytes of storage, over the "
                "%(max_stored_bytes)s-byte limit of one inbox item; shorten the notes, or create it as a board "
                "task instead (board subtasks are stored separately)",
                size=size,
                max_stored_bytes=MAX_STORED_BYTES,
            )
        else:
            words = Text(
                "this inbox item with its subtasks would need %(size)s bytes of storage, over the "
                "%(max_stored_bytes)s-byte limit of one inbox item; shorten notes or move it to the board (board "
                "subtasks are stored separately)",
                size=size,
                max_stored_bytes=MAX_STORED_BYTES,
            )
        super().__init__(words)


def check_size(item: Item, *, new: bool = False) -> Item:
    """`item` when it fits one stored inbox item, else InboxItemTooLarge (`new`: not made yet)."""
    size = len(json.dumps(item, ensure_ascii=False).encode("utf-8"))
    if size > MAX_STORED_BYTES:
        raise InboxItemTooLarge(size, new=new)
    return item


# -- embedded subtasks -------------------------------------------------------------------------


def find_subtask(item: Mapping[str, Any], subtask_id: str) -> Item:
    for subtask in item.get("subtasks") or []:
        if subtask["id"] == subtask_id:
            return dict(subtask)
    raise NotFound(
        "inbox item %(id)s has no subtask %(subtask_id)s", id=quoted(item["id"]), subtask_id=quoted(subtask_id)
    )


def _position_at(others: Sequence[Item], index: int | None) -> str:
    return model.position_for_index([str(s["position"]) for s in others], index)


def added_subtask(item: Item, args: Mapping[str, Any]) -> tuple[Item, Item]:
    """(item with the new subtask, the subtask); `index` 0 = first, omitted = at the end."""
    existing = ordered_subtasks(item)
    if len(existing) >= MAX_INBOX_SUBTASKS:
        raise ValidationError(
            "inbox item %(id)s already has %(max_inbox_subtasks)s subtasks, the maximum",
            id=quoted(item["id"]),
            max_inbox_subtasks=MAX_INBOX_SUBTASKS,
        )
    subtask = new_subtask(args, _position_at(existing, args.get("index")))
    subtasks = sorted([*existing, subtask], key=subtask_sort_key)
    return check_size({**item, "subtasks": subtasks}), subtask


def changed_subtask(item: Item, subtask_id: str, changes: Mapping[str, Any]) -> tuple[Item, Item]:
    """(item with the subtask changed, the subtask); `index` moves it to that place among the
    other subtasks (0 = first)."""
    current = find_subtask(item, subtask_id)
    updated = dict(current)
    if "title" in changes:
        updated["title"] = model.check_title(changes["title"])
    if "notes" in changes:
        updated["notes"] = model.check_notes(changes["notes"])
    if "isDone" in changes:
        updated["isDone"] = bool(changes["isDone"])
    others = [s for s in ordered_subtasks(item) if s["id"] != subtask_id]
    if "index" in changes:
        updated["position"] = _position_at(others, changes["index"])
    subtasks = [updated if s["id"] == subtask_id else s for s in ordered_subtasks(item)]
    return check_size({**item, "subtasks": sorted(subtasks, key=subtask_sort_key)}), updated


def removed_subtask(item: Item, subtask_id: str) -> tuple[Item, Item]:
    """(item without the subtask, the removed subtask)."""
    removed = find_subtask(item, subtask_id)
    remaining = [s for s in ordered_subtasks(item) if s["id"] != subtask_id]
    return {**item, "subtasks": remaining}, removed
