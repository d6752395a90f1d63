"""Trash (回收站): memos with status DELETED; restore (in place with htmx, an Undo toast), and
permanent delete after a confirmation.

Listing, reading and restoring go through `Page.invoke` (the memo operations exactly as REST and
MCP run them: argument validation, call metrics, the session user as principal); permanent delete
is `memos/purge.py`, which has no operation and so no REST route or MCP tool: this page is the
only way to reach it.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.concurrency import run_sync
from ...kernel.errors import NotFound, RevisionConflict, ValidationError
from ...memos.purge import purge_memo, trashed_memo_ids
from ..activity.times import page_moment
from ..activity.undoing import undo_in_order
from ..kit.framework import Page, Web, endpoint
from ..kit.render import redirect
from ..kit.request_values import form_revision, is_htmx, query_offset
from ..kit.toast import Toast, render_with_toast, toast_only, undo_ids

PAGE_SIZE = 50
PREVIEW_CHARACTERS = 280
EMPTY_BATCH = 100
PAGE = "/trash"


def _preview(page: Page, memo: dict[str, Any]) -> dict[str, Any]:
    """`memo` with its text cut short and its times in words (`created_words`, `trashed_words`)."""
    content = memo["content"]
    short = content if len(content) <= PREVIEW_CHARACTERS else content[:PREVIEW_CHARACTERS] + "…"
    created, trashed = page_moment(page, memo["createdAt"]), page_moment(page, memo["updatedAt"])
    return {**memo, "preview": short, "created_words": created, "trashed_words": trashed}


def _offset(page: Page) -> int:
    return query_offset(page.request.query_params)


def _revision(page: Page) -> int:
    return form_revision(page.fields)


async def trash_page(page: Page) -> Response:
    offset = _offset(page)
    data = await page.invoke("list_memos", {"status": "DELETED", "offset": offset, "limit": PAGE_SIZE})
    memos = [_preview(page, m) for m in data["pinnedItems"] + data["timelineItems"]]
    return page.render("memos/trash.html", nav="trash", memos=memos, page=data["page"], page_size=PAGE_SIZE)


async def restore_submit(page: Page) -> Response:
    """Restore: a redirect to the trash, or with htmx the entry's placeholder in place and a toast
    whose Undo (`/trash/{id}/undo`) puts the memo back in the trash."""
    memo_id = page.request.path_params["memo_id"]
    if not is_htmx(page.request):
        await page.invoke("restore_memo", {"id": memo_id, "expectedRevision": _revision(page)})
        return redirect(PAGE)
    try:
        data, change_ids = await page.invoke_recorded(
            "restore_memo", {"id": memo_id, "expectedRevision": _revision(page)}
        )
    except RevisionConflict:
        return toast_only(
            page, Toast(page.gettext("This memo changed meanwhile; reload the trash to see it as it is now."))
        )
    toast = Toast(
        page.gettext("Restored to the timeline."), f"{PAGE}/{memo_id}/undo", f"#trash-{memo_id}", change_ids,
        record=f"memo:{memo_id}",
    )  # fmt: skip
    return render_with_toast(page, "memos/_trash_gone.html", toast, memo=data["memo"])


async def undo_submit(page: Page) -> Response:
    """A toast's Undo: its changes undone in order (`activity/undoing.py`); the entry back in
    place while the memo is in the trash again."""
    memo_id = page.request.path_params["memo_id"]
    undone = await undo_in_order(page, memo_id, undo_ids(page))
    if not is_htmx(page.request):
        return page.redirect_with_flash(PAGE, undone.message)
    memo = (await page.invoke("get_memo", {"id": memo_id}))["memo"]
    fragment = "memos/_trash_entry.html" if memo["status"] == "DELETED" else "memos/_trash_gone.html"
    toast = Toast(undone.message, open_url=f"/memos/{memo_id}/edit" if undone.changed_since else "")
    return render_with_toast(page, fragment, toast, memo=_preview(page, memo))


async def confirm_delete(page: Page) -> Response:
    data = await page.invoke("get_memo", {"id": page.request.path_params["memo_id"]})
    memo = data["memo"]
    if memo["status"] != "DELETED":
        raise ValidationError("only memos in the trash can be deleted permanently")
    return page.render("memos/trash_confirm.html", nav="trash", memo=_preview(page, memo))


async def delete_submit(page: Page) -> Response:
    memo_id = page.request.path_params["memo_id"]
    await run_sync(purge_memo, page.web.services.items, page.user.user_id, memo_id, _revision(page))
    return redirect(PAGE)


async def confirm_empty(page: Page) -> Response:
    data = await page.invoke("list_memos", {"status": "DELETED", "offset": 0, "limit": 1})
    return page.render("memos/trash_empty.html", nav="trash", count=data["page"]["totalCount"])


def _empty(page: Page) -> int:
    """Purge every trashed memo, one transaction each (a memo restored meanwhile is skipped)."""
    items, user_id = page.web.services.items, page.user.user_id
    purged = 0
    while True:
        batch = trashed_memo_ids(items, user_id, EMPTY_BATCH)
        progressed = False
        for memo_id, revision in batch:
            try:
                purge_memo(items, user_id, memo_id, revision)
            except (ValidationError, RevisionConflict, NotFound):
                continue  # restored, edited or purged meanwhile: leave it to the user
            purged += 1
            progressed = True
        if len(batch) < EMPTY_BATCH or not progressed:
            return purged


async def empty_submit(page: Page) -> Response:
    if page.fields.text("confirm") != "yes":
        raise ValidationError("confirm emptying the trash")
    await run_sync(_empty, page)
    return redirect(PAGE)


def trash_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, trash_page), methods=["GET"]),
        Route(PAGE + "/empty", endpoint(web, confirm_empty), methods=["GET"]),
        Route(PAGE + "/empty", endpoint(web, empty_submit), methods=["POST"]),
        Route(PAGE + "/{memo_id}/restore", endpoint(web, restore_submit), methods=["POST"]),
        Route(PAGE + "/{memo_id}/undo", endpoint(web, undo_submit), methods=["POST"]),
        Route(PAGE + "/{memo_id}/delete", endpoint(web, confirm_delete), methods=["GET"]),
        Route(PAGE + "/{memo_id}/delete", endpoint(web, delete_submit), methods=["POST"]),
    ]
