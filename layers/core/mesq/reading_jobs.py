"""Running reading syncs (docs/contract.md §13) from the outside of the domain: the browser's
"sync now", the scheduled job and the per-user worker. With `MESQ_READING_SYNC_QUEUE_URL` set
(AWS) a request becomes one SQS message per user, consumed by functions/reading_sync; without it
(`mesq serve`) the sync runs in the calling worker thread."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, Literal

from aws_lambda_powertools import Logger

from .context import Services
from .reading.credentials import users_to_sync
from .reading.sync import sync_status, sync_user
from .reading.wechat import provider_factory
from .services import build_sealer
from .store.ports import Item
from .timestamps import now_timestamp, parse_timestamp

logger = Logger(child=True)


def run_user_sync(services: Services, user_id: str) -> Item:
    settings = services.settings
    providers = provider_factory(settings.wechat_reading_gateway_url, settings.wechat_reading_web_url)
    return sync_user(services.items, build_sealer(settings), user_id, providers, now_timestamp)


def _queue(services: Services) -> Any:
    import boto3

    return boto3.client("sqs", region_name=services.settings.region)


def enqueue(services: Services, user_ids: list[str], sqs: Any = None) -> int:
    queue_url = services.settings.reading_sync_queue_url
    assert queue_url is not None
    client = sqs or _queue(services)
    for start in range(0, len(user_ids), 10):  # SendMessageBatch takes 10 entries
        entries = [
            {"Id": str(number), "MessageBody": json.dumps({"userId": user_id})}
            for number, user_id in enumerate(user_ids[start : start + 10])
        ]
        client.send_message_batch(QueueUrl=queue_url, Entries=entries)
    return len(user_ids)


def request_sync(services: Services, user_id: str) -> Literal["queued", "done"]:
    """The "sync now" button: queued on AWS, done in place locally."""
    if services.settings.reading_sync_queue_url:
        enqueue(services, [user_id])
        return "queued"
    run_user_sync(services, user_id)
    return "done"


def fan_out(services: Services, sqs: Any = None) -> int:
    """The scheduled job: one message per user with a credential (found without a scan)."""
    return enqueue(services, users_to_sync(services.items), sqs)


def due_for_sync(services: Services, now: datetime, interval: timedelta) -> list[str]:
    """Users with a credential whose last sync attempt (success or failure) is `interval` old, or
    who never had one: what `mesq serve` syncs on its own, so a restart does not sync everyone
    again and a failing credential is retried at the same pace, not in a loop."""
    due = []
    for user_id in users_to_sync(services.items):
        status = sync_status(services.items, user_id) or {}
        attempted = status.get("lastAttemptAt")
        if attempted is None or parse_timestamp(str(attempted), "lastAttemptAt") <= now - interval:
            due.append(user_id)
    return due


def sync_due_users(services: Services, now: datetime, interval: timedelta) -> int:
    """One pass of `mesq serve`'s reading sync: each due user in turn (a failure is recorded on
    that user's sync status by `sync_user`, or logged, and never stops the others)."""
    synced = 0
    for user_id in due_for_sync(services, now, interval):
        try:
            run_user_sync(services, user_id)
            synced += 1
        except Exception:
            logger.exception("reading sync failed", extra={"user_id": user_id})
    return synced
