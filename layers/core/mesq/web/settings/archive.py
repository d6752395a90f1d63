"""Settings → Export and Settings → Import (设置 → 导出 / 导入): the signed-in user's whole
account as a `mesq export` archive (docs/archive.md), and an archive or a ZIP of Markdown notes
brought back in. Browser only; REST has the export (`GET /api/toolkit/export`), the command line
both (`mesq export`, `mesq import`).

- Export is the REST export's code path (`asgi/account_archive.py`): written to a temporary file,
  streamed in 64 KiB chunks, refused where one response is capped (Lambda), counted in the
  `attachment_read` rate-limit bucket. The browser's archive is the whole account (no scopes).
- Import reads the upload (a multipart form, cut at IMPORT_MAX_BYTES) into a temporary file and
  runs the command line's import on it: an archive is validated whole before anything is written
  (`archive/importer.py`), and its first fault, with file and line, is shown above the form;
  Markdown notes import one by one (`archive/markdown_import.py`), a bad note listed and skipped.
- Both hold a worker thread for as long as the account takes: `archive_slot` lets only a few run
  at once in a process (one per user), a further one refused at once (503) rather than queued on
  the pool. An import that gets a slot counts in the user's `import` rate-limit bucket (as
  `mesq import` does): over it, 429 with Retry-After (docs/security.md "Fair shares").
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from aws_lambda_powertools import Logger
from starlette.datastructures import UploadFile
from starlette.responses import Response
from starlette.routing import Route

from ...application.ratelimit import RateLimiter, counted_import
from ...archive.format import ArchiveError
from ...archive.importer import import_account
from ...archive.markdown_import import import_markdown
from ...asgi.account_archive import archive_download, archive_slot
from ...imports.reports import unfinished_reports
from ...kernel.concurrency import run_sync
from ...kernel.context import Principal
from ...kernel.i18n import Text
from ...kernel.messages import quoted
from ...search.imported import during_import
from ...wiring.services import Services
from ..kit.framework import Clock, Page, Web, endpoint

logger = Logger(child=True)

EXPORT, IMPORT = "/settings/export", "/settings/import"
#: The largest upload Import takes (an archive, or a ZIP of notes). It is spooled to disk twice
#: at most (the form's copy, then the file the importer opens); beyond it, `mesq import`.
IMPORT_MAX_BYTES = 256 * 1024 * 1024
KINDS = ("archive", "markdown")
COPY_CHUNK_BYTES = 1 << 20


@dataclass
class Outcome:
    """What an import did, for the page: counts, and the notes that were skipped (Markdown)."""

    kind: str
    counts: dict[str, int]
    #: (the note's path, why it was skipped: said in the page's language before it renders)
    skipped: Sequence[tuple[str, Text | str]] = ()
    #: The language and time zone taken from the archive (the account had set neither of its own)
    preferences: dict[str, str] = field(default_factory=dict)


async def export_page(page: Page) -> Response:
    return page.render("settings/export.html", nav="export")


async def export_download(page: Page) -> Response:
    services = page.web.services
    limiter = RateLimiter(services.items, services.settings)
    if limiter.enabled:  # an archive hands out attachment bytes, as a download does
        await run_sync(limiter.hit, page.user.credential_id, "attachment_read")
    return await archive_download(services, page.user.user_id, None, page.time_zone)  # named by the page's day


def import_form(page: Page, *, status: int = 200, **extra: Any) -> Response:
    """The Import page; `app_*` are the "from another app" form's (`import_sources.py`)."""
    context: dict[str, Any] = {
        "nav": "import",
        "kind": "archive",
        "error": None,  # an archive's first fault (the importer's words)
        "problem": None,  # the form's own: "kind" or "file" (the template says it)
        "outcome": None,
        "filename": None,
        "app_kind": "memos",
        "app_error": None,
        "app_problem": None,
        "app_filename": None,
        "unfinished": [],
        **extra,
    }
    return page.render(
        "settings/import.html", status=status, max_mib=IMPORT_MAX_BYTES // (1024 * 1024), kinds=KINDS, **context
    )


