"""Batch writes: batch_update_todo_tasks (<= 50 changes) and batch_complete_todo_tasks (<= 100).

All or nothing, and never a silent skip: every record comes back in the order given with its new
revision (one already done is returned as it is), and a failing batch names every failing item
(`error.details.items`, REVISION_CONFLICT: `recoverData.tasks`). A recurring task completed here
moves on to its next occurrence, as with complete_todo_task (its subtasks reopen unless the batch
itself lists them). Every change is validated against one snapshot, then everything (records plus
new tag registrations and the change record) is written in ONE transaction with a revision condition
per record. So a batch can hold at most 100 writes with its change record (DynamoDB's transaction
limit); a batch needing more is refused before anything is written. The exception:
batch_complete_todo_tasks with more than PART (50) items is written in parts of PART, each one
transaction with its change record (100 items and a record do not fit one); a later part that fails
has the written parts undone before the batch answers the failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...history.undo import undo_changes
from ...kernel.context import Call
from ...kernel.errors import Conflict, MesqError, NotFound, RevisionConflict, ValidationError
from ...kernel.messages import quoted
from ...kernel.ports.storage import Check, Condition, Item, Put, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..revert import REVERTERS
from ..state import TodoState
from ..writes import Built, apply, bump, put_revised, tag_registrations
from .tasks import changed, completed, find_task, into_done_column, occurrence_reset, reopened


def _check_ids(entries: list[dict[str, Any]], field: str) -> None:
    ids = [entry["id"] for entry in entries]
    if len(set(ids)) != len(ids):
        raise ValidationError("%(field)s: every id may appear once per batch", field=field)


def _targets(state: TodoState, entries: list[dict[str, Any]], inbox_tool: str) -> list[Item]:
    """The live records of the batch in order; NOT_FOUND / CONFLICT (trashed) / REVISION_CONFLICT
    (all conflicting records at once in recoverData.tasks) before anything is written. Every
    failing item is reported, not only the first: `details.items` = [{index, id, code, message}].
    An inbox item's id names `inbox_tool`, the tool that takes it (a model mixes the two up)."""
    records = []
    state.prefetch_tasks(entry["id"] for entry in entries)  # one BatchGetItem per kind of lookup
    parents = [(state.task(entry["id"]) or {}).get("parentId") for entry in entries]
    state.prefetch_tasks(str(parent) for parent in parents if parent)
    problems: list[tuple[int, MesqError]] = []
    for index, entry in enumerate(entries):
        try:
            record = find_task(state, entry["id"])
        except NotFound as missing:
            problem: MesqError = missing
            if state.inbox_item(entry["id"]) is not None:  # one more read, only on a miss
                problem = ValidationError(
                    "%(id)s is an inbox item; use %(inbox_tool)s", id=quoted(entry["id"]), inbox_tool=inbox_tool
                )
            problems.append((index, problem))
            continue
        parent = state.task(record.get("parentId") or "")
        if not keys.live(record) or (parent is not None and not keys.live(parent)):
            problems.append((index, Conflict("todo task %(id)s is in the trash", id=quoted(entry["id"]))))
        records.append(record)
    if problems:
        raise item_errors(problems, entries)
    stale = [r for r, e in zip(records, entries, strict=True) if r["revision"] != e["expectedRevision"]]
    if stale:
        raise _conflict(stale)
    return records


def item_errors(problems: list[tuple[int, MesqError]], entries: list[dict[str, Any]]) -> MesqError:
    """One error for the whole batch (of the first problem's kind) naming every failing item."""
    details = {
        "items": [
            {"index": i, "id": entries[i]["id"], "code": error.code, "message": error.message} for i, error in problems
        ]
    }
    summary = "; ".join(f"[{i}]: {error.message}" for i, error in problems)
    first = type(problems[0][1])
    return first(f"{summary}; nothing was changed", details=details)


def _resets(
    state: TodoState, user_id: str, before: Item, after: Item, now: str, entries: list[dict[str, Any]]
) -> list[WriteOp]:
    """The subtask reopenings of a recurring task that moved on, except subtasks the batch lists
    itself (one transaction cannot write one record twice)."""
    listed = {entry["id"] for entry in entries}
    ops, _subtasks = occurrence_reset(state, user_id, before, after, now)
    return [op for op in ops if not (isinstance(op, Put) and op.item.get("id") in listed)]


def _conflict(current: list[Item]) -> RevisionConflict:
    ids = ", ".join(r["id"] for r in current)
    return RevisionConflict(
        "these records changed meanwhile: %(ids)s; nothing was changed. Merge into recoverData.tasks and retry",
        ids=ids,
        recover_data={"tasks": [model.public_task(r) for r in current]},
    )


def _fresh_conflict(entries: list[dict[str, Any]]) -> Callable[[TodoState], RevisionConflict]:
    def make(state: TodoState) -> RevisionConflict:
        current = [found for e in entries if (found := state.task(e["id"])) is not None]
        stale = [
            r for r in current if r["revision"] != next(e for e in entries if e["id"] == r["id"])["expectedRevision"]
        ]
        return _conflict(stale or current)

    return make


