"""The todo trash: list_todo_trash and restore_todo_item.

Trash = records with `deletedAt` set: root tasks (their subtasks stay attached and come back
with them), subtasks trashed on their own while their task is live, and inbox items.
"""

from __future__ import annotations

from typing import Any

from ...kernel.context import Call
from ...kernel.errors import Conflict, NotFound, RevisionConflict
from ...kernel.messages import quoted
from ...kernel.pages import behind, page
from ...kernel.ports.storage import Item
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..state import TodoState, load_state
from ..writes import Built, apply, bump, put_revised, require_revision
from .subtasks import restored_subtask
from .tasks import restored_root
from .trash_follows import trash_follows

_DATA_KEY = {"task": "task", "subtask": "subtask", "inboxItem": "inboxItem"}


def _entry(kind: str, record: Item) -> dict[str, Any]:
    return {
        "kind": kind,
        "id": record["id"],
        "title": record["title"],
        "spaceId": record.get("spaceId"),
        "columnId": record.get("columnId"),
        "parentId": record.get("parentId"),
        "deletedAt": record["deletedAt"],
        "revision": record["revision"],
    }


def trash_entries(state: TodoState) -> list[dict[str, Any]]:
    """Every restorable trashed record, newest deleted first, ties by id."""
    entries = []
    for task in state.every_task():
        if keys.live(task):
            continue
        parent_id = task.get("parentId")
        if parent_id is None:
            entries.append(_entry("task", task))
        elif keys.live(parent := state.task(parent_id) or {"deletedAt": "gone"}):
            # in its task's space: a move takes only the live subtasks, a restore puts it there
            entries.append(_entry("subtask", {**task, "spaceId": parent.get("spaceId")}))
    entries += [_entry("inboxItem", item) for item in state.every_inbox_item() if not keys.live(item)]
    entries.sort(key=lambda e: e["id"])
    entries.sort(key=lambda e: e["deletedAt"], reverse=True)
    return entries


def list_todo_trash(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    state = load_state(call.services.items, call.principal.user_id)
    offset, limit = args.get("offset", 0), args.get("limit", 20)
    entries = trash_entries(state)
    selected = entries[offset : offset + limit]
    return {"items": selected, "page": page(offset, limit, len(selected), len(entries), has_more=behind)}


def _kind_of(state: TodoState, record_id: str, wanted: str | None) -> str:
    task = state.task(record_id)
    if task is not None:
        kind = "task" if task.get("parentId") is None else "subtask"
    elif state.inbox_item(record_id) is not None:
        kind = "inboxItem"
    else:
        raise NotFound("todo record %(record_id)s not found", record_id=quoted(record_id))
    if wanted is not None and wanted != kind:
        raise NotFound(
            "no todo %(wanted)s with id %(record_id)s (it is a %(kind)s)",
            wanted=wanted,
            record_id=quoted(record_id),
            kind=kind,
        )
    return kind


def _record(state: TodoState, kind: str, record_id: str) -> Item | None:
    return state.inbox_item(record_id) if kind == "inboxItem" else state.task(record_id)


def _public(kind: str, record: Item) -> dict[str, Any]:
    return model.public_inbox_item(record) if kind == "inboxItem" else model.public_task(record)


def restore_todo_item(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    record_id = args["id"]

    def conflict(state: TodoState) -> RevisionConflict:
        kind = _kind_of(state, record_id, args.get("kind"))
        current = _record(state, kind, record_id)
        return RevisionConflict(
            "todo %(kind)s %(record_id)s changed meanwhile; retry with the revision in recoverData",
            kind=kind,
            record_id=quoted(record_id),
            recover_data={_DATA_KEY[kind]: _public(kind, current)} if current is not None else None,
        )

    def build(state: TodoState) -> Built:
        kind = _kind_of(state, record_id, args.get("kind"))
        before = _record(state, kind, record_id)
        assert before is not None
        require_revision(before, args["expectedRevision"], lambda: conflict(state))
        now = now_timestamp()
        if kind == "task":
            after, ops, _subtasks = restored_root(state, user_id, before, now)
            ops = [put_revised(user_id, "task", before, after), *ops]
        elif kind == "subtask":
            after = restored_subtask(state, before, now)
            ops = [put_revised(user_id, "task", before, after)]
        else:
            if keys.live(before):
                raise Conflict("inbox item %(record_id)s is not in the trash", record_id=quoted(record_id))
            after = {**before, **bump(before, now), "deletedAt": None}
            ops = [put_revised(user_id, "inbox", before, after)]
        return {_DATA_KEY[kind]: _public(kind, after)}, ops

    data = apply(call, build, conflict)
    if "task" in data:  # restored into another space (its own deleted meanwhile): its trashed subtasks follow
        trash_follows(call.services.items, user_id, record_id)
    return data
