"""An uploaded export of another app imported, shared by REST (`POST /api/toolkit/import`,
`http/imports.py`) and Settings → Import (`web/settings/import_sources.py`): in a worker thread,
holding one of the archive slots and counted in the user's `import` bucket
(`account_archive.archive_slot`: one import or export per user, a few per process, one more
refused at once with 503 and Retry-After), the upload copied to a temporary file, then
`wiring.imports.import_file`; the report is kept for its page (`imports/reports.py`), from before
the first write on (a process killed half-way leaves it, shown as interrupted)."""

from __future__ import annotations

import hashlib
import posixpath
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import IO

from aws_lambda_powertools import Logger

from ..application.ratelimit import RateLimiter, counted_import
from ..imports.plan import CutShort, Report, SourceError
from ..imports.reports import forget_report, keep_interrupted, keep_progress, save_report, settle_unfinished
from ..imports.run import Progress
from ..kernel.context import Channel, Principal
from ..kernel.timestamps import now_timestamp
from ..search.imported import during_import
from ..wiring.imports import ImportOptions, import_file, upload_base_name
from ..wiring.services import Services
from .account_archive import archive_slot

logger = Logger(child=True)

COPY_CHUNK_BYTES = 1 << 20
#: The longest file name kept for an upload's copy (a file system takes 255 bytes).
NAME_MAX = 120
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:]")


def upload_name(filename: str | None) -> str:
    """The upload's own base name, safe as a file name in the temporary folder ("upload" when it
    has none): a client's name may hold a path, control characters or be far too long."""
    base = _UNSAFE.sub("_", (filename or "").replace("\\", "/").rsplit("/", 1)[-1]).strip()
    if not base.strip("._") or len(base.encode("utf-8")) > NAME_MAX:
        suffix = posixpath.splitext(base)[1][:10] if base else ""
        return "upload" + (suffix if _UNSAFE.search(suffix) is None else "")
    return base


def import_upload(
    services: Services, principal: Principal, kind: str, upload: IO[bytes], options: ImportOptions, channel: Channel
) -> Report:
    with (
        archive_slot(principal.user_id),
        tempfile.TemporaryDirectory(prefix="mesq-import-") as folder,
        # Counted like every import once it has its slot (docs/security.md "Fair shares"); a file
        # refused before anything is written counts in `import_refused` instead.
        counted_import(RateLimiter(services.items, services.settings), principal.user_id, SourceError),
    ):
        path = Path(folder) / upload_name(options.filename)
        if not options.filename:  # the copy's name ("upload") is never shown, nor taken for the file's
            options = replace(options, nameless=True)
        if options.label is None:  # refusals name the person's file, never the temporary copy
            shown = (upload_base_name(options.filename) or path.name) if options.filename else "the file"
            options = replace(options, label=shown)
        # The file's (and what reads it: a memos user, a Todoist project's name), so a later run of
        # the same file that finishes settles this one's report if it does not (`settle_unfinished`).
        fingerprint = hashlib.sha256(f"{kind}\0{options.memos_user or ''}\0{options.filename or ''}\0".encode())
        with path.open("wb") as copy:
            while chunk := upload.read(COPY_CHUNK_BYTES):
                fingerprint.update(chunk)
                copy.write(chunk)
        source = fingerprint.hexdigest()[:32]
        begun = now_timestamp()
        # Kept from before the first write and as it grows: a process killed half-way (kill -9)
        # leaves a report that its page shows as interrupted, with what it wrote and its Undo.
        progress = Progress(lambda report: keep_progress(services.items, principal.user_id, report, begun, source))
        try:
            with during_import(services, principal.user_id):  # the search indexes: built once, afterwards
                report = import_file(
                    services,
                    principal.user_id,
                    kind,
                    path,
                    options=options,
                    principal=principal,
                    channel=channel,
                    progress=progress,
                )
        except CutShort as error:  # what was written has its report page too, with Undo
            save_report(services.items, principal.user_id, error.report, cut_short=error.text, source=source)
            raise
        except SourceError:  # refused at a write with nothing written: no report, as before any write
            if progress.report is not None:
                forget_report(services.items, principal.user_id, progress.report.run_id)
            raise
        except BaseException:  # a fault half-way: never a report that says "running" for good
            if progress.report is not None:
                try:
                    keep_interrupted(services.items, principal.user_id, progress.report, begun, source)
                except Exception:
                    logger.exception("the report of an import stopped by a fault could not be kept")
            raise
    save_report(services.items, principal.user_id, report, source=source)
    settle_unfinished(services.items, principal.user_id, report.run_id, source)
    return report


def log_refusal(error: SourceError, trace_id: str, kind: str) -> None:
    """A refused import in the server's log, under the request's trace id, with what a library
    said of the file (`SourceError.detail`: SQLite's, csv's, an OSError's English), which the
    person's answer never carries: the trace id they see finds it here."""
    logger.info(
        "import refused",
        extra={"traceId": trace_id, "kind": kind, "refusal": error.message, "detail": error.detail or None},
    )
