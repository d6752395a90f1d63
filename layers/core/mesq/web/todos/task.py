"""A task's page (`/todos/tasks/{id}`): its fields (title, notes, priority, tags, due with time
and zone, recurrence), complete / reopen (a recurring task shows its next occurrence), the
reminders, the subtasks (add, tick, rename, delete; htmx swaps just that list), moving it to
another space's column (move_todo_task: its subtasks go with it) and the trash.

Every save sends the revision the page was rendered from. When the task changed meanwhile the
page comes back with both versions side by side and the user's text still in the form, carrying
the current revision: saving again applies the user's (merged) version on top.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.concurrency import run_sync
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...todos.misses import in_trash
from ..activity.pages import gone_record_page, history_of
from ..activity.undoing import undo_in_order
from ..kit.forms import LONG_TEXT_FORM_BYTES
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_
from ..kit.render import redirect
from ..kit.request_values import form_revision, is_htmx
from ..kit.toast import Toast, undo_ids
from .cards import card_answer, task_detail
from .fields import (
    RECURRENCE_PRESETS,
    REMINDER_OFFSETS,
    TaskForm,
    base_digests,
    form_of_task,
    friendly_due,
    merge,
    occurrence_words,
    reminder_form,
    reminders_beyond_form,
    reminders_of,
    shown_zone,
    submitted_base,
    submitted_form,
    task_changes,
)
from .quick import page_zone
from .urls import BOARD, board_url

TASK = BOARD + "/tasks/{task_id}"
ZONES = ("UTC", "Asia/Shanghai", "Asia/Tokyo", "Asia/Singapore", "Asia/Kolkata", "Europe/London", "Europe/Berlin",
         "Europe/Paris", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
         "America/Sao_Paulo", "Australia/Sydney", "Pacific/Auckland")  # fmt: skip
#: Readings of a long note a page may start over when the task is written between two pages.
READ_ATTEMPTS = 3
PRIORITIES = ("none", "low", "medium", "high", "urgent")
FIELD_LABELS = {  # English source text, translated where shown
    "title": N_("Title"),
    "notes": N_("Notes"),
    "priority": N_("Priority"),
    "tags": N_("Tags"),
    "due_date": N_("Due date"),
    "due_time": N_("Due time"),
    "timezone": N_("Time zone"),
    "preset": N_("Repeats"),
    "rule": N_("Custom rule"),
}
OUTCOMES = {"theirs": N_("taken from the newer version (you had not changed it)"),
            "yours": N_("yours kept (only you changed it)"),
            "both": N_("both changed: yours is in the form, merge by hand")}  # fmt: skip


def task_url(task_id: str) -> str:
    return f"{BOARD}/tasks/{task_id}"


def _task_id(page: Page) -> str:
    return str(page.request.path_params["task_id"])


async def read_task(page: Page, task_id: str, *, include_context: bool = False) -> dict[str, Any]:
    """get_todo_task with the task's notes whole: a long note comes in pages (the response
    budget), read on from each page's `notesNextOffset` and joined, so the page shows and the form
    edits all of it. A write between two pages (another revision) starts the reading over."""
    for _attempt in range(READ_ATTEMPTS):
        detail = await task_detail(page, task_id, include_context=include_context)
        task, pages, more = detail["task"], [detail["task"]["notes"]], detail
        while more.get("notesTruncated"):
            more = await page.invoke("get_todo_task", {"id": task_id, "notesOffset": more["notesNextOffset"]})
            if more["task"]["revision"] != task["revision"]:
                break
            pages.append(more["task"]["notes"])
        else:
            whole = {key: value for key, value in detail.items() if not key.startswith("notes")}
            return {**whole, "task": {**task, "notes": "".join(pages)}}
    raise Conflict("the task kept changing while its notes were read; reload the page")


def _subtask_ids(detail: dict[str, Any]) -> list[str]:
    """The task's subtasks, live and in the trash: the History panel has their changes too."""
    return [subtask["id"] for subtask in detail["subtasks"]] + list(detail.get("trashedSubtaskIds", []))


