"""Rate limits (docs/contract.md §7): fixed one-minute windows counted in the item store.

A hit is one atomic ADD on `RL#<subject>` / `<bucket>#<window>` (one UpdateItem on DynamoDB), so
every Lambda instance and every `mesq serve` worker shares the same counters; nothing lives in
process memory. Counter items expire by TTL shortly after their window. The subject is the
credential (`pat:<id>`) or, for calls without a valid credential, the client IP.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Literal, Protocol

from ..kernel.errors import RateLimited
from ..kernel.ports.storage import ItemStore, Update

Bucket = Literal["connection", "tool_call", "attachment_read", "unauthenticated"]


class RateLimitSettings(Protocol):
    """The two deployment values a limiter reads (mesq.wiring.config.Settings has them)."""

    @property
    def rate_limit_enabled(self) -> bool: ...

    @property
    def rate_limit_profile(self) -> str: ...


WINDOW_SECONDS = 60

#: Operations that hand out attachment bytes: counted in `attachment_read` (REST and MCP alike)
#: instead of `tool_call`. The REST streaming read and MCP `resources/read` count there too.
ATTACHMENT_READ_OPERATIONS = frozenset({"read_memo_resource", "read_todo_attachment"})


def call_bucket(operation_id: str) -> Bucket:
    """The bucket one call of an operation counts in, on every channel (docs/contract.md §7)."""
    return "attachment_read" if operation_id in ATTACHMENT_READ_OPERATIONS else "tool_call"


#: Requests per minute and bucket. `connection` covers discover/initialize and the lists,
#: `attachment_read` the attachment bytes, `unauthenticated` calls without a valid credential
#: (per client IP: it slows down token guessing), `tool_call` everything else.
PROFILES: Mapping[str, Mapping[Bucket, int]] = {
    "normal": {"connection": 60, "tool_call": 240, "attachment_read": 30, "unauthenticated": 30},
    "relaxed": {"connection": 600, "tool_call": 2400, "attachment_read": 300, "unauthenticated": 300},
}


def wall_clock() -> float:
    return time.time()


class RateLimiter:
    def __init__(self, items: ItemStore, settings: RateLimitSettings, clock: Callable[[], float] | None = None) -> None:
        self._items = items
        self._clock = clock
        enabled = settings.rate_limit_enabled and settings.rate_limit_profile != "off"
        self._limits = PROFILES[settings.rate_limit_profile] if enabled else None

    @property
    def enabled(self) -> bool:
        return self._limits is not None

    def _now(self) -> float:
        return self._clock() if self._clock is not None else wall_clock()

    def remaining(self, subject: str, bucket: Bucket) -> int | None:
        """Requests `subject` has left in `bucket` this window (None: not limited); one read."""
        if self._limits is None:
            return None
        window = int(self._now() // WINDOW_SECONDS) * WINDOW_SECONDS
        counter = self._items.get((f"RL#{subject}", f"{bucket}#{window}"))
        used = int(counter["count"]) if counter is not None else 0
        return max(0, self._limits[bucket] - used)

    def hit(self, subject: str, bucket: Bucket, count: int = 1) -> None:
        """Count `count` requests (a JSON-RPC batch counts each message); RateLimited (with
        retryAfterSeconds) once the window's limit is passed."""
        if self._limits is None:
            return
        now = self._now()
        window = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        window_end = window + WINDOW_SECONDS
        counter = self._items.update(
            Update(
                key=(f"RL#{subject}", f"{bucket}#{window}"),
                add={"count": count},
                set={"ttl": window_end + WINDOW_SECONDS},
            )
        )
        limit = self._limits[bucket]
        if counter["count"] > limit:
            retry_after = max(1, int(window_end - now + 0.999))
            raise RateLimited(
                f"rate limit of {limit} {bucket.replace('_', ' ')} requests per minute reached; "
                f"retry after {retry_after} s",
                retry_after_seconds=retry_after,
            )
