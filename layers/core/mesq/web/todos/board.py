"""The todo board (待办) at `/todos`: the user's spaces (a switcher), a space's open columns, its
root tasks as cards, "load more" for big boards, adding a task to a column, and moving one by
drag and drop (`static/todos.js`, SortableJS) or by the keyboard form on each card. Shaping the
board itself (columns, the space) is `shape.py`.

Every read and write is an OpenAPI operation through `Page.invoke` (list_todo_spaces,
list_todos, create_todo_space, create_todo_task, move_todo_task), so the board never drifts
from REST and MCP. list_todos pages parents in reading order (column by column), so the next
page continues the last column of the previous one: the "more" link carries that column's card
count (`carry`), which keeps every card's index exact for the keyboard Up/Down buttons.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import NotFound, RevisionConflict, ValidationError
from ..kit.framework import Page, Web, endpoint, json_ok
from ..kit.render import redirect
from ..kit.request_values import form_revision, is_htmx
from .agenda import agenda_routes
from .agenda_rows import agenda_row_routes
from .board_view import SpaceGone, board_view
from .fields import index_of
from .inbox import inbox_routes
from .inbox_item import inbox_item_routes
from .quick import form_ignore, page_zone, quick_routes, understand
from .shape import SPACE_NAME, shape_routes
from .task import task_routes
from .trash import todo_trash_routes
from .urls import BOARD, board_url

#: Space changes read, newest first, to follow a renamed space's old address (list_changes' page).
RENAMES_READ = 100


async def board_page(page: Page) -> Response:
    try:
        return page.render("todos/board.html", **await board_view(page))
    except SpaceGone as gone:
        return await _space_gone(page, gone)


async def more_cards(page: Page) -> Response:
    """The next page of cards, each appended to its column (htmx out-of-band swaps), and the next link."""
    try:
        return page.render("todos/_more.html", **await board_view(page))
    except SpaceGone as gone:
        return await _space_gone(page, gone)


async def _space_gone(page: Page, gone: SpaceGone) -> Response:
    """An old link's space (a bookmark, a shared address) that is not there any more: never an error
    page. A renamed space (its old slug in a rename the history keeps) opens under its new name;
    a deleted one (or one the history no longer knows) gives the default space, with a note."""
    live = {space["id"]: space for space in gone.spaces}
    changes = await page.invoke("list_changes", {"kind": "space", "limit": RENAMES_READ})
    renamed = next(
        (
            live[change["record"]["id"]]
            for change in changes["changes"]
            if (change.get("before") or {}).get("slug") == gone.wanted and change["record"]["id"] in live
        ),
        None,
    )
    if renamed is not None:
        url = board_url(renamed["id"])
        note = page.gettext("That space was renamed to “%(name)s”; here it is.", name=renamed["name"][:80])
    else:
        url, note = BOARD, page.gettext("That space no longer exists; here is your default space.")
    answer = page.redirect_with_flash(url, note)
    if is_htmx(page.request):  # "load more" of a space deleted meanwhile: the whole page goes there
        answer.status_code = 200
        answer.headers["HX-Redirect"] = url
    return answer


async def create_space(page: Page) -> Response:
    name = page.fields.text("name").strip()
    try:
        created = await page.invoke("create_todo_space", {"name": name})
    except ValidationError as error:
        return page.render(
            "todos/board.html",
            status=400,
            **await board_view(page, space_error=page.error_text(error, {"name": SPACE_NAME}), space_name=name),
        )
    return redirect(board_url(created["space"]["id"]))


async def create_task(page: Page) -> Response:
    column_id, title = page.fields.text("column"), page.fields.text("title")
    parsed = await understand(page, title, form_ignore(page))  # quick add: dates, !priority, #tags, "every monday"
    arguments = {"columnId": column_id, **parsed.arguments(page_zone(page))}
    try:
        created = await page.invoke("create_todo_task", arguments)
    except (ValidationError, NotFound) as error:  # NotFound: the column was deleted meanwhile
        failed = {"column": column_id, "message": page.error_text(error), "title": title}
        return page.render("todos/board.html", status=400, **await board_view(page, add_error=failed))
    task = created["task"]
    return redirect(board_url(task["spaceId"], f"task-{task['id']}"))


def _move_arguments(page: Page) -> dict[str, Any]:
    task_id = page.request.path_params["task_id"]
    arguments: dict[str, Any] = {"id": task_id, "expectedRevision": form_revision(page.fields)}
    column = page.fields.get("column")
    if column not in (None, ""):
        arguments["columnId"] = column
    index = index_of(page.fields)
    if index is not None:
        arguments["index"] = index
    return arguments


async def move_submit(page: Page) -> Response:
    """The keyboard form on a card (without script): a column and/or a place (Up, Down, the end)."""
    try:
        moved = await page.invoke("move_todo_task", _move_arguments(page))
    except RevisionConflict as clash:
        current = (clash.recover_data or {}).get("task") or {}
        notice = page.gettext(
            "That task changed meanwhile (another tab or app); here is the board as it is now. Move it again."
        )
        return page.redirect_with_flash(board_url(current.get("spaceId")), notice)
    task = moved["task"]
    return redirect(board_url(task["spaceId"], f"task-{task['id']}"))


async def drop_submit(page: Page) -> Response:
    """A drag and drop (JSON from todos.js): the card's new column and index; answers its revision."""
    moved = await page.invoke("move_todo_task", _move_arguments(page))
    task = moved["task"]
    return json_ok({"ok": True, "task": {"id": task["id"], "columnId": task["columnId"], "revision": task["revision"]}})


def todo_routes(web: Web) -> list[Route]:
    return [
        Route(BOARD, endpoint(web, board_page), methods=["GET"]),
        Route(BOARD + "/more", endpoint(web, more_cards), methods=["GET"]),
        Route(BOARD + "/spaces", endpoint(web, create_space), methods=["POST"]),
        Route(BOARD + "/tasks", endpoint(web, create_task), methods=["POST"]),
        Route(BOARD + "/tasks/{task_id}/move", endpoint(web, move_submit), methods=["POST"]),
        Route(BOARD + "/tasks/{task_id}/drop", endpoint(web, drop_submit, api=True), methods=["POST"]),
        *agenda_routes(web),
        *agenda_row_routes(web),
        *shape_routes(web),
        *task_routes(web),
        *inbox_routes(web),
        *inbox_item_routes(web),
        *quick_routes(web),
        *todo_trash_routes(web),
    ]


__all__ = ["todo_routes"]
