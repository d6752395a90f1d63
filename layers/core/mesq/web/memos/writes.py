"""The memo writes of the timeline: the composer (create_memo, with uploaded attachments) and its
preview, editing in place (update_memo with the revision the editor started from; a conflict
becomes a merge prompt that keeps the user's text), ticking a task box on a card (the same
update and the same prompt), pin, archive, move to the trash (each answered in place with an Undo
toast), and the double-click setting. Plain forms that work without script; htmx swaps the editor
and the card in place.

Every write is an operation through `Page.invoke`; `ValidationError`, `RevisionConflict` and
`Conflict` (a memo in the trash) re-render the form with the message and the user's text, never an error page.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.datastructures import QueryParams
from starlette.responses import Response
from starlette.routing import Route

from ...auth.users import set_setting
from ...kernel.concurrency import run_sync
from ...kernel.errors import Conflict, RevisionConflict, ValidationError
from ..activity.pages import history_of
from ..activity.undoing import undo_in_order
from ..kit.forms import LONG_TEXT_FORM_BYTES
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_
from ..kit.markdown import render_markdown, toggle_task
from ..kit.render import redirect
from ..kit.request_values import form_revision, is_htmx
from ..kit.security import safe_next
from ..kit.toast import Toast, render_with_toast, undo_ids
from .query import TimelineQuery
from .views import (
    RECENT_DAYS,
    back_name,
    memo_view,
    page_zone,
    tag_paths,
    task_name,
    timeline_context,
    timeline_page,
    view_shows,
)

MAX_RESOURCES = 50
MEMO_FORM_BYTES = LONG_TEXT_FORM_BYTES


def _is_htmx(page: Page) -> bool:
    return is_htmx(page.request)


def _back(page: Page) -> str:
    """Where the form came from (a timeline view), local paths only."""
    return safe_next(page.fields.text("return") or page.request.query_params.get("return"), "/")


def _revision(page: Page) -> int:
    return form_revision(page.fields)


def _resources(page: Page) -> list[Any]:
    """The attachments the composer's script uploaded, one JSON field each."""
    values = page.fields.all("resource")
    if len(values) > MAX_RESOURCES:
        raise ValidationError("at most %(max_resources)s attachments per memo", max_resources=MAX_RESOURCES)
    try:
        return [json.loads(value) for value in values if isinstance(value, str)]
    except ValueError:
        raise ValidationError("an attachment of the form is unreadable; remove it and attach the file again") from None


# -- composer ----------------------------------------------------------------------------------


def _composer_view(page: Page) -> TimelineQuery:
    """The timeline view the composer was written in (its `return`), at its first page, where a
    new memo comes; any other address, or filters that do not read, is the whole timeline."""
    parts = urlsplit(_back(page))
    if parts.path != "/":
        return TimelineQuery()
    try:
        return TimelineQuery.from_params(QueryParams(parts.query))
    except ValidationError:  # the memo is saved all the same: the whole timeline, not an error page
        return TimelineQuery()


_OUTSIDE_VIEW = N_("Saved (not in this view).")


async def create_submit(page: Page) -> Response:
    content = page.fields.text("content")
    view = _composer_view(page)
    resources: list[Any] = []
    try:
        resources = _resources(page)
        arguments: dict[str, Any] = {"content": content, "resources": resources}
        if page.fields.text("key"):
            arguments["idempotencyKey"] = page.fields.text("key")
        created = await page.invoke("create_memo", arguments)
    except ValidationError as error:
        context = await timeline_context(
            page, view, composer_text=content, composer_error=page.error_text(error),
            composer_resources=[
                {"json": json.dumps(r), "name": str(r.get("displayName", "attachment"))}
                for r in resources if isinstance(r, dict)
            ],
        )  # fmt: skip
        return timeline_page(page, context, 400)
    # Back to the view it was written in; a memo that view does not list is said, not lost from sight.
    if not await view_shows(page, view, created["memo"]["id"]):
        return page.redirect_with_flash(view.url(), page.gettext(_OUTSIDE_VIEW))
    return redirect(view.url())


async def preview(page: Page) -> Response:
    """The composer's Preview tab: the text rendered by the timeline's own renderer and sanitizer
    (task boxes shown, not tickable). A fragment; nothing is stored."""
    text = page.fields.text("content")
    html = await run_sync(  # off the event loop
        render_markdown, text, interactive=False, task_name=task_name(page), doc_id="preview", back_name=back_name(page)
    )
    return page.render("memos/_preview.html", html=html)


# -- editing in place --------------------------------------------------------------------------


async def _editor(page: Page, memo: dict[str, Any], *, status: int = 200, **context: Any) -> Response:
    options: dict[str, Any] = {"content": memo["content"], "revision": memo["revision"], "error": None}
    options.update(context)
    template = "memos/_editor.html" if _is_htmx(page) else "memos/edit.html"
    if not _is_htmx(page):  # the editor's own page has no sidebar to take the `#` suggestions from
        options["tag_paths"] = tag_paths((await page.invoke("list_tags", {}))["tags"])
    response = page.render(template, nav="memos", memo=memo, back=_back(page), **options)
    response.status_code = status
    return response


