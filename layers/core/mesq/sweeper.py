"""`mesq serve`'s background maintenance, the jobs the scheduler function runs on Lambda: the
upload-session sweep every `Settings.upload_sweep_interval_seconds`, and the reminder tick every
`Settings.reminder_tick_seconds` (60). Each runs in a worker thread (stores are synchronous); a
failure is logged and retried at the next tick; it never stops the server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from aws_lambda_powertools import Logger

from .attachments.uploads import sweep_expired_sessions
from .concurrency import run_sync
from .context import Services
from .reminders.tick import run_due_reminder_tick
from .services import build_sealer

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
    sealer = build_sealer(services.settings)
    while True:
        try:
            report = await run_sync(run_due_reminder_tick, services.items, sealer, datetime.now(UTC))
            if report.due:
                logger.info("reminder tick", extra=report.as_dict())
        except Exception:
            logger.exception("reminder tick failed; retrying at the next tick")
        await asyncio.sleep(services.settings.reminder_tick_seconds)
