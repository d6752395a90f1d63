"""The subtasks whose changes a task's history shows (the web's /activity/history/<taskId> and the
page of a task gone from the board): the same for a task on the board and one in the trash.

get_todo_task names them for a live task (its subtasks and its context's `trashedSubtaskIds`) but
refuses a trashed one (NOT_FOUND: the contract agents read), so a trashed task's history showed
its own changes alone. This read answers both alike, bounded as get_todo_task's context is: the
task by key (one GetItem) and its subtask list (one GSI2 query), the live subtasks' records by key
(at most model.MAX_SUBTASKS: a task's live subtasks) and the MAX_SUBTASKS most recently trashed as
the list's entries name them. Never the change timeline, never the whole board.
"""

from __future__ import annotations

from ...kernel.ports.storage import ItemStore
from ..model import MAX_SUBTASKS
from ..state import load_records
from .details import newest_trashed_ids


def history_subtask_ids(items: ItemStore, user_id: str, task_id: str) -> list[str]:
    """The live subtasks of root task `task_id` (in order), then its most recently trashed (newest
    first), on the board or in the trash; nothing for a subtask's id or a record not there (a
    task deleted for good: its own history alone)."""
    state = load_records(items, user_id)
    task = state.task(task_id)
    if task is None or task.get("parentId"):
        return []
    live, trashed = state.subtasks_and_trash(task_id)
    return [str(subtask["id"]) for subtask in live[:MAX_SUBTASKS]] + newest_trashed_ids(trashed)
