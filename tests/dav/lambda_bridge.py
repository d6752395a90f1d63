"""A loopback HTTP server that hands each request, as the payload-2.0 event a Lambda function URL
or the HTTP API sends, to the function the deployed template routes it to, and writes the
function's answer back: so real clients (python-caldav, vdirsyncer, the MCP client) talk to the
Lambda handlers themselves. One invocation at a time, on one thread, as one Lambda instance serves them."""

from __future__ import annotations

import asyncio
import base64
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from tests.infra.apigw import LambdaContext, http_api_event, load_function

Route = Callable[[str], str]


def template_route(path: str) -> str:
    """The function template.yaml sends a path to (the CalDAV function by its own URL)."""
    if path.startswith(("/dav", "/.well-known/caldav")):
        return "dav"
    if path.startswith("/mcp"):
        return "mcp"
    return "api"


@contextmanager
def bridge(functions: tuple[str, ...] = ("api", "mcp", "dav"), route: Route = template_route) -> Iterator[str]:
    """Serve the functions' handlers on a free loopback port; yields the base URL."""
    handlers: dict[str, ModuleType] = {name: load_function(name) for name in functions}
    # One thread with its own event loop runs every invocation (Mangum drives the app on the
    # thread's loop), one at a time.
    lambda_thread = ThreadPoolExecutor(
        max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop())
    )

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _invoke(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {name.lower(): value for name, value in self.headers.items()}
            event = http_api_event(self.command, parts.path, headers=headers, body=body, base64_body=body is not None)
            event["rawQueryString"] = parts.query
            host = headers.get("host", "127.0.0.1").rsplit(":", 1)[0]
            event["requestContext"]["domainName"] = host
            event["requestContext"]["http"]["sourceIp"] = "127.0.0.1"
            if body is not None and "content-type" in headers:
                event["headers"]["content-type"] = headers["content-type"]
            function = handlers[route(parts.path)]
            answer: dict[str, Any] = lambda_thread.submit(function.handler, event, LambdaContext()).result()
            raw = answer.get("body") or ""
            content = base64.b64decode(raw) if answer.get("isBase64Encoded") else raw.encode("utf-8")
            self.send_response(int(answer["statusCode"]))
            for name, value in (answer.get("headers") or {}).items():
                if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                    self.send_header(name, value)
            for cookie in answer.get("cookies") or ():
                self.send_header("set-cookie", cookie)
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(content)

        def __getattr__(self, name: str) -> Any:  # do_GET, do_PROPFIND, do_REPORT...: every method
            if name.startswith("do_"):
                return self._invoke
            raise AttributeError(name)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        lambda_thread.shutdown()
