"""Batch writes: batch_update_todo_tasks (<= 50 changes) and batch_complete_todo_tasks (<= 100).

All or nothing: every change is validated against one snapshot, then everything (records plus new
tag registrations) is written in ONE transaction with a revision condition per record. So a batch
can hold at most 100 writes (DynamoDB's transaction limit); a batch needing more is refused
before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...context import Call
from ...errors import NotFound, RevisionConflict, ValidationError
from ...store.ports import Check, Condition, Item, WriteOp
from ...timestamps import now_timestamp
from .. import keys, model
from ..state import TodoState
from ..writes import Built, apply, bump, put_revised, tag_registrations
from .tasks import changed, completed, find_task, reopened


def _check_ids(entries: list[dict[str, Any]], field: str) -> None:
    ids = [entry["id"] for entry in entries]
    if len(set(ids)) != len(ids):
        raise ValidationError(f"{field}: every id may appear once per batch")


def _targets(state: TodoState, entries: list[dict[str, Any]]) -> list[Item]:
    """The live records of the batch in order; NOT_FOUND / VALIDATION_ERROR / REVISION_CONFLICT
    (all conflicting records at once in recoverData.tasks) before anything is written."""
    records = []
    state.prefetch_tasks(entry["id"] for entry in entries)  # one BatchGetItem per kind of lookup
    parents = [(state.task(entry["id"]) or {}).get("parentId") for entry in entries]
    state.prefetch_tasks(str(parent) for parent in parents if parent)
    for index, entry in enumerate(entries):
        try:
            record = find_task(state, entry["id"])
        except NotFound as error:
            raise NotFound(f"[{index}]: {error.message}; nothing was changed") from None
        parent = state.task(record.get("parentId") or "")
        if not keys.live(record) or (parent is not None and not keys.live(parent)):
            raise ValidationError(f"[{index}]: todo task {entry['id']!r} is in the trash; nothing was changed")
        records.append(record)
    stale = [r for r, e in zip(records, entries, strict=True) if r["revision"] != e["expectedRevision"]]
    if stale:
        raise _conflict(stale)
    return records


def _conflict(current: list[Item]) -> RevisionConflict:
    ids = ", ".join(r["id"] for r in current)
    return RevisionConflict(
        f"these records changed meanwhile: {ids}; nothing was changed. Merge into recoverData.tasks and retry",
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
        records = _targets(state, updates)
        now = now_timestamp()
        ops: list[WriteOp] = []
        results: list[Item] = []
        tags: list[str] = []
        for index, (before, update) in enumerate(zip(records, updates, strict=True)):
            try:
                after = changed(before, update, now)
            except ValidationError as error:
                raise ValidationError(f"updates[{index}].{error.message}; nothing was changed") from None
            if "done" in update:
                base = {**after, "revision": before["revision"], "updatedAt": before["updatedAt"]}
                toggled = completed(base, now) if update["done"] else reopened(base, now)
                after = {**toggled, **bump(before, now)}
            ops.append(put_revised(user_id, "task", before, after))
            results.append(after)
            tags += after["tags"]
        ops += tag_registrations(state, user_id, tags, now)
        return {"tasks": [model.public_task(r) for r in results]}, ops

    return apply(call, build, _fresh_conflict(updates))


def batch_complete_todo_tasks(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    entries: list[dict[str, Any]] = args["items"]
    _check_ids(entries, "items")

    def build(state: TodoState) -> Built:
        records = _targets(state, entries)
        now = now_timestamp()
        results = [completed(r, now) for r in records]
        # Records already done are not rewritten, but still guarded: the batch is one snapshot.
        ops: list[WriteOp] = [
            put_revised(user_id, "task", before, after)
            if after is not before
            else Check(keys.task_key(user_id, before["id"]), Condition(equals={"revision": before["revision"]}))
            for before, after in zip(records, results, strict=True)
        ]
        return {"tasks": [model.public_task(r) for r in results]}, ops

    return apply(call, build, _fresh_conflict(entries))
