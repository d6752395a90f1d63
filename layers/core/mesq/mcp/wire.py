"""ASGI plumbing around the SDK's transport: capture one answer, or amend an error answer.

Both work on the raw `send` messages, so the SDK keeps writing its own responses: `Captured`
collects one (to assemble a JSON-RPC batch from per-message answers), `amending_send` rewrites the
JSON body of a 400 (the 2026-07-28 rejections, see versions.py) and fixes its Content-Length.
Success answers stream through untouched, whatever their size.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.types import Message, Send

REJECTION_STATUS = 400


@dataclass
class Captured:
    """One HTTP answer, collected instead of sent."""

    status: int = 0
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    body: bytearray = field(default_factory=bytearray)

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")

    def json(self) -> Any:
        try:
            return json.loads(bytes(self.body))
        except ValueError:
            return None

    async def replay(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": bytes(self.body), "more_body": False})


def _with_length(headers: list[tuple[bytes, bytes]], length: int) -> list[tuple[bytes, bytes]]:
    kept = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    return [*kept, (b"content-length", str(length).encode("ascii"))]


def amending_send(
    send: Send, amend: Callable[[Any, Mapping[str, str]], Any], request_headers: Mapping[str, str]
) -> Send:
    """`send`, except that a single-chunk 400 JSON body passes through `amend` first."""
    held: Message | None = None

    async def amended(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start" and message["status"] == REJECTION_STATUS:
            held = message
            return
        if held is not None and message["type"] == "http.response.body":
            start, held = held, None
            if not message.get("more_body", False):
                body = message.get("body", b"")
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = None
                changed = amend(payload, request_headers)
                if changed is not payload:
                    body = json.dumps(changed, separators=(",", ":")).encode()
                    start = {**start, "headers": _with_length(list(start.get("headers", [])), len(body))}
                    message = {**message, "body": body}
            await send(start)
        await send(message)

    return amended