async def _memo(page: Page) -> dict[str, Any]:
    data = await page.invoke("get_memo", {"id": page.request.path_params["memo_id"]})
    return dict(data["memo"])


async def edit_form(page: Page) -> Response:
    memo = await _memo(page)
    return await _editor(page, memo, theirs=None, kept=None, history=await history_of(page, memo["id"], memo))


async def card(page: Page) -> Response:
    memo = await memo_view(page, await _memo(page))
    return page.render("memos/_card.html", memo=memo, back=_back(page))


async def save_submit(page: Page) -> Response:
    yours = page.fields.text("content")
    if page.fields.text("start") == "theirs":
        # The merge prompt's "start from theirs": the editor on the current text, yours kept beside it.
        current = await _memo(page)
        return await _editor(page, current, theirs=None, kept=yours)
    memo_id = page.request.path_params["memo_id"]
    try:
        saved = await page.invoke("update_memo", {"id": memo_id, "expectedRevision": _revision(page), "content": yours})
    except RevisionConflict as error:
        theirs = (error.recover_data or {}).get("memo") or await _memo(page)
        return await _editor(page, theirs, status=409, content=yours, theirs=theirs, kept=None)
    except ValidationError as error:
        current = await _memo(page)
        return await _editor(
            page, current, status=400, content=yours, revision=page.fields.text("revision"),
            error=page.error_text(error), theirs=None, kept=None,
        )  # fmt: skip
    except Conflict:  # in the trash: nothing is written there; the text stays in the box
        current = await _memo(page)
        return await _editor(
            page, current, status=409, content=yours, revision=page.fields.text("revision"),
            error=page.gettext("This memo is in the trash: restore it from the trash first, then save."),
            theirs=None, kept=None,
        )  # fmt: skip
    if _is_htmx(page):
        # The card, and the sidebar the new text may change (its tags, the Untagged count).
        return render_with_toast(
            page, "memos/_card.html", None, memo=await memo_view(page, saved["memo"]), back=_back(page),
            **await _sidebar_out_of_band(page),
        )  # fmt: skip
    return redirect(_back(page))


def _is_index(raw: str) -> bool:
    return raw.isascii() and raw.isdigit() and len(raw) <= 6


async def task_submit(page: Page) -> Response:
    """A task box ticked (or unticked) on a card: update_memo with the card's revision. When the
    memo changed since the card was shown, the merge prompt opens with the tick applied to
    their text as "yours"."""
    current = await _memo(page)
    raw_index = page.fields.text("task")
    ticked = _on(page)
    yours = await run_sync(toggle_task, current["content"], int(raw_index), ticked) if _is_index(raw_index) else None
    if yours is None:
        message = page.gettext("That task is not in the memo any more; look at it again.")
        return await _editor(page, current, status=400, error=message, theirs=None, kept=None)
    try:
        saved = await page.invoke(
            "update_memo", {"id": current["id"], "expectedRevision": _revision(page), "content": yours}
        )
    except RevisionConflict as error:
        theirs = (error.recover_data or {}).get("memo") or await _memo(page)
        return await _editor(page, theirs, status=409, content=yours, theirs=theirs, kept=None)
    if _is_htmx(page):
        return page.render("memos/_card.html", memo=await memo_view(page, saved["memo"]), back=_back(page))
    return redirect(_back(page))


# -- lifecycle ---------------------------------------------------------------------------------
# Pin, archive and trash: a plain form post (redirect with a notice), or with htmx the card again
# in place (or a placeholder where it was, when this view no longer shows it) and a toast whose
# Undo posts the change ids the write recorded to `/memos/{id}/undo`.

_CHANGED = N_("This memo was changed elsewhere meanwhile, so nothing was done; look at it again and retry.")


def shown_in(view: str, memo: dict[str, Any]) -> bool:
    """Whether the timeline view at `view` (a local URL) lists `memo`: its status filter and
    its pinned filter (tags, days and searches are not what pin, archive or trash change)."""
    query = TimelineQuery.from_params(QueryParams(urlsplit(view).query))
    if memo["status"] == "DELETED" or (query.pinned and not memo["pinned"]):
        return False
    return query.status == "ALL" or memo["status"] == query.status


async def _sidebar_out_of_band(page: Page) -> dict[str, Any]:
    """What an in-place answer sends for the sidebar, out of band: its list counts, its tag tree and
    its days (whose links keep the filters of the view the write came from)."""
    zone = page_zone(page)
    arguments = {"offset": 0, "limit": 1, "includeContext": True, **({"deviceTimeZone": zone.key} if zone else {})}
    counts = (await page.invoke("list_memos", arguments))["filters"]
    days = list(counts["days"].items())
    tags = (await page.invoke("list_tags", {}))["tags"]
    query = TimelineQuery.from_params(QueryParams(urlsplit(_back(page)).query))
    return {
        "counts": counts, "tag_tree": tags, "tag_paths": tag_paths(tags), "query": query,
        "recent_days": days[:RECENT_DAYS], "older_days": days[RECENT_DAYS:], "zone": zone.key if zone else None,
        "oob": ["memos/_counts.html", "memos/_tags.html", "memos/_days.html"],
    }  # fmt: skip


