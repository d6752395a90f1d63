"""The HTTP senders of the reminder channels (adapters behind `transport.Sender`): ntfy, Telegram
and Web Push. Each makes ONE attempt; `delivery.send_channel` retries it, under the total
deadline, and turns what it raises into the channel's failure in plain words. Every request goes
to the address `transport.resolve_target` resolved and checked for this send (pinned), with no
redirects, like a webhook's.

Web Push (RFC 8030): the payload is encrypted to the subscription's keys (RFC 8291,
`aes128gcm`, http_ece) and the request carries the instance's VAPID signature (RFC 8292,
py_vapid; the key pair is `vapid.py`'s)."""

from __future__ import annotations

import base64
import json
import time
from typing import Any
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02, VapidException

from ...kernel.errors import ValidationError
from ...kernel.i18n import DEFAULT_LANGUAGE, LANGUAGE_TAGS
from ...reminders.channels import Channel
from ...reminders.headers import one_line
from ...reminders.message import NTFY_PRIORITY, message_of
from ...reminders.transport import SendContext, SendFailed, post
from ...reminders.vapid import subject_of

#: A push service keeps an undelivered push this long (seconds).
PUSH_TTL = 24 * 3600


def _b64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def _answer(status: int, what: str) -> None:
    if not 200 <= status < 300:
        raise SendFailed("%(what)s answered HTTP %(status)s", what=what, status=status)


async def send_ntfy(channel: Channel, payload: dict[str, Any], context: SendContext) -> None:
    message = message_of(payload, context.public_url, context.language)
    headers = {"Priority": str(NTFY_PRIORITY.get(message.priority, 3)),
               "Click": message.link, "Tags": "alarm_clock", "Content-Type": "text/plain; charset=utf-8"}  # fmt: skip
    if channel.secret:
        headers["Authorization"] = f"Bearer {channel.secret}"
    # ntfy reads headers as latin-1; RFC 2047 keeps a title in any language intact (on one line)
    headers["Title"] = "=?UTF-8?B?" + base64.b64encode(one_line(message.title).encode()).decode() + "?="
    body = message.due_line.encode("utf-8")
    answer = await post(context, channel.url, body, headers)
    _answer(answer.status_code, "ntfy")


async def send_telegram(channel: Channel, payload: dict[str, Any], context: SendContext) -> None:
    message = message_of(payload, context.public_url, context.language)
    body = json.dumps({"chat_id": channel.config.get("chat"), "text": message.text,
                       "disable_web_page_preview": True}).encode()  # fmt: skip
    url = f"{channel.url}/bot{channel.secret}/sendMessage"
    answer = await post(context, url, body, {"Content-Type": "application/json"}, shown=channel.url)
    if answer.status_code in (401, 404):
        raise SendFailed("Telegram refused the bot token")
    if answer.status_code in (400, 403):
        raise SendFailed("Telegram refused the chat (has the bot been added to it?)")
    _answer(answer.status_code, "Telegram")


def push_body(payload: dict[str, Any], public_url: str, language: str = DEFAULT_LANGUAGE) -> bytes:
    """What the service worker shows: the words in the user's language, and that language's tag
    (`lang`, as the pages' `<html lang>` and an email's `Content-Language` say it), which it hands to
    `showNotification`: the device picks the Han glyphs (Chinese, not Japanese forms) by it."""
    message = message_of(payload, public_url, language)
    tag = LANGUAGE_TAGS.get(message.say.language, LANGUAGE_TAGS[DEFAULT_LANGUAGE])
    return json.dumps({"title": message.title, "body": message.due_line, "url": message.link,
                       "id": payload.get("id"), "lang": tag}, ensure_ascii=False).encode()  # fmt: skip


async def send_webpush(channel: Channel, payload: dict[str, Any], context: SendContext) -> None:
    if context.vapid is None:
        raise SendFailed("the instance has no VAPID key")
    keys = json.loads(channel.secret)
    plain = push_body(payload, context.public_url, context.language)
    body = http_ece.encrypt(plain, private_key=ec.generate_private_key(ec.SECP256R1()),
                            dh=_b64(keys["p256dh"]), auth_secret=_b64(keys["auth"]), version="aes128gcm")  # fmt: skip
    parts = urlsplit(channel.url)
    try:
        claims = {"aud": f"{parts.scheme}://{parts.netloc}", "exp": int(time.time()) + 12 * 3600,
                  "sub": subject_of(context.vapid.subject)}  # fmt: skip
        signed = Vapid02.from_pem(context.vapid.private_pem).sign(claims)
    except ValidationError as refused:
        raise SendFailed(refused.text, final=True) from None
    except VapidException:
        raise SendFailed("the push endpoint's address cannot be signed for (VAPID)", final=True) from None
    headers = {**signed, "TTL": str(PUSH_TTL), "Content-Encoding": "aes128gcm", "Urgency": "high",
               "Content-Type": "application/octet-stream"}  # fmt: skip
    answer = await post(context, channel.url, body, headers)
    if answer.status_code in (404, 410):
        raise SendFailed("the browser's subscription has ended; subscribe again")
    _answer(answer.status_code, "the push service")
