"""A space's board as the board page and its shapers show it: the spaces, the chosen space's open
columns, its root tasks as cards by column, and the "more" link of a big board. Shared by
`board.py` (the page) and `shape.py` (a refused change answered with the board), so neither
imports the other."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from ...kernel.errors import ValidationError
from ...kernel.typed_digits import typed_whole_number
from ..kit.framework import Page
from ..kit.i18n import Translator
from ..kit.request_values import query_offset
from ..settings.board_names import default_names_to_rename
from .cards import card
from .quick import page_zone

PAGE_SIZE = 100  # root tasks per board page (list_todos `limit`)


def _carry(raw: str | None) -> tuple[str, int] | None:
    """`carry=<columnId>:<cards already shown>` of a "more" link (None when malformed)."""
    if not raw or ":" not in raw or len(raw) > 100:
        return None
    column_id, count = raw.rsplit(":", 1)
    shown = typed_whole_number(count, max_digits=6)
    return None if shown is None else (column_id, shown)


def _cards_by_column(
    data: dict[str, Any], carry: tuple[str, int] | None, now: datetime, zone: str, say: Translator
) -> dict[str, list[dict[str, Any]]]:
    subtasks: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for subtask in data["subtasks"]:
        subtasks[subtask["parentId"]].append(subtask)
    by_column: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task in data["tasks"]:
        column = by_column[task["columnId"]]
        start = carry[1] if carry and carry[0] == task["columnId"] else 0
        column.append(card(task, subtasks[task["id"]], start + len(column), now, zone, say))
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


class SpaceGone(ValidationError):
    """`?space=` names no space now: deleted, or renamed since the link was made (`board.py` sends
    the person on, to the space under its new name or to the default space, with a note)."""

    def __init__(self, wanted: str, spaces: list[dict[str, Any]]) -> None:
        super().__init__("that space does not exist (any more); pick one from the board")
        self.wanted, self.spaces = wanted, spaces


def find_space(spaces: list[dict[str, Any]], wanted: str) -> dict[str, Any] | None:
    """The space `wanted` names: by its id (the board's own links) or its slug (a typed or older
    link, `/todos?space=home`)."""
    return next((s for s in spaces if s["id"] == wanted), None) or next(
        (s for s in spaces if s["slug"] == wanted), None
    )


async def _spaces(page: Page, chosen_id: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(every space with its columns, the chosen one) from `chosen_id` or `?space=` (default: the
    default space); SpaceGone when `?space=` names none."""
    listing = await page.invoke("list_todo_spaces", {})
    wanted = chosen_id or page.request.query_params.get("space") or listing["defaultSpaceId"]
    chosen = find_space(listing["spaces"], wanted)
    if chosen is None:
        raise SpaceGone(wanted, listing["spaces"])
    return listing, chosen


async def board_view(page: Page, space_override: str | None = None, **extra: Any) -> dict[str, Any]:
    listing, space = await _spaces(page, space_override)
    offset = query_offset(page.request.query_params)
    carry = _carry(page.request.query_params.get("carry")) if offset else None
    arguments = {"spaceId": space["id"], "includeInbox": False, "offset": offset, "limit": PAGE_SIZE}
    data = await page.invoke("list_todos", arguments)
    columns = [c for c in listing["columns"] if c["spaceId"] == space["id"] and not c["archived"]]
    by_column = _cards_by_column(
        data, carry, datetime.fromtimestamp(page.web.clock(), UTC), page_zone(page), page.translator
    )
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
        # Names still another language's defaults: the page points to Settings, which offers them.
        "names_to_rename": bool(default_names_to_rename(listing, page.language)),
        **extra,
    }
