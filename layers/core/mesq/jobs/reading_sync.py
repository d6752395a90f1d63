"""Running reading syncs (docs/contract.md §13) from the outside of the domain: the browser's
"sync now", the scheduled job and the per-user worker. With `MESQ_READING_SYNC_QUEUE_URL` set
(AWS) a request becomes one SQS message per user, consumed by functions/reading_sync; without it
(`mesq serve`) the sync runs in a background thread of the server, so the page answers at once
(a sync may take its whole deadline, 240 s, against a slow upstream)."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Literal

from aws_lambda_powertools import Logger

from ..adapters.reading.wechat import provider_factory
from ..kernel.ports.storage import Item
from ..kernel.timestamps import now_timestamp, parse_timestamp
from ..reading.credentials import users_to_sync
from ..reading.sync import sync_running, sync_status, sync_user
from ..wiring.services import Services

logger = Logger(child=True)


def run_user_sync(services: Services, user_id: str) -> Item:
    settings = services.settings
    providers = provider_factory(settings.wechat_reading_gateway_url, settings.wechat_reading_web_url)
    return sync_user(services.items, services.sealer, user_id, providers, now_timestamp)


#: The syncs "sync now" started in this process and not yet over: (the store's identity, user).
#: Marked before the page answers, so the page it redirects to already says a sync is running.
_STARTED: set[tuple[int, str]] = set()
_STARTED_LOCK = threading.Lock()


def request_sync(services: Services, user_id: str) -> Literal["queued", "started"]:
    """The "sync now" button: queued on AWS; started in a background thread locally, unless one
    this process started for the user is still going (a second click adds nothing)."""
    if services.reading_queue is not None:
        services.reading_queue.send([user_id])
        return "queued"
    key = (id(services.items), user_id)
    with _STARTED_LOCK:
        if key in _STARTED:
            return "started"
        _STARTED.add(key)

    def run() -> None:
        try:
            run_user_sync(services, user_id)  # records its own failures on the sync status
        except Exception:
            logger.exception("reading sync failed", extra={"user_id": user_id})
        finally:
            with _STARTED_LOCK:
                _STARTED.discard(key)

    # A daemon thread: stopping the server does not wait out a sync (its lease expires instead).
    threading.Thread(target=run, name="mesq-reading-sync", daemon=True).start()
    return "started"


def sync_in_progress(services: Services, user_id: str) -> bool:
    """A sync of the user that this process started, or that holds the lease anywhere."""
    with _STARTED_LOCK:
        if (id(services.items), user_id) in _STARTED:
            return True
    return sync_running(services.items, user_id)


def fan_out(services: Services) -> int:
    """The scheduled job: one message per user with a credential (found without a scan)."""
    assert services.reading_queue is not None, "the scheduled fan-out needs the reading-sync queue"
    return services.reading_queue.send(users_to_sync(services.items))


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
