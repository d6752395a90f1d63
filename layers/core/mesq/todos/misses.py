"""What an id a task tool did not find is: an inbox item (and the inbox tool that takes it), a
memo (memos have their own tools), or nothing (a deleted task may be in list_todo_trash). A
model mixes the kinds up; the answer names the fix. Used by every single-record task tool (the
board's writes and get_todo_task); the batch tools name their inbox tool the same way."""

from __future__ import annotations

from ..kernel.context import Services
from ..kernel.errors import MesqError, NotFound, ValidationError
from ..kernel.i18n import ForPrograms
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..search.searchables import searchables_of
from . import keys
from .state import TodoState

#: The inbox tool that does what a task tool was asked to do with an inbox item's id.
INBOX_TOOLS = {
    "get_todo_task": "get_todo_inbox_item",
    "update_todo_task": "update_todo_inbox_item",
    "complete_todo_task": "complete_todo_inbox_item",
    "reopen_todo_task": "update_todo_inbox_item",
    "delete_todo_task": "delete_todo_inbox_item",
    "restore_todo_task": "restore_todo_item",
    "move_todo_task": "move_todo_inbox_item_to_board",
}


def missing_task(services: Services, user_id: str, state: TodoState, task_id: str, tool: str | None) -> MesqError:
    """Why a task tool found no task with this id: it is an inbox item (the tool that takes it),
    a memo (memos have their own tools), or nothing (trashed tasks are in list_todo_trash). The
    two extra reads happen only on a miss (a model mixes the kinds up). The memo's key comes from
    the searchables registry (the memo source's prefix): todos does not import memos."""
    if state.inbox_item(task_id) is not None:
        use = INBOX_TOOLS.get(tool or "", "the *_todo_inbox_item tools")
        return ValidationError("%(id)s is an inbox item; use %(use)s", id=quoted(task_id), use=use)
    memo_prefixes = [prefix for prefix, kind in searchables_of(services).prefixes.items() if kind == "memo"]
    if any(services.items.get((user_partition(user_id), f"{prefix}{task_id}")) for prefix in memo_prefixes):
        return ValidationError(
            "%(id)s is a memo, not a todo task; use the memo tools (get_memo, update_memo)", id=quoted(task_id)
        )
    return task_not_found(task_id)


def task_not_found(task_id: str) -> NotFound:
    """No live task has this id. The tool that lists the trash is for the agents (REST and MCP
    say it); a page says where the trash is in its reader's words and names no tool."""
    return NotFound(
        "todo task %(id)s not found (a deleted task may be in the trash%(tool)s)",
        id=quoted(task_id),
        tool=ForPrograms(", listed by list_todo_trash"),
    )


def in_trash(services: Services, user_id: str, record_id: str) -> bool:
    """Whether `record_id` is one of the user's tasks, subtasks or inbox items in the todo trash
    (two key reads): a page whose record's history has expired still knows where it went."""
    for key in (keys.task_key(user_id, record_id), keys.inbox_key(user_id, record_id)):
        found = services.items.get(key)
        if found is not None and not keys.live(found):
            return True
    return False
