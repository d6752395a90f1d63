"""Sending one reminder to one channel: retried with backoff within the tick, and the
outcome recorded on the channel (docs/contract.md §12). httpx's async client is the client; no
redirects are followed (a redirect could lead a signed request somewhere the user never named).

Every attempt runs under a total deadline (`SEND_DEADLINE_SECONDS`, `anyio.fail_after` around
the whole exchange, the first attempt's lookup included), not a per-read timeout: a receiver that
trickles bytes is cut off on time; and one channel's attempts with their backoff run under the
channel's total deadline (`CHANNEL_DEADLINE_SECONDS`), so no channel holds its tick longer. The
sends of one reminder, and the reminders of one tick, run concurrently (`send_all`,
`mesq/jobs/reminder_tick.py`), so a slow destination delays only its own message.

The URL's host was checked when the channel was added, but a name can later resolve anywhere:
each send resolves it once and connects to the address it checked (`mesq/reminders/transport.py`,
over mesq/kernel/addresses.py).
A loopback URL (only admitted where `channels.check_url` allows loopback: tests, local use) is sent
as it is. Where the owner allows private destinations (`Destinations.allow_private`), the name is
still resolved once and pinned, only not refused for a private address.

Each channel kind has a `Sender` (one attempt; this module's webhook, `senders.py`'s ntfy,
Telegram and Web Push, `smtp.py`'s email); `send_channel` gives every kind the same retries,
deadline and failure record."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import anyio
import httpx
from aws_lambda_powertools import Logger

from ...kernel.i18n import Text
from ...kernel.timestamps import now_timestamp
from ...reminders.channels import MAX_CHANNELS, Channel
from ...reminders.signing import HEADER, signature
from ...reminders.transport import (
    ATTEMPTS,
    BACKOFF_SECONDS,
    MAX_CONCURRENT_SENDS,
    SEND_DEADLINE_SECONDS,
    SendContext,
    Sender,
    SendFailed,
    body_of,
    post,
)
from ..outbound import pinned_client
from .senders import send_ntfy, send_telegram, send_webpush
from .smtp import send_email

logger = Logger(child=True)


def new_client() -> httpx.AsyncClient:
    """The client of one tick or test send: no redirects, no proxy from the environment (it would
    undo the pinning). Its pool holds a connection for every send a tick can have in flight (each
    of its occurrences to every channel of a user): a send never waits for a connection that
    another user's hanging endpoint holds."""
    connections = MAX_CONCURRENT_SENDS * MAX_CHANNELS
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=MAX_CONCURRENT_SENDS)
    return pinned_client(SEND_DEADLINE_SECONDS, limits)


def _failure(attempts: int, reason: Text) -> dict[str, Any]:
    """A channel's lastFailure: its reason in English and as a template with its parameters
    (`said`: the settings page says it in the reader's language)."""
    return {"at": now_timestamp(), "attempts": attempts, "reason": str(reason), "said": reason.stored()}


async def send_webhook_once(channel: Channel, payload: dict[str, Any], context: SendContext) -> None:
    body = body_of(payload)
    headers = {"Content-Type": "application/json", HEADER: signature(channel.secret, int(context.clock()), body),
               "X-MeSQ-Delivery": str(payload["id"])}  # fmt: skip
    answer = await post(context, channel.url, body, headers)
    if not 200 <= answer.status_code < 300:
        raise SendFailed("HTTP %(status_code)s", status_code=answer.status_code)


def _senders() -> dict[str, Sender]:
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
    Each attempt runs under its deadline, and all of them with their backoff under the channel's
    (`context.channel_deadline`): an attempt the channel's deadline cuts short is its failure."""
    sender = _senders().get(channel.kind)
    if sender is None:
        return _failure(0, Text("unknown channel kind %(kind)s", kind=channel.kind))
    context = replace(context, pinned={})  # this send's own resolutions
    tried = _Tries(Text("could not connect"))  # each attempt replaces the reason with its own
    with anyio.move_on_after(context.channel_deadline) as whole:
        return await _attempts(sender, channel, payload, context, tried, attempts, backoff)
    if whole.cancelled_caught and tried.sending:
        tried.reason = Text("no answer within %(seconds)s s", seconds=format(context.channel_deadline, "g"))
    return _failure(tried.count, tried.reason)


@dataclass
class _Tries:
    """What `send_channel` knows when the channel's deadline ends its attempts: the last reason,
    how many attempts began, and whether one was under way (else it was waiting to retry)."""

    reason: Text
    count: int = 0
    sending: bool = False


async def _attempts(
    sender: Sender,
    channel: Channel,
    payload: dict[str, Any],
    context: SendContext,
    tried: _Tries,
    attempts: int,
    backoff: Sequence[float],
) -> dict[str, Any] | None:
    deadline = context.deadline
    for attempt in range(attempts):
        if attempt:
            await anyio.sleep(backoff[min(attempt - 1, len(backoff) - 1)])
        tried.count, tried.sending = attempt + 1, True
        try:
            with anyio.fail_after(deadline):
                await sender(channel, payload, context)
        except SendFailed as failed:
            if failed.final:
                return _failure(attempt, failed.text)
            tried.reason = failed.text
        except (TimeoutError, httpx.TimeoutException):
            tried.reason = Text("no answer within %(seconds)s s", seconds=format(deadline, "g"))
        except httpx.HTTPError:
            tried.reason = Text("could not connect")
        except Exception as error:
            # Not retried (the same record and message fail the same way), and logged by its type
            # only: a message can hold the channel's URL or secret.
            logger.error("reminder send failed unexpectedly", extra={"kind": channel.kind,
                                                                      "error": type(error).__name__})  # fmt: skip
            return _failure(attempt + 1, Text("the send failed unexpectedly (an error in MeSQ, logged on the server)"))
        else:
            return None
        tried.sending = False
    return _failure(attempts, tried.reason)


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
