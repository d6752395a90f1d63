"""`mesq import USER --from memos|flomo|todoist PATH` and `mesq import USER --undo-run RUN_ID`
(docs/migrating.md): the command line's side of `wiring/imports.py` and `imports/undo.py`.

Prints the report in the person's terms, the skipped and kept-as-text lines (each with its
reason) on stderr, and the run id to undo it by; exit status 1 when anything was skipped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...imports.plan import KINDS, SourceError
from ...kernel.errors import MesqError
from ...kernel.messages import quoted
from ...wiring.services import Services
from .common import command_path, rerun_options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="source",
        nargs=2,
        metavar=("KIND", "PATH"),
        help=f"an export of another app, KIND one of {', '.join(KINDS)} (docs/migrating.md)",
    )
    parser.add_argument("--memos-user", metavar="NAME", help="memos: whose memos, in a database of several users")
    parser.add_argument(
        "--timezone",
        metavar="ZONE",
        help="flomo: the zone of its times; Todoist: of rows without one; memos: of comment headings "
        "(default: the account's zone, else Asia/Shanghai for flomo, UTC for the others)",
    )
    parser.add_argument("--undo-run", metavar="RUN_ID", help="undo an import by the run id it printed")


def run(args: argparse.Namespace, services: Services, user_id: str) -> int:
    # The readers (bs4, dateparser, ...) load here, never for another command (`mesq serve`'s start).
    from ...imports.run import import_call
    from ...imports.undo import undo_import
    from ...wiring.imports import ImportOptions, import_file

    if args.undo_run:
        call = import_call(services, user_id, "undo")
        undone = undo_import(call, args.undo_run)
        parts = ", ".join(_counted(count, kind) for kind, count in sorted(undone.undone.items())) or "nothing"
        print(f"undone: {parts} moved to the trash; {_counted(undone.removed_spaces, 'imported space')} removed")
        for entry in undone.not_undone[:50]:
            print(
                f"mesq: not undone {entry['record']['kind']} {entry['record']['id']}: {entry['message']}",
                file=sys.stderr,
            )
        return 1 if undone.not_undone else 0
    kind, path = args.source
    if kind not in KINDS:
        raise MesqError(f"--from {quoted(kind)}: one of {', '.join(KINDS)}")
    if args.file is not None:
        raise MesqError("give the export's PATH after --from KIND, not also an archive FILE")
    options = ImportOptions(memos_user=args.memos_user, timezone=args.timezone)
    try:
        report = import_file(services, user_id, kind, Path(path), options=options)
    except SourceError as error:
        if error.detail:  # the library's own words: for the operator, who can act on them
            print(f"mesq: {error.detail}", file=sys.stderr)
        raise MesqError(error.refusal) from None
    for which, why in report.skipped:
        print(f"mesq: skipped {which}: {why}", file=sys.stderr)
    for which, what in report.kept:
        print(f"mesq: kept as text {which}: {what}", file=sys.stderr)
    for which, what in report.shortened:
        print(f"mesq: imported but shortened {which}: {what}", file=sys.stderr)
    for which, what in report.merged:
        print(f"mesq: {which}: {what}", file=sys.stderr)
    undo = f"{command_path()} import {args.username} --undo-run {report.run_id}{rerun_options(services.settings)}"
    print(f"{report.summary()}; {report.seconds:.1f}s; to undo it: {undo}")
    return 1 if report.skipped_count else 0


def _counted(count: int, what: str) -> str:
    """`1 task`, `17 tasks` (the CLI's English)."""
    return f"{count} {what}" if count == 1 else f"{count} {what}s"
