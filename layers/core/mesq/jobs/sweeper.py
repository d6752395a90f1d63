"""`mesq serve`'s background maintenance, the jobs the scheduler function runs on Lambda: the
upload-session sweep every `Settings.upload_sweep_interval_seconds`, and the reminder tick every
`Settings.reminder_tick_seconds` (60), and the reading sync of each user whose last attempt is
`Settings.reading_sync_interval_seconds` old (6 h; checked every few minutes). Each runs in a
worker thread (stores are synchronous); a failure is logged and retried at the next tick; it
never stops the server."""

from __future__ import annotations

import asyncio
import functools
from datetime import UTC, datetime, timedelta

from aws_lambda_powertools import Logger

from ..attachments.uploads import sweep_expired_sessions
from ..kernel.concurrency import run_sync
from ..wiring.services import Services, reminder_reach
from .reminder_tick import run_due_reminder_tick

logger = Logger(child=True)


async def sweep_forever(services: Services) -> None:
    interval = services.settings.upload_sweep_interval_seconds
    while True:
        try:
            swept = await run_sync(sweep_expired_sessions, services.items, services.blobs)
            if swept:
                logger.info("swept expired upload sessions", extra={"swept": swept})
        except Exception:
            logger.exception("upload-session sweep failed; retrying at the next tick")
        await asyncio.sleep(interval)


async def remind_forever(services: Services) -> None:
    """A tick every `reminder_tick_seconds` from start to start, as the schedule on AWS runs it: a
    tick held up by slow channels (it ends within `reminder_tick.TICK_DEADLINE_SECONDS`, 50 s)
    does not push the next one a whole interval later, so the next minute's reminders are not
    late by its length too."""
    sealer = services.sealer
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        try:
            report = await run_sync(
                functools.partial(run_due_reminder_tick, reach=reminder_reach(services.settings)),
                services.items,
                sealer,
                datetime.now(UTC),
            )
            if report.due:
                logger.info("reminder tick", extra=report.as_dict())
        except Exception:
            logger.exception("reminder tick failed; retrying at the next tick")
        await asyncio.sleep(max(0.0, services.settings.reminder_tick_seconds - (loop.time() - started)))


#: How often `mesq serve` looks for users due a reading sync (the interval itself is per user).
READING_CHECK_SECONDS = 300


async def sync_reading_forever(services: Services) -> None:
    from .reading_sync import sync_due_users

    interval_seconds = services.settings.reading_sync_interval_seconds
    if interval_seconds is None:
        return
    interval = timedelta(seconds=interval_seconds)
    while True:
        try:
            synced = await run_sync(sync_due_users, services, datetime.now(UTC), interval)
            if synced:
                logger.info("reading sync", extra={"users": synced})
        except Exception:
            logger.exception("reading sync pass failed; retrying at the next check")
        await asyncio.sleep(min(READING_CHECK_SECONDS, interval_seconds))