async def render_task(
    page: Page,
    *,
    form: TaskForm | None = None,
    base: dict[str, str] | None = None,
    revision: int | None = None,
    conflict: list[dict[str, str]] | None = None,
    error: str | None = None,
    reminder_error: str | None = None,
    status: int = 200,
) -> Response:
    detail = await read_task(page, _task_id(page), include_context=True)
    task = detail["task"]
    if task["parentId"]:
        return redirect(task_url(task["parentId"]))
    board = detail.get("board") or {}
    column = next((c for c in board.get("columns", []) if c["id"] == task["columnId"]), None)
    listing = await page.invoke("list_todo_spaces", {})
    shown = form_of_task(task, page_zone(page))
    return page.render(
        "todos/task.html",
        history=await history_of(page, task["id"], subtask_ids=_subtask_ids(detail)),
        status=status,
        nav="todos",
        task=task,
        subtasks=detail["subtasks"],
        space=board.get("space"),
        column=column,
        due=friendly_due(
            task["due"],
            datetime.fromtimestamp(page.web.clock(), UTC),
            page_zone(page),
            done=task["done"],
            say=page.translator,
            own_zone=task.get("timezone"),
        ),
        zone=detail["timezone"],
        browser_zone=page_zone(page),
        form=form or shown,
        base=base or base_digests(shown),
        labels=FIELD_LABELS,
        outcomes=OUTCOMES,
        revision=revision if revision is not None else task["revision"],
        conflict=conflict,
        error=error,
        reminder_error=reminder_error,
        reminders=reminder_form(task, shown_zone(task, page_zone(page))),
        other_reminders=reminders_beyond_form(task, shown_zone(task, page_zone(page)), page.translator),
        reminder_zone=shown_zone(task, page_zone(page)),
        presets=RECURRENCE_PRESETS,
        offsets=REMINDER_OFFSETS,
        priorities=PRIORITIES,
        zones=ZONES,
        occurrences=list(reversed(task.get("occurrences") or []))[:5],
        subtask_error=None,
        destinations=_destinations(listing),
    )


def _destinations(listing: dict[str, Any]) -> list[dict[str, Any]]:
    """Where the Move form can put a task: each space with its open columns, spaces in board order."""
    return [
        {**space, "columns": [c for c in listing["columns"] if c["spaceId"] == space["id"] and not c["archived"]]}
        for space in listing["spaces"]
    ]


async def task_page(page: Page) -> Response:
    try:
        return await render_task(page)
    except NotFound:  # in the trash, or deleted: /activity links here from its changes
        gone = await gone_record_page(page, _task_id(page)) or await trashed_page(page, _task_id(page))
        if gone is None:
            raise
        return gone


async def trashed_page(page: Page, record_id: str) -> Response | None:
    """An old link to a task or inbox item in the todo trash whose history has expired (no History
    page to show): the todo trash, with a note, instead of "not found"; None when it is not there."""
    if not await run_sync(in_trash, page.web.services, page.user.user_id, record_id):
        return None
    note = page.gettext("That is in the todo trash now: restore it here to bring it back.")
    return page.redirect_with_flash(BOARD + "/trash", note)


async def save_submit(page: Page) -> Response:
    yours = submitted_form(page.fields)
    revision = form_revision(page.fields)
    try:
        changes = task_changes(yours, page_zone(page), submitted_base(page.fields))
        await page.invoke("update_todo_task", {"id": _task_id(page), "expectedRevision": revision, **changes})
    except RevisionConflict as clash:
        current = (clash.recover_data or {}).get("task")
        if current is None:
            raise
        theirs = form_of_task(current, page_zone(page))
        merged = merge(theirs, yours, submitted_base(page.fields))
        # The next save starts from the newer version: its revision, and it as the base.
        return await render_task(
            page,
            form=merged.form,
            base=base_digests(theirs),
            revision=current["revision"],
            conflict=merged.rows,
            status=409,
        )
    except (ValidationError, Conflict) as error:
        # Still the version the page started from: its revision and its digests go back unchanged.
        base = submitted_base(page.fields)
        return await render_task(
            page, form=yours, base=base or None, revision=revision, error=page.error_text(error), status=400
        )
    return page.redirect_with_flash(task_url(_task_id(page)), page.gettext("Saved."))


def _completion_notice(page: Page, before: dict[str, Any], task: dict[str, Any]) -> str:
    """ "Done." or, for a recurring task that moved on, which occurrence was done and when the
    next is due, each in words of the page's language (`occurrence_words`)."""
    if task["done"]:
        return page.gettext("Done.")
    zone, now = page_zone(page), datetime.fromtimestamp(page.web.clock(), UTC)
    return page.gettext(
        "Done for %(before)s. Next: %(after)s.",
        before=occurrence_words(before["due"], before["timezone"], zone, now, page.translator),
        after=occurrence_words(task["due"], task["timezone"], zone, now, page.translator),
    )


