"""`mesq search reindex`: rebuild a user's AI index and literal indexes from the store."""

from __future__ import annotations

import argparse
import time

from ...wiring.services import Services
from .common import Commands, Parser, user_id_of


def add_parser(commands: Commands, common: Parser) -> None:
    search = commands.add_parser("search", help="the AI search index").add_subparsers(dest="action", required=True)
    reindex = search.add_parser("reindex", parents=[common], help="rebuild a user's search index from the store")
    reindex.add_argument("username", help="whose index to rebuild")


def run(args: argparse.Namespace, services: Services) -> int:
    # The index engines (numpy, bm25s, jieba: ~0.9 s) load for this command only.
    from ...application.registries import SEARCHABLES
    from ...search import literal_store
    from ...search.indexer import rebuild

    user_id = user_id_of(services, args.username)
    started = time.perf_counter()
    documents = rebuild(services, user_id)
    embedder = services.search.embedder
    vectors = f"vectors by {embedder.name}" if embedder else "no vectors (no embedding model)"
    print(f"indexed {documents} documents in {time.perf_counter() - started:.1f}s; {vectors}")
    for kind in SEARCHABLES.literal:  # the literal indexes (search_memos, search_reading_notes, query_todos)
        started = time.perf_counter()
        rows = literal_store.rebuild(services, user_id, kind)
        print(f"literal {kind.name} index: {rows} rows in {time.perf_counter() - started:.1f}s")
    return 0
