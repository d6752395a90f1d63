"""The one-machine server (`mesq serve`): the same apps the Lambda functions run, mounted in
one Starlette app over SQLite + local files (or DynamoDB + S3 with `--storage dynamodb`)."""

from __future__ import annotations

import asyncio
import errno
import socket
import time
from collections.abc import Callable
from types import FrameType, ModuleType

import uvicorn
from aws_lambda_powertools import Logger

from ..application.validation import load_engine
from ..asgi.access_log import AccessLogMiddleware, LogFormat
from ..asgi.activity import Activity
from ..kernel.concurrency import request_stop
from ..search.warm_up import warm_in_background
from ..wiring.services import Services
from .app_factories import create_local_app, create_staged_local_app
from .lingering_close import LingeringH11Protocol
from .startup import collector_paused

#: How long a stop (SIGTERM, Ctrl-C) waits for requests in flight before it cancels them.
SHUTDOWN_WAIT_SECONDS = 10


class _Server(uvicorn.Server):
    """uvicorn's server, telling the worker threads a stop was asked for (`request_stop`): an
    import ends at its next batch, cut short and completed by its next run, instead of the
    shutdown waiting for the rest of it."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        request_stop()
        super().handle_exit(sig, frame)


__all__ = ["ListenError", "create_local_app", "serve"]
log = Logger(child=True)  # inherits mesq serve's service


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


#: The periodic jobs (sweeper, reminder tick, reading sync) start when search is warm and the
#: server has been quiet for JOBS_QUIET_SECONDS, or this long after the server listens at the latest.
JOBS_WAIT_SECONDS = 30.0
JOBS_QUIET_SECONDS = 1.0


def _periodic_jobs() -> ModuleType:
    from ..jobs import sweeper

    return sweeper


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
    # Listen first, with the MCP endpoint built: the rest of the app (REST, CalDAV, OAuth, the
    # pages) is built, and then search warms up, once the first request is served or after a
    # quiet moment (search/warm_up.py), so neither delays the start or the first answer; a request
    # for the rest before that builds it at once. With search off the warm-up loads nothing.
    with collector_paused():  # the MCP SDK and the catalog: the start's objects (startup.py)
        staged = create_staged_local_app(services)
    activity = Activity(staged)
    failed: list[BaseException] = []

    def build_the_rest() -> None:
        try:
            with collector_paused():
                staged.build()
                load_engine()  # jsonschema: what the first validated request would import
        except Exception as error:  # a fault of the build: stop, as a failing start would
            log.exception("mesq serve: the app could not be built")
            failed.append(error)
            server.should_exit = True

    warm_in_background(services, activity.settled, before=build_the_rest, quiet=activity.quiet, freeze_loaded=True)
    app = AccessLogMiddleware(activity, log_format)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        http=LingeringH11Protocol,  # an answer sent before the body was read reaches the client
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
        # A request still running after this (an import's upload) is cancelled: a stop is bounded.
        timeout_graceful_shutdown=SHUTDOWN_WAIT_SECONDS,
    )
    server = _Server(config)
    bound_port = sock.getsockname()[1]

    async def run() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.02)
        shown_host = f"[{host}]" if ":" in host else host
        on_ready(f"http://{shown_host}:{bound_port}")
        # The periodic jobs once the start-up is done (search warm, then a quiet moment: at most
        # JOBS_WAIT_SECONDS): their imports (the reminder senders, httpx: ~0.1 s) and first ticks
        # (a scan of due reminders) would otherwise share the interpreter with the first
        # requests, which a client sends the moment `/healthz` says ready. Their modules are
        # imported on a worker thread, so the event loop answers meanwhile.
        waited = time.monotonic() + JOBS_WAIT_SECONDS
        while (
            not (services.search.ready and activity.quiet(JOBS_QUIET_SECONDS))
            and time.monotonic() < waited
            and not task.done()
        ):
            await asyncio.sleep(0.1)
        jobs = await asyncio.to_thread(_periodic_jobs)
        running = [
            asyncio.create_task(jobs.sweep_forever(services)),  # expired upload sessions, as on AWS
            asyncio.create_task(jobs.remind_forever(services)),  # the every-minute reminder tick
            asyncio.create_task(jobs.sync_reading_forever(services)),  # the 6-hourly schedule on AWS
        ]
        try:
            await task
        finally:
            for job in running:
                job.cancel()

    asyncio.run(run())
    if failed:
        raise failed[0]
