"""Sending one reminder to one webhook: signed, retried with backoff within the tick, and the
outcome recorded on the channel (docs/contract.md §12). httpx is the client; no redirects are
followed (a redirect could lead a signed request somewhere the user never named)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from ..timestamps import now_timestamp
from .channels import Channel
from .signing import HEADER, signature

ATTEMPTS = 3
BACKOFF_SECONDS: tuple[float, ...] = (1.0, 2.0)
TIMEOUT_SECONDS = 5.0


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def send_webhook(
    channel: Channel,
    payload: dict[str, Any],
    *,
    client: httpx.Client,
    backoff: Sequence[float] = BACKOFF_SECONDS,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any] | None:
    """None on a 2xx answer; else the last failure after ATTEMPTS tries ({at, attempts, reason})."""
    body = body_of(payload)
    reason = ""
    for attempt in range(ATTEMPTS):
        if attempt:
            sleep(backoff[min(attempt - 1, len(backoff) - 1)])
        headers = {
            "Content-Type": "application/json",
            HEADER: signature(channel.secret, int(clock()), body),
            "X-MeSQ-Delivery": str(payload["id"]),
            "User-Agent": "MeSQ-Reminders/1",
        }
        try:
            answer = client.post(channel.url, content=body, headers=headers, timeout=TIMEOUT_SECONDS)
        except httpx.TimeoutException:
            reason = "timed out"
        except httpx.HTTPError:
            reason = "could not connect"
        else:
            if 200 <= answer.status_code < 300:
                return None
            reason = f"HTTP {answer.status_code}"
    return {"at": now_timestamp(), "attempts": ATTEMPTS, "reason": reason}
