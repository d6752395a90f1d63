"""`mesq repair-imports`: remove the foreign or malformed index entries earlier archive imports
left (archive/repair.py, docs/ops.md); re-runnable, a second run changes nothing."""

from __future__ import annotations

import argparse

from ...auth.users import find_user_by_name
from ...wiring.services import Services
from .common import Commands, Parser


def add_parser(commands: Commands, common: Parser) -> None:
    repair = commands.add_parser(
        "repair-imports",
        parents=[common],
        help="remove foreign or malformed index entries earlier archive imports left (docs/ops.md, re-runnable)",
    )
    repair.add_argument("username", nargs="?", help="whose account (default: every user)")
    repair.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...archive.repair import repair, users_to_repair  # the archive rules: loaded by this command only

    username, dry_run = args.username, args.dry_run
    users = [find_user_by_name(services.items, username)["userId"]] if username else users_to_repair(services.items)
    changed = 0
    for report in repair(services.items, users, dry_run=dry_run):
        changed += len(report.rekeyed) + len(report.unindexed) + report.reminders
        print(
            f"{report.user_id}: {report.items} items read, {len(report.rekeyed)} re-keyed, "
            f"{len(report.unindexed)} taken out of every index, {report.reminders} reminder entries fixed"
        )
        for line in report.unindexed:
            print(f"  unindexed {line}")
    verb = "would change" if dry_run else "changed"
    print(f"{len(users)} accounts, {changed} entries {verb}; counters {'kept' if dry_run else 'recomputed'}")
    return 0
