"""What every `mesq` command shares: the one-line usage errors, the `--data-dir` / `--storage`
options, the settings and services they select, and the one-line failures a command raises.

Every command takes `--data-dir` (default ./.mesq, env MESQ_DATA_DIR) and `--storage` (sqlite by
default; dynamodb uses MESQ_TABLE, MESQ_BUCKET, MESQ_DYNAMODB_ENDPOINT, MESQ_S3_ENDPOINT)."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ...adapters.store.sqlite import OPEN_ERRORS
from ...application.ratelimit import RateLimiter, user_subject
from ...auth.users import find_user_by_name, list_users
from ...kernel.errors import MesqError
from ...kernel.ports.storage import ItemStore
from ...wiring.config import Settings, public_url_of
from ...wiring.services import Services, build_services

#: What `add_subparsers()` returns: where each command group adds its parser.
Commands = Any


class Parser(argparse.ArgumentParser):
    """Usage errors as one line (`mesq serve: argument --port: ...`), exit status 2, no usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class CommandError(Exception):
    """A command cannot run (data directory missing or unusable, port taken): its one-line reason."""


def common_options() -> Parser:
    common = Parser(add_help=False)
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


def password_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of stdin (for scripts; else it is asked twice on the terminal)",
    )


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise MesqError("no terminal to ask for the password on: pipe it in with --password-stdin")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Repeat password: ") != first:
        raise MesqError("the passwords do not match")
    return first


def settings_of(args: argparse.Namespace) -> Settings:
    settings = Settings.from_env()
    if args.data_dir is not None:
        settings = settings.with_overrides(data_dir=args.data_dir)
    if args.storage is not None:
        settings = settings.with_overrides(storage=args.storage)
    if getattr(args, "public_url", None):
        settings = settings.with_overrides(public_url=public_url_of(args.public_url, "--public-url"))
    return settings


def _creates_data(args: argparse.Namespace) -> bool:
    """`serve` and `user create` may start a new instance; the other commands need one to exist
    (a missing directory is then a typo, and creating an empty one would hide it)."""
    return bool(args.command == "serve" or (args.command == "user" and args.action == "create"))


def services_of(settings: Settings, args: argparse.Namespace) -> Services:
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
    except OPEN_ERRORS as error:
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
    from ...adapters.store.dynamodb import TABLE_MISSING, preflight  # boto3: only on DynamoDB

    problem = preflight(settings.table_name, endpoint_url=settings.dynamodb_endpoint, region=settings.region)
    if problem == TABLE_MISSING:
        if settings.dynamodb_endpoint:
            return
        problem = f"no DynamoDB table {settings.table_name} in {settings.region} (deploy the stack, or set MESQ_TABLE)"
    if problem is not None:
        raise CommandError(problem)


def command_path() -> str:
    """How to run this `mesq` from the current directory: the script as it was typed when that was
    a relative path (`.venv/bin/mesq`), else the venv's script relative to here (a shell without the
    venv activated does not find plain `mesq`)."""
    typed = sys.argv[0] if sys.argv else ""
    if Path(typed).name == "mesq" and not os.path.isabs(typed) and Path(typed).is_file():
        return typed
    script = Path(sys.prefix) / "bin" / "mesq"
    if not script.exists():
        return "mesq"
    try:
        return os.path.relpath(script)
    except ValueError:
        return str(script)


def rerun_options(settings: Settings) -> str:
    """The options a printed follow-up command needs to reach the same data as this one."""
    return f" --data-dir {settings.data_dir}" if settings.storage == "sqlite" else " --storage dynamodb"


def user_id_of(services: Services, username: str) -> str:
    return str(find_user_by_name(services.items, username)["userId"])


def count_import(services: Services, user_id: str) -> None:
    """Every import counts where the pages count it (docs/security.md "Fair shares");
    MCP_RATE_LIMIT_ENABLED=false lifts it for an operator's bulk work."""
    RateLimiter(services.items, services.settings).hit(user_subject(user_id), "import")


def index_each_user(
    services: Services,
    username: str | None,
    is_indexed: Callable[[ItemStore, str], bool],
    backfill: Callable[[ItemStore, str], int],
    given: str,
) -> int:
    """`mesq <group> index [USERNAME]`: an index's backfill for one user or every listed one (re-runnable;
    a user already indexed costs one read), each user's line saying how many records were `given` keys."""
    users = [find_user_by_name(services.items, username)] if username else list_users(services.items)
    for user in users:
        user_id = str(user.get("userId") or user["id"])
        if is_indexed(services.items, user_id):
            print(f"{user['username']}: already indexed")
            continue
        print(f"{user['username']}: indexed ({backfill(services.items, user_id)} {given})")
    return 0
