"""The per-person rate limits of the pages (docs/security.md "Fair shares"): a hit in one of the
`application/ratelimit.py` buckets counted per user, so a second session or tab is no second
allowance. Over the limit the handler raises RATE_LIMITED: the pipeline answers 429 with
Retry-After and the limiter's message."""

from __future__ import annotations

from ...application.ratelimit import Bucket, RateLimiter, user_subject
from ...kernel.concurrency import run_sync
from .framework import Page


async def count_user(page: Page, bucket: Bucket) -> None:
    """One hit in `bucket` for the signed-in user (one atomic ADD in the item store)."""
    services = page.web.services
    limiter = RateLimiter(services.items, services.settings, clock=page.web.clock)
    if limiter.enabled:
        await run_sync(limiter.hit, user_subject(page.user.user_id), bucket)


__all__ = ["count_user"]
