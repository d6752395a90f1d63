"""Subtask operations (subtasks of board tasks; inbox subtasks live in todos/inbox/subtasks.py).

A subtask is its own `TODO#TASK#<id>` item with `parentId` and its own revision; it has no
subtasks. Creating one checks (in the same transaction) that its task still exists and is not in
the trash (`Check deletedAt = null`), so a subtask can never be attached to a trashed task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...kernel.context import Call
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...kernel.messages import quoted
from ...kernel.ports.storage import Check, Condition, Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..attachments import bound
from ..state import TodoState
from ..writes import Built, apply, bump, create_once, put_new, put_revised, require_revision, tag_registrations
from .tasks import CONTENT_FIELDS, changed, completed, find_root, find_task, reopened, require_live, task_conflict


def find_subtask(state: TodoState, subtask_id: str) -> Item:
    task = find_task(state, subtask_id)
    if task.get("parentId") is None:
        raise ValidationError(
            "%(subtask_id)s is a root task; use the *_todo_task tools for it", subtask_id=quoted(subtask_id)
        )
    return task


def _parent_live(state: TodoState, subtask: Item) -> None:
    parent = state.task(subtask["parentId"])
    if parent is None or not keys.live(parent):
        raise Conflict("the task of subtask %(id)s is in the trash; restore the task first", id=quoted(subtask["id"]))


def _conflict(subtask_id: str) -> Callable[[TodoState], RevisionConflict]:
    return task_conflict(subtask_id, "subtask")


def _live_parent_check(user_id: str, parent: Item) -> Check:
    return Check(keys.task_key(user_id, parent["id"]), Condition(equals={"deletedAt": None}))


def create_todo_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    args = bound(call, args)

    def build(state: TodoState) -> Built:
        parent = find_root(state, args["taskId"])
        require_live(parent)
        siblings = state.subtasks_of(parent["id"])
        if len(siblings) >= model.MAX_SUBTASKS:
            raise ValidationError("a task has at most %(max_subtasks)s subtasks", max_subtasks=model.MAX_SUBTASKS)
        now = now_timestamp()
        subtask: Item = {
            "id": model.new_id(),
            "spaceId": parent["spaceId"],
            "columnId": None,
            "parentId": parent["id"],
            "position": model.position_for_index([s["position"] for s in siblings], args.get("index")),
            **model.new_task_fields(args, now),
        }
        ops: list[WriteOp] = [put_new(user_id, "task", subtask), _live_parent_check(user_id, parent)]
        ops += tag_registrations(state, user_id, subtask["tags"], now)
        return {"subtask": model.public_task(subtask)}, ops

    def conflict(state: TodoState) -> Conflict:
        return Conflict(
            "task %(taskId)s was moved to the trash meanwhile; the subtask was not created",
            taskId=quoted(args["taskId"]),
        )

    return create_once(call, "create_todo_subtask", args, build, conflict)


def _subtask_write(
    call: Call,
    args: dict[str, Any],
    change: Callable[[TodoState, Item, str], tuple[Item, list[WriteOp]]],
    *,
    allow_trashed: bool = False,
) -> dict[str, Any]:
    user_id = call.principal.user_id

    def build(state: TodoState) -> Built:
        before = find_subtask(state, args["id"])
        require_revision(before, args["expectedRevision"], lambda: _conflict(before["id"])(state))
        if not allow_trashed:
            require_live(before, "subtask")
            _parent_live(state, before)
        after, extra = change(state, before, now_timestamp())
        ops = ([] if after is before else [put_revised(user_id, "task", before, after)]) + extra
        return {"subtask": model.public_task(after)}, ops

    return apply(call, build, _conflict(args["id"]))


#: What a subtask's changes may hold: a task's, without `recurrence` (only root tasks recur).
SUBTASK_CONTENT_FIELDS = tuple(name for name in CONTENT_FIELDS if name != "recurrence")


def update_todo_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    if not any(name in args for name in SUBTASK_CONTENT_FIELDS):
        raise ValidationError(
            "give at least one of %(subtask_content_fields)s to change",
            subtask_content_fields=", ".join(SUBTASK_CONTENT_FIELDS),
        )
    user_id = call.principal.user_id
    args = bound(call, args)

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp]]:
        after = changed(before, args, now)
        return after, tag_registrations(state, user_id, after["tags"], now)

    return _subtask_write(call, args, change)


def complete_todo_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _subtask_write(call, args, lambda state, before, now: (completed(before, now), []))


def reopen_todo_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _subtask_write(call, args, lambda state, before, now: (reopened(before, now), []))


def delete_todo_subtask(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp]]:
        if not keys.live(before):
            return before, []
        return {**before, **bump(before, now), "deletedAt": now}, []

    return _subtask_write(call, args, change, allow_trashed=True)


def restored_subtask(state: TodoState, before: Item, now: str) -> Item:
    if keys.live(before):
        raise Conflict("todo subtask %(id)s is not in the trash", id=quoted(before["id"]))
    _parent_live(state, before)
    if len(state.subtasks_of(before["parentId"])) >= model.MAX_SUBTASKS:
        raise ValidationError("its task already has %(max_subtasks)s subtasks", max_subtasks=model.MAX_SUBTASKS)
    parent = state.task(before["parentId"]) or {}
    # its task may have moved to another space while it was in the trash (a move takes the live ones)
    return {**before, **bump(before, now), "deletedAt": None, "spaceId": parent.get("spaceId", before.get("spaceId"))}


def reorder_todo_subtasks(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    wanted: list[str] = args["subtaskIds"]
    expected: list[int] | None = args.get("expectedRevisions")
    if len(set(wanted)) != len(wanted):
        raise ValidationError("subtaskIds: every id may appear once")
    if expected is not None and len(expected) != len(wanted):
        raise ValidationError("expectedRevisions: give one revision per subtask id, in the same order")

    def current(state: TodoState) -> dict[str, Any]:
        return {"subtasks": [model.public_task(s) for s in state.subtasks_of(args["taskId"])]}

    def conflict(state: TodoState) -> RevisionConflict:
        return RevisionConflict(
            "a subtask changed meanwhile; recoverData.subtasks holds the current order and revisions",
            recover_data=current(state) if state.task(args["taskId"]) is not None else None,
        )

    def build(state: TodoState) -> Built:
        parent = find_root(state, args["taskId"])
        require_live(parent)
        subtasks = {s["id"]: s for s in state.subtasks_of(parent["id"])}
        unknown = [i for i in wanted if i not in subtasks]
        if unknown:
            raise NotFound(
                "not live subtasks of task %(id)s: %(unknown)s", id=quoted(parent["id"]), unknown=", ".join(unknown)
            )
        missing = [i for i in subtasks if i not in wanted]
        if missing:
            raise ValidationError(
                "subtaskIds must list every live subtask of the task; missing: %(missing)s", missing=", ".join(missing)
            )
        if expected is not None and any(subtasks[i]["revision"] != r for i, r in zip(wanted, expected, strict=True)):
            raise conflict(state)
        now = now_timestamp()
        positions = model.positions_between(None, None, len(wanted))
        after = [
            {**subtasks[i], **bump(subtasks[i], now), "position": p} for i, p in zip(wanted, positions, strict=True)
        ]
        ops: list[WriteOp] = [put_revised(user_id, "task", subtasks[a["id"]], a) for a in after]
        return {"subtasks": [model.public_task(a) for a in after]}, ops

    return apply(call, build, conflict)