async def import_page(page: Page) -> Response:
    # Imports from another app still running or cut off by a server that stopped: their reports'
    # links (a browser whose server died mid-import never got the address), from the runs' small
    # open items in one query (`reports.unfinished_reports`), never the reports themselves.
    unfinished = await run_sync(unfinished_reports, page.web.services.items, page.user.user_id)
    return import_form(page, unfinished=unfinished)


def _run_import(
    services: Services, principal: Principal, upload: IO[bytes], kind: str, label: str, clock: Clock, zone: str
) -> Outcome:
    """In a worker thread, holding an archive slot and counted in the user's `import` bucket: the
    upload into a named temporary file, then the command line's import of it. `zone`: the page's,
    where a Markdown note's dates are read when the account has none of its own."""
    with (
        archive_slot(principal.user_id),
        tempfile.TemporaryDirectory(prefix="mesq-import-") as folder,
        counted_import(RateLimiter(services.items, services.settings, clock), principal.user_id, ArchiveError),
    ):
        path = Path(folder) / "upload.zip"
        with path.open("wb") as copy:
            shutil.copyfileobj(upload, copy, COPY_CHUNK_BYTES)
        with during_import(services, principal.user_id):  # the search indexes: built once, afterwards
            return _import_file(services, principal, path, kind, label, zone)


def _import_file(services: Services, principal: Principal, path: Path, kind: str, label: str, zone: str) -> Outcome:
    if kind == "markdown":
        notes = import_markdown(
            services, principal.user_id, path, principal=principal, channel="web", label=label, zone=zone
        )
        counts = {"files": notes.files, "created": notes.created, "existing": notes.existing,
                  "attachments": notes.attachments, "skipped": len(notes.failed)}  # fmt: skip
        return Outcome(kind, counts, notes.failed[:100])
    quota = services.settings.attachment_quota_bytes
    report = import_account(services.items, services.blobs, principal.user_id, path, quota_bytes=quota, label=label)
    # The records a person is told of are those written or already there: the counters and index
    # entries an archive carries are recomputed (`report.derived`), so "20 records: 11 new, 0
    # already there" did not add up.
    counts = {"records": report.created + report.existing, "created": report.created,
              "existing": report.existing, "attachments": report.blobs}  # fmt: skip
    return Outcome(kind, counts, preferences=report.preferences)


async def import_submit(page: Page) -> Response:
    kind = page.fields.text("kind") or "archive"
    if kind not in KINDS:
        return import_form(page, status=400, problem="kind")
    upload = page.fields.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename or upload.size == 0:
        return import_form(page, status=400, kind=kind, problem="file")
    try:
        label = quoted(upload.filename, 40).strip("'\"")  # the upload's name in errors, cut
        outcome = await run_sync(
            _run_import, page.web.services, page.principal, upload.file, kind, label, page.web.clock, page.time_zone
        )
    except ArchiveError as error:  # a library's words of the fault (`detail`) go to the log only
        logged = {"traceId": page.trace_id, "kind": kind, "refusal": error.message, "detail": error.detail or None}
        logger.info("archive import refused", extra=logged)
        return import_form(page, status=400, kind=kind, error=page.error_text(error), filename=upload.filename)
    said = [
        (name, page.translator.text(reason) if isinstance(reason, Text) else reason) for name, reason in outcome.skipped
    ]
    return import_form(page, kind=kind, outcome=replace(outcome, skipped=said), filename=upload.filename)


def archive_routes(web: Web) -> list[Route]:
    return [
        Route(EXPORT, endpoint(web, export_page), methods=["GET"]),
        Route(EXPORT, endpoint(web, export_download), methods=["POST"]),
        Route(IMPORT, endpoint(web, import_page), methods=["GET"]),
        Route(IMPORT, endpoint(web, import_submit, upload_bytes=IMPORT_MAX_BYTES), methods=["POST"]),
    ]


__all__ = ["EXPORT", "IMPORT", "IMPORT_MAX_BYTES", "archive_routes", "import_form"]
