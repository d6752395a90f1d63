"""The todo trash (`/todos/trash`): trashed root tasks, subtasks and inbox items, newest first,
each restorable (restore_todo_item, conditioned on the revision shown). The API has no
permanent delete for todos, so neither has this page."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_
from ..kit.request_values import query_offset
from .fields import revision_of
from .urls import BOARD

TRASH = BOARD + "/trash"
PAGE_SIZE = 50
KINDS = {"task": N_("Task"), "subtask": N_("Subtask"), "inboxItem": N_("Inbox item")}  # translated where shown


async def trash_page(page: Page) -> Response:
    data = await page.invoke("list_todo_trash", {"offset": query_offset(page.request.query_params), "limit": PAGE_SIZE})
    return page.render("todos_trash.html", nav="todos", entries=data["items"], page=data["page"], kinds=KINDS)


async def restore_submit(page: Page) -> Response:
    kind = page.fields.text("kind")
    if kind not in KINDS:
        raise ValidationError("kind must be task, subtask or inboxItem")
    arguments = {"id": page.fields.text("id"), "kind": kind, "expectedRevision": revision_of(page.fields)}
    try:
        restored = await page.invoke("restore_todo_item", arguments)
    except RevisionConflict:
        return page.redirect_with_flash(
            TRASH, page.gettext("That item changed meanwhile; here is the trash as it is now.")
        )
    except (ValidationError, Conflict, NotFound) as error:
        return page.redirect_with_flash(TRASH, error.message)
    record = restored.get("task") or restored.get("subtask") or restored.get("inboxItem") or {}
    return page.redirect_with_flash(
        TRASH, page.gettext("“%(title)s” restored.", title=str(record.get("title", ""))[:80])
    )


def todo_trash_routes(web: Web) -> list[Route]:
    return [
        Route(TRASH, endpoint(web, trash_page), methods=["GET"]),
        Route(TRASH + "/restore", endpoint(web, restore_submit), methods=["POST"]),
    ]
