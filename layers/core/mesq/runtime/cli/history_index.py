"""`mesq history index`: the by-actor index's backfill (history/actor_index.py) for one user or
every listed one; a history already indexed costs one read. The first undo or list by actor runs
it too."""

from __future__ import annotations

import argparse

from ...wiring.services import Services
from .common import Commands, Parser, index_each_user


def add_parser(commands: Commands, common: Parser) -> None:
    history = commands.add_parser("history", help="the change history").add_subparsers(dest="action", required=True)
    by_actor = history.add_parser(
        "index", parents=[common], help="put change records written before the by-actor index into it (re-runnable)"
    )
    by_actor.add_argument("username", nargs="?", help="whose history (default: every listed user)")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...history.actor_index import backfill, is_indexed  # the history: loaded by this command only

    return index_each_user(services, args.username, is_indexed, backfill, "change records given their keys")
