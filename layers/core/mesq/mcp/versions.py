"""The protocol versions `/mcp` serves, and the SDK's 2026-07-28 rejections told in those terms.

One URL speaks both eras: 2026-07-28 (per-request `_meta` envelope) and the `initialize`
handshake of 2025-11-25 down to 2024-11-05. The SDK's modern entry only knows its own era, so
its `UnsupportedProtocolVersion` (-32022) names `["2026-07-28"]` as `supported`, and its header
check says "does not match" for a routing header that was never sent; and since it routes every
unknown `Mcp-Protocol-Version` there and checks the body's envelope first, a handshake-era body
with a version nobody serves was told about `params._meta`. `amend_rejection` rewrites those
answers before they leave; everything else passes through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_types import HEADER_MISMATCH, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from ..kernel.server_identity import SERVED_PROTOCOL_VERSIONS

#: Every version served on the same URLs, newest first (`server/discover`, -32022 `supported`).
#: Written once in kernel/server_identity.py (the Server Card repeats it without the SDK); the SDK
#: must serve exactly these, or start-up fails here rather than a card promising what is not served.
SERVED_VERSIONS: tuple[str, ...] = SERVED_PROTOCOL_VERSIONS
_SDK_VERSIONS = (*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS))
if _SDK_VERSIONS != SERVED_VERSIONS:
    raise RuntimeError(
        f"the MCP SDK serves {list(_SDK_VERSIONS)}, kernel/server_identity.py says {list(SERVED_VERSIONS)}"
    )

#: Routing headers the 2026-07-28 wire requires, and the body field each repeats.
_ROUTING_HEADERS = {"mcp-method": "method", "mcp-name": "'name' or 'uri' parameter"}


def _unsupported(requested: str) -> dict[str, Any]:
    return {
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": "Unsupported protocol version",
        "data": {"supported": list(SERVED_VERSIONS), "requested": requested},
    }


def amend_rejection(payload: Any, headers: Mapping[str, str]) -> Any:
    """The SDK's JSON-RPC error `payload`, with the served versions as `supported` and a missing
    routing header called missing; any other payload is returned as is (the same object)."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return payload
    code = error.get("code")
    data = error.get("data")
    message = error.get("message")
    requested = headers.get("mcp-protocol-version")
    if (
        requested is not None
        and requested not in SERVED_VERSIONS
        and code not in (PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION)
    ):
        # The SDK routes every unknown version here and checks the body's envelope first, so a
        # handshake-era body was told "params._meta must be an object": the version is the problem.
        return {**payload, "error": _unsupported(requested)}
    if code == UNSUPPORTED_PROTOCOL_VERSION and isinstance(data, dict) and "supported" in data:
        return {**payload, "error": {**error, "data": {**data, "supported": list(SERVED_VERSIONS)}}}
    if code == HEADER_MISMATCH and isinstance(message, str):
        for header, field in _ROUTING_HEADERS.items():
            if message.startswith(f"{header} header") and header not in headers:
                missing = f"{header} header is missing; it must repeat the request body's {field}"
                return {**payload, "error": {**error, "message": missing}}
    return payload
