"""Today, Upcoming and Overdue (`/todos/today`, `/todos/upcoming`, `/todos/overdue`): open
tasks, subtasks and inbox items of every space by their due, read through `query_todos` (the
same filters REST and MCP use), each due in words in the page's zone, overdue ones marked.
Today also has a quick-add box: the line read by `quick_add` in the page's zone, the task
created in the default space (create_todo_task without a column). Each record is a row with its
chips, a complete button and a menu (`agenda_rows.py` answers them).

"Today" is the day in the page's zone (`Page.time_zone`: the user's own, else the browser's
`mesq_tz` cookie, else UTC): what is due before its next midnight (`dueBefore`, in UTC) and not
overdue, so a date in a zone of its own that is still today there is listed. Upcoming is the next
seven days after today (`dueAfter` / `dueBefore`); every dated open record due before its end is in
exactly one of the three.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import ValidationError
from ...kernel.timestamps import format_timestamp
from ..kit.framework import Handler, Page, Web, endpoint
from ..kit.i18n import Translator
from ..kit.render import redirect
from ..kit.request_values import query_offset
from .fields import friendly_due
from .quick import form_ignore, page_zone, understand
from .urls import BOARD

TODAY, UPCOMING, OVERDUE = BOARD + "/today", BOARD + "/upcoming", BOARD + "/overdue"
PAGE_SIZE = 100  # records per page (query_todos allows 200)
UPCOMING_DAYS = 7


@dataclass(frozen=True)
class View:
    """One of the three lists: its tab (`query_arguments` gives its filters) and its address."""

    tab: str
    path: str


VIEWS = {view.tab: view for view in (View("today", TODAY), View("upcoming", UPCOMING), View("overdue", OVERDUE))}


def day_bounds(now: datetime, zone: str, days_from: int, days_to: int) -> tuple[str, str]:
    """[midnight `days_from` days after today, midnight `days_to` days after today) in `zone`, as
    UTC timestamps (a DST change inside the span moves only the local clock, not the bounds)."""
    here = ZoneInfo(zone)
    today = now.astimezone(here).date()
    start = datetime.combine(today + timedelta(days=days_from), time(), tzinfo=here)
    end = datetime.combine(today + timedelta(days=days_to), time(), tzinfo=here)
    return format_timestamp(start), format_timestamp(end)


def query_arguments(tab: str, now: datetime, zone: str, offset: int) -> dict[str, Any]:
    """query_todos's arguments for a view: open records, soonest due first."""
    arguments: dict[str, Any] = {"status": "open", "orderBy": "due", "offset": offset, "limit": PAGE_SIZE}
    if tab == "overdue":
        return {**arguments, "overdue": True}
    if tab == "today":
        # What is due before tonight's midnight and not late yet. Not "from this midnight": a date
        # in a zone of its own behind this page's (5 December in Los Angeles, seen from Shanghai
        # on the 6th) began before this page's midnight and is not overdue there: it was in no list.
        return {**arguments, "overdue": False, "dueBefore": day_bounds(now, zone, 0, 1)[1]}
    after, before = day_bounds(now, zone, 1, 1 + UPCOMING_DAYS)
    return {**arguments, "dueAfter": after, "dueBefore": before}


def entry(item: dict[str, Any], spaces: dict[str, str], now: datetime, zone: str, say: Translator) -> dict[str, Any]:
    """A record as its row shows it: its due in words in the page's language, where it lives (a
    space, or the inbox; a subtask says so) and where it opens (a subtask: its task's page)."""
    inbox = item["kind"] in ("inboxItem", "inboxSubtask")
    where = say.gettext("Inbox") if inbox else spaces.get(item["spaceId"] or "", "")
    if item["kind"] in ("subtask", "inboxSubtask"):
        where = " · ".join(part for part in (where, say.gettext("subtask")) if part)
    owner = item["parentId"] if item["kind"] in ("subtask", "inboxSubtask") else item["id"]
    return {
        **item,
        "due_view": friendly_due(item.get("due"), now, zone, done=item["done"], say=say, own_zone=item.get("timezone")),
        "where": where,
        "url": f"{BOARD}/inbox/{owner}" if inbox else f"{BOARD}/tasks/{owner}",
        "inbox": inbox,
    }


async def agenda_view(page: Page, tab: str, **extra: Any) -> dict[str, Any]:
    zone = page_zone(page)
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    offset = query_offset(page.request.query_params)
    found = await page.invoke("query_todos", query_arguments(tab, now, zone, offset))
    listing = await page.invoke("list_todo_spaces", {})
    spaces = {space["id"]: space["name"] for space in listing["spaces"]}
    overdue: list[dict[str, Any]] = []
    overdue_more = False
    if tab == "today" and offset == 0:  # today also shows what is already late, above the day
        late = await page.invoke("query_todos", query_arguments("overdue", now, zone, 0))
        overdue = [entry(item, spaces, now, zone, page.translator) for item in late["items"]]
        overdue_more = bool(late["page"].get("hasMore"))
    # Today's list asks for what is not overdue; a due passing between the two reads is listed once, as overdue.
    late_ids = {item["id"] for item in overdue}
    more = found["page"]
    return {
        "nav": "todos",
        "tab": tab,
        "view": VIEWS[tab],
        "items": [
            entry(item, spaces, now, zone, page.translator) for item in found["items"] if item["id"] not in late_ids
        ],
        "overdue": overdue,
        "overdue_more": overdue_more,  # the rest on /todos/overdue
        "more": urlencode({"offset": more["nextOffset"]}) if more.get("hasMore") else None,
        "zone": zone,
        "today": now.astimezone(ZoneInfo(zone)).date(),
        "upcoming_days": UPCOMING_DAYS,
        "add_error": None,
        "add_title": "",
        "added": bool(page.request.query_params.get("added")),
        **extra,
    }


def _view_page(tab: str) -> Handler:
    async def show(page: Page) -> Response:
        return page.render("todos/agenda.html", **await agenda_view(page, tab))

    return show


async def today_add(page: Page) -> Response:
    """Today's quick add: the line understood in the page's zone, created in the default space."""
    title = page.fields.text("title")
    try:
        parsed = await understand(page, title, form_ignore(page))
        created = await page.invoke("create_todo_task", parsed.arguments(page_zone(page)))
    except ValidationError as error:
        view = await agenda_view(page, "today", add_error=page.error_text(error), add_title=title)
        return page.render("todos/agenda.html", status=400, **view)
    return redirect(f"{TODAY}?{urlencode({'added': created['task']['id']})}")  # the notice is the template's


def agenda_routes(web: Web) -> list[Route]:
    routes = [Route(view.path, endpoint(web, _view_page(view.tab)), methods=["GET"]) for view in VIEWS.values()]
    return [*routes, Route(TODAY, endpoint(web, today_add), methods=["POST"])]


__all__ = [
    "OVERDUE",
    "TODAY",
    "UPCOMING",
    "VIEWS",
    "View",
    "agenda_routes",
    "agenda_view",
    "day_bounds",
    "query_arguments",
]
