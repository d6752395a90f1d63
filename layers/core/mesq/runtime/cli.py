"""`mesq`: run the local server, manage users and personal access tokens, import reading files.

Every command takes `--data-dir` (default ./.mesq, env MESQ_DATA_DIR) and `--storage`
(sqlite by default; dynamodb uses MESQ_TABLE, MESQ_BUCKET, MESQ_DYNAMODB_ENDPOINT,
MESQ_S3_ENDPOINT). Errors print one line to stderr, never a traceback: status 2 for a usage
error (argparse), 1 for everything else.
"""

from __future__ import annotations

import argparse
import dataclasses
import getpass
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .. import __version__
from ..asgi.access_log import LOG_FORMATS
from ..auth.tokens import MAX_EXPIRY_DAYS, create_token, list_tokens, revoke_token, token_status
from ..auth.users import count_users, create_user, find_user_by_name, list_users, set_password
from ..kernel.errors import MesqError
from ..kernel.timestamps import utc_now
from ..wiring.config import ConfigError, Settings
from ..wiring.services import Services, build_services
from . import import_sources

#: The Powertools service name of `mesq serve`'s log lines (the functions': mesq-api, mesq-mcp, ...).
LOCAL_SERVICE = "mesq-local"


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (`mesq serve: argument --port: ...`), exit status 2, no usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _port(raw: str) -> int:
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a port number (0-65535; 0 picks a free one)")
    return int(raw)


def _days(raw: str) -> int:
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_EXPIRY_DAYS:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a number of days (1-{MAX_EXPIRY_DAYS})")
    return int(raw)


def _common() -> _Parser:
    common = _Parser(add_help=False)
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


def _password_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of stdin (for scripts; else it is asked twice on the terminal)",
    )


def _parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(prog="mesq", description="MeSQ personal knowledge service")
    parser.add_argument("--version", action="version", version=f"mesq {__version__}", help="print the version")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", parents=[common], help="run the local server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8787, help="TCP port to listen on (default 8787)")
    serve.add_argument("--public-url", default=None, help="the URL clients use (default: the bound address)")
    serve.add_argument(
        "--forwarded-allow-ips",
        default=None,
        help="reverse proxies whose X-Forwarded-For is believed (comma separated; default: none)",
    )
    serve.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default="plain",
        help="access log: one line per request on stdout, plain text or JSON (default plain); "
        "the path is logged without its query string",
    )

    user = commands.add_parser("user", help="manage users").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    user_create = user.add_parser("create", parents=[common], help="create a user")
    user_create.add_argument("username", help="2-32 characters of a-z, 0-9, '_', '.', '-'")
    _password_option(user_create)
    user_create.add_argument("--admin", action="store_true", help="mark the account as the instance's administrator")
    user.add_parser("list", parents=[common], help="list users (username, id, created, admin)")
    user_passwd = user.add_parser(
        "passwd", parents=[common], help="set a user's password; signs the user out of every browser"
    )
    user_passwd.add_argument("username", help="the user whose password changes")
    _password_option(user_passwd)

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

    reading = commands.add_parser("reading", help="the reading shelf").add_subparsers(dest="action", required=True)
    reading_import = reading.add_parser(
        "import", parents=[common], help="import a reading export file (docs/reading-import.md)"
    )
    reading_import.add_argument("username", help="whose shelf receives the books")
    reading_import.add_argument(
        "file", type=Path, help='the JSON export ({"provider": "wechat-reading", "books": [...]})'
    )

    export = commands.add_parser(
        "export", parents=[common], help="export a user's data as one archive (docs/archive.md)"
    )
    export.add_argument("username", help="whose data to export")
    export.add_argument("--out", type=Path, required=True, help="the archive file to write (.zip)")
    import_ = commands.add_parser("import", parents=[common], help="import an archive into a user (docs/archive.md)")
    import_.add_argument("username", help="who receives the data")
    import_.add_argument("file", type=Path, nargs="?", help="an archive written by `mesq export`")
    import_.add_argument(
        "--markdown", type=Path, metavar="DIR_OR_ZIP", help="one memo per .md file (docs/markdown-import.md)"
    )
    import_sources.add_arguments(import_)

    search = commands.add_parser("search", help="the AI search index").add_subparsers(dest="action", required=True)
    reindex = search.add_parser("reindex", parents=[common], help="rebuild a user's search index from the store")
    reindex.add_argument("username", help="whose index to rebuild")

    todos = commands.add_parser("todos", help="the todo boards").add_subparsers(dest="action", required=True)
    due = todos.add_parser(
        "index", parents=[common], help="put boards written before the due/priority/status index into it (re-runnable)"
    )
    due.add_argument("username", nargs="?", help="whose board (default: every listed user)")
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


class CommandError(Exception):
    """A command cannot run (data directory missing or unusable, port taken): its one-line reason."""


def _creates_data(args: argparse.Namespace) -> bool:
    """`serve` and `user create` may start a new instance; the other commands need one to exist
    (a missing directory is then a typo, and creating an empty one would hide it)."""
    return bool(args.command == "serve" or (args.command == "user" and args.action == "create"))


