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

import json
from dataclasses import dataclass
from typing import Any

import pydantic_core
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from pydantic import ValidationError

#: Versions whose clients may send JSON-RPC batches (no header = 2025-03-26 by the spec's default).
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
#: Messages per batch: each is served (and rate-limited) as its own request.
MAX_BATCH = 50

PARSE_ERROR_MESSAGE = "Parse error: the body is not valid JSON"
INVALID_MESSAGE = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
#: JSON's names for what a parsed value can be.
JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
#: How deep `pydantic_core.from_json` (the SDK's parser) nests arrays and objects.
PARSER_DEPTH = 200
#: An invalid id is quoted in its error up to this many characters.
MAX_SHOWN_ID = 40
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


def _is_request_id(value: Any) -> bool:
    """MCP request ids are strings or integers (never null, unlike base JSON-RPC)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def bad_id(decoded: Any) -> dict[str, Any] | None:
    """The error for a request whose `id` is of the wrong type. Without it, the SDK's model for a
    notification (which ignores unknown keys) accepted the message: 202, and the call never ran."""
    if not isinstance(decoded, dict) or "method" not in decoded or "id" not in decoded:
        return None
    request_id = decoded["id"]
    if _is_request_id(request_id):
        return None
    shown = json.dumps(request_id)  # NaN and Infinity come out as written
    if len(shown) > MAX_SHOWN_ID:
        shown = shown[:MAX_SHOWN_ID] + "…"
    return rpc_error(INVALID_REQUEST, f"Invalid Request: id must be a string or an integer, not {shown}")


def bad_arguments(decoded: Any) -> dict[str, Any] | None:
    """The error for a `tools/call` whose `arguments` is not an object (the SDK's own answer is
    "Invalid request parameters" with empty data, which names nothing)."""
    params = decoded.get("params") if isinstance(decoded, dict) else None
    if not isinstance(params, dict) or decoded.get("method") != "tools/call":
        return None
    arguments = params.get("arguments")
    if arguments is None or isinstance(arguments, dict):
        return None
    kind = JSON_TYPES.get(type(arguments), type(arguments).__name__)
    message = f"Invalid params: arguments must be an object of the tool's named arguments, not {kind}"
    return rpc_error(INVALID_PARAMS, message, decoded.get("id"))


def _checked(decoded: Any, *, in_batch: bool) -> Message:
    if (id_error := bad_id(decoded)) is not None:
        return Message(decoded, id_error)
    try:
        jsonrpc_message_adapter.validate_python(decoded, by_name=False)
    except ValidationError:
        return Message(decoded, rpc_error(INVALID_REQUEST, INVALID_MESSAGE))
    if (arguments_error := bad_arguments(decoded)) is not None:
        return Message(decoded, arguments_error)
    if in_batch and decoded.get("method") == "initialize":
        return Message(decoded, rpc_error(INVALID_REQUEST, INITIALIZE_IN_BATCH, decoded.get("id")))
    return Message(decoded)


def _unparsable(body: bytes, problem: str) -> BodyRejected:
    """The error naming why the parser refused `body` (its words, with where). Two refusals
    are of valid JSON, as REST names them too: nesting past the parser's depth, and a lone
    surrogate escape (`"\\ud800"`, which no Unicode text holds; `json.loads` accepts it)."""
    if "recursion limit exceeded" in problem:
        message = f"Invalid Request: the body nests arrays and objects deeper than {PARSER_DEPTH} levels"
        return BodyRejected(rpc_error(INVALID_REQUEST, message))
    parse_error = BodyRejected(rpc_error(PARSE_ERROR, f"{PARSE_ERROR_MESSAGE} ({problem})"))
    if "hex escape" not in problem:
        return parse_error
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return parse_error
    where = problem[problem.rfind(" at line ") :] if " at line " in problem else ""
    message = (
        f"Invalid Request: the body contains a lone surrogate escape{where} (\\ud800-\\udfff without "
        "its pair), which is not Unicode text; send valid UTF-8"
    )
    return BodyRejected(rpc_error(INVALID_REQUEST, message))


def read_legacy_body(body: bytes, version: str | None) -> LegacyBody:
    """The messages of a handshake-era body; BodyRejected when none can be served."""
    try:
        decoded = pydantic_core.from_json(body)
    except ValueError as error:
        raise _unparsable(body, str(error)) from None
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


def named_rejection(payload: Any, body: bytes) -> Any:
    """The SDK's 2026-07-28 answer to a bad id or non-object `arguments` ("Body must be a single
    JSON-RPC request...", "Invalid request parameters" with empty data), with the problem named
    as on the handshake era; any other payload is returned as is. Only error answers get here."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict) or error.get("code") not in (INVALID_REQUEST, INVALID_PARAMS) or error.get("data"):
        return payload
    try:
        decoded = pydantic_core.from_json(body)
    except ValueError:
        return payload
    named = bad_id(decoded) if error["code"] == INVALID_REQUEST else bad_arguments(decoded)
    if named is None:
        return payload
    return {**payload, "error": {**error, "message": named["error"]["message"]}}
