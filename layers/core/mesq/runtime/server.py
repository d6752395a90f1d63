"""The one-machine server (`mesq serve`): the same apps the Lambda functions run, mounted in
one Starlette app over SQLite + local files (or DynamoDB + S3 with `--storage dynamodb`)."""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Callable

import uvicorn
from aws_lambda_powertools import Logger

from ..asgi.access_log import AccessLogMiddleware, LogFormat
from ..asgi.activity import Activity
from ..search.warm_up import warm_in_background
from ..wiring.services import Services
from .app_factories import create_local_app


class ListenError(Exception):
    """The server cannot listen where it was asked to (address in use, unknown host, ...)."""


def _listening_socket(host: str, port: int) -> socket.socket:
    try:
        # proto=IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on accepted sockets
        # whose proto says TCP; with Nagle on, a response written in two parts waited ~40 ms for
        # the client's delayed ACK (bench/load.py: every request 44 ms -> ~3 ms at concurrency 1).
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as error:
        raise ListenError(f"cannot open a socket for {host}: {error.strerror or error}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        if error.errno == errno.EADDRINUSE:
            reason += " (another server runs there: stop it or choose another --port)"
        raise ListenError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


def serve(
    services: Services,
    host: str,
    port: int,
    on_ready: Callable[[str], None],
    forwarded_allow_ips: str | None = None,
    log_format: LogFormat = "plain",
) -> None:
    """Run until interrupted; `on_ready(base_url)` fires once the socket accepts connections.
    Every request is logged by `AccessLogMiddleware` (uvicorn's own access log is off, so each
    request is one line); a socket that cannot be bound raises `ListenError`.

    X-Forwarded-For is believed only from `forwarded_allow_ips` (a reverse proxy): otherwise any
    local client could pick the IP that per-IP rate limits count against."""
    sock = _listening_socket(host, port)
    # The parent of every `Logger(child=True)`: its service comes from POWERTOOLS_SERVICE_NAME,
    # which `mesq serve` defaults to "mesq-local" before any child exists (see cli.py).
    Logger()
    # Listen first: search warms up after the first request is served or a quiet moment
    # (search/warm_up.py), so it never delays the start or the first answer; with search off it
    # loads nothing.
    activity = Activity(create_local_app(services))
    warm_in_background(services, activity.settled)
    app = AccessLogMiddleware(activity, log_format)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    server = uvicorn.Server(config)
    bound_port = sock.getsockname()[1]

    async def run() -> None:
        from ..jobs.sweeper import remind_forever, sweep_forever, sync_reading_forever

        task = asyncio.create_task(server.serve(sockets=[sock]))
        # Expired upload sessions are swept here as the scheduler function does on Lambda.
        sweeper = asyncio.create_task(sweep_forever(services))
        reminders = asyncio.create_task(remind_forever(services))  # the every-minute reminder tick
        reading = asyncio.create_task(sync_reading_forever(services))  # the 6-hourly schedule on AWS
        task.add_done_callback(lambda _: (sweeper.cancel(), reminders.cancel(), reading.cancel()))
        while not server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.02)
        shown_host = f"[{host}]" if ":" in host else host
        on_ready(f"http://{shown_host}:{bound_port}")
        await task

    asyncio.run(run())