def _services(settings: Settings, args: argparse.Namespace) -> Services:
    if settings.storage == "sqlite":
        data_dir = settings.data_dir
        if not data_dir.exists() and not _creates_data(args):
            raise CommandError(f"no data directory at {data_dir} (wrong --data-dir? `mesq serve` creates one)")
        if data_dir.exists() and not data_dir.is_dir():
            raise CommandError(f"the data directory {data_dir} is not a directory")
    if settings.storage == "dynamodb":
        _dynamodb_preflight(settings)
    try:
        services = build_services(settings)
    except (OSError, sqlite3.Error) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise CommandError(f"cannot use the data directory {settings.data_dir}: {reason}") from None
    if settings.storage == "dynamodb" and settings.dynamodb_endpoint:
        # A local endpoint (DynamoDB Local): create the table on first use. Never on AWS,
        # where the SAM template owns it (the preflight refuses to start without it).
        services.items.create_table_if_missing()  # type: ignore[attr-defined]
    return services


def _dynamodb_preflight(settings: Settings) -> None:
    """Refuse to start on a DynamoDB that cannot answer (no credentials, nothing listening at the
    endpoint): one line now, rather than a healthy banner and a 500 on every call. A missing table
    is fine on a local endpoint, which creates it."""
    from ..store.dynamodb import TABLE_MISSING, preflight

    problem = preflight(settings.table_name, endpoint_url=settings.dynamodb_endpoint, region=settings.region)
    if problem == TABLE_MISSING:
        if settings.dynamodb_endpoint:
            return
        problem = f"no DynamoDB table {settings.table_name} in {settings.region} (deploy the stack, or set MESQ_TABLE)"
    if problem is not None:
        raise CommandError(problem)


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise MesqError("no terminal to ask for the password on: pipe it in with --password-stdin")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Repeat password: ") != first:
        raise MesqError("the passwords do not match")
    return first


def _command_path() -> str:
    """How to run this `mesq` from the current directory: the venv's script (e.g. `.venv/bin/mesq`,
    which a shell without the venv activated does not find as plain `mesq`)."""
    script = Path(sys.prefix) / "bin" / "mesq"
    if not script.exists():
        return "mesq"
    try:
        return os.path.relpath(script)
    except ValueError:
        return str(script)


def _serve(args: argparse.Namespace, settings: Settings, services: Services) -> int:
    from .server import ListenError, serve

    def ready(base_url: str) -> None:
        public = settings.public_url or base_url
        print(f"MeSQ {__version__} listening on {base_url}", flush=True)
        print(f"MCP:  {public}/mcp   (read-only: {public}/mcp/readonly)", flush=True)
        print(f"REST: {public}/api/toolkit/memo   health: {base_url}/healthz", flush=True)
        print(f"Web:  {public}/login   (first run: {public}/setup creates the admin)", flush=True)
        data_dir = f" --data-dir {settings.data_dir}" if settings.storage == "sqlite" else ""
        mesq = _command_path()
        print(
            f"Token: {mesq} user create <name>{data_dir} && "
            f"{mesq} token create <name> --name <label> --scopes memo:read,memo:write{data_dir}",
            flush=True,
        )

    try:
        serve(services, args.host, args.port, ready, args.forwarded_allow_ips, args.log_format)
    except ListenError as error:
        raise CommandError(str(error)) from None
    return 0


def _user(args: argparse.Namespace, services: Services) -> int:
    items = services.items
    if args.action == "create":
        user = create_user(items, args.username, _read_password(args.password_stdin), admin=args.admin)
        print(f"created user {user['username']} ({user['id']})")
    elif args.action == "list":
        users = list_users(items)
        print("USERNAME\tID\tCREATED\tADMIN")
        for user in users:
            print(f"{user['username']}\t{user['id']}\t{user['createdAt']}\t{'yes' if user['admin'] else 'no'}")
        unlisted = count_users(items) - len(users)
        if unlisted > 0:
            print(f"mesq: {unlisted} account(s) made before the user directory are not listed", file=sys.stderr)
    else:
        from ..web.kit.sessions import end_user_sessions  # the web layer's sessions: loaded only here

        user = set_password(items, args.username, _read_password(args.password_stdin))
        ended = end_user_sessions(items, user["id"])
        print(f"password changed for {user['username']}; {ended} browser session(s) signed out")
    return 0


def _token(args: argparse.Namespace, services: Services) -> int:
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


def _import_reading(services: Services, user_id: str, path: Path) -> int:
    from ..kernel.timestamps import now_timestamp
    from ..reading.importer import import_snapshots, parse_import

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


def _export(services: Services, user_id: str, out: Path) -> int:
    from ..archive.exporter import export_account
    from ..kernel.timestamps import now_timestamp

    try:
        report = export_account(services.items, services.blobs, user_id, out, now_timestamp())
    except OSError as error:
        raise MesqError(f"cannot write {out}: {error.strerror or error}") from None
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(report.counts.items()))
    print(f"exported {report.records} records ({kinds or 'none'}) and {report.blobs} attachments to {out}")
    for path in report.missing_blobs:
        print(f"mesq: attachment bytes missing from storage: {path}", file=sys.stderr)
    return 0


