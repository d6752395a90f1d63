"""Web Push: a subscription with a key pair generated here receives, at a loopback push
endpoint, a push whose payload decrypts (RFC 8291, aes128gcm) to the reminder, signed with the
instance's VAPID key (RFC 8292), which is generated once and sealed at rest."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

from mesq.adapters.reminders.delivery import new_client
from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.jobs.reminder_tick import deliver
from mesq.kernel.timestamps import now_timestamp
from mesq.reminders import channels
from mesq.reminders.channels import Destinations
from mesq.reminders.transport import Reach
from mesq.reminders.vapid import KEY, instance_vapid

from .fakes import HTTPFake

PUBLIC = "https://mesq.example"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture
def push_service() -> Iterator[HTTPFake]:
    fake = HTTPFake(status=201, answer=b"").start()
    yield fake
    fake.stop()


def test_a_push_decrypts_to_the_reminder_and_carries_the_instances_vapid_signature(
    tmp_path: Path, sealer: LocalKeySealer, push_service: HTTPFake
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    browser_key = ec.generate_private_key(ec.SECP256R1())  # the browser's subscription key pair
    p256dh = browser_key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    auth = b"0123456789abcdef"
    rules = Destinations(allow_loopback=True)
    fields = {"endpoint": push_service.base + "/push/abc", "p256dh": _b64(p256dh), "auth": _b64(auth)}
    channel = channels.add_channel(items, sealer, "u-1", "webpush", fields, now_timestamp(), rules)
    assert _b64(auth) not in repr(channels.channel_records(items, "u-1"))  # the keys are sealed
    task = {"id": "T1", "title": "Water the plants", "due": {"type": "datetime", "at": "2026-12-03T10:00:00Z"},
            "timezone": "Europe/Berlin", "priority": "high"}  # fmt: skip
    payload = {"type": "todo.reminder", "id": "d-42", "remindAt": "2026-12-03T09:45:00Z", "task": task}

    async def send() -> dict[str, str]:
        async with new_client() as client:
            return await deliver(items, sealer, "u-1", payload, client=client, reach=Reach(rules, PUBLIC))

    assert anyio.run(send) == {}
    (push,) = push_service.received
    assert push.path == "/push/abc" and push.headers["content-encoding"] == "aes128gcm"
    assert int(push.headers["ttl"]) > 0
    plain = http_ece.decrypt(push.body, private_key=browser_key, auth_secret=auth, version="aes128gcm")
    assert json.loads(plain) == {"title": "Water the plants", "body": "Due 2026-12-03 11:00 (Central European Time)",
                                 "url": f"{PUBLIC}/todos/tasks/T1", "id": "d-42", "lang": "en"}  # fmt: skip

    # VAPID: the JWT is signed by the instance's key, for the push service's origin
    vapid = instance_vapid(items, sealer, PUBLIC)
    scheme, _, rest = push.headers["authorization"].partition(" ")
    parts = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert scheme == "vapid" and parts["k"] == vapid.public_key
    header, claims, signature = parts["t"].split(".")
    assert json.loads(_unb64(claims))["aud"] == push_service.base
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(vapid.public_key))
    raw = _unb64(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    assert (channels.channel_records(items, "u-1")[0]["lastSuccessAt"]) and channel.kind == "webpush"


def test_the_vapid_pair_is_generated_once_and_its_private_key_is_sealed(tmp_path: Path, sealer: LocalKeySealer) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    first = instance_vapid(items, sealer, PUBLIC)
    again = instance_vapid(items, sealer, PUBLIC)
    assert first == again and len(_unb64(first.public_key)) == 65
    stored = items.get(KEY)
    assert stored is not None and b"PRIVATE KEY" not in repr(stored).encode() and "BEGIN" not in repr(stored)


def test_an_ended_subscription_is_a_plain_failure(
    tmp_path: Path, sealer: LocalKeySealer, push_service: HTTPFake
) -> None:
    items = SQLiteItemStore(tmp_path / "mesq.db")
    push_service.status = 410
    rules = Destinations(allow_loopback=True)
    fields = {"endpoint": push_service.base + "/push/x", "p256dh": _b64(b"\x04" + b"1" * 64), "auth": _b64(b"a" * 16)}
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    fields["p256dh"] = _b64(key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    channel = channels.add_channel(items, sealer, "u-1", "webpush", fields, now_timestamp(), rules)

    async def send() -> dict[str, str]:
        async with new_client() as client:
            return await deliver(items, sealer, "u-1", {"type": "test", "id": "t", "task": None}, client=client,
                                 attempts=1, reach=Reach(rules, PUBLIC))  # fmt: skip

    assert anyio.run(send) == {channel.id: "the browser's subscription has ended; subscribe again"}


def _subscription() -> tuple[ec.EllipticCurvePrivateKey, bytes, dict[str, str]]:
    """A browser's subscription key pair and auth secret, and the channel fields naming them."""
    key = ec.generate_private_key(ec.SECP256R1())
    p256dh = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    auth = bytes(range(16))
    return key, auth, {"p256dh": _b64(p256dh), "auth": _b64(auth)}


