"""`mesq history index`: the by-actor index's backfill (history/actor_index.py) for one user or
every listed one; a history already indexed costs one read. The first undo or list by actor runs
it too."""

from __future__ import annotations

import argparse

from ...auth.users import find_user_by_name, list_users
from ...wiring.services import Services
from .common import Commands, Parser


def add_parser(commands: Commands, common: Parser) -> None:
    history = commands.add_parser("history", help="the change history").add_subparsers(dest="action", required=True)
    by_actor = history.add_parser(
        "index", parents=[common], help="put change records written before the by-actor index into it (re-runnable)"
    )
    by_actor.add_argument("username", nargs="?", help="whose history (default: every listed user)")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...history.actor_index import backfill, is_indexed  # the history: loaded by this command only

    users = [find_user_by_name(services.items, args.username)] if args.username else list_users(services.items)
    for user in users:
        user_id = str(user.get("userId") or user["id"])
        if is_indexed(services.items, user_id):
            print(f"{user['username']}: already indexed")
            continue
        print(f"{user['username']}: indexed ({backfill(services.items, user_id)} change records given their keys)")
    return 0
