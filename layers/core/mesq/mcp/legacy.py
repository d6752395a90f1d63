"""Handshake-era bodies (2024-11-05 .. 2025-11-25), read by the endpoint before the SDK sees them.

The SDK's handshake-era transport parses and validates the body itself and, on failure, puts
`str(exception)` on the wire: a ~1.2 KB pydantic dump naming the library version. The endpoint
therefore parses (as the SDK does, with `pydantic_core.from_json`) and validates every message
first and answers failures with a short, fixed message of its own.

JSON-RPC batches: 2025-03-26 allowed them (and 2024-11-05 clients, which send no
`MCP-Protocol-Version` header, may use them); 2025-06-18 removed them. A batch is accepted when
the header is absent or names one of those two versions; the endpoint then serves each message
as its own request through the SDK and answers the array of responses. Other versions get a
clear -32600.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pydantic_core
from mcp_types import INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from pydantic import ValidationError

#: Versions whose clients may send JSON-RPC batches (no header = 2025-03-26 by the spec's default).
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
#: Messages per batch: each is served (and rate-limited) as its own request.
MAX_BATCH = 50

PARSE_ERROR_MESSAGE = "Parse error: the body is not valid JSON"
INVALID_MESSAGE = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
INITIALIZE_IN_BATCH = "Invalid Request: initialize must be sent on its own, not in a batch"


def rpc_error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class BodyRejected(Exception):
    """The body as a whole cannot be served: answer `error` with HTTP 400."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["error"]["message"])
        self.error = error


@dataclass(frozen=True)
class Message:
    """One message of a body: the decoded object, or the error answering it (`rejection`)."""

    decoded: Any
    rejection: dict[str, Any] | None = None

    @property
    def method(self) -> str | None:
        method = self.decoded.get("method") if self.rejection is None else None
        return method if isinstance(method, str) else None

    @property
    def params(self) -> dict[str, Any]:
        params = self.decoded.get("params") if self.rejection is None else None
        return params if isinstance(params, dict) else {}


@dataclass(frozen=True)
class LegacyBody:
    messages: tuple[Message, ...]
    batch: bool


def _checked(decoded: Any, *, in_batch: bool) -> Message:
    try:
        jsonrpc_message_adapter.validate_python(decoded, by_name=False)
    except ValidationError:
        return Message(decoded, rpc_error(INVALID_REQUEST, INVALID_MESSAGE))
    if in_batch and decoded.get("method") == "initialize":
        return Message(decoded, rpc_error(INVALID_REQUEST, INITIALIZE_IN_BATCH, decoded.get("id")))
    return Message(decoded)


def read_legacy_body(body: bytes, version: str | None) -> LegacyBody:
    """The messages of a handshake-era body; BodyRejected when none can be served."""
    try:
        decoded = pydantic_core.from_json(body)
    except ValueError:
        raise BodyRejected(rpc_error(PARSE_ERROR, PARSE_ERROR_MESSAGE)) from None
    if not isinstance(decoded, list):
        message = _checked(decoded, in_batch=False)
        if message.rejection is not None:
            raise BodyRejected(message.rejection)
        return LegacyBody(messages=(message,), batch=False)
    if version is not None and version not in BATCH_VERSIONS:
        raise BodyRejected(
            rpc_error(
                INVALID_REQUEST,
                f"Invalid Request: protocol version {version} has no JSON-RPC batches (they ended with "
                "2025-03-26); send one message per HTTP request",
            )
        )
    if not decoded:
        raise BodyRejected(rpc_error(INVALID_REQUEST, "Invalid Request: an empty batch"))
    if len(decoded) > MAX_BATCH:
        raise BodyRejected(rpc_error(INVALID_REQUEST, f"Invalid Request: a batch holds at most {MAX_BATCH} messages"))
    return LegacyBody(messages=tuple(_checked(item, in_batch=True) for item in decoded), batch=True)
