"""The todo trash (`/todos/trash`): trashed root tasks, subtasks and inbox items, newest first,
each restorable (restore_todo_item, conditioned on the revision shown; in place with htmx, with
an Undo toast that puts it back in the trash). The API has no
permanent delete for todos, so neither has this page."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ..activity.times import page_moment
from ..activity.undoing import undo_in_order
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_
from ..kit.request_values import form_revision, is_htmx, query_offset
from ..kit.toast import Toast, render_with_toast, toast_only, undo_ids
from .urls import BOARD

TRASH = BOARD + "/trash"
PAGE_SIZE = 50
KINDS = {"task": N_("Task"), "subtask": N_("Subtask"), "inboxItem": N_("Inbox item")}  # translated where shown


def _shown(page: Page, entry: dict[str, Any]) -> dict[str, Any]:
    """A trash entry with when it was deleted in words (`deleted_words`)."""
    return {**entry, "deleted_words": page_moment(page, entry["deletedAt"])}


async def trash_page(page: Page) -> Response:
    data = await page.invoke("list_todo_trash", {"offset": query_offset(page.request.query_params), "limit": PAGE_SIZE})
    entries = [_shown(page, entry) for entry in data["items"]]
    return page.render("todos/trash.html", nav="todos", entries=entries, page=data["page"], kinds=KINDS)


def _refused(page: Page, message: str) -> Response:
    """A refused restore: the trash again with the notice, or with htmx the notice as a toast."""
    if is_htmx(page.request):
        return toast_only(page, Toast(message))
    return page.redirect_with_flash(TRASH, message)


async def restore_submit(page: Page) -> Response:
    kind = page.fields.text("kind")
    if kind not in KINDS:
        raise ValidationError("kind must be task, subtask or inboxItem")
    arguments = {"id": page.fields.text("id"), "kind": kind, "expectedRevision": form_revision(page.fields)}
    try:
        restored, change_ids = await page.invoke_recorded("restore_todo_item", arguments)
    except RevisionConflict:
        return _refused(page, page.gettext("That item changed meanwhile; here is the trash as it is now."))
    except NotFound:
        return _refused(page, page.gettext("That item is no longer in the trash."))
    except (ValidationError, Conflict):
        # The service's reason is in English with ids (a parent task in the trash, a column gone):
        # the page says it in its own words.
        return _refused(page, page.gettext("That item cannot be restored as it is; open the trash to see it now."))
    record = restored.get("task") or restored.get("subtask") or restored.get("inboxItem") or {}
    done = page.gettext("“%(title)s” restored.", title=str(record.get("title", ""))[:80])
    if not is_htmx(page.request):
        return page.redirect_with_flash(TRASH, done)
    entry_id = page.fields.text("id")
    toast = Toast(done, TRASH + "/undo", f"#todo-trash-{entry_id}", change_ids, (("id", entry_id),), record=entry_id)
    return render_with_toast(page, "todos/_trash_gone.html", toast, entry={"id": entry_id})


async def undo_submit(page: Page) -> Response:
    """A toast's Undo: its changes undone in order (`activity/undoing.py`; the item back in the
    trash), and its entry again in place, read from the trash's newest page."""
    entry_id = page.fields.text("id")
    undone = await undo_in_order(page, entry_id, undo_ids(page))
    message = undone.message
    if not is_htmx(page.request):
        return page.redirect_with_flash(TRASH, message)
    listed = await page.invoke("list_todo_trash", {"offset": 0, "limit": PAGE_SIZE})
    found = next((entry for entry in listed["items"] if entry["id"] == entry_id), None)
    fragment = "todos/_trash_entry.html" if found else "todos/_trash_gone.html"
    entry = _shown(page, found) if found else {"id": entry_id}
    return render_with_toast(page, fragment, Toast(message), entry=entry, kinds=KINDS)


def todo_trash_routes(web: Web) -> list[Route]:
    return [
        Route(TRASH, endpoint(web, trash_page), methods=["GET"]),
        Route(TRASH + "/restore", endpoint(web, restore_submit), methods=["POST"]),
        Route(TRASH + "/undo", endpoint(web, undo_submit), methods=["POST"]),
    ]
