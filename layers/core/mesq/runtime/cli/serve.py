"""`mesq serve`: the local server, and the lines that tell a person where it listens and how to
get a token."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ... import __version__
from ...asgi.access_log import LOG_FORMATS
from ...kernel.messages import quoted
from ...wiring.services import Services
from .common import CommandError, Commands, Parser


def _port(raw: str) -> int:
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise argparse.ArgumentTypeError(f"{quoted(raw)} is not a port number (0-65535; 0 picks a free one)")
    return int(raw)


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


def run(args: argparse.Namespace, services: Services) -> int:
    from ..server import ListenError, serve  # uvicorn and the apps: only for this command

    settings = services.settings

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
