"""A user's reminder delivery channels (webhooks), managed in the browser only.

Items `U#<user>` / `REMIND#CHANNEL#<id>`: {id, kind "webhook", url, sealed (the signing secret,
sealed with the user and channel ids as context), createdAt, lastSuccessAt, lastFailure}. The
secret is generated here and shown once; the stored form cannot be read back in the clear
without the sealer.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import secrets
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import NotFound, ValidationError
from ..keys import user_partition
from ..outbound import IPAddress, is_public_address
from ..sealing.ports import Sealer
from ..store.paging import walk
from ..store.ports import Condition, ConditionFailed, Item, ItemStore, Update

PREFIX = "REMIND#CHANNEL#"
MAX_CHANNELS = 5
URL_MAX = 2000
#: A host whose last label is a number (or 0x...): no top-level domain is, so it is an address.
_NUMERIC_HOST = re.compile(r"(?:.*\.)?(?:[0-9]+|0x[0-9a-f]*)\.?", re.IGNORECASE)


@dataclass(frozen=True)
class Channel:
    id: str
    url: str
    secret: str


def _context(user_id: str, channel_id: str) -> dict[str, str]:
    return {"purpose": "reminder-webhook", "userId": user_id, "channelId": channel_id}


def parse_url(url: str) -> httpx.URL:
    """A webhook URL as the sender reads it (httpx's parser, IDNA included): adding a channel and
    sending to it parse the same way, so what was admitted can always be sent to."""
    try:
        parsed = httpx.URL(url)
        port = parsed.port
    except (httpx.InvalidURL, ValueError) as bad:
        raise ValidationError(f"the webhook URL cannot be used ({bad})") from None
    if parsed.scheme not in ("https", "http") or not parsed.host:
        raise ValidationError("the webhook URL must be an https:// URL")
    if parsed.userinfo:
        raise ValidationError("the webhook URL must not hold a user name or password")
    if port is not None and not 0 < port < 65536:
        raise ValidationError("the webhook URL's port must be between 1 and 65535")
    if _NUMERIC_HOST.fullmatch(parsed.host) and literal_address(parsed.host) is None:
        # 127.1, 0x7f.0.0.1, 2130706433: forms resolvers read as an address in many ways
        raise ValidationError("write an address host as four decimal numbers, such as 203.0.113.7")
    return parsed


def literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def check_url(url: str, *, allow_loopback: bool) -> str:
    """https to a public host; http only to a loopback address and only where allowed (tests,
    local development), so a webhook cannot aim the service at its own private network."""
    url = url.strip()
    if len(url) > URL_MAX:
        raise ValidationError(f"the webhook URL must be at most {URL_MAX} characters")
    parts = parse_url(url)
    address = literal_address(parts.host)
    loopback = parts.host == "localhost" or (address is not None and address.is_loopback)
    if loopback:
        if not allow_loopback:
            raise ValidationError("the webhook URL must name a public host")
        return url
    if parts.scheme != "https":
        raise ValidationError("the webhook URL must be an https:// URL")
    if address is not None and not is_public_address(address):
        raise ValidationError("the webhook URL must name a public host")
    return url


def channel_records(items: ItemStore, user_id: str) -> list[Item]:
    return sorted(walk(items, user_partition(user_id), prefix=PREFIX), key=lambda c: str(c["createdAt"]))


def add_webhook(items: ItemStore, sealer: Sealer, user_id: str, url: str, now: str, *, allow_loopback: bool) -> Channel:
    """A new channel; returns it with its secret (shown to the user once)."""
    checked = check_url(url, allow_loopback=allow_loopback)
    if len(channel_records(items, user_id)) >= MAX_CHANNELS:
        raise ValidationError(f"at most {MAX_CHANNELS} reminder channels; delete one first")
    channel_id = secrets.token_urlsafe(9)
    secret = "whsec_" + secrets.token_urlsafe(24)
    record: Item = {
        "pk": user_partition(user_id),
        "sk": PREFIX + channel_id,
        "id": channel_id,
        "kind": "webhook",
        "url": checked,
        "sealed": sealer.seal(secret.encode("utf-8"), _context(user_id, channel_id)),
        "createdAt": now,
        "lastSuccessAt": None,
        "lastFailure": None,
    }
    items.put(record, Condition(exists=False))
    return Channel(channel_id, checked, secret)


def delete_channel(items: ItemStore, user_id: str, channel_id: str) -> None:
    """NotFound unless the user has that channel (another user's id is simply not found)."""
    try:
        items.delete((user_partition(user_id), PREFIX + channel_id), Condition(exists=True))
    except ConditionFailed:
        raise NotFound("that reminder channel does not exist") from None


def find_channel(items: ItemStore, user_id: str, channel_id: str) -> Item:
    record = items.get((user_partition(user_id), PREFIX + channel_id))
    if record is None:
        raise NotFound("that reminder channel does not exist")
    return record


def opened(sealer: Sealer, user_id: str, record: Item) -> Channel:
    secret = sealer.open(record["sealed"], _context(user_id, str(record["id"]))).decode("utf-8")
    return Channel(str(record["id"]), str(record["url"]), secret)


def record_outcome(items: ItemStore, user_id: str, channel_id: str, failure: dict[str, Any] | None, now: str) -> None:
    """The channel's last success time, or its last failure; nothing when it was deleted meanwhile."""
    changes: dict[str, Any] = {"lastFailure": failure} if failure is not None else {"lastSuccessAt": now}
    op = Update((user_partition(user_id), PREFIX + channel_id), set=changes, condition=Condition(exists=True))
    with contextlib.suppress(ConditionFailed):  # deleted meanwhile: nothing to record
        items.update(op)
