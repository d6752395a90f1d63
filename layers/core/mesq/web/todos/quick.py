"""Quick add on the todo pages: the add box's text read by `mesq/todos/quick_add.py` in the
page's zone (the user's own, else the browser's `mesq_tz` cookie: `Page.time_zone`), the live
preview of what was understood (chips, each removable: `GET /todos/quick-add`, an htmx
fragment) and the arguments a create takes.

The reading runs in a worker thread (dateparser takes milliseconds a phrase; the event loop
serves everyone). The preview is asked for once typing pauses (the boxes' `delay:200ms`) and is
counted per user in the `quick_add_preview` bucket: over it, 429 and the chips stay as they were
(adding still works; it reads the line itself)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel import formats
from ...kernel.concurrency import run_sync
from ...todos.quick_add import KINDS, MAX_CHARACTERS, QuickAdd, parse_quick_add
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_, Translator
from ..kit.recurrence_words import ENGLISH, recurrence_words
from ..kit.render import render
from ..kit.user_limits import count_user

PREVIEW = "/todos/quick-add"
_PRIORITY_WORDS = {"urgent": N_("Urgent"), "high": N_("High"), "medium": N_("Medium"), "low": N_("Low")}


def page_zone(page: Page) -> str:
    """The user's IANA zone, else the browser's (cookie), else UTC (`Page.time_zone`)."""
    return page.time_zone


def ignored(values: list[str]) -> frozenset[str]:
    return frozenset(value[:110] for value in values if value in KINDS or value.startswith("tag:"))


async def understand(page: Page, text: str, ignore: frozenset[str]) -> QuickAdd:
    """The line read in a worker thread (never on the event loop)."""
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    return await run_sync(parse_quick_add, text, zone=page_zone(page), now=now, ignore=ignore)


def form_ignore(page: Page) -> frozenset[str]:
    return ignored([value for value in page.fields.values.get("ignore", []) if isinstance(value, str)])


def chip_label(kind: str, chip: dict[str, str], parsed: QuickAdd, say: Translator = ENGLISH) -> str:
    """A chip's words in `say`'s language: "Due Fri Dec 4 17:00" / "截止 周五 12月4日 17:00"."""
    if kind == "due" and parsed.due is not None:
        due = parsed.due
        day = due.date() if isinstance(due, datetime) else due
        assert isinstance(day, date)
        when = formats.weekday_month_day(day, say.language)
        if isinstance(due, datetime):
            when += f" {formats.clock(due, say.language)}"
        return say.gettext("Due %(when)s", when=when)
    if kind == "priority":
        level = _PRIORITY_WORDS.get(chip["value"])
        return say.gettext("Priority %(level)s", level=say.gettext(level) if level else chip["value"])
    if kind == "recurrence":
        return recurrence_words(chip["value"], say)
    return "#" + chip["value"]


def preview_context(
    parsed: QuickAdd, ignore: frozenset[str], form_id: str, say: Translator = ENGLISH
) -> dict[str, Any]:
    shown: dict[str, dict[str, str]] = {}  # one chip per kind (the last priority typed wins); tags go together
    for chip in parsed.chips:
        key = "tag:" + chip["value"] if chip["kind"] == "tag" else chip["kind"]
        # a due the rule gave (none typed) says drop=recurrence: it goes with the rule
        drop = key if chip["kind"] == "tag" else chip.get("drop", chip["kind"])
        shown[key] = {"kind": chip["kind"], "drop": drop, "label": chip_label(chip["kind"], chip, parsed, say)}
    return {"parsed": parsed, "chips": list(shown.values()), "ignore": sorted(ignore), "form_id": form_id}


async def preview(page: Page) -> Response:
    """The chips under an add box, as the person types (htmx swaps them in)."""
    await count_user(page, "quick_add_preview")
    query = page.request.query_params
    ignore = ignored(query.getlist("ignore") + query.getlist("drop"))
    text = query.get("title", "")[:MAX_CHARACTERS]
    parsed = await understand(page, text, ignore)
    return render(
        "todos/_quick_chips.html",
        language=page.language,
        **preview_context(parsed, ignore, query.get("form", "")[:80], page.translator),
    )


def quick_routes(web: Web) -> list[Route]:
    return [Route(PREVIEW, endpoint(web, preview), methods=["GET"])]


__all__ = ["PREVIEW", "form_ignore", "page_zone", "preview_context", "quick_routes", "understand"]
