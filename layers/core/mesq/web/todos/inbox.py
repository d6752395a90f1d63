"""The todo inbox (`/todos/inbox`): quick capture (one field, Enter; htmx swaps the list, a plain
post reloads the page). Each item is a row (templates/todos/_row.html): its due, priority and tags
as chips, ticked done or open in one tap, and behind its menu filed to a space's column
(move_todo_inbox_item_to_board) or moved to the trash. All through the inbox operations."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_, Translator
from ..kit.render import redirect
from ..kit.request_values import form_revision, is_htmx, query_offset
from .fields import friendly_due
from .quick import form_ignore, page_zone, understand
from .urls import BOARD, board_url

INBOX = BOARD + "/inbox"
PAGE_SIZE = 100
CHANGED = N_("That item changed meanwhile (another tab or app); here is the inbox as it is now.")


async def _inbox_view(page: Page, **extra: Any) -> dict[str, Any]:
    items = await page.invoke(
        "list_todo_inbox_items", {"offset": query_offset(page.request.query_params), "limit": PAGE_SIZE}
    )
    spaces = await page.invoke("list_todo_spaces", {})
    destinations = [
        {"space": space, "columns": [c for c in spaces["columns"] if c["spaceId"] == space["id"] and not c["archived"]]}
        for space in spaces["spaces"]
    ]
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    zone, say = page_zone(page), page.translator
    return {
        "nav": "todos",
        "items": [row(item, now, zone, say) for item in items["items"]],
        "page": items["page"],
        "destinations": destinations,
        "capture_error": None,
        "capture_title": "",
        "item_error": None,
        "filed": None,
        **extra,
    }


def row(item: dict[str, Any], now: datetime, zone: str, say: Translator) -> dict[str, Any]:
    """An item as its row shows it: its due in words in the browser's zone, where it opens."""
    due = friendly_due(item.get("due"), now, zone, done=item["done"], say=say, own_zone=item.get("timezone"))
    return {**item, "due_view": due, "url": f"{INBOX}/{item['id']}"}


async def _answer(page: Page, status: int = 200, **extra: Any) -> Response:
    """The list alone for htmx (always 200 so htmx swaps it), else the whole page."""
    view = await _inbox_view(page, **extra)
    if is_htmx(page.request):
        return page.render("todos/_inbox_list.html", **view)
    return page.render("todos/inbox.html", status=status, **view)


async def inbox_page(page: Page) -> Response:
    return page.render("todos/inbox.html", **await _inbox_view(page))


async def capture_submit(page: Page) -> Response:
    title = page.fields.text("title")
    try:
        # quick add; inbox items do not repeat
        parsed = await understand(page, title, form_ignore(page) | {"recurrence"})
        await page.invoke("create_todo_inbox_item", parsed.arguments(page_zone(page)))
    except ValidationError as error:
        return await _answer(page, 400, capture_error=page.error_text(error), capture_title=title)
    return await _answer(page) if is_htmx(page.request) else redirect(INBOX)


async def _item_write(page: Page, operation: str, arguments: dict[str, Any]) -> dict[str, Any] | Response:
    try:
        return await page.invoke(operation, arguments)
    except RevisionConflict:
        return await _answer(page, 409, item_error=page.gettext(CHANGED))
    except (ValidationError, Conflict, NotFound) as error:
        return await _answer(page, error.http_status, item_error=page.error_text(error))


def _item_arguments(page: Page) -> dict[str, Any]:
    return {"id": page.request.path_params["item_id"], "expectedRevision": form_revision(page.fields)}


async def file_submit(page: Page) -> Response:
    column = page.fields.text("column")
    if not column:
        raise ValidationError("choose a column to file the item into")
    moved = await _item_write(page, "move_todo_inbox_item_to_board", {**_item_arguments(page), "columnId": column})
    if isinstance(moved, Response):
        return moved
    task = moved["task"]
    if is_htmx(page.request):
        filed = {"title": task["title"], "url": board_url(task["spaceId"], f"task-{task['id']}")}
        return await _answer(page, filed=filed)
    return page.redirect_with_flash(INBOX, page.gettext("“%(title)s” filed to the board.", title=task["title"][:80]))


async def toggle_submit(page: Page) -> Response:
    done = page.fields.text("done") != "true"
    changed = await _item_write(page, "complete_todo_inbox_item", {**_item_arguments(page), "done": done})
    if isinstance(changed, Response):
        return changed
    return await _answer(page) if is_htmx(page.request) else redirect(INBOX)


async def delete_submit(page: Page) -> Response:
    gone = await _item_write(page, "delete_todo_inbox_item", _item_arguments(page))
    if isinstance(gone, Response):
        return gone
    return (
        await _answer(page)
        if is_htmx(page.request)
        else page.redirect_with_flash(INBOX, page.gettext("Moved to the todo trash."))
    )


def inbox_routes(web: Web) -> list[Route]:
    item = INBOX + "/{item_id}"
    return [
        Route(INBOX, endpoint(web, inbox_page), methods=["GET"]),
        Route(INBOX, endpoint(web, capture_submit), methods=["POST"]),
        Route(item + "/file", endpoint(web, file_submit), methods=["POST"]),
        Route(item + "/toggle", endpoint(web, toggle_submit), methods=["POST"]),
        Route(item + "/delete", endpoint(web, delete_submit), methods=["POST"]),
    ]
