"""Quick add on the todo pages: the add box's text read by `mesq/todos/quick_add.py` in the
browser's zone (the `mesq_tz` cookie), the live preview of what was understood (chips, each
removable: `GET /todos/quick-add`, an htmx fragment) and the arguments a create takes."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...todos.quick_add import KINDS, QuickAdd, describe_recurrence, parse_quick_add
from ..kit.framework import Page, Web, endpoint
from ..kit.render import render
from ..kit.request_values import request_zone

PREVIEW = "/todos/quick-add"
_PRIORITY_WORDS = {"urgent": "Urgent", "high": "High", "medium": "Medium", "low": "Low"}


def page_zone(page: Page) -> str:
    """The browser's IANA zone (cookie), else UTC."""
    return request_zone(page.request)


def ignored(values: list[str]) -> frozenset[str]:
    return frozenset(value[:110] for value in values if value in KINDS or value.startswith("tag:"))


def understand(page: Page, text: str, ignore: frozenset[str]) -> QuickAdd:
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    return parse_quick_add(text, zone=page_zone(page), now=now, ignore=ignore)


def form_ignore(page: Page) -> frozenset[str]:
    return ignored([value for value in page.fields.values.get("ignore", []) if isinstance(value, str)])


def chip_label(kind: str, chip: dict[str, str], parsed: QuickAdd) -> str:
    if kind == "due" and parsed.due is not None:
        due = parsed.due
        if isinstance(due, datetime):
            return f"Due {due:%a %b} {due.day} {due:%H:%M}"
        assert isinstance(due, date)
        return f"Due {due:%a %b} {due.day}"
    if kind == "priority":
        return f"Priority {_PRIORITY_WORDS.get(chip['value'], chip['value'])}"
    if kind == "recurrence":
        return describe_recurrence(chip["value"])
    return "#" + chip["value"]


def preview_context(parsed: QuickAdd, ignore: frozenset[str], form_id: str) -> dict[str, Any]:
    shown: dict[str, dict[str, str]] = {}  # one chip per kind (the last priority typed wins); tags go together
    for chip in parsed.chips:
        key = "tag:" + chip["value"] if chip["kind"] == "tag" else chip["kind"]
        drop = key if chip["kind"] == "tag" else chip["kind"]
        shown[key] = {"kind": chip["kind"], "drop": drop, "label": chip_label(chip["kind"], chip, parsed)}
    return {"parsed": parsed, "chips": list(shown.values()), "ignore": sorted(ignore), "form_id": form_id}


async def preview(page: Page) -> Response:
    """The chips under an add box, as the person types (htmx swaps them in)."""
    query = page.request.query_params
    ignore = ignored(query.getlist("ignore") + query.getlist("drop"))
    text = query.get("title", "")[:500]
    parsed = understand(page, text, ignore)
    return render("_todos_quick_chips.html", **preview_context(parsed, ignore, query.get("form", "")[:80]))


def quick_routes(web: Web) -> list[Route]:
    return [Route(PREVIEW, endpoint(web, preview), methods=["GET"])]


__all__ = ["PREVIEW", "form_ignore", "page_zone", "preview_context", "quick_routes", "understand"]
