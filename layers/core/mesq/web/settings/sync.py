"""Settings -> Reading sync (设置 → 阅读同步): the WeChat Reading credential (API key or web
cookie, sealed at rest), "sync now", the sync status (last success, last error, counts, upstream
notices) and the JSON file import (docs/reading-import.md). None of it exists over MCP or for a
PAT: these pages take a signed-in browser session only."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ...application.ratelimit import RateLimiter, counted_import
from ...asgi.body import MAX_JSON_BODY_BYTES, read_limited
from ...jobs.reading_sync import request_sync, sync_in_progress
from ...kernel.concurrency import run_sync
from ...kernel.errors import PayloadTooLarge, ValidationError
from ...kernel.timestamps import now_timestamp
from ...reading.credentials import credential_summary, remove_credential, save_credential
from ...reading.importer import import_snapshots, parse_import
from ...reading.model import BookSnapshot
from ...reading.sync import shelf_counts, sync_status
from ..kit.framework import Page, Web, endpoint, json_ok
from ..kit.i18n import Text
from ..kit.render import redirect

PAGE = "/settings/reading"
#: The sync errors a new credential may cure (reading/sync.py, reading/provider.py).
CREDENTIAL_ERRORS = frozenset({"CREDENTIAL_EXPIRED", "CREDENTIAL_INVALID", "CREDENTIAL_UNREADABLE", "NO_CREDENTIAL"})
#: The most a file sent to this page may hold (docs/reading-import.md: the CLI has no such limit).
MAX_IMPORT_BYTES = MAX_JSON_BODY_BYTES


def _view(page: Page) -> dict[str, object]:
    items, user_id = page.web.services.items, page.user.user_id
    sync = sync_status(items, user_id)
    error = (sync or {}).get("lastError")
    if sync and error:  # its message in the reader's language (kept as a template; older ones: the English)
        said = Text.from_stored(error.get("said"), str(error.get("message") or ""))
        sync = {**sync, "lastError": {**error, "message": page.translator.text(said)}}
    requested = page.request.query_params.get("sync")
    credential = credential_summary(items, user_id)
    return {
        "credential": credential,
        # The last sync failed on the credential, and another was saved since: the page says so,
        # or "save a new one" reads as if the save had not taken.
        "superseded": bool(
            credential
            and error
            and error.get("code") in CREDENTIAL_ERRORS
            and str(credential["updatedAt"]) > str(error.get("at") or "")
        ),
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
    """The file upload: the page's script sends the file's text as the body (with the CSRF header).
    An import like Settings → Import's: counted in the user's `import` bucket, a file refused
    before anything is written in `import_refused` instead (`counted_import`: trying the wrong
    file does not lock a person out), read and written in a worker thread. The body is the file
    the person chose, and a refusal says so: "the file is not valid JSON", never a "request body"
    (the CLI's words, `reading/importer.parse_import`)."""
    raw = await read_limited(page.request, MAX_IMPORT_BYTES)
    services, user_id = page.web.services, page.user.user_id
    limiter = RateLimiter(services.items, services.settings, clock=page.web.clock)
    snapshots = await run_sync(_checked_file, limiter, user_id, raw)
    items = services.items
    report = await run_sync(import_snapshots, items, user_id, snapshots, now_timestamp())
    # The status's counts as they are now: the page's script puts them in place, no reload.
    counts = await run_sync(shelf_counts, items, user_id)
    return json_ok({"ok": True, "books": len(snapshots), **report.as_dict(), "counts": counts})


def _checked_file(limiter: RateLimiter, user_id: str, raw: bytes | None) -> list[BookSnapshot]:
    with counted_import(limiter, user_id, (ValidationError, PayloadTooLarge)):
        if raw is None:
            raise PayloadTooLarge(
                "the file is larger than 1 MiB, the most this page takes; split it into smaller files (each "
                "book stands alone) or import it with mesq reading import; nothing was imported"
            )
        try:  # strictly UTF-8, as the page's script sent it: a byte order mark is then refused by name
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValidationError(
                "the file is not UTF-8 text (byte %(start)s); save it as UTF-8 and import it again", start=error.start
            ) from None
        return parse_import(text)


def reading_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, reading_page), methods=["GET"]),
        Route(PAGE + "/credential", endpoint(web, save_submit), methods=["POST"]),
        Route(PAGE + "/credential/remove", endpoint(web, remove_submit), methods=["POST"]),
        Route(PAGE + "/sync", endpoint(web, sync_submit), methods=["POST"]),
        Route(PAGE + "/import", endpoint(web, import_submit, api=True, raw_body=True), methods=["POST"]),
    ]
