"""CORS on the /mcp URLs, for a browser page that connects directly (the MCP Inspector's "direct"
connection) from an origin the DNS-rebinding check already admits (`asgi.origin`: the instance's
own origin, or any loopback page when the server is reached over loopback).

Such a page gets its preflight (`OPTIONS`) answered and may read every answer, the 401's
`WWW-Authenticate` challenge and `Retry-After` included (it starts the sign-in from them). Any
other origin gets neither: its requests are refused 403 as before, and its preflight 405, both
without `Access-Control-Allow-Origin`, so the browser shows it nothing. Credentials are bearer
tokens, never cookies, so no `Access-Control-Allow-Credentials`.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.responses import Response
from starlette.types import Message, Send

#: What an MCP client sends (both eras) and MeSQ's own connection headers.
ALLOWED_HEADERS = (
    "accept, authorization, content-type, last-event-id, mcp-method, mcp-name, mcp-protocol-version, "
    "mcp-session-id, x-correlation-id, x-mcp-exclude-tools, x-mcp-readonly, x-mcp-tools, x-mcp-toolsets"
)
EXPOSED_HEADERS = "www-authenticate, retry-after, mcp-session-id, x-trace-id"
MAX_AGE = "3600"


def preflight(origin: str) -> Response:
    return Response(
        status_code=204,
        headers={
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": "POST",
            "Access-Control-Allow-Headers": ALLOWED_HEADERS,
            "Access-Control-Max-Age": MAX_AGE,
            "Vary": "Origin",
            "Cache-Control": "private, no-store",
        },
    )


def readable_by(origin: str, send: Send) -> Send:
    """`send`, with every response made readable by the page at `origin`."""

    async def send_with_cors(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
            headers.add_vary_header("Origin")
        await send(message)

    return send_with_cors