CHANGED_MEANWHILE = N_("The task changed meanwhile; here it is now. Try again.")
#: The Move form's one field, as its label says (a refusal names it so).
MOVE_PLACE = N_("Space and column")


async def _answered(
    page: Page, task_id: str, notice: str, *, refused: bool = False, change_ids: list[str] | None = None
) -> Response:
    """A board card's checkbox (htmx) gets its card again, in place, with the notice beside it
    when the change was refused, else a toast whose Undo undoes exactly the write's changes; the
    task page gets a redirect with the notice."""
    if is_htmx(page.request):
        if refused:
            return await card_answer(page, task_id, notice)
        place = page.fields.text("place")
        fields = (("place", place), ("column", page.fields.text("column")))
        toast = Toast(
            notice, f"/todos/tasks/{task_id}/undo", f"#task-{task_id}", change_ids or [], fields, record=task_id
        )
        return await card_answer(page, task_id, toast=toast)
    return page.redirect_with_flash(task_url(task_id), notice)


async def complete_submit(page: Page) -> Response:
    """Complete from the task page or a board card's checkbox (a recurring task's card shows its
    next occurrence)."""
    task_id = _task_id(page)
    try:
        before = await task_detail(page, task_id)
        done, change_ids = await page.invoke_recorded(
            "complete_todo_task", {"id": task_id, "expectedRevision": form_revision(page.fields)}
        )
    except RevisionConflict:
        return await _answered(page, task_id, page.gettext(CHANGED_MEANWHILE), refused=True)
    notice = _completion_notice(page, before["task"], done["task"])
    return await _answered(page, task_id, notice, change_ids=change_ids)


async def reopen_submit(page: Page) -> Response:
    task_id = _task_id(page)
    try:
        _, change_ids = await page.invoke_recorded(
            "reopen_todo_task", {"id": task_id, "expectedRevision": form_revision(page.fields)}
        )
    except RevisionConflict:
        return await _answered(page, task_id, page.gettext(CHANGED_MEANWHILE), refused=True)
    return await _answered(page, task_id, page.gettext("Reopened."), change_ids=change_ids)


async def undo_submit(page: Page) -> Response:
    """A card toast's Undo: `undo_changes` for exactly its change ids, then the card again in place."""
    task_id = _task_id(page)
    undone = await undo_in_order(page, task_id, undo_ids(page))
    if is_htmx(page.request):
        undoing = page.fields.text("placeholder") == "1"  # the card is back where it was, not in the done column
        toast = Toast(undone.message, open_url=task_url(task_id) if undone.changed_since else "")
        return await card_answer(page, task_id, None, toast, undoing=undoing)
    return page.redirect_with_flash(task_url(task_id), undone.message)


async def delete_submit(page: Page) -> Response:
    task_id = _task_id(page)
    try:
        gone = await page.invoke("delete_todo_task", {"id": task_id, "expectedRevision": form_revision(page.fields)})
    except RevisionConflict:
        return page.redirect_with_flash(task_url(task_id), page.gettext(CHANGED_MEANWHILE))
    task = gone["task"]
    return page.redirect_with_flash(
        board_url(task["spaceId"]), page.gettext("“%(title)s” moved to the todo trash.", title=task["title"][:80])
    )


async def relocate_submit(page: Page) -> Response:
    """The Move form: the task to a column of any space (the column names its space), through
    move_todo_task, which takes its subtasks along; the task's page again, with a note."""
    task_id = _task_id(page)
    arguments = {"id": task_id, "expectedRevision": form_revision(page.fields), "columnId": page.fields.text("column")}
    try:
        await page.invoke("move_todo_task", arguments)
    except RevisionConflict:
        return page.redirect_with_flash(task_url(task_id), page.gettext(CHANGED_MEANWHILE))
    except (ValidationError, NotFound) as error:  # a column deleted or archived meanwhile
        said = page.error_text(error, {"columnId": MOVE_PLACE})  # the field as the form labels it
        return page.redirect_with_flash(task_url(task_id), said)
    return page.redirect_with_flash(task_url(task_id), page.gettext("Moved; its subtasks went with it."))


