"""`mesq`'s parser and its one way to fail: every command group adds its own parser (one module
each), `main` runs the chosen one. Errors print one line to stderr, never a traceback: status 2
for a usage error (argparse), 1 for everything else."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence

from ... import __version__
from ...kernel.errors import MesqError
from ...wiring.config import ConfigError
from . import export, history_index, imports, memos, reading, repair_imports, search, serve, todos, token, user
from .common import CommandError, Parser, common_options, services_of, settings_of

#: The Powertools service name of `mesq serve`'s log lines (the functions': mesq-api, mesq-mcp, ...).
LOCAL_SERVICE = "mesq-local"
#: The command groups, in the order `mesq --help` lists them.
GROUPS = {"serve": serve, "user": user, "token": token, "reading": reading, "export": export, "import": imports,
          "repair-imports": repair_imports, "search": search, "todos": todos, "memos": memos,
          "history": history_index}  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = Parser(prog="mesq", description="MeSQ personal knowledge service")
    parser.add_argument("--version", action="version", version=f"mesq {__version__}", help="print the version")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in GROUPS.values():
        group.add_parser(commands, common)
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        # Powertools child loggers take their service from this variable when their module is
        # imported (on Lambda the template sets it per function): set it before any of them is.
        os.environ.setdefault("POWERTOOLS_SERVICE_NAME", LOCAL_SERVICE)
    settings = settings_of(args)
    if args.command == "serve":
        settings = serve.served(settings, args.host, args.port)
    if args.command == "import" or (args.command, getattr(args, "action", None)) == ("reading", "import"):
        # An import writes every record once: its search indexes are built once afterwards, as
        # part of the command (search/imported.py), not record by record through the follower.
        settings = dataclasses.replace(settings, search_index_updates="off")
    services = services_of(settings, args)
    try:
        return int(GROUPS[args.command].run(args, services))
    finally:
        services.items.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
