"""`mesq export`: a user's data as one archive (docs/archive.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...archive.exporter import export_account
from ...kernel.errors import MesqError
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
    user_id = user_id_of(services, args.username)
    out: Path = args.out
    try:
        report = export_account(services.items, services.blobs, user_id, out, now_timestamp())
    except OSError as error:
        raise MesqError(f"cannot write {out}: {error.strerror or error}") from None
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(report.counts.items()))
    print(f"exported {report.records} records ({kinds or 'none'}) and {report.blobs} attachments to {out}")
    for path in report.missing_blobs:
        print(f"mesq: attachment bytes missing from storage: {path}", file=sys.stderr)
    return 0
