"""What a reminder send needs from the network, shared by every channel's sender: the send's
context (its client, the destination rules, the deadline), the one failure a sender raises, and
`post`, which resolves a URL's host once per send, refuses it unless the rules admit the address
(`mesq/kernel/addresses.py`), and connects to the address it checked (the name kept in `Host`
and in TLS SNI and the certificate check), so DNS rebinding cannot aim a webhook at the
deployment's own network. The URL is parsed by `channels.parse_url`, the parser that admitted it.

The senders (`mesq/adapters/reminders/`: the webhook in `delivery.py`, ntfy, Telegram and Web Push
in `senders.py`, email in `smtp.py`) import this module, and `delivery.send_channel` imports the
senders: no sender imports the module that retries it."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..kernel.addresses import UnsafeTarget, resolve_checked_async
from ..kernel.errors import ValidationError
from ..kernel.i18n import DEFAULT_LANGUAGE, Text
from .channels import Channel, Destinations, is_loopback_host, parse_url
from .headers import one_line
from .vapid import Vapid

ATTEMPTS = 3
BACKOFF_SECONDS: tuple[float, ...] = (1.0, 2.0)
#: One attempt's total deadline (connect, TLS, request, answer).
SEND_DEADLINE_SECONDS = 10.0
#: One channel's send in all: every attempt and the backoff between them. Below ATTEMPTS x
#: SEND_DEADLINE_SECONDS on purpose: a receiver that fails fast still gets its three attempts, one
#: that hangs gets one whole attempt and what is left of a second, and then waits for the next
#: round (the retry entries, minutes later) instead of holding its tick (jobs/reminder_tick.py
#: keeps a tick under a minute by claiming nothing it could not finish within this).
CHANNEL_DEADLINE_SECONDS = 20.0
#: A header value of a send may be this long (a VAPID authorization is ~400 characters).
MAX_HTTP_HEADER_CHARS = 4096
#: Reminder occurrences a tick sends at once (its pool; each one's channels go out together).
#: A send mostly waits on a peer: a slot costs a coroutine, a connection (and, for email, a
#: worker thread of anyio's 40). 16 lets a tick whose every endpoint hangs still start
#: 16 x (1 + claim window / CHANNEL_DEADLINE_SECONDS) = 32 occurrences, and healthy endpoints
#: (~0.3 s a send) several hundred, while 16 x 5 channels stays within what one client pools.
MAX_CONCURRENT_SENDS = 16


@dataclass(frozen=True)
class Reach:
    """Where sends may go (`Destinations`), the instance's URL, for links and VAPID, how long one
    attempt may take in all (`deadline`) and one channel's send, its retries included
    (`channel_deadline`); tests of a receiver that never answers shorten both."""

    destinations: Destinations = field(default_factory=Destinations)
    public_url: str = "http://localhost:8000"
    deadline: float = SEND_DEADLINE_SECONDS
    channel_deadline: float = CHANNEL_DEADLINE_SECONDS


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
    deadline: float = SEND_DEADLINE_SECONDS  # one attempt
    channel_deadline: float = CHANNEL_DEADLINE_SECONDS  # one channel, every attempt and backoff
    clock: Callable[[], float] = time.time
    #: The language of the person the sends speak to (reminders/message.py).
    language: str = DEFAULT_LANGUAGE
    #: The addresses resolved for one send (host, port -> address): its retries reuse them.
    pinned: dict[tuple[str, int], str] = field(default_factory=dict)


class SendFailed(Exception):
    """One attempt failed for a reason a person can read (the channel's lastFailure): a template
    for the catalog and its parameters (`text`, said in the reader's language on the page) and
    its English (`reason`)."""

    def __init__(self, reason: str | Text, /, *, final: bool = False, **params: Any) -> None:
        self.text = reason if isinstance(reason, Text) else Text(reason, **params)
        self.reason = str(self.text)
        super().__init__(self.reason)
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
        if refused.unresolvable:
            raise SendFailed("could not resolve the host", final=True) from None
        raise SendFailed("the host resolves to a non-public address", final=True) from None
    context.pinned[(host, port)] = address
    return address


async def resolve_target(url: str, context: SendContext) -> Target:
    """The connection target of a URL, its name resolved once per send and checked (SendFailed)."""
    try:
        parsed = parse_url(url)
    except ValidationError as bad:  # stored before today's URL rules
        raise SendFailed(bad.text, final=True) from None
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
