"""Root task operations: create, update, move, complete, reopen, delete (to the trash), restore
and duplicate. Every operation is one transaction: the task (revision-conditioned), its subtasks
when they move with it, new tag registrations and, for creates, the idempotency record.

Also offers the helpers subtasks, batch and trash reuse: `find_task`, `find_root`,
`task_conflict`, `changed`, `completed` (a recurring task moves on to its next occurrence),
`into_done_column` (the done rule: completed -> the done column), `done_by_column` (its other side:
moved into the done column -> completed, moved out -> reopened), `occurrence_reset`, `reopened`, `relocation`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...kernel.context import Call, Services
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...kernel.messages import quoted
from ...kernel.ports.storage import Check, Condition, Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model, recurrence
from ..attachments import bound
from ..destinations import resolve_destination
from ..misses import missing_task
from ..state import TodoState
from ..sync import links
from ..writes import Built, apply, bump, create_once, put_new, put_revised, require_revision, tag_registrations
from .trash_follows import trash_follows

CONTENT_FIELDS = ("title", "notes", "priority", "tags", "due", "timezone", "recurrence", "attachments")


# -- lookups and conflicts ---------------------------------------------------------------------


def find_task(state: TodoState, task_id: str, *, who: tuple[Services, str, str | None] | None = None) -> Item:
    """The task (trashed too). `who` (the services, the user, the calling tool) lets a miss say
    what the id is instead (missing_task); without it a miss is NOT_FOUND."""
    task = state.task(task_id)
    if task is None:
        if who is not None:
            raise missing_task(who[0], who[1], state, task_id, who[2])
        raise NotFound("todo task %(task_id)s not found", task_id=quoted(task_id))
    return task


def find_root(state: TodoState, task_id: str, *, who: tuple[Services, str, str | None] | None = None) -> Item:
    task = find_task(state, task_id, who=who)
    if task.get("parentId") is not None:
        raise ValidationError("%(task_id)s is a subtask; use the *_todo_subtask tools for it", task_id=quoted(task_id))
    return task


def task_conflict(task_id: str, key: str = "task") -> Callable[[TodoState], RevisionConflict]:
    """REVISION_CONFLICT whose recoverData is the current record under `key` (task / subtask)."""

    def make(state: TodoState) -> RevisionConflict:
        current = state.task(task_id)
        return RevisionConflict(
            "todo %(key)s %(task_id)s changed meanwhile; merge your change into recoverData.%(key)s and retry with "
            "its revision",
            key=key,
            task_id=quoted(task_id),
            recover_data={key: model.public_task(current)} if current is not None else None,
        )

    return make


def require_live(task: Item, kind: str = "task") -> None:
    if not keys.live(task):
        raise Conflict("todo %(kind)s %(id)s is in the trash; restore it first", kind=kind, id=quoted(task["id"]))


# -- record changes ----------------------------------------------------------------------------


def changed(before: Item, args: dict[str, Any], now: str) -> Item:
    """`before` with the content fields given in `args` (validated), a new revision and time; a
    recurrence must still fit the (possibly new) due, and a relative reminder keeps needing one."""
    after = model.with_content({**before, **bump(before, now)}, args)
    if "recurrence" in args and before.get("parentId") is not None:
        raise ValidationError("recurrence: only root tasks recur")
    recurrence.check_rule(after.get("recurrence"), after.get("due"), after.get("timezone"))
    if after.get("due") is None and any(r.get("type") == "relative" for r in after.get("reminders") or ()):
        raise ValidationError("due: a task with relative reminders needs a due; clear the reminders first")
    return after


def completed(before: Item, now: str, user_zone: str | None = None) -> Item:
    """Done; a recurring root task instead moves on to its next occurrence (done for good after
    its last one, stepped in its own zone, else `user_zone`), the completed occurrence kept in
    its history."""
    if before["done"]:
        return before
    if before.get("recurrence") and before.get("parentId") is None and before.get("due"):
        following = recurrence.advanced(before, now, user_zone)
        if following is not None:
            return {**following, **bump(before, now)}
        return {**recurrence.recorded(before, now), **bump(before, now), "done": True, "completedAt": now}
    return {**before, **bump(before, now), "done": True, "completedAt": now}


def advanced_occurrence(before: Item, after: Item) -> bool:
    """`completed` moved a recurring task on to its next occurrence (rather than finishing it)."""
    return after is not before and not before["done"] and not after["done"]


def occurrence_reset(
    state: TodoState, user_id: str, before: Item, after: Item, now: str
) -> tuple[list[WriteOp], list[Item] | None]:
    """When a recurring task moved on: its done subtasks reopen (writes, the live subtasks)."""
    if not advanced_occurrence(before, after):
        return [], None
    subtasks = state.subtasks_of(before["id"])
    fresh = [reopened(s, now) for s in subtasks]
    ops: list[WriteOp] = [
        put_revised(user_id, "task", s, f) for s, f in zip(subtasks, fresh, strict=True) if f is not s
    ]
    return ops, fresh


def done_column(state: TodoState, space_id: str) -> Item | None:
    """The space's open column marked `done` (update_todo_column keeps at most one marked)."""
    return next((c for c in state.columns_of(space_id, include_archived=False) if c.get("done")), None)


