"""Shaping the board: add, rename, reorder, mark done and delete a space's columns, and rename
the space, make it the default or delete it. Every change is the column or space operation
through `Page.invoke` (create_todo_column, update_todo_column, delete_todo_column,
update_todo_space, delete_todo_space), so the rules and their messages are the API's: a refused
change (an empty name, a column or space that still has tasks, the last open column, the default
space) comes back as the board with the operation's message beside its control and the typed
text kept.

The board shows a space's open columns, but a column's `index` counts its archived ones too: the
forms and the drag send the place among the open columns, turned here into the API's index.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ..kit.framework import Page, Web, endpoint, json_ok
from ..kit.i18n import N_
from ..kit.render import redirect
from ..kit.request_values import form_revision
from .board_view import board_view
from .fields import index_of
from .urls import BOARD, board_url

COLUMNS = BOARD + "/columns"
COLUMN = COLUMNS + "/{column_id}"
SPACE = BOARD + "/spaces/{space_id}"
REFUSED = (ValidationError, Conflict, NotFound)
#: The forms' labels of `name` (an error names the field as its form does).
COLUMN_NAME, SPACE_NAME = N_("Column name"), N_("Space name")


def _changed_meanwhile(page: Page) -> str:
    return page.gettext("That changed meanwhile (another tab or app); here is the board as it is now. Try again.")


async def _refused(
    page: Page, space_id: str | None, target: str, error: ValidationError | Conflict | NotFound, value: str = ""
) -> Response:
    """The board again (with the error's status), its message beside the control `target`
    (`add-column`, `column-<id>`, `space`, `space-default` or `space-delete`) and what was typed (`value`) back in
    its field."""

    names = {"name": SPACE_NAME if target.startswith("space") else COLUMN_NAME}  # as its form labels it
    shape_error = {"target": target, "message": page.error_text(error, names), "value": value}
    view = await board_view(page, shape_error=shape_error, space_override=space_id)
    return page.render("todos/board.html", status=error.http_status, **view)


def _column_id(page: Page) -> str:
    return str(page.request.path_params["column_id"])


async def _space_columns(page: Page, column_id: str) -> tuple[str, list[dict[str, Any]]]:
    """(the column's space, every column of that space in order, archived ones included)."""
    listing = await page.invoke("list_todo_spaces", {})
    column = next((c for c in listing["columns"] if c["id"] == column_id), None)
    if column is None:
        raise NotFound(page.gettext("that column does not exist (any more); reload the board"))
    return column["spaceId"], [c for c in listing["columns"] if c["spaceId"] == column["spaceId"]]


def api_index(columns: list[dict[str, Any]], column_id: str, open_index: int) -> int:
    """update_todo_column's `index` (among every other column of the space) that puts the column
    at `open_index` among the open ones the board shows."""
    others = [c for c in columns if c["id"] != column_id]
    shown = [c for c in others if not c["archived"]]
    if open_index >= len(shown):
        return len(others)
    return others.index(shown[max(open_index, 0)])


# -- columns ----------------------------------------------------------------------------------------


async def add_column(page: Page) -> Response:
    space_id, name = page.fields.text("space"), page.fields.text("name").strip()
    try:
        created = await page.invoke("create_todo_column", {"spaceId": space_id, "name": name})
    except REFUSED as error:
        return await _refused(page, space_id, "add-column", error, name)
    column = created["column"]
    return redirect(board_url(column["spaceId"], f"column-title-{column['id']}"))


async def _update_column(page: Page, changes: dict[str, Any], value: str = "") -> Response:
    column_id = _column_id(page)
    space_id = page.fields.text("space") or None
    arguments = {"columnId": column_id, "expectedRevision": form_revision(page.fields), **changes}
    try:
        updated = await page.invoke("update_todo_column", arguments)
    except RevisionConflict:
        return page.redirect_with_flash(board_url(space_id), _changed_meanwhile(page))
    except REFUSED as error:
        return await _refused(page, space_id, f"column-{column_id}", error, value)
    column = updated["column"]
    return redirect(board_url(column["spaceId"], f"column-title-{column['id']}"))


async def rename_column(page: Page) -> Response:
    name = page.fields.text("name").strip()
    return await _update_column(page, {"name": name}, name)


async def mark_column(page: Page) -> Response:
    """Mark (or unmark) the space's done column: completed tasks move there."""
    return await _update_column(page, {"done": page.fields.text("done") == "true"})


async def move_column(page: Page) -> Response:
    """Move left / right (the keyboard way to reorder): `index`, the place among the open columns."""
    open_index = index_of(page.fields)
    if open_index is None:
        raise ValidationError(page.gettext("the form does not say where to move the column; reload the board"))
    _space_id, columns = await _space_columns(page, _column_id(page))
    return await _update_column(page, {"index": api_index(columns, _column_id(page), open_index)})


async def drop_column(page: Page) -> Response:
    """A column dragged by its handle (JSON from todos.js): its new place; answers its revision."""
    open_index = index_of(page.fields)
    if open_index is None:
        raise ValidationError(page.gettext("index: give the column's new place"))
    column_id = _column_id(page)
    _space_id, columns = await _space_columns(page, column_id)
    arguments = {
        "columnId": column_id,
        "expectedRevision": form_revision(page.fields),
        "index": api_index(columns, column_id, open_index),
    }
    column = (await page.invoke("update_todo_column", arguments))["column"]
    return json_ok({"ok": True, "column": {"id": column["id"], "revision": column["revision"]}})


async def delete_column(page: Page) -> Response:
    column_id = _column_id(page)
    space_id = page.fields.text("space") or None
    try:
        gone = await page.invoke(
            "delete_todo_column", {"columnId": column_id, "expectedRevision": form_revision(page.fields)}
        )
    except RevisionConflict:
        return page.redirect_with_flash(board_url(space_id), _changed_meanwhile(page))
    except REFUSED as error:
        return await _refused(page, space_id, f"column-{column_id}", error)
    column = gone["column"]
    return page.redirect_with_flash(
        board_url(column["spaceId"]), page.gettext("Column “%(name)s” deleted.", name=column["name"][:80])
    )


# -- the space --------------------------------------------------------------------------------------


async def rename_space(page: Page) -> Response:
    space_id, name = str(page.request.path_params["space_id"]), page.fields.text("name").strip()
    arguments = {"spaceId": space_id, "expectedRevision": form_revision(page.fields), "name": name}
    try:
        await page.invoke("update_todo_space", arguments)
    except RevisionConflict:
        return page.redirect_with_flash(board_url(space_id), _changed_meanwhile(page))
    except REFUSED as error:
        return await _refused(page, space_id, "space", error, name)
    return redirect(board_url(space_id))


async def make_default_space(page: Page) -> Response:
    """The space becomes the default (update_todo_space makeDefault): new captures land there,
    and the space that was the default can then be deleted."""
    space_id = str(page.request.path_params["space_id"])
    arguments = {"spaceId": space_id, "expectedRevision": form_revision(page.fields), "makeDefault": True}
    try:
        space = (await page.invoke("update_todo_space", arguments))["space"]
    except RevisionConflict:
        return page.redirect_with_flash(board_url(space_id), _changed_meanwhile(page))
    except REFUSED as error:
        return await _refused(page, space_id, "space-default", error)
    return page.redirect_with_flash(
        board_url(space_id), page.gettext("“%(name)s” is now the default space.", name=space["name"][:80])
    )


async def delete_space(page: Page) -> Response:
    space_id = str(page.request.path_params["space_id"])
    try:
        gone = await page.invoke(
            "delete_todo_space", {"spaceId": space_id, "expectedRevision": form_revision(page.fields)}
        )
    except RevisionConflict:
        return page.redirect_with_flash(board_url(space_id), _changed_meanwhile(page))
    except REFUSED as error:
        return await _refused(page, space_id, "space-delete", error)
    return page.redirect_with_flash(BOARD, page.gettext("Space “%(name)s” deleted.", name=gone["space"]["name"][:80]))


def shape_routes(web: Web) -> list[Route]:
    return [
        Route(COLUMNS, endpoint(web, add_column), methods=["POST"]),
        Route(COLUMN + "/rename", endpoint(web, rename_column), methods=["POST"]),
        Route(COLUMN + "/done", endpoint(web, mark_column), methods=["POST"]),
        Route(COLUMN + "/move", endpoint(web, move_column), methods=["POST"]),
        Route(COLUMN + "/drop", endpoint(web, drop_column, api=True), methods=["POST"]),
        Route(COLUMN + "/delete", endpoint(web, delete_column), methods=["POST"]),
        Route(SPACE + "/rename", endpoint(web, rename_space), methods=["POST"]),
        Route(SPACE + "/default", endpoint(web, make_default_space), methods=["POST"]),
        Route(SPACE + "/delete", endpoint(web, delete_space), methods=["POST"]),
    ]


__all__ = ["api_index", "shape_routes"]
