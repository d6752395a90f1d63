"""Sending one reminder to one webhook: signed, retried with backoff within the tick, and the
outcome recorded on the channel (docs/contract.md §12). httpx's async client is the client; no
redirects are followed (a redirect could lead a signed request somewhere the user never named).

Every attempt runs under a total deadline (`SEND_DEADLINE_SECONDS`, `anyio.fail_after` around
the whole exchange, the first attempt's lookup included), not a per-read timeout: a receiver that
trickles bytes is cut off on time. The sends of one reminder, and the reminders of one tick,
run concurrently (`send_all`, `tick.py`), so a slow destination delays only its own message.

The URL's host was checked when the channel was added, but a name can later resolve anywhere:
each send resolves it once, refuses it unless every address is public (`mesq/outbound.py`), and
connects to the address it checked (the request keeps the name in `Host` and in TLS SNI and the
certificate check), so DNS rebinding cannot aim a webhook at the deployment's own network. A
loopback URL (only admitted where `channels.check_url` allows loopback: tests, local use) is sent
as it is. The URL is parsed by `channels.parse_url`, the parser that admitted it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from ..errors import ValidationError
from ..outbound import UnsafeTarget, resolve_checked_async, tls_context
from ..timestamps import now_timestamp
from .channels import Channel, literal_address, parse_url
from .signing import HEADER, signature

ATTEMPTS = 3
BACKOFF_SECONDS: tuple[float, ...] = (1.0, 2.0)
SEND_DEADLINE_SECONDS = 10.0
#: Sends in flight at once in one process (a tick's, or one test send's).
MAX_CONCURRENT_SENDS = 16


@dataclass(frozen=True)
class Target:
    """Where one send connects, and the name it presents there."""

    url: httpx.URL  # the checked address in place of the name
    host_header: str
    sni_hostname: str | None


async def resolve_target(url: str) -> Target:
    """The connection target of a webhook URL, its name resolved once and checked (UnsafeTarget)."""
    parsed = parse_url(url)
    host = parsed.host
    host_header = parsed.netloc.decode("ascii")
    literal = literal_address(host)
    if host == "localhost" or (literal is not None and literal.is_loopback):
        return Target(parsed, host_header, None)  # admitted only where loopback is allowed
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    address = await resolve_checked_async(host, port)
    return Target(parsed.copy_with(host=address), host_header, host)


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def new_client() -> httpx.AsyncClient:
    """The client of one tick or test send: pooled up to the concurrency bound, no redirects, no
    proxy from the environment (it would undo the pinning)."""
    limits = httpx.Limits(max_connections=MAX_CONCURRENT_SENDS, max_keepalive_connections=MAX_CONCURRENT_SENDS)
    return httpx.AsyncClient(follow_redirects=False, trust_env=False, limits=limits, verify=tls_context(),
                             timeout=SEND_DEADLINE_SECONDS)  # fmt: skip


def _failure(attempts: int, reason: str) -> dict[str, Any]:
    return {"at": now_timestamp(), "attempts": attempts, "reason": reason}


async def send_webhook(
    channel: Channel,
    payload: dict[str, Any],
    *,
    client: httpx.AsyncClient,
    attempts: int = ATTEMPTS,
    backoff: Sequence[float] = BACKOFF_SECONDS,
    deadline: float = SEND_DEADLINE_SECONDS,
    clock: Callable[[], float] = time.time,
) -> dict[str, Any] | None:
    """None on a 2xx answer; else the last failure after `attempts` tries ({at, attempts, reason})."""
    body = body_of(payload)
    target: Target | None = None
    reason = ""
    for attempt in range(attempts):
        if attempt:
            await anyio.sleep(backoff[min(attempt - 1, len(backoff) - 1)])
        try:
            with anyio.fail_after(deadline):
                if target is None:
                    target = await resolve_target(channel.url)
                headers = {
                    "Content-Type": "application/json",
                    HEADER: signature(channel.secret, int(clock()), body),
                    "X-MeSQ-Delivery": str(payload["id"]),
                    "User-Agent": "MeSQ-Reminders/1",
                    "Host": target.host_header,
                }
                extensions = {"sni_hostname": target.sni_hostname} if target.sni_hostname else {}
                answer = await client.post(target.url, content=body, headers=headers, extensions=extensions)
        except UnsafeTarget as refused:
            why = "could not resolve the host" if refused.unresolvable else "the host resolves to a non-public address"
            return _failure(0, why)
        except ValidationError as bad:  # stored before today's URL rules
            return _failure(0, bad.message)
        except (TimeoutError, httpx.TimeoutException):
            reason = f"no answer within {deadline:g} s"
        except httpx.HTTPError:
            reason = "could not connect"
        else:
            if 200 <= answer.status_code < 300:
                return None
            reason = f"HTTP {answer.status_code}"
    return _failure(attempts, reason)


async def send_all(
    channels: Sequence[tuple[str, Channel]],
    payload: dict[str, Any],
    *,
    client: httpx.AsyncClient,
    attempts: int = ATTEMPTS,
    backoff: Sequence[float] = BACKOFF_SECONDS,
) -> dict[str, dict[str, Any] | None]:
    """Each channel's outcome (None = delivered), the channels sent to concurrently."""
    outcomes: dict[str, dict[str, Any] | None] = {}

    async def one(channel_id: str, channel: Channel) -> None:
        outcomes[channel_id] = await send_webhook(channel, payload, client=client, attempts=attempts, backoff=backoff)

    async with anyio.create_task_group() as group:
        for channel_id, channel in channels:
            group.start_soon(one, channel_id, channel)
    return outcomes
