"""Imports from other apps, put together: the file's reader for its kind (the memos database is an
adapter's to read, `adapters/imports/memos_sqlite.py`; flomo's ZIP and Todoist's CSVs are read by the
domain's readers in `mesq/imports/`), the plan checked whole, then written as one run
(`imports/run.py`). The command line, REST (`POST /api/toolkit/import`) and Settings → Import
all call `import_file`.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from ..adapters.imports.memos_sqlite import open_memos_database
from ..auth.user_zone import configured_zone
from ..imports.memos import plan_memos
from ..imports.plan import KINDS, Plan, Report, SourceError
from ..imports.run import Progress, execute, import_call
from ..imports.todoist import MAX_CSV_BYTES, plan_todoist
from ..imports.zipped import open_zip
from ..kernel.context import Channel, Principal
from ..kernel.errors import MesqError
from ..kernel.formats import month_day
from ..kernel.i18n import Text, Translator
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
    #: flomo: the zone its times are written in; Todoist: the zone of a row without TIMEZONE;
    #: memos: the zone of the times written in comment headings. None: the account's zone
    #: (Settings), else Asia/Shanghai for flomo and UTC for the others.
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
    #: what a new board would (`todos.writes.board_language`), Todoist's first column and the
    #: space of a Todoist CSV that came without a name.
    language: str = ""
    #: The upload came without a name (REST's raw body without `filename`, a multipart part
    #: without one): its temporary copy's name is never shown (refusals say `label`), and a
    #: Todoist CSV's space is named "Todoist import (<date>)" in the person's language.
    nameless: bool = False


def _zone(options: ImportOptions, default: str) -> str:
    zone = options.timezone or default
    try:
        parse_zone(zone, "timezone")
    except MesqError:
        raise SourceError(
            Text("time zone %(zone)s is not an IANA time zone (e.g. Asia/Shanghai)", zone=quoted(zone))
        ) from None
    return zone


def _too_many_projects(file: str, count: int) -> Text:
    return Text("%(file)s: %(count)s CSV files, over the %(limit)s projects an import reads",
                file=file, count=count, limit=MAX_PROJECTS)  # fmt: skip


def _too_big(file: str) -> Text:
    return Text("%(file)s: over %(limit)s bytes", file=file, limit=MAX_CSV_BYTES)


def unnamed_project(language: str, zone: str, now: datetime) -> str:
    """The space of a Todoist CSV that came without a name: "Todoist import (Mar 5, 2026)", in
    Chinese "Todoist 导入" and the date as 2026年3月5日: the day of the import in `zone` (the zone
    its dates are read in), in the language a new board is named in."""
    day = now.astimezone(ZoneInfo(zone)).date()
    return Translator(language).gettext("Todoist import (%(date)s)", date=month_day(day, language, with_year=True))


#: An upload's own name, at most (what a file system names).
NAME_CHARACTERS = 255
_UNSAFE_IN_NAME = re.compile(r"[\x00-\x1f\x7f/\\:]")


def upload_base_name(filename: str | None) -> str | None:
    """An upload's own base name as the import reads it (a Todoist project is named after its
    CSV): any path and control characters taken out, cut to what a file system names (255
    characters, its extension kept: a longer name was taken for none, and the project named after
    the temporary copy, "upload"); None when it has none. Never the name of its temporary copy,
    which is cut to a few bytes (forty Chinese characters are 120) nor the name refusals show, cut
    to 40 characters."""
    base = _UNSAFE_IN_NAME.sub("_", (filename or "").replace("\\", "/").rsplit("/", 1)[-1]).strip()
    if len(base) > NAME_CHARACTERS:
        stem, extension = posixpath.splitext(base)
        extension = extension if len(extension) <= 16 else ""
        base = stem[: NAME_CHARACTERS - len(extension)] + extension
    return base if base.strip("._") else None


def _todoist_files(
    path: Path, label: str | None = None, nameless: bool = False, own_name: str | None = None
) -> Iterator[tuple[str, bytes]]:
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
        # A file without a name is called what refusals call it ("the file"): no project name in
        # it. An upload's own name names its project (its copy's name may be cut).
        name = (label or path.name) if nameless else (own_name or path.name)
        if path.stat().st_size > MAX_CSV_BYTES:
            raise SourceError(_too_big(name))
        yield name, path.read_bytes()
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
    kind: str,
    path: Path,
    user_id: str,
    report: Report,
    options: ImportOptions,
    board_language: str = "en",
    account_zone: str | None = None,
) -> Iterator[Plan]:
    """The plan of the file; `board_language` and `account_zone` (the person's zone, when set):
    what the lines the import writes into records (a comment's heading, a kept Todoist date) are
    in, and the zone a file's own times are read in when the import does not name one."""
    if not path.exists():
        raise SourceError(Text("%(path)s: no such file or folder", path=str(path)))
    say = Translator(board_language)
    if kind == "memos":
        with open_memos_database(path, options.label) as database:
            zone = _zone(options, account_zone or "UTC")
            yield plan_memos(database, user_id, report, options.memos_user, say, zone)
    elif kind == "flomo":
        # Here, not at the top: flomo's reader brings BeautifulSoup (~90 ms of imports), which
        # the pages' function (the settings page imports this module) needs only for an import.
        from ..imports.flomo import DEFAULT_ZONE, plan_flomo

        zone = _zone(options, account_zone or DEFAULT_ZONE)
        _check_flomo_zip(path, options.label or path.name)
        archive = open_zip(path, options.label)
        try:
            yield plan_flomo(archive, user_id, report, zone)
        finally:
            archive.close()
    elif kind == "todoist":
        zone = _zone(options, account_zone or "UTC")
        now = options.now or utc_now()
        _space, columns = default_board(board_language)
        files = _todoist_files(path, options.label, options.nameless, upload_base_name(options.filename))
        unnamed = unnamed_project(board_language, zone, now)
        yield plan_todoist(files, user_id, report, zone, now, say, first_column=columns[0], unnamed=unnamed)
    else:
        raise SourceError(Text("unknown kind %(kind)s: one of %(kinds)s", kind=quoted(kind), kinds=", ".join(KINDS)))


def _check_flomo_zip(path: Path, label: str) -> None:
    """flomo's export is a ZIP; a file that does not even start as one is most often its page,
    picked after the ZIP was unpacked: say that, and what to pick, rather than the ZIP format's
    words ("no end of central directory record")."""
    if path.is_dir():
        return
    with path.open("rb") as handle:
        start = handle.read(512)
    if start.startswith(b"PK"):
        return
    if start.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"<"):
        raise SourceError(
            Text(
                "%(file)s is a web page, not flomo's ZIP: import the ZIP that flomo's “Export all (HTML)”"
                " gave, as downloaded (it holds this page and its images)",
                file=label,
            )
        )
    raise SourceError(
        Text(
            "%(file)s is not a ZIP file: flomo's export is the ZIP that its “Export all (HTML)” gives;"
            " import it as downloaded",
            file=label,
        )
    )


def import_file(
    services: Services,
    user_id: str,
    kind: str,
    path: Path,
    *,
    options: ImportOptions = ImportOptions(),
    principal: Principal | None = None,
    channel: Channel = "cli",
    progress: Progress | None = None,
) -> Report:
    """Read `path` as an export of `kind`, check it whole, then write it as one run; SourceError
    (one line, nothing written) when the file cannot be imported. `progress` hears of the report
    before the first write and as it grows (`imports.run.Progress`)."""
    call = import_call(services, user_id, kind, principal=principal, channel=channel, language=options.language)
    report = Report(kind, run_id=call.run_id)
    language = board_language(services.items, user_id, options.language)
    zone = configured_zone(services.items, user_id)
    planning = True
    try:
        with _plan(kind, path, user_id, report, options, language, zone) as plan:
            planning = False
            return execute(call, plan, progress)
    except (OSError, RecursionError) as error:
        if not planning:  # a write's fault (the store's, the blobs'): not the file's
            raise
        # The file could not be read through (cut short while copied, a structure past the
        # parser's depth): the person's words say so; the library's stay in the log.
        raise SourceError(_unreadable(options.label or path.name), detail=f"{type(error).__name__}: {error}") from None


def _unreadable(file: str) -> Text:
    return Text(
        "%(file)s could not be read to its end; check that it is the app's export, whole, and import it again",
        file=file,
    )
