"""`mesq serve`: the local server, and the lines that tell a person where it listens and how to
get a token (shorter once an account exists). Once it listens, memos stored under an older #tag
rule are re-tagged in the background (jobs/memo_retag.py), and the imports its last stop cut off
are marked interrupted (jobs/unfinished_imports.py)."""

from __future__ import annotations

import argparse
import dataclasses

from ... import __version__
from ...asgi.access_log import LOG_FORMATS
from ...auth.users import any_user_exists, list_users
from ...kernel.messages import quoted
from ...wiring.config import Settings
from ...wiring.services import Services
from .common import CommandError, Commands, Parser, command_path, rerun_options


def _port(raw: str) -> int:
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise argparse.ArgumentTypeError(f"{quoted(raw)} is not a port number (0-65535; 0 picks a free one)")
    return int(raw)


#: Addresses a link on this machine reaches the server at as `localhost`.
_LOCAL_HOSTS = frozenset({"127.0.0.1", "::1", "0.0.0.0", "::", "localhost", ""})  # noqa: S104  (names, not a bind)


def served(settings: Settings, host: str, port: int) -> Settings:
    """The settings `mesq serve` runs with: without a public URL, the bound address is where a
    reminder's link points (a free port, 0, is only known once bound: the default stays)."""
    if settings.public_url or not port:
        return settings
    name = "localhost" if host in _LOCAL_HOSTS else f"[{host}]" if ":" in host else host
    return dataclasses.replace(settings, local_url=f"http://{name}:{port}")


def add_parser(commands: Commands, common: Parser) -> None:
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


#: The scopes the banner's token line gives: the README's, so its memo and todo examples run.
BANNER_SCOPES = "memo:read,memo:write,todo:read,todo:write"


def token_lines(services: Services, public: str) -> list[str]:
    """How to get in: with no account yet, where to create the first one and the two commands that
    make it and its token (runnable as printed); once an account exists, only the token command."""
    data_dir = rerun_options(services.settings)
    mesq = command_path()
    token = f"{mesq} token create alice --name laptop --scopes {BANNER_SCOPES}{data_dir}"
    if any_user_exists(services.items):
        users = list_users(services.items)
        name = str(users[0]["username"]) if len(users) == 1 else "<username>"
        return [f"Web:  {public}/login", f"Token: {token.replace(' alice ', f' {name} ', 1)}"]
    return [
        f"Web:  {public}/setup creates the first account (the admin), or in another terminal:",
        f"      {mesq} user create alice --admin{data_dir}",
        f"      {token}",
    ]


def run(args: argparse.Namespace, services: Services) -> int:
    from ...jobs.memo_retag import retag_in_background
    from ...jobs.unfinished_imports import mark_in_background
    from ..server import ListenError, serve  # uvicorn and the apps: only for this command

    settings = services.settings

    def say(line: str) -> None:
        print(line, flush=True)

    def ready(base_url: str) -> None:
        public = settings.public_url or base_url
        say(f"MeSQ {__version__} listening on {base_url}")
        say(f"MCP:  {public}/mcp   (read-only: {public}/mcp/readonly)")
        say(f"REST: {public}/api/toolkit/memo   health: {base_url}/healthz")
        for line in token_lines(services, public):
            say(line)
        # Memos stored under an older #tag rule, re-tagged once (after listening: it may take a while).
        retag_in_background(services.items, say)
        # Imports the last stop cut off (kill -9, a crash): marked interrupted before a page is opened.
        mark_in_background(services.items, say)

    try:
        serve(services, args.host, args.port, ready, args.forwarded_allow_ips, args.log_format)
    except ListenError as error:
        raise CommandError(str(error)) from None
    return 0
