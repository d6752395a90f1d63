"""`mesq reading import`: a reading export file onto a user's shelf (docs/reading-import.md). As
`mesq import` does, the search indexes are built once afterwards, with progress lines (main.py turns
the in-process follower off): record by record, 3,000 highlights kept the command embedding them
for minutes after it had printed its result, saying nothing."""

from __future__ import annotations

import argparse
from pathlib import Path

from ...kernel.errors import MesqError
from ...kernel.timestamps import now_timestamp
from ...reading.importer import import_snapshots, parse_import
from ...wiring.services import Services
from .common import Commands, Parser, count_import, user_id_of
from .imports import index_after_import

#: The largest reading export `mesq reading import` reads (it parses the file whole): 5,000 books
#: of notes stay well under it (docs/security.md "Imports").
READING_FILE_BYTES = 256 * 1024 * 1024


def add_parser(commands: Commands, common: Parser) -> None:
    reading = commands.add_parser("reading", help="the reading shelf").add_subparsers(dest="action", required=True)
    reading_import = reading.add_parser(
        "import", parents=[common], help="import a reading export file (docs/reading-import.md)"
    )
    reading_import.add_argument("username", help="whose shelf receives the books")
    reading_import.add_argument(
        "file", type=Path, help='the JSON export ({"provider": "wechat-reading", "books": [...]})'
    )


def run(args: argparse.Namespace, services: Services) -> int:
    user_id = user_id_of(services, args.username)
    path: Path = args.file
    count_import(services, user_id)
    try:
        if path.stat().st_size > READING_FILE_BYTES:
            raise MesqError(f"{path.name}: over the reading file size cap of {READING_FILE_BYTES:,} bytes")
        text = path.read_bytes()
    except OSError as error:
        raise MesqError(f"cannot read {path}: {error.strerror}") from None
    snapshots = parse_import(text)
    from ...search.imported import before_import  # the index engines: this command only

    before_import(services, user_id)
    try:
        report = import_snapshots(services.items, user_id, snapshots, now_timestamp())
    except Exception:  # what a refusal half-way left written is indexed too
        index_after_import(services, user_id, args.username)
        raise
    counts = report.as_dict()
    print(
        f"imported {len(snapshots)} books: {counts['added']} notes added, {counts['updated']} updated, "
        f"{counts['markedDeleted']} marked deleted upstream, {counts['unchanged']} unchanged"
    )
    index_after_import(services, user_id, args.username)
    return 0
