"""`mesq`: run the local server, manage users and personal access tokens, import reading files.

Every command takes `--data-dir` (default ./.mesq, env MESQ_DATA_DIR) and `--storage`
(sqlite by default; dynamodb uses MESQ_TABLE, MESQ_BUCKET, MESQ_DYNAMODB_ENDPOINT,
MESQ_S3_ENDPOINT). Errors print one line to stderr and exit with status 1.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .auth.tokens import create_token, list_tokens, revoke_token
from .auth.users import create_user, find_user_by_name
from .config import ConfigError, Settings
from .context import Services
from .errors import MesqError
from .services import build_services


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where SQLite and local files live (default ./.mesq, env MESQ_DATA_DIR)",
    )
    common.add_argument(
        "--storage",
        choices=["sqlite", "dynamodb"],
        default=None,
        help="storage backend (default sqlite, env MESQ_STORAGE)",
    )
    return common


def _parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(prog="mesq", description="MeSQ personal knowledge service")
    parser.add_argument("--version", action="version", version=f"mesq {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", parents=[common], help="run the local server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8787)
    serve.add_argument("--public-url", default=None, help="the URL clients use (default: the bound address)")
    serve.add_argument(
        "--forwarded-allow-ips",
        default=None,
        help="reverse proxies whose X-Forwarded-For is believed (comma separated; default: none)",
    )

    user = commands.add_parser("user", help="manage users").add_subparsers(dest="action", required=True)
    user_create = user.add_parser("create", parents=[common], help="create a user")
    user_create.add_argument("username")
    user_create.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    user_create.add_argument("--admin", action="store_true")

    token = commands.add_parser("token", help="manage personal access tokens").add_subparsers(
        dest="action", required=True
    )
    token_create = token.add_parser("create", parents=[common], help="create a token (printed once)")
    token_create.add_argument("username")
    token_create.add_argument("--name", required=True)
    token_create.add_argument("--scopes", required=True, help="e.g. memo:read,memo:write")
    token_create.add_argument("--expires-days", type=int, default=None)
    token_list = token.add_parser("list", parents=[common], help="list a user's tokens")
    token_list.add_argument("username")
    token_revoke = token.add_parser("revoke", parents=[common], help="revoke a token")
    token_revoke.add_argument("username")
    token_revoke.add_argument("token_id")

    reading = commands.add_parser("reading", help="the reading shelf").add_subparsers(dest="action", required=True)
    reading_import = reading.add_parser(
        "import", parents=[common], help="import a reading export file (docs/reading-import.md)"
    )
    reading_import.add_argument("username")
    reading_import.add_argument("file", type=Path)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    settings = Settings.from_env()
    if args.data_dir is not None:
        settings = settings.with_overrides(data_dir=args.data_dir)
    if args.storage is not None:
        settings = settings.with_overrides(storage=args.storage)
    if getattr(args, "public_url", None):
        settings = settings.with_overrides(public_url=args.public_url.rstrip("/"))
    return settings


def _services(settings: Settings) -> Services:
    services = build_services(settings)
    if settings.storage == "dynamodb" and settings.dynamodb_endpoint:
        # A local endpoint (DynamoDB Local): create the table on first use. Never on AWS,
        # where the SAM template owns it.
        services.items.create_table_if_missing()  # type: ignore[attr-defined]
    return services


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Repeat password: ") != first:
        raise MesqError("the passwords do not match")
    return first


def _run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    services = _services(settings)
    if args.command == "serve":
        from .server import serve

        def ready(base_url: str) -> None:
            public = settings.public_url or base_url
            print(f"MeSQ {__version__} listening on {base_url}", flush=True)
            print(f"MCP:  {public}/mcp   (read-only: {public}/mcp/readonly)", flush=True)
            print(f"REST: {public}/api/toolkit/memo   health: {base_url}/healthz", flush=True)
            print(f"Web:  {public}/login   (first run: {public}/setup creates the admin)", flush=True)
            data_dir = f" --data-dir {settings.data_dir}" if settings.storage == "sqlite" else ""
            print(
                f"Token: mesq user create <name>{data_dir} && "
                f"mesq token create <name> --name <label> --scopes memo:read,memo:write{data_dir}",
                flush=True,
            )

        serve(services, args.host, args.port, ready, args.forwarded_allow_ips)
        return 0
    if args.command == "user":
        user = create_user(services.items, args.username, _read_password(args.password_stdin), admin=args.admin)
        print(f"created user {user['username']} ({user['id']})")
        return 0
    profile = find_user_by_name(services.items, args.username)
    if args.command == "reading":
        return _import_reading(services, profile["userId"], args.file)
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
        for record in list_tokens(services.items, profile["userId"]):
            state = "revoked" if record.get("revokedAt") else "active"
            print(
                f"{record['id']}\t{record['name']}\t{','.join(record['scopes'])}\t{state}\t"
                f"expires={record.get('expiresAt', 'never')}\tlast-used={record.get('lastUsedAt', 'never')}"
            )
    else:
        record = revoke_token(services.items, profile["userId"], args.token_id)
        print(f"revoked token {record['id']}")
    return 0


def _import_reading(services: Services, user_id: str, path: Path) -> int:
    from .reading.importer import import_snapshots, parse_import
    from .timestamps import now_timestamp

    try:
        text = path.read_bytes()
    except OSError as error:
        raise MesqError(f"cannot read {path}: {error.strerror}") from None
    snapshots = parse_import(text)
    report = import_snapshots(services.items, user_id, snapshots, now_timestamp())
    counts = report.as_dict()
    print(
        f"imported {len(snapshots)} books: {counts['added']} notes added, {counts['updated']} updated, "
        f"{counts['markedDeleted']} marked deleted upstream, {counts['unchanged']} unchanged"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (MesqError, ConfigError) as error:
        print(f"mesq: {getattr(error, 'message', error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
