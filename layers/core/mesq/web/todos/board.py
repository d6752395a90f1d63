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

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import NotFound, RevisionConflict, ValidationError
from ..kit.framework import Page, Web, endpoint, json_ok
from ..kit.render import redirect
from ..kit.request_values import query_offset
from .agenda import agenda_routes
from .cards import card
from .fields import index_of, revision_of
from .inbox import inbox_routes
from .inbox_item import inbox_item_routes
from .quick import form_ignore, page_zone, quick_routes, understand
from .shape import shape_routes
from .task import task_routes
from .trash import todo_trash_routes
from .urls import BOARD, board_url

PAGE_SIZE = 100  # root tasks per board page (list_todos `limit`)


def _carry(raw: str | None) -> tuple[str, int] | None:
    """`carry=<columnId>:<cards already shown>` of a "more" link (None when malformed)."""
    if not raw or ":" not in raw or len(raw) > 100:
        return None
    column_id, count = raw.rsplit(":", 1)
    return (column_id, int(count)) if count.isdigit() else None


def _cards_by_column(
    data: dict[str, Any], carry: tuple[str, int] | None, now: datetime, zone: str
) -> dict[str, list[dict[str, Any]]]:
    subtasks: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for subtask in data["subtasks"]:
        subtasks[subtask["parentId"]].append(subtask)
    by_column: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task in data["tasks"]:
        column = by_column[task["columnId"]]
        start = carry[1] if carry and carry[0] == task["columnId"] else 0
        column.append(card(task, subtasks[task["id"]], start + len(column), now, zone))
    return by_column


def _next_carry(data: dict[str, Any], by_column: dict[str, list[dict[str, Any]]]) -> str:
    """The `carry` of the next "more" link: the last column on this page and its card count."""
    if not data["tasks"]:
        return ""
    last = data["tasks"][-1]["columnId"]
    return f"{last}:{by_column[last][-1]['index'] + 1}"


def _more(space_id: str, data: dict[str, Any], by_column: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    if not data["page"]["hasMore"]:
        return None
    query = {"space": space_id, "offset": data["page"]["nextOffset"], "carry": _next_carry(data, by_column)}
    return {"query": urlencode(query), "shown": data["page"]["nextOffset"], "total": data["page"]["totalCount"]}


async def _spaces(page: Page, chosen_id: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(every space with its columns, the chosen one) from `chosen_id` or `?space=` (default: the
    default space)."""
    listing = await page.invoke("list_todo_spaces", {})
    wanted = chosen_id or page.request.query_params.get("space") or listing["defaultSpaceId"]
    chosen = next((s for s in listing["spaces"] if s["id"] == wanted), None)
    if chosen is None:
        raise ValidationError("that space does not exist (any more); pick one from the board")
    return listing, chosen


async def board_view(page: Page, space_override: str | None = None, **extra: Any) -> dict[str, Any]:
    listing, space = await _spaces(page, space_override)
    offset = query_offset(page.request.query_params)
    carry = _carry(page.request.query_params.get("carry")) if offset else None
    arguments = {"spaceId": space["id"], "includeInbox": False, "offset": offset, "limit": PAGE_SIZE}
    data = await page.invoke("list_todos", arguments)
    columns = [c for c in listing["columns"] if c["spaceId"] == space["id"] and not c["archived"]]
    by_column = _cards_by_column(data, carry, datetime.fromtimestamp(page.web.clock(), UTC), page_zone(page))
    return {
        "nav": "todos",
        "spaces": listing["spaces"],
        "space": space,
        "columns": columns,
        "cards": by_column,
        "more": _more(space["id"], data, by_column),
        "offset": offset,
        "add_error": None,
        "shape_error": None,  # a refused column / space change (shape.py): its control, message, text
        **extra,
    }


async def board_page(page: Page) -> Response:
    return page.render("todos_board.html", **await board_view(page))


async def more_cards(page: Page) -> Response:
    """The next page of cards, each appended to its column (htmx out-of-band swaps), and the next link."""
    return page.render("_todos_more.html", **await board_view(page))


async def create_space(page: Page) -> Response:
    name = page.fields.text("name").strip()
    try:
        created = await page.invoke("create_todo_space", {"name": name})
    except ValidationError as error:
        return page.render(
            "todos_board.html", status=400, **await board_view(page, space_error=error.message, space_name=name)
        )
    return redirect(board_url(created["space"]["id"]))


async def create_task(page: Page) -> Response:
    column_id, title = page.fields.text("column"), page.fields.text("title")
    parsed = understand(page, title, form_ignore(page))  # quick add: dates, !priority, #tags, "every monday"
    arguments = {"columnId": column_id, **parsed.arguments(page_zone(page))}
    try:
        created = await page.invoke("create_todo_task", arguments)
    except (ValidationError, NotFound) as error:  # NotFound: the column was deleted meanwhile
        failed = {"column": column_id, "message": error.message, "title": title}
        return page.render("todos_board.html", status=400, **await board_view(page, add_error=failed))
    task = created["task"]
    return redirect(board_url(task["spaceId"], f"task-{task['id']}"))


def _move_arguments(page: Page) -> dict[str, Any]:
    task_id = page.request.path_params["task_id"]
    arguments: dict[str, Any] = {"id": task_id, "expectedRevision": revision_of(page.fields)}
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
        notice = "That task changed meanwhile (another tab or app); here is the board as it is now. Move it again."
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
        *shape_routes(web),
        *task_routes(web),
        *inbox_routes(web),
        *inbox_item_routes(web),
        *quick_routes(web),
        *todo_trash_routes(web),
    ]


__all__ = ["todo_routes"]