def _import_archive(services: Services, user_id: str, path: Path) -> int:
    from ..archive.format import ArchiveError
    from ..archive.importer import import_account

    try:
        report = import_account(services.items, services.blobs, user_id, path)
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    print(
        f"imported {report.records} records: {report.created} new, {report.existing} already there; "
        f"{report.blobs} attachments; {report.seconds:.1f}s ({report.per_second:.0f} records/s); "
        "rebuild the AI search index with `mesq search reindex USERNAME`"
    )
    return 0


def _import_markdown(services: Services, user_id: str, path: Path) -> int:
    from ..archive.format import ArchiveError
    from ..archive.markdown import import_markdown

    try:
        report = import_markdown(services, user_id, path)
    except ArchiveError as error:
        raise MesqError(f"nothing imported: {error.message}") from None
    for name, reason in report.failed:
        print(f"mesq: skipped {name}: {reason}", file=sys.stderr)
    print(
        f"imported {report.files - len(report.failed)} of {report.files} Markdown files: {report.created} new, "
        f"{report.existing} already there, {len(report.failed)} skipped; {report.attachments} attachments; "
        f"{report.seconds:.1f}s ({report.per_second:.0f} files/s); "
        "rebuild the AI search index with `mesq search reindex USERNAME`"
    )
    return 1 if report.failed else 0


def _reindex(services: Services, user_id: str) -> int:
    import time

    from ..search import literal_store
    from ..search.indexer import rebuild
    from ..search.literal_kinds import KINDS

    started = time.perf_counter()
    documents = rebuild(services, user_id)
    embedder = services.search.embedder
    vectors = f"vectors by {embedder.name}" if embedder else "no vectors (no embedding model)"
    print(f"indexed {documents} documents in {time.perf_counter() - started:.1f}s; {vectors}")
    for kind in KINDS:  # the literal indexes (search_memos, search_reading_notes, query_todos)
        started = time.perf_counter()
        rows = literal_store.rebuild(services, user_id, kind)
        print(f"literal {kind.name} index: {rows} rows in {time.perf_counter() - started:.1f}s")
    return 0


def _index_todos(services: Services, username: str | None) -> int:
    """The due index's backfill (todos/due_index.py) for one user or every listed one; a board
    already indexed costs one read. The first narrowed query_todos of a board runs it too."""
    from ..todos.due_index import backfill, is_indexed

    users = [find_user_by_name(services.items, username)] if username else list_users(services.items)
    for user in users:
        user_id = str(user.get("userId") or user["id"])
        if is_indexed(services.items, user_id):
            print(f"{user['username']}: already indexed")
            continue
        print(f"{user['username']}: indexed ({backfill(services.items, user_id)} tasks given their index keys)")
    return 0


def _import(args: argparse.Namespace, services: Services) -> int:
    if args.source or args.undo_run:
        if args.markdown is not None:
            raise CommandError("give either --markdown DIR_OR_ZIP or --from KIND PATH")
        return import_sources.run(args, services, find_user_by_name(services.items, args.username)["userId"])
    if (args.file is None) == (args.markdown is None):
        raise CommandError("give either an archive FILE or --markdown DIR_OR_ZIP")
    user_id = find_user_by_name(services.items, args.username)["userId"]
    if args.markdown is not None:
        return _import_markdown(services, user_id, args.markdown)
    return _import_archive(services, user_id, args.file)


def _run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        # Powertools child loggers take their service from this variable when their module is
        # imported (on Lambda the template sets it per function): set it before any of them is.
        os.environ.setdefault("POWERTOOLS_SERVICE_NAME", LOCAL_SERVICE)
    settings = _settings(args)
    if args.command == "import":
        # An import writes every record once: the AI index is rebuilt once afterwards (`mesq
        # search reindex`), not record by record through the in-process follower.
        settings = dataclasses.replace(settings, search_index_updates="off")
    services = _services(settings, args)
    try:
        if args.command == "serve":
            return _serve(args, settings, services)
        if args.command == "user":
            return _user(args, services)
        if args.command == "reading":
            return _import_reading(services, find_user_by_name(services.items, args.username)["userId"], args.file)
        if args.command == "export":
            return _export(services, find_user_by_name(services.items, args.username)["userId"], args.out)
        if args.command == "import":
            return _import(args, services)
        if args.command == "todos":
            return _index_todos(services, args.username)
        if args.command == "search":
            return _reindex(services, find_user_by_name(services.items, args.username)["userId"])
        return _token(args, services)
    finally:
        services.items.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (MesqError, ConfigError) as error:
        print(f"mesq: {getattr(error, 'message', error)}", file=sys.stderr)
    except CommandError as error:
        print(f"mesq: {error}", file=sys.stderr)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # never a traceback for a person at a terminal: one line naming the fault
        print(f"mesq: unexpected {type(error).__name__}: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
