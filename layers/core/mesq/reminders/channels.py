"""A user's reminder delivery channels, managed in the browser only: webhook, email (SMTP),
ntfy, Telegram and Web Push (docs/reminders.md).

Items `U#<user>` / `REMIND#CHANNEL#<id>`: {id, kind, url (where it sends: the webhook, the ntfy
topic, `smtp://host:port`, the Telegram API base, the push endpoint), config (the kind's
non-secret fields), sealed (the kind's secret, sealed with the user and channel ids as context:
the webhook's signing secret, the SMTP password, the ntfy token, the bot token, the push
subscription's keys), createdAt, lastSuccessAt, lastFailure}. A webhook's secret is generated
here and shown once; no secret is ever read back to a client.

Destinations: https to a public host. `allow_private` (`MESQ_ALLOW_PRIVATE_DESTINATIONS`, the
owner's choice on `mesq serve`) also admits plain http and private, loopback and link-local
addresses, for webhooks, ntfy, Web Push and SMTP alike; `allow_loopback` (tests) admits loopback only.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import ipaddress
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric import ec

from ..kernel.addresses import IPAddress, is_public_address
from ..kernel.errors import NotFound, ValidationError
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.sealer import Sealer
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore, Update
from ..kernel.typed_digits import ascii_digits, typed_whole_number
from ..store.paging import walk

PREFIX = "REMIND#CHANNEL#"
MAX_CHANNELS = 5
URL_MAX = 2000
#: A host whose last label is a number (or 0x...): no top-level domain is, so it is an address.
_NUMERIC_HOST = re.compile(r"(?:.*\.)?(?:[0-9]+|0x[0-9a-f]*)\.?", re.IGNORECASE)


KINDS = ("webhook", "email", "ntfy", "telegram", "webpush")
PRIVATE_SETTING = "MESQ_ALLOW_PRIVATE_DESTINATIONS"
TELEGRAM_API = "https://api.telegram.org"
_CHAT_ID = re.compile(r"-?[0-9]{1,20}|@[A-Za-z0-9_]{5,32}")
_BOT_TOKEN = re.compile(r"[0-9]{1,20}:[A-Za-z0-9_-]{20,100}")
_EMAIL = re.compile(r"[^@\s<>,;]{1,64}@[^@\s<>,;]{1,255}")
SMTP_SECURITY = ("starttls", "tls", "none")


@dataclass(frozen=True)
class Channel:
    id: str
    url: str
    secret: str
    kind: str = "webhook"
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Destinations:
    """Which destinations a send or a new channel may name (see the module docstring)."""

    allow_loopback: bool = False
    allow_private: bool = False
    telegram_api: str = TELEGRAM_API


def _context(user_id: str, channel_id: str) -> dict[str, str]:
    return {"purpose": "reminder-webhook", "userId": user_id, "channelId": channel_id}


def parse_url(url: str) -> httpx.URL:
    """A webhook URL as the sender reads it (httpx's parser, IDNA included): adding a channel and
    sending to it parse the same way, so what was admitted can always be sent to."""
    try:
        parsed = httpx.URL(url)
        port = parsed.port
    except (httpx.InvalidURL, ValueError):
        # httpx's reason ("Invalid port: ':1'") is English whatever the reader's language: the
        # message names the URL and what to check instead.
        raise ValidationError(
            "the URL %(url)s cannot be used: check its host, its port and the brackets around an IPv6 address",
            url=quoted(url),
        ) from None
    if parsed.scheme not in ("https", "http") or not parsed.host:
        raise ValidationError("the URL must be an https:// URL")
    if "%" in parsed.host:  # httpx takes "https://exa mple.com/" as the host "exa%20mple.com": never reachable
        raise ValidationError(
            "the URL %(url)s cannot be used: check its host, its port and the brackets around an IPv6 address",
            url=quoted(url),
        )
    if parsed.userinfo:
        raise ValidationError("the webhook URL must not hold a user name or password")
    if port is not None and not 0 < port < 65536:
        raise ValidationError("the webhook URL's port must be between 1 and 65535")
    if _NUMERIC_HOST.fullmatch(parsed.host) and literal_address(parsed.host) is None:
        # 127.1, 0x7f.0.0.1, 2130706433: forms resolvers read as an address in many ways
        raise ValidationError("write an address host as four decimal numbers, such as 203.0.113.7")
    return parsed


#: What a message calls a webhook channel's URL (the default destination `check_url` names).
WEBHOOK_URL = Text("webhook URL")


def literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _not_public(what: Text) -> ValidationError:
    return ValidationError(
        "the %(what)s must name a public host; home-network and loopback addresses need %(private_setting)s=true on "
        "the server",
        what=what,
        private_setting=PRIVATE_SETTING,
    )


def is_loopback_host(host: str) -> bool:
    address = literal_address(host)
    return host == "localhost" or (address is not None and address.is_loopback)


def check_host(host: str, what: Text, *, allow_loopback: bool, allow_private: bool = False) -> None:
    """A destination host (a name is resolved and checked again at each send)."""
    if allow_private:
        return
    if is_loopback_host(host):
        if not allow_loopback:
            raise _not_public(what)
        return
    address = literal_address(host)
    if address is not None and not is_public_address(address):
        raise _not_public(what)


def check_url(url: str, *, allow_loopback: bool, allow_private: bool = False, what: Text = WEBHOOK_URL) -> str:
    """https to a public host; http only to a loopback address and only where allowed (tests),
    or anywhere when the owner allows private destinations, so a channel cannot aim the
    service at its own private network unless the owner said so."""
    url = url.strip()
    if len(url) > URL_MAX:
        raise ValidationError("the %(what)s must be at most %(url_max)s characters", what=what, url_max=URL_MAX)
    parts = parse_url(url)
    check_host(parts.host, what, allow_loopback=allow_loopback, allow_private=allow_private)
    if parts.scheme != "https" and not allow_private and not is_loopback_host(parts.host):
        raise ValidationError(
            "the %(what)s must be an https:// URL (plain http needs %(private_setting)s=true)",
            what=what,
            private_setting=PRIVATE_SETTING,
        )
    return url


def channel_records(items: ItemStore, user_id: str) -> list[Item]:
    return sorted(walk(items, user_partition(user_id), prefix=PREFIX), key=lambda c: str(c["createdAt"]))


def add_webhook(items: ItemStore, sealer: Sealer, user_id: str, url: str, now: str, *, allow_loopback: bool,
                allow_private: bool = False) -> Channel:  # fmt: skip
    """A new webhook channel; returns it with its secret (shown to the user once)."""
    checked = check_url(url, allow_loopback=allow_loopback, allow_private=allow_private)
    secret = "whsec_" + secrets.token_urlsafe(24)
    return _store(items, sealer, user_id, "webhook", checked, {}, secret, now)


def _store(items: ItemStore, sealer: Sealer, user_id: str, kind: str, url: str, config: dict[str, Any],
           secret: str, now: str) -> Channel:  # fmt: skip
    if len(channel_records(items, user_id)) >= MAX_CHANNELS:
        raise ValidationError("at most %(max_channels)s reminder channels; delete one first", max_channels=MAX_CHANNELS)
    channel_id = secrets.token_urlsafe(9)
    record: Item = {
        "pk": user_partition(user_id),
        "sk": PREFIX + channel_id,
        "id": channel_id,
        "kind": kind,
        "url": url,
        "config": config,
        "sealed": sealer.seal(secret.encode("utf-8"), _context(user_id, channel_id)),
        "createdAt": now,
        "lastSuccessAt": None,
        "lastFailure": None,
    }
    items.put(record, Condition(exists=False))
    return Channel(channel_id, url, secret, kind, config)


def _text(fields: Mapping[str, str], name: str, label: Text, *, limit: int = 200, required: bool = True) -> str:
    value = (fields.get(name) or "").strip()
    if required and not value:
        raise ValidationError("%(label)s is required", label=label)
    if len(value) > limit or any(ord(c) < 32 for c in value):
        raise ValidationError("%(label)s must be at most %(limit)s characters on one line", label=label, limit=limit)
    return value


def add_channel(items: ItemStore, sealer: Sealer, user_id: str, kind: str, fields: Mapping[str, str], now: str,
                destinations: Destinations) -> Channel:  # fmt: skip
    """A new channel of `kind` from its form's fields (ValidationError names the bad one)."""
    rules = {"allow_loopback": destinations.allow_loopback, "allow_private": destinations.allow_private}
    if kind == "webhook":
        return add_webhook(items, sealer, user_id, fields.get("url", ""), now, **rules)
    if kind == "email":
        host = _text(fields, "host", Text("the SMTP host"), limit=253).rstrip(".").lower()
        # Any script's digits (full-width, ٢٥) are the number they are; the saved smtp://host:25 shows it.
        port = typed_whole_number((fields.get("port") or "").strip() or "587", max_digits=5)
        if port is None or not 0 < port < 65536:
            raise ValidationError("the SMTP port must be a number from 1 to 65535")
        security = fields.get("security") or "starttls"
        if security not in SMTP_SECURITY:
            raise ValidationError("the SMTP security must be starttls, tls or none")
        url = f"smtp://{host}:{port}"
        parse_url(f"https://{host}:{port}/")  # the same host rules as every other destination
        check_host(host, Text("SMTP host"), **rules)
        if security == "none" and not (destinations.allow_private or is_loopback_host(host)):
            raise ValidationError(
                "SMTP without TLS needs %(private_setting)s=true on the server", private_setting=PRIVATE_SETTING
            )
        config = {
            "security": security,
            "user": _text(fields, "user", Text("the SMTP user"), required=False),
            "from": _address(fields, "from", Text("the From address")),
            "to": _address(fields, "to", Text("the To address")),
        }
        return _store(items, sealer, user_id, "email", url, config, fields.get("password") or "", now)
    if kind == "ntfy":
        url = check_url(fields.get("url", ""), what=Text("ntfy topic URL"), **rules)
        if not parse_url(url).path.strip("/"):
            raise ValidationError("the ntfy topic URL must end with the topic, such as https://ntfy.sh/my-topic")
        token = _text(fields, "token", Text("the ntfy access token"), required=False)
        return _store(items, sealer, user_id, "ntfy", url, {}, token, now)
    if kind == "telegram":
        token = _text(fields, "token", Text("the bot token"))
        if not _BOT_TOKEN.fullmatch(token):
            raise ValidationError("the bot token looks like 123456:ABC-DEF… (from @BotFather)")
        chat = ascii_digits(_text(fields, "chat", Text("the chat id"), limit=40))
        if not _CHAT_ID.fullmatch(chat):
            raise ValidationError("the chat id is a number (or @channelname)")
        api = check_url(destinations.telegram_api, what=Text("Telegram API URL"), **rules).rstrip("/")
        return _store(items, sealer, user_id, "telegram", api, {"chat": chat}, token, now)
    if kind == "webpush":
        endpoint = check_url(fields.get("endpoint", ""), what=Text("push endpoint"), **rules)
        keys = {"p256dh": _text(fields, "p256dh", Text("the subscription key p256dh"), limit=200),
                "auth": _text(fields, "auth", Text("the subscription key auth"), limit=100)}  # fmt: skip
        for name, value in keys.items():
            if not re.fullmatch(r"[A-Za-z0-9_-]+=*", value):
                raise ValidationError("the subscription key %(name)s must be base64url", name=name)
        _check_push_keys(keys)
        return _store(items, sealer, user_id, "webpush", endpoint, {}, json.dumps(keys), now)
    raise ValidationError("unknown channel kind; one of %(kinds)s", kinds=", ".join(KINDS))


def _check_push_keys(keys: Mapping[str, str]) -> None:
    """What a push is encrypted to (RFC 8291): p256dh a P-256 public point, auth 16 bytes. A key
    that is not would fail every send; it is refused when the browser subscribes instead."""

    def raw(value: str) -> bytes:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))

    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw(keys["p256dh"]))
    except (ValueError, binascii.Error):
        raise ValidationError("the subscription key p256dh is not a P-256 public key") from None
    try:
        auth = raw(keys["auth"])
    except (ValueError, binascii.Error):
        auth = b""
    if len(auth) != 16:
        raise ValidationError("the subscription key auth must be 16 bytes")


def _address(fields: Mapping[str, str], name: str, label: Text) -> str:
    value = _text(fields, name, label, limit=320)
    if not _EMAIL.fullmatch(value):
        raise ValidationError("%(label)s must be an email address", label=label)
    return value


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
    config = dict(record.get("config") or {})
    return Channel(str(record["id"]), str(record["url"]), secret, str(record.get("kind") or "webhook"), config)


def record_outcome(items: ItemStore, user_id: str, channel_id: str, failure: dict[str, Any] | None, now: str) -> None:
    """The channel's last success time, or its last failure; nothing when it was deleted meanwhile."""
    changes: dict[str, Any] = {"lastFailure": failure} if failure is not None else {"lastSuccessAt": now}
    op = Update((user_partition(user_id), PREFIX + channel_id), set=changes, condition=Condition(exists=True))
    with contextlib.suppress(ConditionFailed):  # deleted meanwhile: nothing to record
        items.update(op)
