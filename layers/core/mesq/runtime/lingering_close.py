"""A lingering close for `mesq serve`'s connections, as Apache and nginx do.

When the server answers before it has read the whole request body (a 408 to a trickling upload,
a 401 to a POST, a refusal by size) and closes the socket, the body bytes still arriving make the
kernel answer with a reset instead of a FIN, and a reset can wipe the answer from the client's
receive buffer before the client reads it: the client sees "connection reset" instead of the
408 that says why. So when the request's body was not read to its end, the close shuts the
write side only (the answer, then a FIN), drops whatever the client still sends, and closes
when the client hangs up or after `LINGER_SECONDS`, whichever comes first. A request whose body
was read closes at once, as before.

A request h11 cannot parse (a URL with raw UTF-8 or a space in it, conflicting lengths) never
reaches an app: uvicorn would answer it in plain text. It is answered here in the contract's error
shape instead (400 `VALIDATION_ERROR`, `traceId` and `X-Trace-Id`), and an unencoded URL is told
how to send it.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..asgi.trace import new_trace_id

#: How long a connection whose body was cut short keeps draining after the answer (nginx waits
#: up to 5 s between reads): time for the client to read the answer, and a bound on the socket.
LINGER_SECONDS = 2.0
#: What h11 says of a request line it refuses (the line's repr at the end): with a method and an
#: HTTP version around it, what it refused is a target with bytes a URL may not hold (raw UTF-8,
#: a space); anything else is not HTTP and is told so plainly.
_UNENCODED_TARGET = re.compile(r"^illegal request line: bytearray\(b'[A-Z]+ .+ HTTP/1\.[01]'\)$")
UNENCODED_URL = (
    "the request is not valid HTTP/1.1: the URL holds characters a URL cannot carry as they are "
    "(a space, Chinese text); percent-encode the path and query (a space as %20, 划 as %E5%88%92)"
)


class _LingeringTransport:
    """The connection's transport, whose `close` lingers when the client may still be sending."""

    def __init__(self, transport: asyncio.Transport, protocol: LingeringH11Protocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._timer: asyncio.TimerHandle | None = None
        self.lingering = False

    def close(self) -> None:
        if self.lingering or self._transport.is_closing():
            return
        if not (self._protocol.body_unread() and self._transport.can_write_eof()):
            self._transport.close()
            return
        self.lingering = True
        self._transport.write_eof()  # after the buffered answer: the client reads it, then EOF
        self._transport.resume_reading()  # uvicorn's flow control may have paused it
        self._timer = asyncio.get_running_loop().call_later(LINGER_SECONDS, self._transport.close)

    def is_closing(self) -> bool:
        return self.lingering or self._transport.is_closing()

    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def __getattr__(self, name: str) -> Any:  # write, get_extra_info, pause_reading, ...
        return getattr(self._transport, name)


class LingeringH11Protocol(H11Protocol):
    """uvicorn's h11 protocol over a `_LingeringTransport`."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.lingering_transport = _LingeringTransport(transport, self)
        super().connection_made(self.lingering_transport)  # type: ignore[arg-type]

    def body_unread(self) -> bool:
        return self.conn.their_state is h11.SEND_BODY

    def data_received(self, data: bytes) -> None:
        if self.lingering_transport.lingering:
            return  # the rest of a body nobody will read
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        """The answer to a request h11 refused (uvicorn calls this inside its `except`, so the
        error is the one being handled): the contract's error envelope, then a close."""
        refused = sys.exc_info()[1]
        said = str(refused) if isinstance(refused, h11.RemoteProtocolError) else msg
        unencoded = _UNENCODED_TARGET.match(said)
        message = UNENCODED_URL if unencoded else f"the request is not valid HTTP/1.1 ({said[:120]})"
        trace_id = new_trace_id()
        body = json.dumps({"error": {"code": "VALIDATION_ERROR", "message": message}, "traceId": trace_id}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-trace-id", trace_id.encode()),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lingering_transport.cancel_timer()
        super().connection_lost(exc)
