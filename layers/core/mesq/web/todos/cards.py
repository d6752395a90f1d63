"""A board card: a task as its card shows it, and one card again for htmx to swap in place
(the board, the task page's complete/reopen and the card's checkbox all answer with it, the
checkbox with an Undo toast)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response

from ...kernel.concurrency import run_sync
from ...kernel.errors import ResponseTooLarge
from ...todos.views.operations import task_for_page
from ..kit.framework import Page
from ..kit.i18n import Translator
from ..kit.toast import Toast, render_with_toast
from .fields import friendly_due, index_of
from .quick import page_zone


def card(
    task: dict[str, Any], subtasks: list[dict[str, Any]], index: int, now: datetime, zone: str, say: Translator
) -> dict[str, Any]:
    """A task as its card shows it (index: its place in the column, for the keyboard buttons; its
    due in words, seen from `now` in the browser's `zone`, in the page's language `say`)."""
    done = sum(1 for s in subtasks if s["done"])
    return {
        **task,
        "index": index,
        "due_view": friendly_due(task.get("due"), now, zone, done=task["done"], say=say, own_zone=task.get("timezone")),
        "progress": f"{done}/{len(subtasks)}" if subtasks else "",
    }


async def card_answer(
    page: Page, task_id: str, error: str | None = None, toast: Toast | None = None, *, undoing: bool = False
) -> Response:
    """One card again, for htmx to swap in place after it was completed or reopened on the board
    (`place`: its position in the column, which the keyboard move buttons need). A task the done
    rule moved to its space's done column (`column`: where the card was) leaves a hidden
    placeholder in its place and lands on top of that column (an out-of-band swap); the write's
    toast (its Undo) then targets the placeholder. `undoing`: an Undo swapping the card back into
    its placeholder, which also removes the card from where the done rule had put it."""
    detail = await task_detail(page, task_id)
    task = detail["task"]
    listing = await page.invoke("list_todo_spaces", {})
    columns = [c for c in listing["columns"] if c["spaceId"] == task["spaceId"] and not c["archived"]]
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    moved = page.fields.text("column") not in ("", task["columnId"])  # the done rule moved it
    place = 0 if moved else index_of(page.fields, "place") or 0  # the done rule puts it on top
    shown = card(task, detail["subtasks"], place, now, page_zone(page), page.translator)
    template = "todos/_card_back.html" if undoing else "todos/_card_moved.html" if moved else "todos/_card.html"
    if moved and toast is not None and toast.undoable:
        fields = (*toast.fields, ("placeholder", "1"))
        toast = replace(toast, target=f"#task-place-{task_id}", fields=fields)
    return render_with_toast(page, template, toast, task=shown, columns=columns, card_error=error)


async def task_detail(page: Page, task_id: str, *, include_context: bool = False) -> dict[str, Any]:
    """get_todo_task (its checks, its answer); a task whose subtasks' notes pass the agents'
    25,000-character response budget is read for the page without it
    (todos/views/operations.task_for_page: its subtasks without their notes), never refused."""
    try:
        return await page.invoke("get_todo_task", {"id": task_id, "includeContext": include_context})
    except ResponseTooLarge:
        return await run_sync(task_for_page, page.call(), task_id, include_context)
