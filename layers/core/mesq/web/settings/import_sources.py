"""Settings → Import, "from another app" (设置 → 导入 → 从其他应用导入): a memos database (or a ZIP of its
folder), a flomo export ZIP or Todoist CSVs (one, or a ZIP of them) brought into the signed-in
account (docs/migrating.md).

- The form posts the file as multipart (cut at UPLOAD_BYTES); `static/imports.js` sends it with
  XMLHttpRequest to show the upload's progress, then "importing…" while the server works, and
  follows the answer's redirect. Without the script the form posts as any form does.
- The import is REST's (`asgi/app_imports.import_upload`: an archive slot, the whole file checked
  first, one runId). A file that cannot be imported comes back to the form with its one line and
  nothing written; an imported one redirects (303) to its report page, and so does one cut short
  after its first writes (`CutShort`: a Lambda invocation's time up, the server stopping), whose
  page says why it stopped above what it wrote and its Undo.
- The report page (`/settings/import/runs/{runId}`) reads the kept report (`imports/reports.py`):
  counts in the person's terms, what was skipped or kept as text and why, and "Undo this import"
  (`imports/undo.undo_import`: the imported memos and tasks to the trash, the import's emptied
  spaces removed), with a link to the run in `/activity`. A report kept while its import still
  runs says so (no Undo yet); one whose server stopped half-way (kill -9) says it was interrupted,
  counts what it had written, and offers Undo (`imports/reports.read_report`).
"""

from __future__ import annotations

from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import Response
from starlette.routing import Route

from ...asgi.app_imports import import_upload, log_refusal
from ...imports.plan import KINDS, CutShort, SourceError
from ...imports.reports import mark_undone, read_report
from ...imports.undo import undo_import
from ...kernel.concurrency import run_sync
from ...kernel.errors import Conflict, Forbidden, NotFound
from ...kernel.i18n import Text
from ...kernel.messages import quoted
from ...wiring.imports import ImportOptions
from ..kit.framework import Page, Web, endpoint
from ..kit.render import redirect
from .archive import IMPORT, import_form

PATH = IMPORT + "/app"
RUNS = IMPORT + "/runs/"
UPLOAD_BYTES = 256 * 1024 * 1024


async def import_submit(page: Page) -> Response:
    kind = page.fields.text("kind")
    if kind not in KINDS:
        return import_form(page, status=400, app_problem="kind")
    upload = page.fields.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename or upload.size == 0:
        return import_form(page, status=400, app_kind=kind, app_problem="file")
    options = ImportOptions(
        memos_user=page.fields.text("memosUser").strip() or None,
        # Empty: the page's zone (the account's, else this browser's), as every time a page reads;
        # flomo keeps its own default (Asia/Shanghai) while the account has no zone.
        timezone=page.fields.text("timezone").strip() or (None if kind == "flomo" else page.time_zone),
        label=quoted(upload.filename, 40).strip("'\""),  # the upload's name in errors, cut (as Import's)
        filename=upload.filename,  # a Todoist project is named after its CSV
        language=page.language,  # what its new columns are named in, as a board made on a page
    )
    try:
        report = await run_sync(import_upload, page.web.services, page.principal, kind, upload.file, options, "web")
    except CutShort as error:  # written in part (its time was up, the server stopping): its report, with Undo
        log_refusal(error, page.trace_id, kind)
        return redirect(RUNS + error.report.run_id)
    except SourceError as error:
        log_refusal(error, page.trace_id, kind)
        return import_form(
            page, status=400, app_kind=kind, app_error=page.error_text(error), app_filename=upload.filename
        )
    return redirect(RUNS + report.run_id)


def _stored(page: Page) -> dict[str, Any]:
    run_id = page.request.path_params["run_id"]
    stored = read_report(page.web.services.items, page.user.user_id, run_id) if len(run_id) <= 64 else None
    if stored is None:
        raise NotFound("no import with this run id in this account (reports are kept 90 days)")
    return stored


def said(page: Page, stored: dict[str, Any], listed: str, reason: str) -> list[dict[str, str]]:
    """A report's skipped ("why"), kept or shortened ("what") entries in the page's language: from their
    templates (`words`), or, for a report kept before they were, its English as it is."""
    english = stored["report"].get(listed) or []
    words = (stored.get("words") or {}).get(listed)
    if not isinstance(words, list) or len(words) != len(english):
        return [{"which": str(entry.get("which", "")), reason: str(entry.get(reason, ""))} for entry in english]
    return [
        {
            "which": page.translator.text(Text.from_stored(entry.get("which"), str(plain.get("which", "")))),
            reason: page.translator.text(Text.from_stored(entry.get(reason), str(plain.get(reason, "")))),
        }
        for entry, plain in zip(words, english, strict=True)
    ]


async def report_page(page: Page) -> Response:
    stored = _stored(page)
    return page.render(
        "settings/import_report.html",
        nav="import",
        stored=stored,
        report=stored["report"],
        skipped=said(page, stored, "skipped", "why"),
        kept=said(page, stored, "kept", "what"),
        shortened=said(page, stored, "shortened", "what"),
        merged=said(page, stored, "merged", "what"),
        cut_short=page.translator.text(Text.from_stored(stored["cutShort"])) if stored.get("cutShort") else "",
    )


async def undo_submit(page: Page) -> Response:
    stored = _stored(page)
    run_id = stored["report"]["runId"]
    if not {"memo:write", "todo:write"} <= page.principal.scopes:
        raise Forbidden("undoing an import needs memo:write and todo:write")
    if stored.get("running"):
        raise Conflict("this import is still running; undo it once it has finished (reload its report to see)")
    call = page.call()
    undone = await run_sync(undo_import, call, run_id)
    await run_sync(mark_undone, page.web.services.items, page.user.user_id, run_id, undone.as_dict())
    return redirect(RUNS + run_id)


def import_source_routes(web: Web) -> list[Route]:
    return [
        Route(PATH, endpoint(web, import_submit, upload_bytes=UPLOAD_BYTES), methods=["POST"]),
        Route(RUNS + "{run_id}", endpoint(web, report_page), methods=["GET"]),
        Route(RUNS + "{run_id}/undo", endpoint(web, undo_submit), methods=["POST"]),
    ]
