"""A loopback reverse proxy that adds `Authorization: Bearer <token>` to every request.

The conformance suite's server scenarios connect as an unauthenticated MCP client; MeSQ requires
a bearer token on /mcp. The proxy forwards each request unchanged otherwise (Host and Origin
included, so the server's own Host/Origin checks are what the suite measures) and streams the
answer back as it arrives (SSE responses stay streams).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

#: Hop-by-hop headers (RFC 9110 §7.6.1) and the framing the proxy redoes itself.
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length"}


def _app(upstream: str, token: str) -> Starlette:
    client = httpx.AsyncClient(base_url=upstream, timeout=httpx.Timeout(60.0), follow_redirects=False)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await client.aclose()

    async def forward(request: Request) -> StreamingResponse:
        headers = [(name, value) for name, value in request.headers.items() if name not in _HOP_BY_HOP]
        headers = [(name, value) for name, value in headers if name != "authorization"]
        headers.append(("authorization", f"Bearer {token}"))
        outgoing = client.build_request(
            request.method, request.url.path, params=request.url.query, headers=headers, content=await request.body()
        )
        answer = await client.send(outgoing, stream=True)

        async def body() -> AsyncIterator[bytes]:
            async for chunk in answer.aiter_raw():
                yield chunk

        kept = {name: value for name, value in answer.headers.items() if name.lower() not in _HOP_BY_HOP}
        return StreamingResponse(
            body(), status_code=answer.status_code, headers=kept, background=BackgroundTask(answer.aclose)
        )

    methods = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)], lifespan=lifespan)


class AuthProxy:
    """Runs the proxy on a free loopback port in a background thread (a context manager)."""

    def __init__(self, upstream: str, token: str) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        config = uvicorn.Config(_app(upstream, token), log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(self._server.serve([self._sock])), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> AuthProxy:
        self._thread.start()
        for _ in range(200):
            if self._server.started:
                return self
            self._thread.join(0.05)
        raise RuntimeError("the auth proxy did not start")

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()
