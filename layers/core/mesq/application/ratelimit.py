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

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Literal, Protocol

from ..kernel.errors import RateLimited
from ..kernel.i18n import Text
from ..kernel.ports.storage import Condition, ConditionFailed, ItemStore, Update

Bucket = Literal[
    "connection",
    "tool_call",
    "attachment_read",
    "page_image",
    "unauthenticated",
    "import",
    "import_refused",
    "quick_add_preview",
    "reminder_test",
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
HOURLY: frozenset[Bucket] = frozenset({"import", "import_refused", "reminder_test"})


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
#: the lists, `attachment_read` the attachment bytes, `page_image` the caller's own images a page
#: or an MCP Apps view shows (a web `<img>`, a view's thumbnail `resources/read`: a timeline of 20
#: nine-photo memos is 180 of them a view, and a person looks at it again within the minute),
#: `unauthenticated` calls without a valid
#: credential (per client IP: it slows down token guessing), `tool_call` every other call. Per
#: user: `import` (archive and Markdown imports, any entry: web, CLI), `import_refused` (memos,
#: flomo and Todoist files refused before anything was written: they give their `import` back and
#: count here, so a person trying the wrong file is not locked out), `quick_add_preview` (the
#: chips under an add box, per keystroke pause), `reminder_test` (Settings -> Reminders' test
#: send). Why each value: docs/security.md "Fair shares".
PROFILES: Mapping[str, Mapping[Bucket, int]] = {
    "normal": {"connection": 60, "tool_call": 240, "attachment_read": 30, "page_image": 1200,
               "unauthenticated": 30, "import": 6, "import_refused": 30, "quick_add_preview": 120,
               "reminder_test": 20},
    "relaxed": {"connection": 600, "tool_call": 2400, "attachment_read": 300, "page_image": 12000,
                "unauthenticated": 300, "import": 60, "import_refused": 300, "quick_add_preview": 1200,
                "reminder_test": 200},
}  # fmt: skip


#: Each bucket and window as the 429's message names them, in the reader's language on a page
#: (the English is what REST and MCP say).
_BUCKET_WORDS: Mapping[Bucket, Text] = {
    "connection": Text("connection"), "tool_call": Text("tool call"), "attachment_read": Text("attachment read"),
    "page_image": Text("page image"),
    "unauthenticated": Text("unauthenticated"), "import": Text("import"), "import_refused": Text("import refused"),
    "quick_add_preview": Text("quick add preview"), "reminder_test": Text("reminder test"),
}  # fmt: skip
_PER = {HOUR_SECONDS: Text("hour"), WINDOW_SECONDS: Text("minute")}


def wait_words(seconds: int) -> Text:
    """A wait as a person says it: `42 seconds` under a minute, else whole minutes rounded up
    (`about 28 minutes` / `约 28 分钟`, never `1642 s`): retrying at the time said is never too
    early. The exact seconds are the 429's `retryAfterSeconds` and Retry-After."""
    if seconds < WINDOW_SECONDS:
        return Text("1 second") if seconds == 1 else Text("%(count)s seconds", count=seconds)
    minutes = -(-seconds // WINDOW_SECONDS)
    if minutes == 1:
        return Text("about a minute")
    if minutes == HOUR_SECONDS // WINDOW_SECONDS:
        return Text("about an hour")
    return Text("about %(count)s minutes", count=minutes)


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

    def hit(self, subject: str, bucket: Bucket, count: int = 1) -> int | None:
        """Count `count` requests (a JSON-RPC batch counts each message); RateLimited (with
        retryAfterSeconds) once the window's limit is passed. `count=0` only checks. Returns the
        window counted in (for `give_back`), None when not limited."""
        if self._limits is None:
            return None
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
            raise RateLimited(
                "rate limit of %(limit)s %(bucket)s requests per %(per)s reached; retry after %(wait)s",
                limit=limit,
                bucket=_BUCKET_WORDS[bucket],
                per=_PER[length],
                wait=wait_words(retry_after),
                retry_after_seconds=retry_after,
            )
        return window

    def give_back(self, subject: str, bucket: Bucket, window: int | None) -> None:
        """Take back one hit counted in `window` (the one `hit` returned), even once that window
        has ended: a counter of a later window is never lowered for it."""
        if self._limits is None or window is None:
            return
        try:
            self._items.update(
                Update(key=(f"RL#{subject}", f"{bucket}#{window}"), add={"count": -1}, condition=Condition(exists=True))
            )
        except ConditionFailed:  # the counter expired meanwhile: nothing to give back
            return


@contextmanager
def counted_import(
    limiter: RateLimiter, user_id: str, refused: type[BaseException] | tuple[type[BaseException], ...]
) -> Iterator[None]:
    """One import in the person's `import` bucket. A file refused before anything is written
    (`refused` raised inside) gives its count back and counts in `import_refused` instead, whose
    own limit is checked first: a person trying the wrong file is not locked out of importing,
    and hostile files still meet a limit."""
    subject = user_subject(user_id)
    limiter.hit(subject, "import_refused", count=0)
    window = limiter.hit(subject, "import")
    try:
        yield
    except refused:
        limiter.give_back(subject, "import", window)
        with contextlib.suppress(RateLimited):  # the refusal is this answer; the next try is stopped
            limiter.hit(subject, "import_refused")
        raise
