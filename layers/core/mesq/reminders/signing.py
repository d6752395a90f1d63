"""The webhook signature (docs/contract.md §12): `X-MeSQ-Signature: t=<unix>,v1=<hex>` where
v1 = HMAC-SHA256(secret, f"{t}.{body}"). `verify` is what a receiver does; MeSQ's tests use it
as their receiver, and it is the reference for docs/contract.md."""

from __future__ import annotations

import hashlib
import hmac

HEADER = "X-MeSQ-Signature"
REPLAY_WINDOW_SECONDS = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode("ascii") + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, header: str, body: bytes, now: int, window: int = REPLAY_WINDOW_SECONDS) -> bool:
    """True when `header` signs `body` with `secret` and its time is within `window` of `now`."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    stamp, given = parts.get("t", ""), parts.get("v1", "")
    if not stamp.isdigit() or abs(now - int(stamp)) > window:
        return False
    return hmac.compare_digest(signature(secret, int(stamp), body), f"t={stamp},v1={given}")