def into_done_column(
    state: TodoState, user_id: str, before: Item, after: Item, placed: dict[str, str] | None = None
) -> tuple[Item, list[Check]]:
    """The done rule (docs/contract.md): a root task completed for good moves to the top of its
    space's done column, when the space has one; otherwise it stays in place, shown completed. A
    recurring task that moved on to its next occurrence is not done, so it stays. `placed`: a
    batch's tops so far (column id -> position), so each task of one batch lands above the last."""
    if before["done"] or not after["done"] or after.get("parentId") is not None:
        return after, []
    column = done_column(state, after["spaceId"])
    if column is None or column["id"] == after["columnId"]:
        return after, []
    if placed is not None and column["id"] in placed:
        top = model.position_between(None, placed[column["id"]])
    else:
        top = _position_at(state, column["id"], 0, exclude=after["id"])
    if placed is not None:
        placed[column["id"]] = top
    moved = {**after, "columnId": column["id"], "position": top}
    return moved, [open_column_check(user_id, column)]


def done_by_column(state: TodoState, before: Item, moved: Item, now: str) -> Item | None:
    """The done rule from the board's side (docs/contract.md): a root task moved into its space's
    done column is completed (`completed`: a recurring one moves on to its next occurrence,
    placed where it was); one moved out of the done column reopens. None when the move changes
    neither (a move within a column, or between two other columns)."""
    if moved["columnId"] == before["columnId"] or moved.get("parentId") is not None:
        return None
    column = done_column(state, moved["spaceId"])
    if column is not None and moved["columnId"] == column["id"] and not before["done"]:
        finished = completed(before, now, state.user_zone)
        if not finished["done"]:
            return finished  # the next occurrence, still where it was
        return {**finished, "spaceId": moved["spaceId"], "columnId": moved["columnId"], "position": moved["position"]}
    left = state.columns.get(before["columnId"] or "")
    if before["done"] and left is not None and left.get("done"):
        return {**moved, "done": False, "completedAt": None}
    return None


def reopened(before: Item, now: str) -> Item:
    if not before["done"]:
        return before
    return {**before, **bump(before, now), "done": False, "completedAt": None}


def open_column_check(user_id: str, column: Item) -> Check:
    """The destination column still exists and is not archived when the task lands in it."""
    return Check(keys.column_key(user_id, column["id"]), Condition(equals={"archived": False}))


def _write(user_id: str, before: Item, after: Item) -> list[WriteOp]:
    return [] if after is before else [put_revised(user_id, "task", before, after)]


def _task_data(task: Item, subtasks: list[Item] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"task": model.public_task(task)}
    if subtasks is not None:
        data["subtasks"] = [model.public_task(s) for s in sorted(subtasks, key=model.sort_key)]
    return data


def _position_at(state: TodoState, column_id: str, index: int | None, exclude: str | None = None) -> str:
    """The position that puts a root task at `index` of the column (None = the end)."""
    return model.position_for_index(state.root_positions(column_id, index, exclude), index)