def test_a_push_speaks_the_users_language_and_says_which_it_is(
    tmp_path: Path, sealer: LocalKeySealer, push_service: HTTPFake
) -> None:
    """An email reminder is in the account's language (Settings → Language, else the browser's at
    sign-in) and says which (`Content-Language`, `<html lang>`: a mail client picks the Han glyphs
    by it). A push said none: the service worker's notification was drawn in whatever language
    the device guessed, a Chinese reminder perhaps in Japanese forms. The push now carries the
    language's tag (`lang`, as the pages' `<html lang>` and the email say it), which the service
    worker hands to `showNotification`; its words are the account's language, in a tick as in a
    test send from the settings page in another language."""
    from datetime import UTC, datetime, timedelta

    from mesq.auth.users import create_user, set_setting
    from mesq.jobs.reminder_tick import run_due_reminder_tick
    from mesq.kernel.timestamps import format_timestamp

    from .conftest import todo_call

    items = SQLiteItemStore(tmp_path / "mesq.db")
    rules = Destinations(allow_loopback=True)
    soon = datetime.now(UTC) + timedelta(seconds=30)  # after the two accounts are made (argon2)
    due = datetime(2026, 12, 8, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai
    browsers = {}
    for name, language in (("lin", "zh"), ("ann", "en")):
        user_id = create_user(items, name, "correct horse battery")["id"]
        set_setting(items, user_id, "language", language)
        task = todo_call(items, user_id, "create_todo_task", title="给花浇水", timezone="Asia/Shanghai",
                         due={"type": "datetime", "at": format_timestamp(due)})["task"]  # fmt: skip
        todo_call(items, user_id, "set_todo_reminders", id=task["id"], expectedRevision=task["revision"],
                  reminders=[{"type": "absolute", "at": format_timestamp(soon)}])  # fmt: skip
        key, auth, fields = _subscription()
        fields["endpoint"] = f"{push_service.base}/push/{name}"
        channels.add_channel(items, sealer, user_id, "webpush", fields, now_timestamp(), rules)
        browsers[name] = (user_id, task["id"], key, auth)

    report = run_due_reminder_tick(items, sealer, soon + timedelta(seconds=5), backoff=(0.0,),
                                   reach=Reach(rules, PUBLIC))  # fmt: skip
    assert report.delivered == 2 and report.failed == 0, report

    def received(name: str) -> list[dict[str, str]]:
        _, _, key, auth = browsers[name]
        pushes = [push for push in push_service.received if push.path == f"/push/{name}"]
        return [json.loads(http_ece.decrypt(p.body, private_key=key, auth_secret=auth, version="aes128gcm"))
                for p in pushes]  # fmt: skip

    (zh,) = received("lin")
    assert {k: zh[k] for k in ("title", "body", "lang")} == {
        "title": "给花浇水", "body": "截止 2026-12-08 09:00（中国时间）", "lang": "zh-Hans"
    }  # fmt: skip
    (en,) = received("ann")
    assert {k: en[k] for k in ("title", "body", "lang")} == {
        "title": "给花浇水", "body": "Due 2026-12-08 09:00 (China Time)", "lang": "en"
    }  # fmt: skip

    # A test send from a page shown in English still speaks the account's own choice.
    user_id = browsers["lin"][0]

    async def test_send() -> dict[str, str]:
        async with new_client() as client:
            return await deliver(items, sealer, user_id, {"type": "test", "id": "t", "task": None}, client=client,
                                 reach=Reach(rules, PUBLIC), language="en")  # fmt: skip

    assert anyio.run(test_send) == {}
    test_push = received("lin")[-1]
    assert test_push["lang"] == "zh-Hans" and test_push["title"] == "MeSQ 测试提醒", test_push
    assert test_push["url"] == f"{PUBLIC}/settings/reminders"
