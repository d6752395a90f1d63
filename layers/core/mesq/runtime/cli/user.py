"""`mesq user create|list|passwd|set-timezone`: the instance's accounts."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime

from ...auth.users import count_users, create_user, list_users, note_browser_language, set_password, set_setting
from ...kernel.i18n import LANGUAGES
from ...wiring.services import Services
from .common import Commands, Parser, password_option, read_password, user_id_of


def add_parser(commands: Commands, common: Parser) -> None:
    user = commands.add_parser("user", help="manage users").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    user_create = user.add_parser("create", parents=[common], help="create a user")
    user_create.add_argument("username", help="2-32 characters of a-z, 0-9, '_', '.', '-'")
    password_option(user_create)
    user_create.add_argument("--admin", action="store_true", help="mark the account as the instance's administrator")
    user_create.add_argument(
        "--language",
        choices=sorted(LANGUAGES),
        help="the account's language (Settings → Language); without it, the terminal's (LANG) names the first board "
        "until a browser signs in",
    )
    user.add_parser("list", parents=[common], help="list users (username, id, created, admin)")
    user_passwd = user.add_parser(
        "passwd", parents=[common], help="set a user's password; signs the user out of every browser"
    )
    user_passwd.add_argument("username", help="the user whose password changes")
    password_option(user_passwd)
    user_zone = user.add_parser(
        "set-timezone", parents=[common], help="set the zone a user's 'today', overdue and reminders use"
    )
    user_zone.add_argument("username", help="the user whose zone is set")
    user_zone.add_argument("zone", help="an IANA time zone name, e.g. Asia/Shanghai")


def terminal_language() -> str:
    """The language of the terminal's locale (POSIX order: LC_ALL, LC_MESSAGES, LANG), when it
    is one MeSQ speaks: `zh_CN.UTF-8` -> "zh"; "" for `C`, `POSIX` or nothing set."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if value := os.environ.get(name, ""):
            language = value.split(".")[0].split("_")[0].lower()
            return language if language in LANGUAGES else ""
    return ""


def run(args: argparse.Namespace, services: Services) -> int:
    items = services.items
    if args.action == "create":
        user = create_user(items, args.username, read_password(args.password_stdin), admin=args.admin)
        if args.language:
            set_setting(items, user["id"], "language", args.language)
        elif spoken := terminal_language():  # the weakest hint, as a browser's at sign-in
            note_browser_language(items, user["id"], spoken)
        print(f"created user {user['username']} ({user['id']})")
    elif args.action == "list":
        users = list_users(items)
        print("USERNAME\tID\tCREATED\tADMIN")
        for user in users:
            print(f"{user['username']}\t{user['id']}\t{user['createdAt']}\t{'yes' if user['admin'] else 'no'}")
        unlisted = count_users(items) - len(users)
        if unlisted > 0:
            print(f"mesq: {unlisted} account(s) made before the user directory are not listed", file=sys.stderr)
    elif args.action == "set-timezone":
        from ...todos.reminder_zone import set_user_zone  # the zone database: loaded only by this command

        zone = set_user_zone(items, user_id_of(services, args.username), args.zone, datetime.now(UTC))
        print(f"time zone of {args.username} set to {zone}")
    else:
        from ...web.kit.sessions import end_user_sessions  # the web layer's sessions (Jinja): loaded only here

        user = set_password(items, args.username, read_password(args.password_stdin))
        ended = end_user_sessions(items, user["id"])
        print(f"password changed for {user['username']}; {ended} browser session(s) signed out")
    return 0
