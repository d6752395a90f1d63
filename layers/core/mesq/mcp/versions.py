"""The protocol versions `/mcp` serves, and the SDK's 2026-07-28 rejections told in those terms.

One URL speaks both eras: 2026-07-28 (per-request `_meta` envelope) and the `initialize`
handshake of 2025-11-25 down to 2024-11-05. The SDK's modern entry only knows its own era, so
its `UnsupportedProtocolVersion` (-32022) names `["2026-07-28"]` as `supported`, and its header
check says "does not match" for a routing header that was never sent. `amend_rejection` rewrites
those two answers before they leave; everything else passes through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_types import HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION
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


def amend_rejection(payload: Any, headers: Mapping[str, str]) -> Any:
    """The SDK's JSON-RPC error `payload`, with the served versions as `supported` and a missing
    routing header called missing; any other payload is returned as is (the same object)."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return payload
    code = error.get("code")
    data = error.get("data")
    message = error.get("message")
    if code == UNSUPPORTED_PROTOCOL_VERSION and isinstance(data, dict) and "supported" in data:
        return {**payload, "error": {**error, "data": {**data, "supported": list(SERVED_VERSIONS)}}}
    if code == HEADER_MISMATCH and isinstance(message, str):
        for header, field in _ROUTING_HEADERS.items():
            if message.startswith(f"{header} header") and header not in headers:
                missing = f"{header} header is missing; it must repeat the request body's {field}"
                return {**payload, "error": {**error, "message": missing}}
    return payload