async def reminders_submit(page: Page) -> Response:
    task_id = _task_id(page)
    revision = form_revision(page.fields)
    try:
        current = await task_detail(page, task_id)
        task = current["task"]
        reminders = reminders_of(page.fields, shown_zone(task, page_zone(page)), task["reminders"])
        if reminders:
            arguments = {"id": task_id, "expectedRevision": revision, "reminders": reminders}
            await page.invoke("set_todo_reminders", arguments)
        else:
            await page.invoke("clear_todo_reminders", {"id": task_id, "expectedRevision": revision})
    except RevisionConflict:
        return page.redirect_with_flash(task_url(task_id), page.gettext(CHANGED_MEANWHILE))
    except (ValidationError, Conflict) as error:
        return await render_task(page, reminder_error=page.error_text(error), status=400)
    return page.redirect_with_flash(
        task_url(task_id), page.gettext("Reminders saved.") if reminders else page.gettext("Reminders cleared.")
    )


# -- subtasks: htmx swaps the list; without script the page reloads ----------------------------------


async def _subtasks_answer(page: Page, parent_id: str, message: str | None) -> Response:
    if not is_htmx(page.request):
        if message:
            return page.redirect_with_flash(task_url(parent_id), message)
        return redirect(task_url(parent_id))
    detail = await task_detail(page, parent_id)
    return page.render("todos/_subtasks.html", task=detail["task"], subtasks=detail["subtasks"], subtask_error=message)


async def _subtask_write(page: Page, operation: str, arguments: dict[str, Any]) -> Response:
    parent_id = page.request.path_params.get("task_id") or page.fields.text("task")
    if not parent_id:
        raise ValidationError("the form does not say which task the subtask belongs to; reload the page")
    try:
        await page.invoke(operation, arguments)
    except RevisionConflict:
        return await _subtasks_answer(
            page, parent_id, page.gettext("That subtask changed meanwhile; here is the current list.")
        )
    except (ValidationError, Conflict, NotFound) as error:
        return await _subtasks_answer(page, parent_id, page.error_text(error))
    return await _subtasks_answer(page, parent_id, None)


async def add_subtask(page: Page) -> Response:
    title = page.fields.text("title").strip()
    return await _subtask_write(page, "create_todo_subtask", {"taskId": _task_id(page), "title": title})


def _subtask_arguments(page: Page) -> dict[str, Any]:
    return {"id": page.request.path_params["subtask_id"], "expectedRevision": form_revision(page.fields)}


async def toggle_subtask(page: Page) -> Response:
    operation = "reopen_todo_subtask" if page.fields.text("done") == "true" else "complete_todo_subtask"
    return await _subtask_write(page, operation, _subtask_arguments(page))


async def rename_subtask(page: Page) -> Response:
    title = page.fields.text("title").strip()
    return await _subtask_write(page, "update_todo_subtask", {**_subtask_arguments(page), "title": title})


async def delete_subtask(page: Page) -> Response:
    return await _subtask_write(page, "delete_todo_subtask", _subtask_arguments(page))


def task_routes(web: Web) -> list[Route]:
    subtask = BOARD + "/subtasks/{subtask_id}"
    return [
        Route(TASK, endpoint(web, task_page), methods=["GET"]),
        Route(TASK, endpoint(web, save_submit, form_bytes=LONG_TEXT_FORM_BYTES), methods=["POST"]),
        Route(TASK + "/complete", endpoint(web, complete_submit), methods=["POST"]),
        Route(TASK + "/reopen", endpoint(web, reopen_submit), methods=["POST"]),
        Route(TASK + "/undo", endpoint(web, undo_submit), methods=["POST"]),
        Route(TASK + "/delete", endpoint(web, delete_submit), methods=["POST"]),
        Route(TASK + "/reminders", endpoint(web, reminders_submit), methods=["POST"]),
        Route(TASK + "/relocate", endpoint(web, relocate_submit), methods=["POST"]),
        Route(TASK + "/subtasks", endpoint(web, add_subtask), methods=["POST"]),
        Route(subtask + "/toggle", endpoint(web, toggle_subtask), methods=["POST"]),
        Route(subtask + "/rename", endpoint(web, rename_subtask), methods=["POST"]),
        Route(subtask + "/delete", endpoint(web, delete_subtask), methods=["POST"]),
    ]
