"""An inbox item's page (`/todos/inbox/{id}`), opened from the inbox list like a task: its title,
notes, priority, tags and due (date, optional time, zone) saved with update_todo_inbox_item, and
its subtasks (add, tick, delete; htmx swaps just that list) with the inbox subtask operations,
and its History panel (the task page's, `activity/_history_panel.html`).
The form fields are the task page's (`fields.py`); an inbox item has no recurrence or reminders
here (it gets them once filed to the board). Inbox subtasks carry no revision of their own: each
write sends the item's (`parentRevision`), and a refused one shows the list as it is now.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.concurrency import run_sync
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...todos.inbox.access import whole_item
from ..activity.pages import gone_record_page, history_of
from ..kit.forms import LONG_TEXT_FORM_BYTES
from ..kit.framework import Page, Web, endpoint
from ..kit.render import redirect
from ..kit.request_values import form_revision, is_htmx
from .fields import TaskForm, base_digests, form_of_task, item_changes, submitted_base, submitted_form
from .inbox import INBOX
from .quick import page_zone
from .task import PRIORITIES, ZONES, trashed_page

ITEM = INBOX + "/{item_id}"


def item_url(item_id: str) -> str:
    return f"{INBOX}/{item_id}"


def _item_id(page: Page) -> str:
    return str(page.request.path_params["item_id"])


async def read_item(page: Page, item_id: str) -> dict[str, Any]:
    """The item as the page shows it: its notes whole, its subtasks' titles, and none of the agents'
    25,000-character response budget (get_todo_inbox_item's), which refused an item whose
    subtasks' notes pass it with a message for agents (todos/inbox/access.py `whole_item`)."""
    return await run_sync(whole_item, page.call(), item_id)


async def render_item(
    page: Page,
    *,
    form: TaskForm | None = None,
    base: dict[str, str] | None = None,
    revision: int | None = None,
    error: str | None = None,
    status: int = 200,
) -> Response:
    item = await read_item(page, _item_id(page))
    shown = form_of_task(item, page_zone(page))
    return page.render(
        "todos/inbox_item.html",
        history=await history_of(page, item["id"]),
        status=status,
        nav="todos",
        item=item,
        subtasks=item.get("subtasks") or [],
        subtask_error=None,
        page_zone=page_zone(page),
        form=form or shown,
        base=base or base_digests(shown),
        revision=revision if revision is not None else item["revision"],
        error=error,
        priorities=PRIORITIES,
        zones=ZONES,
    )


async def item_page(page: Page) -> Response:
    try:
        return await render_item(page)
    except NotFound:  # moved to the board, in the trash, or deleted: /activity links here from its changes
        try:  # moved to the board: the task it became has its id
            await page.invoke("get_todo_task", {"id": _item_id(page)})
        except (NotFound, ValidationError):  # ValidationError: "an inbox item" (the trashed one), for agents
            pass
        else:
            return redirect(f"/todos/tasks/{_item_id(page)}")
        gone = await gone_record_page(page, _item_id(page)) or await trashed_page(page, _item_id(page))
        if gone is None:
            raise
        return gone


async def save_submit(page: Page) -> Response:
    yours = submitted_form(page.fields)
    revision = form_revision(page.fields)
    base = submitted_base(page.fields)
    try:
        changes = item_changes(yours, page_zone(page), base)
        await page.invoke("update_todo_inbox_item", {"id": _item_id(page), "expectedRevision": revision, **changes})
    except RevisionConflict as clash:
        current = (clash.recover_data or {}).get("item") or {}
        message = page.gettext(
            "This item changed meanwhile (another tab or app). Your text is kept: save again to replace it."
        )
        # Saving again replaces the newer version, the due included unless it is the same.
        theirs = base_digests(form_of_task(current, page_zone(page))) if current else None
        return await render_item(
            page, form=yours, base=theirs, revision=current.get("revision"), error=message, status=409
        )
    except (ValidationError, Conflict) as error:
        # Still the version the page started from: its digests go back unchanged.
        return await render_item(
            page, form=yours, base=base or None, revision=revision, error=page.error_text(error), status=400
        )
    return page.redirect_with_flash(item_url(_item_id(page)), page.gettext("Saved."))


# -- subtasks: htmx swaps the list; without script the page reloads ----------------------------------


async def _subtasks_answer(page: Page, message: str | None) -> Response:
    item_id = _item_id(page)
    if not is_htmx(page.request):
        return page.redirect_with_flash(item_url(item_id), message) if message else redirect(item_url(item_id))
    item = await read_item(page, item_id)
    return page.render(
        "todos/_inbox_subtasks.html", item=item, subtasks=item.get("subtasks") or [], subtask_error=message
    )


async def _subtask_write(page: Page, operation: str, arguments: dict[str, Any]) -> Response:
    base = {"parentItemId": _item_id(page), "parentRevision": form_revision(page.fields)}
    try:
        await page.invoke(operation, {**base, **arguments})
    except RevisionConflict:
        return await _subtasks_answer(page, page.gettext("That item changed meanwhile; here is the current list."))
    except (ValidationError, Conflict, NotFound) as error:
        return await _subtasks_answer(page, page.error_text(error))
    return await _subtasks_answer(page, None)


async def add_subtask(page: Page) -> Response:
    return await _subtask_write(page, "create_todo_inbox_subtask", {"title": page.fields.text("title").strip()})


async def toggle_subtask(page: Page) -> Response:
    arguments = {"subtaskId": page.request.path_params["subtask_id"], "isDone": page.fields.text("done") != "true"}
    return await _subtask_write(page, "set_todo_inbox_subtask_done", arguments)


async def delete_subtask(page: Page) -> Response:
    return await _subtask_write(
        page, "delete_todo_inbox_subtask", {"subtaskId": page.request.path_params["subtask_id"]}
    )


def inbox_item_routes(web: Web) -> list[Route]:
    subtask = ITEM + "/subtasks/{subtask_id}"
    return [
        Route(ITEM, endpoint(web, item_page), methods=["GET"]),
        Route(ITEM, endpoint(web, save_submit, form_bytes=LONG_TEXT_FORM_BYTES), methods=["POST"]),
        Route(ITEM + "/subtasks", endpoint(web, add_subtask), methods=["POST"]),
        Route(subtask + "/toggle", endpoint(web, toggle_subtask), methods=["POST"]),
        Route(subtask + "/delete", endpoint(web, delete_subtask), methods=["POST"]),
    ]


__all__ = ["inbox_item_routes"]
