"""`mesq import`: an archive written by `mesq export`, or a folder / ZIP of Markdown files, into
a user (docs/archive.md, docs/markdown-import.md). The AI index is rebuilt once afterwards
(`mesq search reindex`), not record by record (main.py turns the in-process follower off)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...archive.format import ArchiveError
from ...kernel.errors import MesqError
from ...wiring.services import Services
from . import import_sources
from .common import CommandError, Commands, Parser, count_import, user_id_of


def add_parser(commands: Commands, common: Parser) -> None:
    import_ = commands.add_parser("import", parents=[common], help="import an archive into a user (docs/archive.md)")
    import_.add_argument("username", help="who receives the data")
    import_.add_argument("file", type=Path, nargs="?", help="an archive written by `mesq export`")
    import_.add_argument(
        "--markdown", type=Path, metavar="DIR_OR_ZIP", help="one memo per .md file (docs/markdown-import.md)"
    )
    import_sources.add_arguments(import_)


def _import_archive(services: Services, user_id: str, path: Path) -> int:
    from ...archive.importer import import_account  # ~50 modules: loaded by this command only

    try:
        report = import_account(
            services.items, services.blobs, user_id, path, quota_bytes=services.settings.attachment_quota_bytes
        )
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    print(
        f"imported {report.records} records: {report.created} new, {report.existing} already there, "
        f"{report.derived} counters and index entries recomputed; "
        f"{report.blobs} attachments; {report.seconds:.1f}s ({report.per_second:.0f} records/s); "
        "rebuild the AI search index with `mesq search reindex USERNAME`"
    )
    return 0


def _import_markdown(services: Services, user_id: str, path: Path) -> int:
    from ...archive.markdown_import import import_markdown  # the Markdown parser: loaded by this command only

    try:
        report = import_markdown(services, user_id, path)
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    for name, reason in report.failed:
        print(f"mesq: skipped {name}: {reason}", file=sys.stderr)
    print(
        f"imported {report.files - len(report.failed)} of {report.files} Markdown files: {report.created} new, "
        f"{report.existing} already there, {len(report.failed)} skipped; {report.attachments} attachments; "
        f"{report.seconds:.1f}s ({report.per_second:.0f} files/s); "
        "rebuild the AI search index with `mesq search reindex USERNAME`"
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
    if args.source or args.undo_run:
        return import_sources.run(args, services, user_id)
    if args.markdown is not None:
        return _import_markdown(services, user_id, args.markdown)
    return _import_archive(services, user_id, args.file)
