"""Rate limits (docs/contract.md §7): fixed windows (one minute, an hour for the heavy buckets)
counted in the item store.

A hit is one atomic ADD on `RL#<subject>` / `<bucket>#<window>` (one UpdateItem on DynamoDB), so
every Lambda instance and every `mesq serve` worker shares the same counters; nothing lives in
process memory. Counter items expire by TTL shortly after their window. The subject is the
credential (`pat:<id>`) or, for calls without a valid credential, the client IP; the per-person
buckets (imports, the quick-add preview, reminder test sends: docs/security.md "Fair shares")
count per user (`user_subject`), whatever session or credential asks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Literal, Protocol

from ..kernel.errors import RateLimited
from ..kernel.ports.storage import ItemStore, Update

Bucket = Literal[
    "connection", "tool_call", "attachment_read", "unauthenticated", "import", "quick_add_preview", "reminder_test"
]


class RateLimitSettings(Protocol):
    """The two deployment values a limiter reads (mesq.wiring.config.Settings has them)."""

    @property
    def rate_limit_enabled(self) -> bool: ...

    @property
    def rate_limit_profile(self) -> str: ...


WINDOW_SECONDS = 60
HOUR_SECONDS = 3600
#: Buckets counted per hour rather than per minute: a few heavy or outbound actions a person
#: takes now and then (an import rewrites an account; a test send reaches another server).
HOURLY: frozenset[Bucket] = frozenset({"import", "reminder_test"})


def window_seconds(bucket: Bucket) -> int:
    return HOUR_SECONDS if bucket in HOURLY else WINDOW_SECONDS


def user_subject(user_id: str) -> str:
    """The subject of the per-person buckets: every session and credential of a user together."""
    return f"user:{user_id}"


#: Operations that hand out attachment bytes: counted in `attachment_read` (REST and MCP alike)
#: instead of `tool_call`. The REST streaming read and MCP `resources/read` count there too.
ATTACHMENT_READ_OPERATIONS = frozenset({"read_memo_resource", "read_todo_attachment"})


def call_bucket(operation_id: str) -> Bucket:
    """The bucket one call of an operation counts in, on every channel (docs/contract.md §7)."""
    return "attachment_read" if operation_id in ATTACHMENT_READ_OPERATIONS else "tool_call"


#: Requests per window (`window_seconds`) and bucket. `connection` covers discover/initialize and
#: the lists, `attachment_read` the attachment bytes, `unauthenticated` calls without a valid
#: credential (per client IP: it slows down token guessing), `tool_call` every other call. Per
#: user: `import` (archive and Markdown imports, any entry: web, CLI), `quick_add_preview` (the
#: chips under an add box, per keystroke pause), `reminder_test` (Settings -> Reminders' test
#: send). Why each value: docs/security.md "Fair shares".
PROFILES: Mapping[str, Mapping[Bucket, int]] = {
    "normal": {"connection": 60, "tool_call": 240, "attachment_read": 30, "unauthenticated": 30,
               "import": 6, "quick_add_preview": 120, "reminder_test": 20},
    "relaxed": {"connection": 600, "tool_call": 2400, "attachment_read": 300, "unauthenticated": 300,
                "import": 60, "quick_add_preview": 1200, "reminder_test": 200},
}  # fmt: skip


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
        length = window_seconds(bucket)
        window = int(self._now() // length) * length
        counter = self._items.get((f"RL#{subject}", f"{bucket}#{window}"))
        used = int(counter["count"]) if counter is not None else 0
        return max(0, self._limits[bucket] - used)

    def hit(self, subject: str, bucket: Bucket, count: int = 1) -> None:
        """Count `count` requests (a JSON-RPC batch counts each message); RateLimited (with
        retryAfterSeconds) once the window's limit is passed."""
        if self._limits is None:
            return
        now = self._now()
        length = window_seconds(bucket)
        window = int(now // length) * length
        window_end = window + length
        counter = self._items.update(
            Update(
                key=(f"RL#{subject}", f"{bucket}#{window}"),
                add={"count": count},
                set={"ttl": window_end + length},
            )
        )
        limit = self._limits[bucket]
        if counter["count"] > limit:
            retry_after = max(1, int(window_end - now + 0.999))
            per = "hour" if length == HOUR_SECONDS else "minute"
            raise RateLimited(
                "rate limit of %(limit)s %(bucket)s requests per %(per)s reached; retry after %(retry_after)s s",
                limit=limit,
                bucket=bucket.replace("_", " "),
                per=per,
                retry_after=retry_after,
                retry_after_seconds=retry_after,
            )
