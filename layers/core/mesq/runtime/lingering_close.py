"""A lingering close for `mesq serve`'s connections, as Apache and nginx do.

When the server answers before it has read the whole request body (a 408 to a trickling upload,
a 401 to a POST, a refusal by size) and closes the socket, the body bytes still arriving make the
kernel answer with a reset instead of a FIN, and a reset can wipe the answer from the client's
receive buffer before the client reads it: the client sees "connection reset" instead of the
408 that says why. So when the request's body was not read to its end, the close shuts the
write side only (the answer, then a FIN), drops whatever the client still sends, and closes
when the client hangs up or after `LINGER_SECONDS`, whichever comes first. A request whose body
was read closes at once, as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: How long a connection whose body was cut short keeps draining after the answer (nginx waits
#: up to 5 s between reads): time for the client to read the answer, and a bound on the socket.
LINGER_SECONDS = 2.0


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

    def connection_lost(self, exc: Exception | None) -> None:
        self.lingering_transport.cancel_timer()
        super().connection_lost(exc)
