"""Settings -> Reading sync (设置 → 阅读同步): the WeChat Reading credential (API key or web
cookie, sealed at rest), "sync now", the sync status (last success, last error, counts, upstream
notices) and the JSON file import (docs/reading-import.md). None of it exists over MCP or for a
PAT: these pages take a signed-in browser session only."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ...jobs.reading_sync import request_sync, sync_in_progress
from ...kernel.concurrency import run_sync
from ...kernel.timestamps import now_timestamp
from ...reading.credentials import credential_summary, remove_credential, save_credential
from ...reading.importer import import_snapshots, parse_document
from ...reading.sync import shelf_counts, sync_status
from ..kit.framework import Page, Web, endpoint, json_ok
from ..kit.i18n import Text
from ..kit.render import redirect
from ..kit.user_limits import count_user

PAGE = "/settings/reading"


def _view(page: Page) -> dict[str, object]:
    items, user_id = page.web.services.items, page.user.user_id
    sync = sync_status(items, user_id)
    error = (sync or {}).get("lastError")
    if sync and error:  # its message in the reader's language (kept as a template; older ones: the English)
        said = Text.from_stored(error.get("said"), str(error.get("message") or ""))
        sync = {**sync, "lastError": {**error, "message": page.translator.text(said)}}
    requested = page.request.query_params.get("sync")
    return {
        "credential": credential_summary(items, user_id),
        "sync": sync,
        "counts": shelf_counts(items, user_id),
        "queued": requested == "queued",
        "syncing": sync_in_progress(page.web.services, user_id),
        # After "sync now" here, the page reloads itself until the sync is over (and only then:
        # a reload would lose a credential being typed).
        "follow": requested == "started",
    }


async def reading_page(page: Page) -> Response:
    view = await run_sync(_view, page)
    return page.render("settings/sync.html", nav="reading", error=None, **view)


async def save_submit(page: Page) -> Response:
    services, user_id = page.web.services, page.user.user_id
    sealer = services.sealer
    kind, secret = page.fields.text("kind"), page.fields.text("secret")
    await run_sync(save_credential, services.items, sealer, user_id, kind, secret, now_timestamp())
    return redirect(PAGE)


async def remove_submit(page: Page) -> Response:
    await run_sync(remove_credential, page.web.services.items, page.user.user_id)
    return redirect(PAGE)


async def sync_submit(page: Page) -> Response:
    outcome = await run_sync(request_sync, page.web.services, page.user.user_id)
    return redirect(f"{PAGE}?sync={outcome}")


async def import_submit(page: Page) -> Response:
    """The file upload: the page's script sends the file's JSON as the body (with the CSRF header).
    An import like Settings → Import's: counted in the user's `import` bucket, read and written in
    a worker thread."""
    await count_user(page, "import")
    document = {name: page.fields.get(name) for name in page.fields.values}
    snapshots = await run_sync(parse_document, document)
    items, user_id = page.web.services.items, page.user.user_id
    report = await run_sync(import_snapshots, items, user_id, snapshots, now_timestamp())
    # The status's counts as they are now: the page's script puts them in place, no reload.
    counts = await run_sync(shelf_counts, items, user_id)
    return json_ok({"ok": True, "books": len(snapshots), **report.as_dict(), "counts": counts})


def reading_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, reading_page), methods=["GET"]),
        Route(PAGE + "/credential", endpoint(web, save_submit), methods=["POST"]),
        Route(PAGE + "/credential/remove", endpoint(web, remove_submit), methods=["POST"]),
        Route(PAGE + "/sync", endpoint(web, sync_submit), methods=["POST"]),
        Route(PAGE + "/import", endpoint(web, import_submit, api=True), methods=["POST"]),
    ]