def relocation(state: TodoState, user_id: str, before: Item, after: Item, now: str) -> tuple[list[WriteOp], list[Item]]:
    """Live subtasks follow their task into another space: (their writes, their new records). The
    trashed ones are not in this transaction (the trash has no subtask limit: moving them too made
    a task with some 95 in the trash unmovable, "this change needs 126 writes"): the caller has
    them follow after the commit (`trash_follows`); a restore puts a subtask in its task's space
    (`subtasks.restored_subtask`), and the trash lists it there. Which are live
    is read from their records, not the subtask list's entries: the index (eventually consistent)
    can still show one restored a moment ago as trashed, and left behind it stayed live in the
    space its task left."""
    if after["spaceId"] == before["spaceId"]:
        return [], state.subtasks_of(before["id"])
    subtasks = [s for s in state.subtasks_of(before["id"], include_deleted=True) if keys.live(s)]
    moved = [{**s, **bump(s, now), "spaceId": after["spaceId"]} for s in subtasks]
    ops: list[WriteOp] = [put_revised(user_id, "task", s, m) for s, m in zip(subtasks, moved, strict=True)]
    return ops, moved


# -- operations --------------------------------------------------------------------------------


def create_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    args = bound(call, args)

    def build(state: TodoState) -> Built:
        space, column = resolve_destination(state, args.get("spaceId"), args.get("spaceSlug"), args.get("columnId"))
        now = now_timestamp()
        task: Item = {
            "id": model.new_id(),
            "spaceId": space["id"],
            "columnId": column["id"],
            "parentId": None,
            "position": _position_at(state, column["id"], args.get("index")),
            **model.new_task_fields(args, now),
            "recurrence": recurrence.normalized(args.get("recurrence")),
        }
        recurrence.check_rule(task["recurrence"], task["due"], task["timezone"])
        ops: list[WriteOp] = [put_new(user_id, "task", task), open_column_check(user_id, column)]
        ops += tag_registrations(state, user_id, task["tags"], now)
        return _task_data(task), ops

    def conflict(state: TodoState) -> ValidationError:
        return ValidationError("the task could not be created because the board changed meanwhile; retry")

    return create_once(call, "create_todo_task", args, build, conflict)


def root_write(
    call: Call,
    args: dict[str, Any],
    change: Callable[[TodoState, Item, str], tuple[Item, list[WriteOp], list[Item] | None]],
    *,
    tool: str,
    allow_trashed: bool = False,
) -> dict[str, Any]:
    """The shape of every single-root-task write (`tool`): find, check revision (and liveness),
    change, commit the task with whatever else `change` adds."""
    user_id = call.principal.user_id

    def build(state: TodoState) -> Built:
        before = find_root(state, args["id"], who=(call.services, user_id, tool))
        require_revision(before, args["expectedRevision"], lambda: task_conflict(before["id"])(state))
        if not allow_trashed:
            require_live(before)
        after, extra, subtasks = change(state, before, now_timestamp())
        return _task_data(after, subtasks), _write(user_id, before, after) + extra

    return apply(call, build, task_conflict(args["id"]))


def update_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    if not any(name in args for name in CONTENT_FIELDS):
        raise ValidationError(
            "give at least one of %(content_fields)s to change", content_fields=", ".join(CONTENT_FIELDS)
        )
    user_id = call.principal.user_id
    args = bound(call, args)

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp], None]:
        after = changed(before, args, now)
        return after, tag_registrations(state, user_id, after["tags"], now), None

    return root_write(call, args, change, tool="update_todo_task")


