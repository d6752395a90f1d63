"""A loopback HTTP server on a free port in a daemon thread, for the stubs of the services MeSQ
calls out to (webhook receivers, ntfy / Telegram / Web Push, WeChat Reading, OAuth client
metadata documents). Each test writes its handler; this module starts, addresses and stops it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that keeps the test output clean (no access line per request on stderr)."""

    def log_message(self, format: str, *args: Any) -> None:
        return


class StubServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve `handler` on a loopback port for the block; yields the base URL."""
    server = StubServer(handler)
    try:
        yield server.base_url
    finally:
        server.stop()
