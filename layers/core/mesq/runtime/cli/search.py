"""`mesq search reindex USERNAME`: the repair. A user's AI index and literal indexes built again
from the store, every document tokenised and embedded anew, with progress lines; a stop resumes
at its last step on the next run. Imports and `mesq serve` build the indexes themselves
(search/imported.py, search/build.py): this is for an index that is damaged or suspected to be."""

from __future__ import annotations

import argparse

from ...wiring.services import Services
from .common import Commands, Parser, user_id_of


def add_parser(commands: Commands, common: Parser) -> None:
    search = commands.add_parser("search", help="the search indexes").add_subparsers(dest="action", required=True)
    reindex = search.add_parser(
        "reindex", parents=[common], help="repair: rebuild a user's search indexes from the store"
    )
    reindex.add_argument("username", help="whose indexes to rebuild")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...search.imported import index_now  # the index engines (numpy, bm25s, jieba): this command only

    index_now(services, user_id_of(services, args.username), print, fresh=True)
    return 0