async def _in_place(page: Page, memo: dict[str, Any], toast: Toast) -> Response:
    """The card (or its placeholder) swapped in place, the toast, and the sidebar (out of band:
    Pinned, Archived, the other counts and the tags follow without a reload)."""
    fragment = "memos/_card.html" if shown_in(_back(page), memo) else "memos/_gone.html"
    return render_with_toast(
        page, fragment, toast, memo=await memo_view(page, memo), back=_back(page), **await _sidebar_out_of_band(page)
    )


async def _lifecycle(page: Page, operation: str, arguments: dict[str, Any], done: str) -> Response:
    memo_id = page.request.path_params["memo_id"]
    try:
        data, change_ids = await page.invoke_recorded(
            operation, {"id": memo_id, "expectedRevision": _revision(page), **arguments}
        )
    except RevisionConflict as error:
        if not _is_htmx(page):
            return page.redirect_with_flash(_back(page), page.gettext(_CHANGED))
        current = (error.recover_data or {}).get("memo") or await _memo(page)
        return await _in_place(page, current, Toast(page.gettext(_CHANGED), record=f"memo:{memo_id}"))
    if not _is_htmx(page):
        return page.redirect_with_flash(_back(page), page.gettext(done))
    undo = f"/memos/{memo_id}/undo"
    toast = Toast(
        page.gettext(done), undo, f"#memo-{memo_id}", change_ids, (("return", _back(page)),), record=f"memo:{memo_id}"
    )
    return await _in_place(page, data["memo"], toast)


def _on(page: Page) -> bool:
    value = page.fields.text("value")
    if value not in ("on", "off"):
        raise ValidationError("value: on or off")
    return value == "on"


async def pin_submit(page: Page) -> Response:
    pinned = _on(page)
    return await _lifecycle(page, "update_memo", {"pinned": pinned}, N_("Pinned.") if pinned else N_("Unpinned."))


async def archive_submit(page: Page) -> Response:
    archived = _on(page)
    status = "ARCHIVED" if archived else "NORMAL"
    done = N_("Archived.") if archived else N_("Back in the timeline.")
    return await _lifecycle(page, "update_memo", {"status": status}, done)


async def trash_submit(page: Page) -> Response:
    return await _lifecycle(page, "delete_memo", {}, N_("Moved to the trash (restore it from Trash)."))


async def undo_submit(page: Page) -> Response:
    """A toast's Undo: its changes undone in order with what this browser did to the memo since
    (`activity/undoing.py`), then the memo's card back in place (or the placeholder, when the undo
    took it out of this view); a memo someone else changed since is left as it is, and the toast
    offers to open it."""
    memo_id = page.request.path_params["memo_id"]
    undone = await undo_in_order(page, memo_id, undo_ids(page))
    if not _is_htmx(page):
        return page.redirect_with_flash(_back(page), undone.message)
    opened = f"/memos/{memo_id}/edit?return={quote(_back(page), safe='')}" if undone.changed_since else ""
    return await _in_place(page, await _memo(page), Toast(undone.message, open_url=opened))


# -- settings ----------------------------------------------------------------------------------


async def settings_submit(page: Page) -> Response:
    enabled = page.fields.text("doubleClickEdit") == "on"
    await run_sync(set_setting, page.web.services.items, page.user.user_id, "doubleClickEdit", enabled)
    message = (
        page.gettext("Double-click now opens a memo for editing.")
        if enabled
        else page.gettext("Double-click editing is off.")
    )
    return page.redirect_with_flash(_back(page), message)


def write_routes(web: Web) -> list[Route]:
    return [
        Route("/memos", endpoint(web, create_submit, form_bytes=MEMO_FORM_BYTES), methods=["POST"]),
        Route("/memos/settings", endpoint(web, settings_submit), methods=["POST"]),
        Route("/memos/preview", endpoint(web, preview, form_bytes=MEMO_FORM_BYTES), methods=["POST"]),
        Route("/memos/{memo_id}/edit", endpoint(web, edit_form), methods=["GET"]),
        Route("/memos/{memo_id}/card", endpoint(web, card), methods=["GET"]),
        Route("/memos/{memo_id}", endpoint(web, save_submit, form_bytes=MEMO_FORM_BYTES), methods=["POST"]),
        Route("/memos/{memo_id}/task", endpoint(web, task_submit), methods=["POST"]),
        Route("/memos/{memo_id}/pin", endpoint(web, pin_submit), methods=["POST"]),
        Route("/memos/{memo_id}/archive", endpoint(web, archive_submit), methods=["POST"]),
        Route("/memos/{memo_id}/trash", endpoint(web, trash_submit), methods=["POST"]),
        Route("/memos/{memo_id}/undo", endpoint(web, undo_submit), methods=["POST"]),
    ]


__all__ = ["write_routes"]
