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

Invalid params: the SDK answers every request whose params its schema refuses with -32602
"Invalid request parameters" and empty data, which names nothing. The endpoint validates a
request's params as the SDK will (`mcp_types.methods.validate_client_request`, the same version)
and answers the first field refused by name, with `data: {code: VALIDATION_ERROR, field}`
(`invalid_params`); on the 2026-07-28 path it names the SDK's answer afterwards
(`named_rejection`). Like every -32602 of the endpoint, the answer is HTTP 200 on the handshake
era (docs/decisions.md "resource errors": one status per era; older clients turn a non-2xx into an
unreadable error) and 400 on 2026-07-28 (the SDK's).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pydantic_core
from mcp_types import DEFAULT_NEGOTIATED_VERSION, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from mcp_types.methods import SPEC_CLIENT_METHODS, validate_client_request
from pydantic import ValidationError

from ..kernel.messages import bounded_message, field_path

#: Versions whose clients may send JSON-RPC batches (no header = 2025-03-26 by the spec's default).
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
#: Messages per batch: each is served (and rate-limited) as its own request.
MAX_BATCH = 50

PARSE_ERROR_MESSAGE = "Parse error: the body is not valid JSON"
INVALID_MESSAGE = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
#: JSON's names for what a parsed value can be.
JSON_TYPES = {
    list: "an array", dict: "an object", str: "a string", int: "a number", float: "a number", bool: "a boolean",
    type(None): "null",
}  # fmt: skip
#: What an invalid-params message may take (the field's path is quoted and bounded: a key the
#: client made up can be long).
MAX_PARAMS_MESSAGE = 300
#: How deep `pydantic_core.from_json` (the SDK's parser) nests arrays and objects.
PARSER_DEPTH = 200
#: An invalid id is quoted in its error up to this many characters.
MAX_SHOWN_ID = 40
#: The SDK's answer to params its schema refuses (with `data: ""`).
SDK_INVALID_PARAMS = "Invalid request parameters"
INITIALIZE_IN_BATCH = "Invalid Request: initialize must be sent on its own, not in a batch"


def rpc_error(code: int, message: str, request_id: Any = None, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


class BodyRejected(Exception):
    """The body as a whole cannot be served: answer `error` with `status`: 400, except an
    invalid-params answer (HTTP 200, as every handshake-era -32602 of the endpoint)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["error"]["message"])
        self.error = error
        self.status = 200 if error["error"]["code"] == INVALID_PARAMS else 400


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


def _kind(value: Any) -> str:
    return JSON_TYPES.get(type(value), type(value).__name__)


def _refused(method: str, params: dict[str, Any], loc: tuple[Any, ...], field: str, kind: str, said: str) -> str:
    """What is wrong with one field the method's schema refused, in words that say the fix."""
    given = params.get(loc[1]) if len(loc) == 2 and isinstance(loc[1], str) else None
    if method == "tools/call" and field == "params.name":
        fix = f"{field}: a string is required (the name of a tool from tools/list)"
        return fix if kind == "missing" else f"{fix}, not {_kind(given)}"
    if method == "tools/call" and field == "params.arguments":
        return f"{field} must be an object of the tool's named arguments, not {_kind(given)}"
    if kind == "missing":
        return f"{field} is required"
    return f"{field}: {said}"


def invalid_params(decoded: Any, version: str | None) -> dict[str, Any] | None:
    """The -32602 naming the first field of a request's params that the SDK's schema for its
    method refuses (as the SDK validates it, at `version`; None = no header, the spec's default),
    with `data: {code: VALIDATION_ERROR, field}`; None when the SDK accepts the params, or the
    message is no request of a method it validates (`initialize` is left to the SDK)."""
    if not isinstance(decoded, dict) or "id" not in decoded:
        return None
    method, params = decoded.get("method"), decoded.get("params")
    if method not in SPEC_CLIENT_METHODS or method == "initialize" or not isinstance(params, dict | None):
        return None
    try:
        validate_client_request(method, version or DEFAULT_NEGOTIATED_VERSION, params)
    except ValidationError as error:
        refused = error.errors(include_url=False, include_input=False)
    except (KeyError, ValueError):  # a method or version the SDK answers itself
        return None
    else:
        return None
    first = refused[0]
    loc = tuple(first["loc"])
    field = field_path(part if isinstance(part, (str, int)) else str(part) for part in loc)
    text = _refused(method, params or {}, loc, field, first["type"], first["msg"])
    message = bounded_message(f"Invalid params: {text}", MAX_PARAMS_MESSAGE)
    return rpc_error(INVALID_PARAMS, message, decoded.get("id"), {"code": "VALIDATION_ERROR", "field": field})


def _checked(decoded: Any, version: str | None, *, in_batch: bool) -> Message:
    if (id_error := bad_id(decoded)) is not None:
        return Message(decoded, id_error)
    try:
        jsonrpc_message_adapter.validate_python(decoded, by_name=False)
    except ValidationError:
        return Message(decoded, rpc_error(INVALID_REQUEST, INVALID_MESSAGE))
    if (params_error := invalid_params(decoded, version)) is not None:
        return Message(decoded, params_error)
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
        message = _checked(decoded, version, in_batch=False)
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
    return LegacyBody(messages=tuple(_checked(item, version, in_batch=True) for item in decoded), batch=True)


def named_rejection(payload: Any, body: bytes, version: str | None) -> Any:
    """The SDK's 2026-07-28 answer to a bad id or params its schema refuses ("Body must be a
    single JSON-RPC request...", "Invalid request parameters" with empty data), with the problem
    named as on the handshake era; any other payload is returned as is. Only error answers get
    here."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict) or error.get("code") not in (INVALID_REQUEST, INVALID_PARAMS) or error.get("data"):
        return payload
    if error["code"] == INVALID_PARAMS and error.get("message") != SDK_INVALID_PARAMS:
        return payload  # the SDK's own words (its envelope checks name the missing keys)
    try:
        decoded = pydantic_core.from_json(body)
    except ValueError:
        return payload
    named = bad_id(decoded) if error["code"] == INVALID_REQUEST else invalid_params(decoded, version)
    if named is None:
        return payload
    return {**payload, "error": {**error, **named["error"]}}
