"""Client ID Metadata Documents remembered between authorizations (docs/decisions.md "CIMD cache").

A CIMD `client_id` is a URL whose document the server fetches when the client asks to be
authorized. Fetching it every time makes every sign-in depend on the client's metadata host,
which has had outages (claude.ai's among them). So a document that describes a valid client is
kept:

- **fresh** for what its `Cache-Control` allows, clamped to `FRESH_MIN`..`FRESH_MAX` (5 min .. 24 h;
  `FRESH_DEFAULT`, 1 h, without one): authorizations in that time do not fetch;
- then **stale** for `STALE_SECONDS` (7 days): the next authorization fetches again, and only if
  the metadata host fails (no answer in time, 5xx, an outage page...) is the stale copy used; a
  definitive answer (the document is gone, or no longer describes a valid client) forgets it;
- after such a failure the stale copy is served without fetching for `QUIET_SECONDS`, so an
  outage does not cost every sign-in the fetch deadline.

Two layers: a per-process LRU (`MAX_ENTRIES` documents, `MAX_BYTES` of their JSON text) and a
copy in the item store that every process shares (each Lambda container has its own memory). The
store copy lives in a fixed number of slots (`STORE_SLOTS`, picked by a keyed hash of the URL; a
colliding URL takes the slot over), so anonymous callers naming ever new URLs cannot grow it
past `STORE_SLOTS` times 64 KiB; every copy also expires by TTL at the end of its stale period.
The hash key is random, made once per deployment and kept in the store (`CIMD#KEY`), so nobody
can compute URLs that land in, say, claude.ai's slot to push its copy out.

Times are wall-clock epoch seconds (`wall_clock`, which tests replace): the store copy is shared
between processes, whose monotonic clocks do not agree.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...kernel.ports.storage import Condition, ConditionFailed, ItemStore

FRESH_MIN = 5 * 60
FRESH_MAX = 24 * 3600
FRESH_DEFAULT = 3600
STALE_SECONDS = 7 * 24 * 3600
QUIET_SECONDS = 60
MAX_ENTRIES = 256
MAX_BYTES = 4 * 1024 * 1024
STORE_SLOTS = 1024
_SORT_KEY = "DOC"


def wall_clock() -> float:
    return time.time()


def freshness(max_age: int | None) -> int:
    """Seconds a fetched document stays fresh: its max-age within FRESH_MIN..FRESH_MAX."""
    if max_age is None:
        return FRESH_DEFAULT
    return min(FRESH_MAX, max(FRESH_MIN, max_age))


@dataclass(frozen=True)
class CachedDocument:
    url: str
    document: dict[str, Any]
    size: int  # bytes of its JSON text: what the memory bound counts
    fresh_until: float
    #: No fetch before this (a failed refetch just served the stale copy); kept in memory only.
    quiet_until: float = 0.0

    @property
    def stale_until(self) -> float:
        return self.fresh_until + STALE_SECONDS

    def fresh(self, now: float) -> bool:
        return now < self.fresh_until or now < self.quiet_until

    def servable_stale(self, now: float) -> bool:
        return now < self.stale_until


_SLOT_HASH_KEY = ("CIMD#KEY", "KEY")


def _slot_key(url: str, hash_key: bytes) -> tuple[str, str]:
    digest = hmac.new(hash_key, url.encode("utf-8"), hashlib.sha256).digest()
    return (f"CIMD#{int.from_bytes(digest[:8], 'big') % STORE_SLOTS}", _SORT_KEY)


class DocumentCache:
    """The two layers above. Thread-safe; store calls are synchronous (run them off the event loop)."""

    def __init__(
        self,
        items: ItemStore,
        clock: Callable[[], float] | None = None,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self._items = items
        self._clock = clock
        self._max_entries, self._max_bytes = max_entries, max_bytes
        self._entries: OrderedDict[str, CachedDocument] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._hash_key: bytes | None = None

    def now(self) -> float:
        return self._clock() if self._clock is not None else wall_clock()

    def lookup(self, url: str) -> CachedDocument | None:
        """The remembered document of `url` (fresh or not), from memory or else the store copy;
        None once even its stale period has passed."""
        now = self.now()
        with self._lock:
            entry = self._entries.get(url)
            if entry is not None:
                self._entries.move_to_end(url)
        if entry is None or not entry.fresh(now):
            shared = self._read_shared(url)
            if shared is not None and (entry is None or shared.fresh_until > entry.fresh_until):
                entry = shared  # another process fetched it meanwhile
                self._keep(shared)
        if entry is None or not entry.servable_stale(now):
            return None
        return entry

    def remember(self, url: str, document: dict[str, Any], max_age: int | None) -> CachedDocument:
        """Keep a freshly fetched document that describes a valid client, here and in the store."""
        text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
        entry = CachedDocument(url, document, len(text.encode("utf-8")), self.now() + freshness(max_age))
        self._keep(entry)
        pk, sk = self._slot(url)
        self._items.put(
            {"pk": pk, "sk": sk, "url": url, "document": text, "freshUntil": int(entry.fresh_until),
             "ttl": int(entry.stale_until) + 1}
        )  # fmt: skip
        return entry

    def hold(self, url: str) -> None:
        """After a failed refetch answered from the stale copy: no new fetch for QUIET_SECONDS."""
        with self._lock:
            entry = self._entries.get(url)
            if entry is not None:
                self._entries[url] = replace(entry, quiet_until=self.now() + QUIET_SECONDS)

    def forget(self, url: str) -> None:
        """A definitive answer (gone, or no longer a valid client): drop both copies."""
        with self._lock:
            entry = self._entries.pop(url, None)
            if entry is not None:
                self._bytes -= entry.size
        # Only if the slot still holds this URL (another may have taken it over).
        with contextlib.suppress(ConditionFailed):
            self._items.delete(self._slot(url), Condition(equals={"url": url}))

    def _slot(self, url: str) -> tuple[str, str]:
        """The store slot of `url`: the deployment's hash key is read (or made) once a process."""
        if self._hash_key is None:
            item = self._items.get(_SLOT_HASH_KEY)
            if item is None:
                with contextlib.suppress(ConditionFailed):  # another process made it first: read it
                    pk, sk = _SLOT_HASH_KEY
                    self._items.put({"pk": pk, "sk": sk, "key": secrets.token_hex(32)}, Condition(exists=False))
                item = self._items.get(_SLOT_HASH_KEY)
            if item is None:  # written a moment ago: only a store that loses writes gets here
                raise RuntimeError("the CIMD slot key could not be read back from the item store")
            self._hash_key = bytes.fromhex(item["key"])
        return _slot_key(url, self._hash_key)

    def _read_shared(self, url: str) -> CachedDocument | None:
        item = self._items.get(self._slot(url))
        if item is None or item.get("url") != url:
            return None
        text = item["document"]
        return CachedDocument(url, json.loads(text), len(text.encode("utf-8")), float(item["freshUntil"]))

    def _keep(self, entry: CachedDocument) -> None:
        if entry.size > self._max_bytes:
            return
        with self._lock:
            previous = self._entries.pop(entry.url, None)
            if previous is not None:
                self._bytes -= previous.size
            self._entries[entry.url] = entry
            self._bytes += entry.size
            while len(self._entries) > self._max_entries or self._bytes > self._max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes
