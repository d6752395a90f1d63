"""What a row of Today, Upcoming or Overdue does (templates/todos/_agenda_lists.html): one tap
completes its record, and its menu moves the due to tomorrow or the record to the todo trash.
A row is a task, a subtask or an inbox item, each written through its own operation.

With htmx each write answers with the view's lists again (a completed record leaves them, a
repeating task shows its next occurrence) and a toast whose Undo undoes exactly that write
(`undo_changes` with the change ids it recorded); a refused write answers with the lists as they
are now and the reason in the toast. Without script: a redirect back to the view with the notice.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...kernel.timestamps import format_timestamp, in_zone, parse_timestamp
from ..activity.undo_words import undo_report
from ..activity.undoing import undo_in_order
from ..kit.framework import Handler, Page, Web, endpoint
from ..kit.i18n import N_
from ..kit.request_values import form_revision, is_htmx
from ..kit.toast import Toast, render_with_toast, undo_ids
from .agenda import VIEWS, View, agenda_view
from .quick import page_zone

#: The operation that completes, re-dates or trashes each kind of row (inbox subtasks have no due,
#: so they are never on these lists).
COMPLETE = {"task": "complete_todo_task", "subtask": "complete_todo_subtask", "inboxItem": "complete_todo_inbox_item"}
UPDATE = {"task": "update_todo_task", "subtask": "update_todo_subtask", "inboxItem": "update_todo_inbox_item"}
TRASH = {"task": "delete_todo_task", "subtask": "delete_todo_subtask", "inboxItem": "delete_todo_inbox_item"}
CHANGED = N_("That changed meanwhile (another tab or app); here is the list as it is now.")


def tomorrow_due(due: str, now: datetime, zone: str) -> dict[str, str]:
    """The due moved to tomorrow in the browser's `zone`: a date stays a date; a moment keeps its
    local time of day. `due`: the row's current due (`YYYY-MM-DD`, a UTC timestamp, or "")."""
    here = ZoneInfo(zone)
    tomorrow = now.astimezone(here).date() + timedelta(days=1)
    if not due or len(due) == len("2026-12-03"):
        try:
            date.fromisoformat(due or tomorrow.isoformat())  # a malformed date is refused, not guessed
        except ValueError:
            raise ValidationError("due: the row's due date (YYYY-MM-DD); reload the page") from None
        return {"type": "date", "date": tomorrow.isoformat()}
    local = in_zone(parse_timestamp(due, "due"), here)
    at = datetime.combine(tomorrow, time(local.hour, local.minute, local.second), tzinfo=here)
    return {"type": "datetime", "at": format_timestamp(at)}


def _target(page: Page) -> tuple[str, dict[str, Any]]:
    """The row's kind and the arguments every write of it takes (its id, the revision shown)."""
    kind = page.fields.text("kind")
    if kind not in COMPLETE:
        raise ValidationError("kind: the row's kind (task, subtask or inboxItem); reload the page")
    record_id = page.fields.text("id")
    if not record_id:
        raise ValidationError("id: the row's record; reload the page")
    return kind, {"id": record_id, "expectedRevision": form_revision(page.fields)}


async def _answer(
    page: Page, view: View, message: str, change_ids: list[str] | None = None, record_id: str = ""
) -> Response:
    """The lists again with a toast (htmx), or the view with the notice (a plain form post). The
    toast's Undo carries the row's record, so it undoes in order (`activity/undoing.py`)."""
    if not is_htmx(page.request):
        return page.redirect_with_flash(view.path, message)
    fields = (("id", record_id),) if record_id else ()
    toast = Toast(message, view.path + "/undo", "#agenda-lists", change_ids or [], fields, record=record_id)
    context = await agenda_view(page, view.tab)
    return render_with_toast(page, "todos/_agenda_lists.html", toast, **context)


def _writer(view: View, action: str) -> Handler:
    async def write(page: Page) -> Response:
        kind, arguments = _target(page)
        if action == "complete":
            operation = COMPLETE[kind]
            arguments |= {"done": True} if kind == "inboxItem" else {}
            notice = page.gettext("Done.")
        elif action == "tomorrow":
            now = datetime.fromtimestamp(page.web.clock(), UTC)
            operation = UPDATE[kind]
            arguments |= {"due": tomorrow_due(page.fields.text("due"), now, page_zone(page))}
            notice = page.gettext("Moved to tomorrow.")
        else:
            operation, notice = TRASH[kind], page.gettext("Moved to the todo trash.")
        try:
            _, change_ids = await page.invoke_recorded(operation, arguments)
        except RevisionConflict:
            return await _answer(page, view, page.gettext(CHANGED))
        except (ValidationError, Conflict, NotFound) as error:
            return await _answer(page, view, page.error_text(error))
        return await _answer(page, view, notice, change_ids, str(arguments["id"]))

    return write


def _undoer(view: View) -> Handler:
    async def undo(page: Page) -> Response:
        change_ids, record_id = undo_ids(page), page.fields.text("id")
        if not record_id:  # a toast from before toasts named their record: exactly its changes
            answer = await page.invoke("undo_changes", {"changeIds": change_ids})
            return await _answer(page, view, undo_report(answer, page.translator))
        undone = await undo_in_order(page, record_id, change_ids)
        return await _answer(page, view, undone.message)

    return undo


def agenda_row_routes(web: Web) -> list[Route]:
    routes = []
    for view in VIEWS.values():
        for action in ("complete", "tomorrow", "trash"):
            routes.append(Route(f"{view.path}/{action}", endpoint(web, _writer(view, action)), methods=["POST"]))
        routes.append(Route(f"{view.path}/undo", endpoint(web, _undoer(view)), methods=["POST"]))
    return routes


__all__ = ["agenda_row_routes", "tomorrow_due"]
