"""`mesq todos index`: the due index's backfill (todos/due_index.py) for one user or every listed
one; a board already indexed costs one read. The first narrowed query_todos of a board runs it too."""

from __future__ import annotations

import argparse

from ...wiring.services import Services
from .common import Commands, Parser, index_each_user


def add_parser(commands: Commands, common: Parser) -> None:
    todos = commands.add_parser("todos", help="the todo boards").add_subparsers(dest="action", required=True)
    due = todos.add_parser(
        "index", parents=[common], help="put boards written before the due/priority/status index into it (re-runnable)"
    )
    due.add_argument("username", nargs="?", help="whose board (default: every listed user)")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...todos.due_index import backfill, is_indexed  # the todo domain: loaded by this command only

    return index_each_user(services, args.username, is_indexed, backfill, "tasks given their index keys")