def move_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    if not any(name in args for name in ("spaceId", "spaceSlug", "columnId", "index")):
        raise ValidationError("give a destination (spaceId, spaceSlug or columnId) and/or an index")
    user_id = call.principal.user_id

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp], list[Item]]:
        if any(name in args for name in ("spaceId", "spaceSlug", "columnId")):
            space, column = resolve_destination(state, args.get("spaceId"), args.get("spaceSlug"), args.get("columnId"))
        else:
            current = state.columns.get(before["columnId"])
            if current is None or current["spaceId"] not in state.spaces:
                raise ValidationError("the task's column no longer exists; give a destination (columnId or space)")
            space, column = state.spaces[current["spaceId"]], current
        after = {
            **before,
            **bump(before, now),
            "spaceId": space["id"],
            "columnId": column["id"],
            "position": _position_at(state, column["id"], args.get("index"), exclude=before["id"]),
        }
        finished = done_by_column(state, before, after, now)
        if finished is not None and advanced_occurrence(before, finished):
            # A recurring task dropped on Done: this occurrence is done, the task moves on to
            # its next one and stays where it was (its done subtasks reopen).
            resets, fresh = occurrence_reset(state, user_id, before, finished, now)
            return finished, resets, fresh or []
        after = finished or after
        ops, subtasks = relocation(state, user_id, before, after, now)
        if column["id"] != before["columnId"]:
            ops.append(open_column_check(user_id, column))
        if after["spaceId"] != before["spaceId"]:
            other_space.append(True)
        return after, ops, subtasks

    other_space: list[bool] = []
    data = root_write(call, args, change, tool="move_todo_task")
    if other_space:  # its trashed subtasks follow, in writes of their own (trash_follows.py)
        trash_follows(call.services.items, user_id, args["id"])
    return data


def complete_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id

    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp], list[Item] | None]:
        after, checks = into_done_column(state, user_id, before, completed(before, now, state.user_zone))
        resets, subtasks = occurrence_reset(state, user_id, before, after, now)
        return after, [*checks, *resets], subtasks

    return root_write(call, args, change, tool="complete_todo_task")


def reopen_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return root_write(call, args, lambda state, before, now: (reopened(before, now), [], None), tool="reopen_todo_task")


def delete_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    def change(state: TodoState, before: Item, now: str) -> tuple[Item, list[WriteOp], None]:
        if not keys.live(before):
            return before, [], None  # already in the trash
        return {**before, **bump(before, now), "deletedAt": now}, [], None

    return root_write(call, args, change, tool="delete_todo_task", allow_trashed=True)


def restored_root(state: TodoState, user_id: str, before: Item, now: str) -> tuple[Item, list[WriteOp], list[Item]]:
    """A trashed root task back on a board: its column if it is still open, else the first open
    column of its space, else (space deleted) the default space's."""
    if keys.live(before):
        raise Conflict("todo task %(id)s is not in the trash", id=quoted(before["id"]))
    column = state.columns.get(before["columnId"] or "")
    if column is None or column.get("archived"):
        space = state.spaces.get(before["spaceId"])
        space_id = space["id"] if space is not None else state.default_space_id
        _space, column = resolve_destination(state, space_id, None, None)
    after = {
        **before,
        **bump(before, now),
        "deletedAt": None,
        "spaceId": column["spaceId"],
        "columnId": column["id"],
    }
    if column["id"] != before["columnId"]:
        after["position"] = _position_at(state, column["id"], None)
    ops, subtasks = relocation(state, user_id, before, after, now)
    return after, ops, subtasks


def restore_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    data = root_write(
        call,
        args,
        lambda state, before, now: restored_root(state, user_id, before, now),
        tool="restore_todo_task",
        allow_trashed=True,
    )
    # restored into another space (its own deleted meanwhile): its trashed subtasks follow
    trash_follows(call.services.items, user_id, args["id"])
    return data


def duplicate_todo_task(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id

    def build(state: TodoState) -> Built:
        original = find_root(state, args["id"], who=(call.services, user_id, "duplicate_todo_task"))
        require_live(original)
        now = now_timestamp()
        later = state.root_after(original)
        fresh = {
            "revision": 1,
            "createdAt": now,
            "updatedAt": now,
            "done": False,
            "completedAt": None,
            "deletedAt": None,
        }
        copy: Item = {
            **links.without_sync(original),
            **fresh,
            "id": model.new_id(),
            "title": model.check_title(str(args.get("title", original["title"]))),
            "position": model.position_between(original["position"], later["position"] if later else None),
        }
        subtasks = [
            {**links.without_sync(s), **fresh, "id": model.new_id(), "parentId": copy["id"]}
            for s in state.subtasks_of(original["id"])
        ]
        ops: list[WriteOp] = [put_new(user_id, "task", copy)]
        ops += [put_new(user_id, "task", s) for s in subtasks]
        return _task_data(copy, subtasks), ops

    return create_once(call, "duplicate_todo_task", args, build, task_conflict(args["id"]))
