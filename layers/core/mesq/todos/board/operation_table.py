"""The board's todo operations (spaces, columns, tasks, subtasks, tags, trash, batch, reminders),
one function per operationId of mesq/todos/openapi.yaml and reminders.openapi.yaml; registered in
mesq.application.invocation.REGISTRY."""

from __future__ import annotations

from .batch import batch_complete_todo_tasks, batch_update_todo_tasks
from .columns import create_todo_column, delete_todo_column, update_todo_column
from .reminders import clear_todo_reminders, set_todo_reminders
from .spaces import create_todo_space, delete_todo_space, list_todo_spaces, update_todo_space
from .subtasks import (
    complete_todo_subtask,
    create_todo_subtask,
    delete_todo_subtask,
    reopen_todo_subtask,
    reorder_todo_subtasks,
    update_todo_subtask,
)
from .tags import create_todo_tag, delete_todo_tag, list_todo_tags, update_todo_tag
from .tasks import (
    complete_todo_task,
    create_todo_task,
    delete_todo_task,
    duplicate_todo_task,
    move_todo_task,
    reopen_todo_task,
    restore_todo_task,
    update_todo_task,
)
from .trash import list_todo_trash, restore_todo_item

OPERATIONS = {
    fn.__name__: fn
    for fn in (
        list_todo_spaces, create_todo_space, update_todo_space, delete_todo_space,
        create_todo_column, update_todo_column, delete_todo_column,
        create_todo_task, update_todo_task, move_todo_task, complete_todo_task, reopen_todo_task,
        delete_todo_task, restore_todo_task, duplicate_todo_task,
        create_todo_subtask, update_todo_subtask, complete_todo_subtask, reopen_todo_subtask,
        delete_todo_subtask, reorder_todo_subtasks,
        list_todo_tags, create_todo_tag, update_todo_tag, delete_todo_tag,
        list_todo_trash, restore_todo_item,
        batch_update_todo_tasks, batch_complete_todo_tasks,
        set_todo_reminders, clear_todo_reminders,
    )
}  # fmt: skip

__all__ = ["OPERATIONS"]
