"""A task's trashed subtasks follow it to another space, after the write that moved it.

A move (and a restore into another space, and the undo or redo of a move) writes the task and its
live subtasks (at most model.MAX_SUBTASKS) in one transaction. Its trash has no subtask limit, so
the trashed ones cannot go in that transaction (some 95 of them made a task unmovable: "this
change needs 126 writes"). Left as they were, their records named the space the task left: the
trash and a restore read the task's space instead, but an export, or any other reader of the
record, saw the old one. `trash_follows` writes them after the move's commit, in transactions of
at most PER_WRITE, each a `spaceId` update of a trashed subtask still at the revision read beside a
check that the task is still as read. No revision bump and no change record: the record's content
is unchanged as anyone reads it (the trash lists it under its task's space already), and a restore
of the revision the trash listed still holds. Which are behind is read from the task's subtask list
(its entries hold `deletedAt` and `spaceId`), then only those by key: a move of a task whose trash
already follows reads no trashed record. Whatever a failure leaves behind (a store refusing, the
process ending between the two) the next move of the task brings along, and the readers that
matter read the task's space meanwhile.
"""

from __future__ import annotations

from ...kernel.ports.storage import Check, Condition, ConditionFailed, ItemStore, StoreError, Update, WriteOp
from .. import keys
from ..state import load_records
from ..writes import commit

#: Trashed subtasks one follow-up transaction updates, beside the task's check (DynamoDB's 100).
PER_WRITE = 99
#: Rounds when the task or a subtask changes meanwhile (each reads them again).
_ROUNDS = 3


def trash_follows(items: ItemStore, user_id: str, task_id: str) -> None:
    """Put root task `task_id`'s trashed subtasks in its space (those not there already)."""
    for _ in range(_ROUNDS):
        state = load_records(items, user_id)
        task = state.task(task_id)
        if task is None or task.get("parentId") is not None:
            return
        space_id = task.get("spaceId")
        listed = state.trashed_subtasks(task_id)  # the index's entries: the candidates
        state.prefetch_tasks([str(t["id"]) for t in listed if t.get("spaceId") != space_id])
        behind = [
            record
            for t in listed
            if t.get("spaceId") != space_id
            and (record := state.task(str(t["id"]))) is not None
            and record.get("parentId") == task_id
            and not keys.live(record)
            and record.get("spaceId") != space_id
        ]
        if not behind:
            return
        task_check = Check(keys.task_key(user_id, task_id), Condition(equals={"revision": task["revision"]}))
        try:
            for start in range(0, len(behind), PER_WRITE):
                ops: list[WriteOp] = [task_check]
                ops += [
                    Update(
                        keys.task_key(user_id, str(s["id"])),
                        set={"spaceId": space_id},
                        condition=Condition(equals={"revision": s["revision"]}),
                    )
                    for s in behind[start : start + PER_WRITE]
                ]
                commit(items, ops)
            return
        except ConditionFailed:
            continue  # the task moved again, or a subtask was restored: read them again
        except StoreError:
            return  # the move stands; its next move brings the rest along
