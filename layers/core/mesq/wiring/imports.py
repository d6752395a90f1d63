"""Imports from other apps, put together: the file's reader for its kind (the memos database is an
adapter's to read, `adapters/imports/memos_sqlite.py`; flomo's ZIP and Todoist's CSVs are read by the
domain's readers in `mesq/imports/`), the plan checked whole, then written as one run
(`imports/run.py`). The command line, REST (`POST /api/toolkit/import`) and Settings → Import
all call `import_file`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..adapters.imports.memos_sqlite import open_memos_database
from ..imports.memos import plan_memos
from ..imports.plan import KINDS, Plan, Report, SourceError
from ..imports.run import execute, import_call
from ..imports.todoist import MAX_CSV_BYTES, plan_todoist
from ..imports.zipped import open_zip
from ..kernel.context import Channel, Principal
from ..kernel.errors import MesqError
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.timestamps import parse_zone, utc_now
from ..todos.model import default_board
from ..todos.writes import board_language
from .services import Services

#: Todoist CSV files one import reads at most (a project each).
MAX_PROJECTS = 500


@dataclass(frozen=True)
class ImportOptions:
    #: memos: which memos user's memos (a database of several users needs it).
    memos_user: str | None = None
    #: flomo: the zone its times are written in; Todoist: the zone of a row without TIMEZONE.
    timezone: str | None = None
    #: Todoist: "now" for relative dates ("tomorrow"); the time of the import by default.
    now: datetime | None = None
    #: The name a refusal calls a ZIP by: an upload's own name (its temporary file is "upload");
    #: the path's name by default.
    label: str | None = None
    #: An upload's own file name (multipart filename, REST's `filename`): its temporary copy is
    #: named so (a Todoist project is named after its CSV's name), refusals call it so.
    filename: str | None = None
    #: The language the request asked for ("" for none): with the user's own choice it names
    #: what a new board would (`todos.writes.board_language`), Todoist's first column.
    language: str = ""


def _zone(options: ImportOptions, default: str) -> str:
    zone = options.timezone or default
    try:
        parse_zone(zone, "timezone")
    except MesqError:
        raise SourceError(f"--timezone {quoted(zone)} is not an IANA time zone (e.g. Asia/Shanghai)") from None
    return zone


def _too_many_projects(file: str, count: int) -> Text:
    return Text("%(file)s: %(count)s CSV files, over the %(limit)s projects an import reads",
                file=file, count=count, limit=MAX_PROJECTS)  # fmt: skip


def _too_big(file: str) -> Text:
    return Text("%(file)s: over %(limit)s bytes", file=file, limit=MAX_CSV_BYTES)


def _todoist_files(path: Path, label: str | None = None) -> Iterator[tuple[str, bytes]]:
    if path.is_dir():
        found = sorted(entry for entry in path.iterdir() if entry.suffix.lower() == ".csv" and not entry.is_symlink())
        if len(found) > MAX_PROJECTS:
            raise SourceError(_too_many_projects(path.name, len(found)))
        for entry in found:
            if entry.stat().st_size > MAX_CSV_BYTES:
                raise SourceError(_too_big(entry.name))
            yield entry.name, entry.read_bytes()
        return
    with path.open("rb") as handle:
        is_zip = handle.read(4) == b"PK\x03\x04"
    if not is_zip:
        if path.stat().st_size > MAX_CSV_BYTES:
            raise SourceError(_too_big(path.name))
        yield path.name, path.read_bytes()
        return
    archive = open_zip(path, label)
    try:
        names = [name for name in archive.names() if name.lower().endswith(".csv") and "__MACOSX" not in name]
        if len(names) > MAX_PROJECTS:
            raise SourceError(_too_many_projects(archive.label, len(names)))
        for name in names:
            yield name, archive.read(name, MAX_CSV_BYTES)
    finally:
        archive.close()


@contextlib.contextmanager
def _plan(
    kind: str, path: Path, user_id: str, report: Report, options: ImportOptions, board_language: str = "en"
) -> Iterator[Plan]:
    if not path.exists():
        raise SourceError(f"{path}: no such file or folder")
    if kind == "memos":
        with open_memos_database(path) as database:
            yield plan_memos(database, user_id, report, options.memos_user)
    elif kind == "flomo":
        # Here, not at the top: flomo's reader brings BeautifulSoup (~90 ms of imports), which
        # the pages' function (the settings page imports this module) needs only for an import.
        from ..imports.flomo import DEFAULT_ZONE, plan_flomo

        zone = _zone(options, DEFAULT_ZONE)
        archive = open_zip(path, options.label)
        try:
            yield plan_flomo(archive, user_id, report, zone)
        finally:
            archive.close()
    elif kind == "todoist":
        zone = _zone(options, "UTC")
        _space, columns = default_board(board_language)
        files = _todoist_files(path, options.label)
        yield plan_todoist(files, user_id, report, zone, options.now or utc_now(), first_column=columns[0])
    else:
        raise SourceError(f"unknown kind {quoted(kind)}: one of {', '.join(KINDS)}")


def import_file(
    services: Services,
    user_id: str,
    kind: str,
    path: Path,
    *,
    options: ImportOptions = ImportOptions(),
    principal: Principal | None = None,
    channel: Channel = "cli",
) -> Report:
    """Read `path` as an export of `kind`, check it whole, then write it as one run; SourceError
    (one line, nothing written) when the file cannot be imported."""
    call = import_call(services, user_id, kind, principal=principal, channel=channel, language=options.language)
    report = Report(kind, run_id=call.run_id)
    language = board_language(services.items, user_id, options.language)
    with _plan(kind, path, user_id, report, options, language) as plan:
        return execute(call, plan)