def batch_update_todo_tasks(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    updates: list[dict[str, Any]] = args["updates"]
    _check_ids(updates, "updates")

    def build(state: TodoState) -> Built:
        records = _targets(state, updates, "update_todo_inbox_item")
        now = now_timestamp()
        ops: list[WriteOp] = []
        column_checks: list[Check] = []
        results: list[Item] = []
        tags: list[str] = []
        problems: list[tuple[int, MesqError]] = []
        placed: dict[str, str] = {}  # the done column's top so far: each done task lands above the last
        for index, (before, update) in enumerate(zip(records, updates, strict=True)):
            try:
                after = changed(before, update, now)
            except ValidationError as error:
                problems.append(
                    (index, ValidationError("updates[%(index)s].%(problem)s", index=index, problem=error.text))
                )
                continue
            if "done" in update:
                base = {**after, "revision": before["revision"], "updatedAt": before["updatedAt"]}
                toggled = completed(base, now, state.user_zone) if update["done"] else reopened(base, now)
                toggled, checks = into_done_column(state, user_id, base, toggled, placed)  # the done rule
                after = {**toggled, **bump(before, now)}
                column_checks += checks
                ops += _resets(state, user_id, base, toggled, now, updates)
            ops.append(put_revised(user_id, "task", before, after))
            results.append(after)
            tags += after["tags"]
        if problems:
            raise item_errors(problems, updates)
        ops += _unique(column_checks) + tag_registrations(state, user_id, tags, now)
        return {"tasks": [model.public_task(r) for r in results]}, ops

    return apply(call, build, _fresh_conflict(updates))


def _unique(checks: list[Check]) -> list[WriteOp]:
    """One check per done column: a transaction names each key once."""
    return list({check.key: check for check in checks}.values())


#: Items one transaction of batch_complete_todo_tasks writes. A part's change record (one, with
#: the others as members) and, when it is undone, the revert's record and its mark on the change
#: all fit beside it in DynamoDB's 100 items; 100 items and a record would not.
PART = 50


def batch_complete_todo_tasks(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Up to PART items in one transaction; more in parts of PART, every part checked against the
    first snapshot before anything is written. When a later part fails, the parts written are
    reverted (recorded as undone, like any undo) and the batch answers the failure."""
    entries: list[dict[str, Any]] = args["items"]
    _check_ids(entries, "items")
    parts = [entries[start : start + PART] for start in range(0, len(entries), PART)]
    recorded_before = len(call.recorded)
    tasks: list[Item] = []
    for number, part in enumerate(parts):
        build = _completion(call.principal.user_id, part, entries, checked=entries if number == 0 else part)
        try:
            tasks += apply(call, build, _fresh_conflict(part))["tasks"]
        except MesqError as error:
            recorded = [str(change["id"]) for change in call.recorded.since(recorded_before)]
            if recorded:
                raise _reverted(call, recorded, error) from None
            raise
    return {"tasks": tasks}


def _completion(
    user_id: str, part: list[dict[str, Any]], entries: list[dict[str, Any]], *, checked: list[dict[str, Any]]
) -> Callable[[TodoState], Built]:
    """The build of one part: `checked` validated (the whole batch for the first part), `part`
    written; the subtask reopenings spare every subtask the whole batch lists."""

    def build(state: TodoState) -> Built:
        records = _targets(state, checked, "complete_todo_inbox_item")[: len(part)]  # `part` leads `checked`
        now = now_timestamp()
        results: list[Item] = []
        checks: list[Check] = []
        placed: dict[str, str] = {}  # each task of the batch lands above the one before it
        for record in records:  # completed, then the done rule (to the space's done column, if any)
            result, check = into_done_column(state, user_id, record, completed(record, now, state.user_zone), placed)
            results.append(result)
            checks += check

        # Records already done are not rewritten, but still guarded: the batch is one snapshot.
        ops: list[WriteOp] = [
            put_revised(user_id, "task", before, after)
            if after is not before
            else Check(keys.task_key(user_id, before["id"]), Condition(equals={"revision": before["revision"]}))
            for before, after in zip(records, results, strict=True)
        ]
        ops += _unique(checks)
        for before, after in zip(records, results, strict=True):
            ops += _resets(state, user_id, before, after, now, entries)
        return {"tasks": [model.public_task(r) for r in results]}, ops

    return build


def _reverted(call: Call, recorded: list[str], error: MesqError) -> MesqError:
    """The failure of a later part, after the parts already written were undone; what could not
    be undone (changed meanwhile) is named in `details.partsNotUndone`."""
    answer = undo_changes(call, {"changeIds": recorded}, REVERTERS)
    if not answer["notUndone"]:
        return error
    details = {**(error.details or {}), "partsNotUndone": answer["notUndone"]}
    message = f"{error.message}; the batch was written in parts and the parts written could not all be undone"
    return type(error)(message, details=details, recover_data=error.recover_data)
