"""`mesq serve`'s background maintenance: the upload-session sweep the scheduler function runs
on Lambda, here every `Settings.upload_sweep_interval_seconds` in the server's event loop (the
sweep itself runs in a worker thread: stores are synchronous). A failed sweep is logged and
retried at the next tick; it never stops the server."""

from __future__ import annotations

import asyncio

from aws_lambda_powertools import Logger

from .attachments.uploads import sweep_expired_sessions
from .concurrency import run_sync
from .context import Services

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
