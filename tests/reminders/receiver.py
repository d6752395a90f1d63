"""A loopback webhook receiver for the reminder tests: verifies every request's
X-MeSQ-Signature with the channel's secret (mesq.reminders.signing.verify, the receiver's side
of docs/contract.md §12) and records what it got. `status` makes it fail on purpose, `delay`
(seconds) answer slowly (each request in a thread of its own: slow ones overlap)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from mesq.reminders.signing import HEADER, verify
from tests.support.http_stub import QuietHandler, StubServer


@dataclass
class Receiver:
    secrets: list[str] = field(default_factory=list)
    status: int = 204
    delay: float = 0.0
    received: list[dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    bad_signatures: int = 0
    hosts: list[str] = field(default_factory=list)  # the Host header of each request
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: StubServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"{self.server.base_url}/hook"

    def start(self) -> Receiver:
        receiver = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                time.sleep(receiver.delay)
                signed = any(verify(s, self.headers.get(HEADER, ""), body, int(time.time())) for s in receiver.secrets)
                with receiver.lock:
                    receiver.attempts += 1
                    receiver.hosts.append(self.headers.get("Host", ""))
                    if not signed:
                        receiver.bad_signatures += 1
                    elif receiver.status < 300:
                        receiver.received.append(json.loads(body))
                self.send_response(receiver.status if signed else 401)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = StubServer(Handler)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
