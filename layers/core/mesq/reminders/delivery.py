"""Sending one reminder to one webhook: signed, retried with backoff within the tick, and the
outcome recorded on the channel (docs/contract.md §12). httpx is the client; no redirects are
followed (a redirect could lead a signed request somewhere the user never named).

The URL's host was checked when the channel was added, but a name can later resolve anywhere:
each send resolves it once, refuses it unless every address is public (`mesq/outbound.py`), and
connects to the address it checked (the request keeps the name in `Host` and in TLS SNI and the
certificate check), so DNS rebinding cannot aim a webhook at the deployment's own network. A
loopback URL (only admitted where `channels.check_url` allows loopback: tests, local use) is sent
as it is."""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from ..outbound import UnsafeTarget, resolve_checked
from ..timestamps import now_timestamp
from .channels import Channel
from .signing import HEADER, signature

ATTEMPTS = 3
BACKOFF_SECONDS: tuple[float, ...] = (1.0, 2.0)
TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Target:
    """Where one send connects, and the name it presents there."""

    url: httpx.URL  # the checked address in place of the name
    host_header: str
    sni_hostname: str | None


def resolve_target(url: str) -> Target:
    """The connection target of a webhook URL, its name resolved once and checked (UnsafeTarget)."""
    parsed = httpx.URL(url)
    host = parsed.host
    host_header = parsed.netloc.decode("ascii")
    try:
        literal: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if host == "localhost" or (literal is not None and literal.is_loopback):
        return Target(parsed, host_header, None)  # admitted only where loopback is allowed
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return Target(parsed.copy_with(host=resolve_checked(host, port)), host_header, host)


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
    try:
        target = resolve_target(channel.url)
    except UnsafeTarget as refused:
        reason = "could not resolve the host" if refused.unresolvable else "the host resolves to a non-public address"
        return {"at": now_timestamp(), "attempts": 0, "reason": reason}
    extensions = {"sni_hostname": target.sni_hostname} if target.sni_hostname else {}
    reason = ""
    for attempt in range(ATTEMPTS):
        if attempt:
            sleep(backoff[min(attempt - 1, len(backoff) - 1)])
        headers = {
            "Content-Type": "application/json",
            HEADER: signature(channel.secret, int(clock()), body),
            "X-MeSQ-Delivery": str(payload["id"]),
            "User-Agent": "MeSQ-Reminders/1",
            "Host": target.host_header,
        }
        try:
            answer = client.post(target.url, content=body, headers=headers, timeout=TIMEOUT_SECONDS,
                                 extensions=extensions)  # fmt: skip
        except httpx.TimeoutException:
            reason = "timed out"
        except httpx.HTTPError:
            reason = "could not connect"
        else:
            if 200 <= answer.status_code < 300:
                return None
            reason = f"HTTP {answer.status_code}"
    return {"at": now_timestamp(), "attempts": ATTEMPTS, "reason": reason}
