"""`mesq import`: an archive written by `mesq export`, a folder / ZIP of Markdown files, or another
app's export (`--from`), into a user (docs/archive.md, docs/markdown-import.md, docs/migrating.md),
reported in a person's words (memos, tasks, attachments, history entries). The search indexes are
built once afterwards, as part of the command (search/imported.py), not record by record (main.py
turns the in-process follower off); a stop resumes on the next run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...archive import preferences
from ...archive.format import ArchiveError
from ...archive.words import in_words
from ...kernel.errors import MesqError
from ...wiring.services import Services
from . import import_sources
from .common import CommandError, Commands, Parser, command_path, count_import, rerun_options, user_id_of


def add_parser(commands: Commands, common: Parser) -> None:
    import_ = commands.add_parser("import", parents=[common], help="import an archive into a user (docs/archive.md)")
    import_.add_argument("username", help="who receives the data")
    import_.add_argument("file", type=Path, nargs="?", help="an archive written by `mesq export`")
    import_.add_argument(
        "--markdown", type=Path, metavar="DIR_OR_ZIP", help="one memo per .md file (docs/markdown-import.md)"
    )
    import_sources.add_arguments(import_)


def _import_archive(services: Services, user_id: str, username: str, path: Path) -> int:
    from ...archive.importer import import_account  # ~50 modules: loaded by this command only

    try:
        report = import_account(
            services.items, services.blobs, user_id, path, quota_bytes=services.settings.attachment_quota_bytes
        )
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    held = in_words(report.kinds) or "no records"
    took = f"{report.seconds:.1f}s"
    if report.created == 0 and report.existing:
        print(f"nothing new: {username} already holds what {path.name} holds ({held}); {took}")
    elif report.existing:
        print(f"imported {held} into {username}, {report.existing} of its records already there; {took}")
    else:
        print(f"imported {held} into {username}; {took}")
    if report.preferences:  # only what the account had not set itself (archive/preferences.py)
        print(f"took the archive's {preferences.in_words(report.preferences)}: {username} had not set its own")
    return 0


def _import_markdown(services: Services, user_id: str, username: str, path: Path) -> int:
    from ...archive.markdown_import import import_markdown  # the Markdown parser: loaded by this command only

    try:
        report = import_markdown(services, user_id, path)
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    for name, reason in report.failed:
        print(f"mesq: skipped {name}: {reason}", file=sys.stderr)
    print(
        f"imported {report.files - len(report.failed)} of {report.files} Markdown files into {username}: "
        f"{report.created} new, {report.existing} already there, {len(report.failed)} skipped; "
        f"{report.attachments} attachments; {report.seconds:.1f}s ({report.per_second:.0f} files/s)"
    )
    return 1 if report.failed else 0


def run(args: argparse.Namespace, services: Services) -> int:
    if (args.source or args.undo_run) and args.markdown is not None:
        raise CommandError("give either --markdown DIR_OR_ZIP or --from KIND PATH")
    if not (args.source or args.undo_run) and (args.file is None) == (args.markdown is None):
        raise CommandError("give either an archive FILE or --markdown DIR_OR_ZIP")
    user_id = user_id_of(services, args.username)
    if not args.undo_run:
        count_import(services, user_id)
    from ...search.imported import before_import  # the index engines: this command only

    before_import(services, user_id)
    try:
        if args.source or args.undo_run:
            status = import_sources.run(args, services, user_id)
        elif args.markdown is not None:
            status = _import_markdown(services, user_id, args.username, args.markdown)
        else:
            status = _import_archive(services, user_id, args.username, args.file)
    except Exception:  # what was written before a refusal half-way is indexed too (not on Ctrl-C)
        index_after_import(services, user_id, args.username)
        raise
    index_after_import(services, user_id, args.username)
    return status


def index_after_import(services: Services, user_id: str, username: str) -> None:
    """The user's search indexes built once after an import's writes, with progress lines (the
    command's follower is off: main.py); a failure names the command that builds them again."""
    from ...search.imported import index_now, reindex_needed

    repair = f"{command_path()} search reindex {username}{rerun_options(services.settings)}"  # runnable as printed
    try:
        index_now(services, user_id, print)
    except Exception as error:  # the import is stored: the index can be built again
        print(f"mesq: the search index was not finished ({error}); run `{repair}`")
        return
    if reindex_needed(services, user_id):  # e.g. another process started a build for a new model meanwhile
        print(f"search index: not complete yet; `mesq serve` finishes it, or run `{repair}`")
