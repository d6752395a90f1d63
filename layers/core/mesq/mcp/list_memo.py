"""A repeated `tools/list` answered from memory, with its own id.

Why: the whole catalog's `tools/list` is ~140 KB of JSON, and the SDK makes it in three passes
(the handler's dump, the per-version sieve's validate and dump, the JSON-RPC envelope's dump)
and a `json.dumps`: ~17 ms of CPU, where a small call costs ~3 ms. Every agent session lists the
tools once (the official client does it on its first `tools/call`, to check results against
their output schemas). The answer is a function of the request without its id: the visibility
that the credential, URL and headers resolve to, the other headers and the body. It never
depends on the user or the clock. So the SDK answers the first request of each kind, and a later
request with the same key gets those bytes with its own id spliced in.

Never from memory: a JSON-RPC batch, a request over a rate limit, a body that is not one
`tools/list` request with an integer or printable-ASCII string id, and any answer that was not a 200 JSON
success echoing that id. An answer is kept only if splicing its own id back in rebuilds it byte for
byte. The memory is bounded: `CAPACITY` answers of at most `MAX_ANSWER_BYTES` each, least
recently used first out.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from starlette.types import Message, Scope, Send

from .request_state import RequestState

METHOD = "tools/list"
CAPACITY = 32
MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: A tools/list request is small; a larger body is not worth parsing here.
MAX_REQUEST_BYTES = 16 * 1024
#: Request headers that cannot change what the SDK answers but vary per request or per user
#: (credentials are already in the key as the visibility they resolve to).
IGNORED_HEADERS = frozenset({
    b"authorization", b"cookie", b"content-length", b"user-agent", b"connection", b"accept-encoding",
    b"x-correlation-id", b"traceparent", b"tracestate", b"x-amzn-trace-id", b"x-forwarded-for",
})  # fmt: skip


@dataclass(frozen=True)
class ListRequest:
    """A request the memory may answer: its key and the id to echo."""

    key: Hashable
    request_id: int | str


@dataclass(frozen=True)
class _Answer:
    headers: tuple[tuple[bytes, bytes], ...]  # the SDK's, without content-length
    result: bytes  # the JSON of `result`, as the SDK wrote it

    def body(self, request_id: int | str) -> bytes:
        return _envelope(request_id, self.result)


def _envelope(request_id: int | str, result: bytes) -> bytes:
    # The SDK's field order and separators (JSONRPCResponse, json.dumps(separators=(",", ":"))).
    return b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b',"result":' + result + b"}"


class ListMemo:
    """The remembered `tools/list` answers of one endpoint."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._answers: OrderedDict[Hashable, _Answer] = OrderedDict()
        self.served = 0  # answers given from memory (tests read it)

    def request(self, scope: Scope, state: RequestState, body: bytes) -> ListRequest | None:
        """The key of a plain `tools/list` request, or None for anything else."""
        if state.rate_limited or len(body) > MAX_REQUEST_BYTES or METHOD.encode() not in body:
            return None
        try:
            decoded = json.loads(body)
        except ValueError:
            return None
        if not isinstance(decoded, dict) or decoded.get("method") != METHOD or decoded.get("jsonrpc") != "2.0":
            return None
        request_id = decoded.get("id")
        # An integer, or a string both encoders write alike (printable ASCII).
        if isinstance(request_id, str):
            if not (request_id.isascii() and request_id.isprintable()):
                return None
        elif isinstance(request_id, bool) or not isinstance(request_id, int):
            return None
        rest = json.dumps({k: v for k, v in decoded.items() if k != "id"}, sort_keys=True, separators=(",", ":"))
        headers = tuple(sorted((k.lower(), v) for k, v in scope["headers"] if k.lower() not in IGNORED_HEADERS))
        key = (scope["path"], state.visibility, state.language, headers, type(request_id).__name__, rest)
        return ListRequest(key=key, request_id=request_id)

    async def answer(self, request: ListRequest, send: Send) -> bool:
        """Send the remembered answer to `request`, if there is one."""
        answer = self._answers.get(request.key)
        if answer is None:
            return False
        self._answers.move_to_end(request.key)
        body = answer.body(request.request_id)
        headers = [*answer.headers, (b"content-length", str(len(body)).encode("ascii"))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})
        self.served += 1
        return True

    def recording(self, request: ListRequest, send: Send) -> Send:
        """`send`, remembering the SDK's answer to `request` once it is complete and fit to keep."""
        status = 0
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []

        async def record(message: Message) -> None:
            nonlocal status, headers
            await send(message)
            if message["type"] == "http.response.start":
                status, headers = message["status"], list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False) and status == 200:
                    self._keep(request, headers, b"".join(chunks))

        return record

    def _keep(self, request: ListRequest, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        content_type = dict((k.lower(), v) for k, v in headers).get(b"content-type", b"")
        if len(body) > MAX_ANSWER_BYTES or not content_type.startswith(b"application/json"):
            return
        try:
            decoded: Any = json.loads(body)
        except ValueError:
            return
        if not isinstance(decoded, dict) or set(decoded) != {"jsonrpc", "id", "result"}:
            return
        if decoded["id"] != request.request_id or type(decoded["id"]) is not type(request.request_id):
            return
        # The 2026-07-28 path writes with json.dumps (non-ASCII escaped), the handshake era with
        # pydantic (UTF-8 as is): whichever rebuilds the body byte for byte is how it was written.
        for ascii_only in (True, False):
            result = json.dumps(decoded["result"], separators=(",", ":"), ensure_ascii=ascii_only).encode()
            if _envelope(request.request_id, result) == body:
                break
        else:
            return  # not a shape that splicing rebuilds
        kept = tuple((k, v) for k, v in headers if k.lower() != b"content-length")
        self._answers[request.key] = _Answer(headers=kept, result=result)
        self._answers.move_to_end(request.key)
        while len(self._answers) > self.capacity:
            self._answers.popitem(last=False)
