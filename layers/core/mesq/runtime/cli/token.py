"""`mesq token create|list|revoke`: a user's personal access tokens."""

from __future__ import annotations

import argparse

from ...auth.tokens import MAX_EXPIRY_DAYS, create_token, list_tokens, revoke_token, token_status
from ...auth.users import find_user_by_name
from ...kernel.messages import quoted
from ...kernel.timestamps import utc_now
from ...wiring.services import Services
from .common import Commands, Parser


def _days(raw: str) -> int:
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_EXPIRY_DAYS:
        raise argparse.ArgumentTypeError(f"{quoted(raw)} is not a number of days (1-{MAX_EXPIRY_DAYS})")
    return int(raw)


def add_parser(commands: Commands, common: Parser) -> None:
    token = commands.add_parser("token", help="manage personal access tokens").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    token_create = token.add_parser("create", parents=[common], help="create a token (printed once)")
    token_create.add_argument("username", help="the user the token acts as")
    token_create.add_argument("--name", required=True, help="a label to recognise the token by, e.g. iPhone")
    token_create.add_argument("--scopes", required=True, help="comma separated, e.g. memo:read,memo:write")
    token_create.add_argument("--expires-days", type=_days, default=None, help="expire after N days (default never)")
    token_list = token.add_parser("list", parents=[common], help="list a user's tokens with their status")
    token_list.add_argument("username", help="whose tokens to list")
    token_revoke = token.add_parser("revoke", parents=[common], help="revoke a token")
    token_revoke.add_argument("username", help="the token's user")
    token_revoke.add_argument("token_id", help="the token id (first column of `mesq token list`)")


def run(args: argparse.Namespace, services: Services) -> int:
    profile = find_user_by_name(services.items, args.username)
    if args.action == "create":
        secret, record = create_token(
            services.items,
            profile["userId"],
            name=args.name,
            scopes=args.scopes,
            expires_days=args.expires_days,
        )
        expiry = record.get("expiresAt", "never")
        print(f"token {record['id']} '{record['name']}' scopes={','.join(record['scopes'])} expires={expiry}")
        print("Store it now: it is shown only once.")
        print(secret)
    elif args.action == "list":
        now = utc_now()
        print("ID\tNAME\tSCOPES\tSTATUS\tEXPIRES\tLAST-USED")
        for record in sorted(list_tokens(services.items, profile["userId"]), key=lambda token: token["createdAt"]):
            print(
                f"{record['id']}\t{record['name']}\t{','.join(record['scopes'])}\t{token_status(record, now)}\t"
                f"{record.get('expiresAt', 'never')}\t{record.get('lastUsedAt', 'never')}"
            )
    else:
        record = revoke_token(services.items, profile["userId"], args.token_id)
        print(f"revoked token {record['id']}")
    return 0
