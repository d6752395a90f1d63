"""The token pair a refresh answered, sealed under the refresh token that was presented.

A refresh token presented again within `REFRESH_GRACE_SECONDS` by its client gets the answer
its first presentation got (docs/decisions.md, "refresh-token grace"). The pair is kept on the
used refresh token's item as an AES-256-GCM box whose key is derived (HMAC-SHA256) from the
presented refresh token itself: the store holds only that token's SHA-256, so nothing stored
opens the box, and nothing in it is in the clear. The item key is the associated data, so a box
copied onto another item does not open.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from typing import Any

_LABEL = b"mesq/oauth/refresh-answer/v1"
_NONCE_BYTES = 12


def _key(secret: str) -> bytes:
    return hmac.new(secret.encode("utf-8"), _LABEL, hashlib.sha256).digest()


def seal(secret: str, values: dict[str, Any], context: str) -> str:
    """`values` (JSON) sealed under `secret`, bound to `context`; URL-safe base64 text."""
    # Imported here: the MCP function's cold start authenticates access tokens from this package
    # and never seals anything (tests/mcp/test_cold_import.py).
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(_NONCE_BYTES)
    box = AESGCM(_key(secret)).encrypt(nonce, json.dumps(values).encode("utf-8"), context.encode("utf-8"))
    return base64.urlsafe_b64encode(nonce + box).decode("ascii")


def unseal(secret: str, sealed: str, context: str) -> dict[str, Any] | None:
    """What `seal` sealed, or None when `secret` or `context` is not the one it was sealed with."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        raw = base64.urlsafe_b64decode(sealed.encode("ascii"))
        opened = AESGCM(_key(secret)).decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], context.encode("utf-8"))
        values = json.loads(opened)
    except (InvalidTag, ValueError, binascii.Error, UnicodeError):
        return None
    return values if isinstance(values, dict) else None
