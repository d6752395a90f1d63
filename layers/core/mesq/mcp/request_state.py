"""What the HTTP layer learned about one request, handed to the SDK's handlers.

The endpoint authenticates and computes the visibility before the SDK reads the message, then
stores a `RequestState` in the ASGI scope. The SDK hands every handler the Starlette `Request`
of that same scope (`ctx.request`), so handlers read it from there: one process-wide `Server`,
per-request facts, no globals and no context variables to leak between requests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from ..application.ratelimit import Bucket
from ..kernel.context import Principal
from ..kernel.errors import RateLimited
from ..wiring.services import Services
from .visibility import Visibility

SCOPE_KEY = "mesq.mcp"


@dataclass(frozen=True)
class RequestState:
    principal: Principal
    services: Services
    visibility: Visibility
    trace_id: str
    correlation_id: str | None
    #: Milliseconds the Lambda invocation has left (None under `mesq serve`): run_code stays under it.
    remaining_ms: Callable[[], int] | None = None
    #: The rate buckets this request's messages went over (bucket -> the error): the handlers
    #: answer each limited message in its own form (a tool error result for tools/call, a
    #: JSON-RPC error with `data.retryAfterSeconds` otherwise) so an MCP client can read it.
    rate_limited: Mapping[str, RateLimited] = field(default_factory=dict)
    #: The buckets each `resources/read` URI of the caller's own attachments was counted in
    #: (`page_image` for an image: a view's thumbnails; limits.counted_buckets).
    read_buckets: Mapping[str, tuple[Bucket, ...]] = field(default_factory=dict)
    #: A request that may run long (a `run_code` call) is cancelled when its client goes away
    #: (mcp/endpoint.py); watching costs a task per request, so others are not watched.
    cancel_on_disconnect: bool = False
    #: The language the request's `Accept-Language` asks for ("" when none): `Call.language`.
    language: str = ""
    #: The arguments of a large upload `tools/call`, parsed by the endpoint in a worker thread;
    #: the SDK got the message with empty arguments, so it never parsed megabytes on the event
    #: loop (bodies.py). None for every other request.
    call_arguments: Mapping[str, Any] | None = None
    #: The instance URL the request came by (`asgi.instance.instance_url`): `Call.base_url`, so
    #: the REST URLs a tool hands an agent are absolute without a public URL too.
    base_url: str = ""


class MissingRequestState(RuntimeError):
    """A handler ran outside the MeSQ endpoint: a wiring bug, answered as an internal error."""


def request_state(ctx: Any) -> RequestState:
    request = getattr(ctx, "request", None)
    state = request.scope.get(SCOPE_KEY) if isinstance(request, Request) else None
    if not isinstance(state, RequestState):
        raise MissingRequestState("MCP handler called without the request state of the MeSQ endpoint")
    return state
