"""`mesq export`: a user's data as one archive (docs/archive.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...archive import preferences
from ...archive.words import in_words
from ...kernel.errors import MesqError
from ...kernel.messages import quoted
from ...kernel.timestamps import now_timestamp
from ...wiring.services import Services
from .common import Commands, Parser, user_id_of


def add_parser(commands: Commands, common: Parser) -> None:
    export = commands.add_parser(
        "export", parents=[common], help="export a user's data as one archive (docs/archive.md)"
    )
    export.add_argument("username", help="whose data to export")
    export.add_argument("--out", type=Path, required=True, help="the archive file to write (.zip)")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...archive.exporter import export_account  # the archive writer: for this command only

    user_id = user_id_of(services, args.username)
    out: Path = args.out
    try:
        report = export_account(services.items, services.blobs, user_id, out, now_timestamp())
    except OSError as error:
        raise MesqError(f"cannot write {out}: {error.strerror or error}") from None
    held = in_words(report.kinds)
    # An account of preferences alone (language, zone) is not empty: its archive carries them.
    chosen = f"{args.username}'s {preferences.in_words(report.preferences)}" if report.preferences else ""
    if held and chosen:
        held = f"{held}, with {chosen},"
    elif chosen:
        held = f"{chosen}, no records yet,"
    print(f"exported {held or 'an empty account (nothing to export yet)'} to {out}")
    for name in report.missing_blobs:
        print(f"mesq: the file of the attachment {quoted(name)} is missing from storage: exported without it",
              file=sys.stderr)  # fmt: skip
    return 0
