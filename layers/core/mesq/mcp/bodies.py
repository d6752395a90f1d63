"""Which `/mcp` bodies may be large, and reading them without stalling the event loop.

The 140,858,712-byte cap (docs/contract.md §2) exists for the base64 `content` of the two upload
tools. Every other message fits in the REST JSON cap (1 MiB) plus a JSON-RPC frame, so a larger
body is refused unless it is one `tools/call` of an upload tool. Parsing 100 MB of JSON takes
~0.6 s of CPU and the SDK parsed it again: on the event loop, that stalled every other user's
request for seconds (a memo:read token could do it with a huge `search_memos` query).

So:
- a 2026-07-28 request names its tool in `Mcp-Method`/`Mcp-Name` (the SDK holds the body to
  them), and gets its cap before anything is read;
- any other body is read up to the large cap while a scan of each chunk notes whether an upload
  tool's name occurs in it; a large body that never names one is refused unparsed;
- a large body that does is parsed in a worker thread (`pydantic_core.from_json` lets the loop's
  thread run meanwhile; `json.loads` would not), and the SDK gets the message with empty
  `arguments`: the handler takes the parsed ones from the request state (`RequestState.call_arguments`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from ..asgi.body import MAX_JSON_BODY_BYTES

#: Base64 length of a 100 MiB file plus 1 MiB for the JSON-RPC frame (docs/contract.md §2).
UPLOAD_BODY_CAP = 4 * -(-100 * 1024 * 1024 // 3) + 1024 * 1024
#: Any other body: a REST JSON body's cap plus room for the JSON-RPC frame and `_meta`.
MESSAGE_BODY_CAP = MAX_JSON_BODY_BYTES + 64 * 1024
#: The tools whose arguments may exceed MESSAGE_BODY_CAP: base64 `content` up to 100 MiB
#: (tests/mcp/test_http.py checks this against every tool's input schema).
UPLOAD_TOOLS = frozenset({"upload_memo_resource", "upload_todo_attachment"})

_NAME_MARKERS = tuple(json.dumps(name).encode() for name in sorted(UPLOAD_TOOLS))
_MARKER_OVERLAP = max(len(marker) for marker in _NAME_MARKERS) - 1


def is_upload_call(method: str | None, name: str | None) -> bool:
    return method == "tools/call" and name in UPLOAD_TOOLS


@dataclass(frozen=True)
class ReadBody:
    data: bytes
    #: Whether an upload tool's name (as a JSON string) occurs anywhere in the body.
    names_upload_tool: bool

    @property
    def large(self) -> bool:
        return len(self.data) > MESSAGE_BODY_CAP


async def read_body(request: Request, cap: int) -> ReadBody | None:
    """The body, or None as soon as it is known to exceed `cap` bytes. Each chunk is scanned for
    an upload tool's name as it arrives (a few microseconds a chunk, never one long scan)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        return None
    chunks: list[bytes] = []
    size = 0
    found = False
    tail = b""  # the end of the previous chunk: a name may straddle two chunks
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            return None
        if not found and chunk:
            window = tail + chunk
            found = any(marker in window for marker in _NAME_MARKERS)
            tail = window[-_MARKER_OVERLAP:]
        chunks.append(chunk)
    return ReadBody(b"".join(chunks), found)


@dataclass(frozen=True)
class UploadCall:
    """A large body's one upload `tools/call`: its arguments, and the message without them."""

    arguments: dict[str, Any]
    slim_body: bytes


def upload_call(decoded: Any) -> UploadCall | None:
    """The upload call a large body carries, or None when it is anything else (a batch, another
    method or tool, arguments that are not an object, megabytes outside `arguments`)."""
    if not isinstance(decoded, dict) or decoded.get("method") != "tools/call":
        return None
    params = decoded.get("params")
    if not isinstance(params, dict) or params.get("name") not in UPLOAD_TOOLS:
        return None
    arguments = params.get("arguments")
    if not isinstance(arguments, dict):
        return None
    slim = json.dumps({**decoded, "params": {**params, "arguments": {}}}).encode()
    if len(slim) > MESSAGE_BODY_CAP:
        return None
    return UploadCall(arguments, slim)
