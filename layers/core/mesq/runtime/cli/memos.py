"""`mesq memos retag`: memos written under an older `#tag` rule re-tagged by the current one
(memos/retag.py). `mesq serve` does it at start; a deployment on AWS runs this command once after
an upgrade (`--storage dynamodb`, docs/deploy.md). Re-running it changes nothing."""

from __future__ import annotations

import argparse

from ...auth.users import find_user_by_name
from ...wiring.services import Services
from .common import Commands, Parser


def add_parser(commands: Commands, common: Parser) -> None:
    memos = commands.add_parser("memos", help="memos").add_subparsers(dest="action", required=True, metavar="ACTION")
    retag = memos.add_parser(
        "retag", parents=[common], help="re-tag memos by the current #tag rule (once after an upgrade; re-runnable)"
    )
    retag.add_argument("username", nargs="?", help="whose memos (default: every listed user)")


def run(args: argparse.Namespace, services: Services) -> int:
    from ...jobs.memo_retag import retag_every_user
    from ...memos.retag import retag_user

    if args.username:
        user = find_user_by_name(services.items, args.username)
        reports = [(args.username, retag_user(services.items, str(user["userId"])))]
    else:
        reports = list(retag_every_user(services.items))
    for name, report in reports:
        if report.current:
            print(f"{name}: tags already by the current rule")
            continue
        line = f"{name}: {report.retagged} of {report.memos} memos re-tagged"
        if report.over_cap:
            line += f"; {len(report.over_cap)} kept their tags (their new ones would pass the per-memo cap)"
        if report.overlong_count:
            line += f"; {report.overlong_line()}"
        print(line)
    if not reports:
        print("no users")
    return 0
