"""get_todo_task: one task with its notes (paged when long) and all its subtasks (seed 常用读工具).

Pure over a `traversal.Board`. Defaults: the whole task (notes included) and every live subtask,
done ones included, in position order; `timezone` always (the task's own zone, else the user's
todo default, else UTC: the zone its date-only due and reminders are read in). The heavier context
comes only with `includeContext: true`:
- `board`: the task's space, that space's columns (archived included, flagged) and every space
  (move targets);
- `inbox`: the live inbox items (without notes or subtasks) and their count;
- `tagSuggestions`: the user's tag registry, by name.
A trashed task is NOT_FOUND here, like a trashed inbox item (list_todo_trash lists the trash with
revisions for restoring).

The whole answer must fit the 25,000-character budget. Notes may be 50,000 characters, so the
task's own notes are a page: `notes[notesOffset:]`, at most `notesLimit` characters, cut to what
fits beside the rest of the answer. A cut page says `notesTruncated: true` and `notesNextOffset`
(where the next call starts); offsets count code points, like the budget. Only when the rest of
the answer leaves no room for one character of notes is it RESPONSE_TOO_LARGE (hint
includeContext=false when context was asked for; else the subtasks' own notes are the weight:
each subtask reads on its own, paged the same way).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..misses import task_not_found
from ..model import MAX_SUBTASKS
from .budget import RESPONSE_BUDGET_CHARACTERS, with_notes_page
from .traversal import Board, Record, is_live, order_key, without_notes

DEFAULT_TIMEZONE = "UTC"


def task_details(
    board: Board,
    task_id: str,
    *,
    include_context: bool = False,
    default_timezone: str | None = None,
    notes_offset: int = 0,
    notes_limit: int | None = None,
    budget: int = RESPONSE_BUDGET_CHARACTERS,
) -> dict[str, Any]:
    task = next((t for t in board.tasks if t["id"] == task_id), None)
    if task is None or not is_live(task):
        raise task_not_found(task_id)
    subtasks = sorted((t for t in board.tasks if t.get("parentId") == task_id and is_live(t)), key=order_key)
    shown = board.task_view(task)
    if task.get("recurrence") or task.get("occurrences"):
        shown = {**shown, "occurrences": list(task.get("occurrences") or [])}
    data: dict[str, Any] = {
        "task": shown,
        "subtasks": [board.task_view(sub) for sub in subtasks],
        "timezone": task.get("timezone") or default_timezone or DEFAULT_TIMEZONE,
    }
    if include_context:
        data.update(_context(board, task))
        # the trash has no subtask limit (add and trash, again and again): the most recently
        # trashed MAX_SUBTASKS, newest first, so a reader of their histories reads a bounded few
        trashed = [t for t in board.tasks if t.get("parentId") == task_id and not is_live(t)]
        data["trashedSubtaskIds"] = newest_trashed_ids(trashed)
    what = f"task {task_id} with {len(subtasks)} subtasks" + (" and context" if include_context else "")
    return with_notes_page(
        data,
        "task",
        notes_offset,
        notes_limit,
        what=what,
        hints=["includeContext"] if include_context else [],
        budget=budget,
        record_id=task_id,
        remedy="read each subtask with get_todo_task (its notes are paged the same way)",
    )


def newest_trashed_ids(trashed: Iterable[Record]) -> list[str]:
    """The ids of the MAX_SUBTASKS most recently trashed of `trashed`, newest first (ties by id)."""
    newest = sorted(trashed, key=lambda t: (str(t.get("deletedAt") or ""), str(t["id"])), reverse=True)
    return [str(t["id"]) for t in newest[:MAX_SUBTASKS]]


def _context(board: Board, task: Mapping[str, Any]) -> dict[str, Any]:
    space_id = task.get("spaceId")
    space = next((s for s in board.spaces if s["id"] == space_id), None)
    columns = sorted((c for c in board.columns if c.get("spaceId") == space_id), key=order_key)
    inbox: list[Record] = []
    for item in sorted((i for i in board.inbox_items if is_live(i)), key=order_key):
        shown = without_notes(board.inbox_view(item))
        inbox.append({key: value for key, value in shown.items() if key != "subtasks"})
    context: dict[str, Any] = {
        "board": {
            "spaces": sorted((dict(s) for s in board.spaces), key=order_key),
            "columns": [dict(c) for c in columns],
        },
        "inbox": {"items": inbox, "totalCount": len(inbox)},
        "tagSuggestions": sorted((dict(t) for t in board.tags), key=lambda t: str(t["name"])),
    }
    if space is not None:
        context["board"]["space"] = dict(space)
    return context
