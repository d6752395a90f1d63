"""Sending one reminder to one channel: retried with backoff within the tick, and the
outcome recorded on the channel (docs/contract.md §12). httpx's async client is the client; no
redirects are followed (a redirect could lead a signed request somewhere the user never named).

Every attempt runs under a total deadline (`SEND_DEADLINE_SECONDS`, `anyio.fail_after` around
the whole exchange, the first attempt's lookup included), not a per-read timeout: a receiver that
trickles bytes is cut off on time. The sends of one reminder, and the reminders of one tick,
run concurrently (`send_all`, `tick.py`), so a slow destination delays only its own message.

The URL's host was checked when the channel was added, but a name can later resolve anywhere:
each send resolves it once, refuses it unless every address is public (`mesq/adapters/outbound.py`), and
connects to the address it checked (the request keeps the name in `Host` and in TLS SNI and the
certificate check), so DNS rebinding cannot aim a webhook at the deployment's own network. A
loopback URL (only admitted where `channels.check_url` allows loopback: tests, local use) is sent
as it is. The URL is parsed by `channels.parse_url`, the parser that admitted it. Where the owner allows
private destinations (`Destinations.allow_private`), the name is still resolved once and pinned,
only not refused for a private address.

Each channel kind has a `Sender` (one attempt; this module's webhook, `senders.py`'s ntfy,
Telegram and Web Push, `smtp.py`'s email); `send_channel` gives every kind the same retries,
deadline and failure record."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
import httpx
from aws_lambda_powertools import Logger

from ..adapters.outbound import UnsafeTarget, resolve_checked_async, tls_context
from ..kernel.errors import ValidationError
from ..kernel.timestamps import now_timestamp
from .channels import Channel, Destinations, is_loopback_host, parse_url
from .headers import one_line
from .signing import HEADER, signature
from .vapid import Vapid

logger = Logger(child=True)

ATTEMPTS = 3
BACKOFF_SECONDS: tuple[float, ...] = (1.0, 2.0)
SEND_DEADLINE_SECONDS = 10.0
#: A header value of a send may be this long (a VAPID authorization is ~400 characters).
MAX_HTTP_HEADER_CHARS = 4096
#: Sends in flight at once in one process (a tick's, or one test send's).
MAX_CONCURRENT_SENDS = 16


@dataclass(frozen=True)
class Target:
    """Where one send connects, and the name it presents there."""

    url: httpx.URL  # the checked address in place of the name
    host_header: str
    sni_hostname: str | None


@dataclass(frozen=True)
class SendContext:
    """What every sender of one tick (or test send) shares."""

    client: httpx.AsyncClient
    destinations: Destinations = field(default_factory=Destinations)
    public_url: str = "http://localhost:8000"
    vapid: Vapid | None = None
    deadline: float = SEND_DEADLINE_SECONDS
    clock: Callable[[], float] = time.time
    #: The addresses resolved for one send (host, port -> address): its retries reuse them.
    pinned: dict[tuple[str, int], str] = field(default_factory=dict)


class SendFailed(Exception):
    """One attempt failed for a reason a person can read (the channel's lastFailure)."""

    def __init__(self, reason: str, *, final: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.final = final  # retrying cannot help (a refused destination)


#: One attempt to deliver `payload` on a channel: returns on success, raises SendFailed (or an
#: httpx / timeout error) otherwise.
Sender = Callable[[Channel, dict[str, Any], SendContext], Awaitable[None]]


async def resolve_host(host: str, port: int, context: SendContext) -> str:
    """The address to connect to for `host`, resolved once and checked for this send."""
    rules = context.destinations
    if is_loopback_host(host):  # admitted only where loopback is allowed
        return "127.0.0.1" if host == "localhost" else host
    if (host, port) in context.pinned:
        return context.pinned[(host, port)]
    try:
        address = await resolve_checked_async(host, port, require_public=not rules.allow_private)
    except UnsafeTarget as refused:
        why = "could not resolve the host" if refused.unresolvable else "the host resolves to a non-public address"
        raise SendFailed(why, final=True) from None
    context.pinned[(host, port)] = address
    return address


async def resolve_target(url: str, context: SendContext) -> Target:
    """The connection target of a URL, its name resolved once per send and checked (SendFailed)."""
    try:
        parsed = parse_url(url)
    except ValidationError as bad:  # stored before today's URL rules
        raise SendFailed(bad.message, final=True) from None
    host = parsed.host
    host_header = parsed.netloc.decode("ascii")
    if is_loopback_host(host):  # admitted only where loopback is allowed: sent as it is
        return Target(parsed, host_header, None)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    address = await resolve_host(host, port, context)
    return Target(parsed.copy_with(host=address), host_header, host)


async def post(context: SendContext, url: str, body: bytes, headers: Mapping[str, str], *,
               shown: str | None = None) -> httpx.Response:  # fmt: skip
    """One POST to the pinned address of `url` (`shown`: what a failure may name instead of a
    URL that holds a secret, such as Telegram's bot token)."""
    target = await resolve_target(url, context)
    # Every value on one line: no header of a send can be split into two by what it carries.
    sent = {name: one_line(value, MAX_HTTP_HEADER_CHARS) for name, value in headers.items()}
    sent |= {"User-Agent": "MeSQ-Reminders/1", "Host": target.host_header}
    extensions = {"sni_hostname": target.sni_hostname} if target.sni_hostname else {}
    return await context.client.post(target.url, content=body, headers=sent, extensions=extensions)


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


async def send_webhook_once(channel: Channel, payload: dict[str, Any], context: SendContext) -> None:
    body = body_of(payload)
    headers = {"Content-Type": "application/json", HEADER: signature(channel.secret, int(context.clock()), body),
               "X-MeSQ-Delivery": str(payload["id"])}  # fmt: skip
    answer = await post(context, channel.url, body, headers)
    if not 200 <= answer.status_code < 300:
        raise SendFailed(f"HTTP {answer.status_code}")


def _senders() -> dict[str, Sender]:
    from .senders import send_ntfy, send_telegram, send_webpush  # the adapters, beside this module
    from .smtp import send_email

    return {"webhook": send_webhook_once, "email": send_email, "ntfy": send_ntfy, "telegram": send_telegram,
            "webpush": send_webpush}  # fmt: skip


async def send_channel(
    channel: Channel,
    payload: dict[str, Any],
    context: SendContext,
    *,
    attempts: int = ATTEMPTS,
    backoff: Sequence[float] = BACKOFF_SECONDS,
) -> dict[str, Any] | None:
    """None once delivered; else the last failure after `attempts` tries ({at, attempts, reason}).
    Each attempt runs under the total deadline."""
    sender = _senders().get(channel.kind)
    if sender is None:
        return _failure(0, f"unknown channel kind {channel.kind}")
    reason = ""
    deadline = context.deadline
    context = replace(context, pinned={})  # this send's own resolutions
    for attempt in range(attempts):
        if attempt:
            await anyio.sleep(backoff[min(attempt - 1, len(backoff) - 1)])
        try:
            with anyio.fail_after(deadline):
                await sender(channel, payload, context)
        except SendFailed as failed:
            if failed.final:
                return _failure(attempt, failed.reason)
            reason = failed.reason
        except (TimeoutError, httpx.TimeoutException):
            reason = f"no answer within {deadline:g} s"
        except httpx.HTTPError:
            reason = "could not connect"
        except Exception as error:
            # Not retried (the same record and message fail the same way), and logged by its type
            # only: a message can hold the channel's URL or secret.
            logger.error("reminder send failed unexpectedly", extra={"kind": channel.kind,
                                                                      "error": type(error).__name__})  # fmt: skip
            return _failure(attempt + 1, "the send failed unexpectedly (an error in MeSQ, logged on the server)")
        else:
            return None
    return _failure(attempts, reason)


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
    """A webhook send (`send_channel` with the default destinations)."""
    context = SendContext(client=client, deadline=deadline, clock=clock)
    return await send_channel(channel, payload, context, attempts=attempts, backoff=backoff)


async def send_all(
    channels: Sequence[tuple[str, Channel]],
    payload: dict[str, Any],
    *,
    client: httpx.AsyncClient,
    attempts: int = ATTEMPTS,
    backoff: Sequence[float] = BACKOFF_SECONDS,
    context: SendContext | None = None,
) -> dict[str, dict[str, Any] | None]:
    """Each channel's outcome (None = delivered), the channels sent to concurrently."""
    shared = context or SendContext(client=client)
    outcomes: dict[str, dict[str, Any] | None] = {}

    async def one(channel_id: str, channel: Channel) -> None:
        outcomes[channel_id] = await send_channel(channel, payload, shared, attempts=attempts, backoff=backoff)

    async with anyio.create_task_group() as group:
        for channel_id, channel in channels:
            group.start_soon(one, channel_id, channel)
    return outcomes
