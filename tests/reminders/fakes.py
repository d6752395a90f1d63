"""Loopback fakes of the services reminders go to, started by the tests: an HTTP recorder (ntfy's
topic POST, the Telegram Bot API's sendMessage, a Web Push endpoint) and an SMTP server
(aiosmtpd). Each records what it received."""

from __future__ import annotations

import asyncio
import email
import email.policy
import socket
import threading
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.support.http_stub import QuietHandler, StubServer


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class HTTPFake:
    status: int = 200
    answer: bytes = b'{"ok":true}'
    received: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: StubServer | None = None

    @property
    def base(self) -> str:
        assert self.server is not None
        return self.server.base_url

    def start(self) -> HTTPFake:
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with fake.lock:
                    fake.received.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(fake.answer)))
                self.end_headers()
                self.wfile.write(fake.answer)

        self.server = StubServer(Handler)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


class SMTPFake:
    """aiosmtpd on a loopback port; `messages` are the parsed emails, `logins` the AUTH pairs.
    `hold` (seconds): a slow server, which takes each message's DATA and answers only that long
    after (messages it holds are not recorded: their sender has given up on them)."""

    def __init__(self, hold: float = 0.0) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.hold = hold
        self.held = 0  # messages whose DATA arrived while holding
        fake = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                if fake.hold:
                    fake.held += 1
                    await asyncio.sleep(fake.hold)
                    return "451 try again later"
                parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
                fake.messages.append(parsed)  # type: ignore[arg-type]
                fake.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
                return "250 OK"

        with socket.socket() as probe:  # aiosmtpd checks its own port at start: a free one, not 0
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    def start(self) -> SMTPFake:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
