"""Rate limits as an MCP client reads them (docs/contract.md §7).

The endpoint counts every message in its bucket before the SDK reads it (`ratelimit.py`); a
message over its bucket's limit is not refused with HTTP 429 there, because the official client
turns any non-2xx answer into `-32603 "Server returned an error response"` and the model never
learns when to retry. Instead the SDK's handlers answer it (`RequestState.rate_limited`):

- `tools/call`: a tool error result (`isError`, `error.code` `RATE_LIMITED`,
  `error.retryAfterSeconds`), which the model reads like any other failure;
- every other request (`tools/list`, `server/discover`, `resources/read`, `ping`, ...): a
  JSON-RPC error `RATE_LIMITED_RPC_CODE` whose `data` is `{code: "RATE_LIMITED", retryAfterSeconds}`;
- `initialize`, which the SDK reserves, is answered the same way by the endpoint itself, and a
  notification (no answer to put it in) keeps HTTP 429 with `Retry-After`.

Every such answer also carries the HTTP `Retry-After` header (`retry_after`: the longest wait of
the buckets the request went over), which clients read before any body.

REST keeps HTTP 429 with `Retry-After` (asgi/).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.shared.exceptions import MCPError

from ..application.ratelimit import Bucket, call_bucket
from ..kernel.errors import RateLimited

#: The JSON-RPC error code of a rate-limited request: implementation-defined server range
#: (-32000..-32099), clear of the SDK's own (-32000/-32001 client side, -32020..-32022, -32042).
RATE_LIMITED_RPC_CODE = -32029

#: JSON-RPC methods counted in the connection bucket; the rest are calls.
CONNECTION_METHODS = frozenset(
    {"server/discover", "initialize", "notifications/initialized", "ping", "tools/list", "prompts/list",
     "resources/list", "resources/templates/list"}
)  # fmt: skip


#: The scheme of MCP Apps views (mcp_apps.py): read by a host to draw a tool's result, like a
#: listing, not a file's bytes.
VIEW_SCHEME = "ui://"


def rate_bucket(method: str | None, name: str | None) -> Bucket:
    """The bucket one JSON-RPC message counts in (`name`: the tool of a `tools/call`, the URI of
    a `resources/read`). A view's `resources/read` counts as connecting: a host reads one per
    result it draws, and 30 a minute (an attachment's bucket) broke a page of them."""
    if method in CONNECTION_METHODS:
        return "connection"
    if method == "resources/read":
        return "connection" if name is not None and name.startswith(VIEW_SCHEME) else "attachment_read"
    if method == "tools/call" and name is not None:
        return call_bucket(name)
    return "tool_call"


def counted_buckets(
    method: str | None, name: str | None, read_buckets: Mapping[str, tuple[Bucket, ...]]
) -> tuple[Bucket, ...]:
    """The buckets the endpoint counted a message in: `rate_bucket`'s, but a `resources/read`
    of one of the caller's own attachments in those the endpoint recorded for its URI
    (`read_buckets`, endpoint._rate_limit): `page_image` for an image (the MCP Apps memo view
    reads one per image to draw its thumbnails, like a page's images on the web),
    `attachment_read` for a file known to be none, both for one whose record told it no image.
    The message is refused when any of them is over its limit."""
    if method == "resources/read" and name is not None and name in read_buckets:
        return read_buckets[name]
    return (rate_bucket(method, name),)


def rpc_data(error: RateLimited) -> dict[str, Any]:
    return {"code": error.code, "retryAfterSeconds": error.retry_after_seconds}


def rpc_rate_limited(error: RateLimited) -> MCPError:
    """The JSON-RPC error of a rate-limited request other than `tools/call`."""
    return MCPError(code=RATE_LIMITED_RPC_CODE, message=error.message, data=rpc_data(error))


def rpc_error_body(error: RateLimited, request_id: Any) -> dict[str, Any]:
    """The same error as a JSON-RPC response body (for `initialize`, answered by the endpoint)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": RATE_LIMITED_RPC_CODE, "message": error.message, "data": rpc_data(error)},
    }


def retry_after(limited: Mapping[str, RateLimited]) -> str | None:
    """The `Retry-After` value (delta-seconds) of an answer to a request that went over one or
    more buckets: the longest wait among them, so a retry after it finds every bucket open."""
    waits = [error.retry_after_seconds or 1 for error in limited.values()]
    return str(max(waits)) if waits else None
