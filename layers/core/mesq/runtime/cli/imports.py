"""`mesq import`: an archive written by `mesq export`, or a folder / ZIP of Markdown files, into
a user (docs/archive.md, docs/markdown-import.md), reported in a person's words (memos, tasks,
attachments, history entries). Records are written with the in-process index updates off (main.py);
when that leaves the user's AI index behind, the report ends with the command that rebuilds it
(`reindex_hint.py`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...archive.format import ArchiveError
from ...archive.words import in_words
from ...kernel.errors import MesqError
from ...wiring.services import Services
from . import import_sources
from .common import CommandError, Commands, Parser, count_import, user_id_of
from .reindex_hint import reindex_hint


def add_parser(commands: Commands, common: Parser) -> None:
    import_ = commands.add_parser("import", parents=[common], help="import an archive into a user (docs/archive.md)")
    import_.add_argument("username", help="who receives the data")
    import_.add_argument("file", type=Path, nargs="?", help="an archive written by `mesq export`")
    import_.add_argument(
        "--markdown", type=Path, metavar="DIR_OR_ZIP", help="one memo per .md file (docs/markdown-import.md)"
    )
    import_sources.add_arguments(import_)


def _say_reindex(services: Services, user_id: str, username: str, created: int) -> None:
    hint = reindex_hint(services.items, services.settings, user_id, username, created)
    if hint:
        print(hint)


def _import_archive(services: Services, user_id: str, username: str, path: Path) -> int:
    from ...archive.importer import import_account  # ~50 modules: loaded by this command only

    try:
        report = import_account(
            services.items, services.blobs, user_id, path, quota_bytes=services.settings.attachment_quota_bytes
        )
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    held = in_words(report.kinds) or "nothing a person keeps (an empty account's archive)"
    took = f"{report.seconds:.1f}s"
    if report.created == 0 and report.existing:
        print(f"nothing new: {username} already holds what {path.name} holds ({held}); {took}")
    elif report.existing:
        print(f"imported {held} into {username}, {report.existing} of its records already there; {took}")
    else:
        print(f"imported {held} into {username}; {took}")
    _say_reindex(services, user_id, username, report.created)
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
    _say_reindex(services, user_id, username, report.created)
    return 1 if report.failed else 0


def run(args: argparse.Namespace, services: Services) -> int:
    if (args.source or args.undo_run) and args.markdown is not None:
        raise CommandError("give either --markdown DIR_OR_ZIP or --from KIND PATH")
    if not (args.source or args.undo_run) and (args.file is None) == (args.markdown is None):
        raise CommandError("give either an archive FILE or --markdown DIR_OR_ZIP")
    user_id = user_id_of(services, args.username)
    if not args.undo_run:
        count_import(services, user_id)
    if args.source or args.undo_run:
        return import_sources.run(args, services, user_id)
    if args.markdown is not None:
        return _import_markdown(services, user_id, args.username, args.markdown)
    return _import_archive(services, user_id, args.username, args.file)
