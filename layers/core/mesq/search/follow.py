"""In-process index updates (`mesq serve`): an ItemStore that tells the search indexer which keys
each successful write touched, like DynamoDB Streams does on AWS. The indexer then re-reads those
keys (indexer.refresh), so this only reports keys, never item contents.

The update runs right after the write, off the request, in two steps as the stream function's
one on AWS would if it were split: the index's tokens (`indexer.refresh(..., vectors=False)`,
milliseconds) on one worker, then the embedding of what that step left without a vector
(`indexer.attach_vectors`) on a second, slower one. A write never waits for either; a query first
waits for its user's pending token updates (`settle`), never for an embedding: the next search
finds every write before it by its words at once (BM25, and the literal indexes below), and by
meaning as soon as its vector is attached (docs/search.md, "Writes and the index"). An indexer
failure is logged and never fails the write (the data is stored; `mesq search reindex` repairs
the index).

The worker serves users in turn (`fair_queue.FairQueue`): a user's queued keys are merged and run
at most INDEX_BATCH (LITERAL_BATCH) at a time, then every other user with work gets a turn, so an
import that queues minutes of embedding for its owner delays another user's next search by one
batch at most, and the owner's own updates are merged into few index saves.

AI index builds (build.py: a user without an index, another model's index, an import's) run on
a third worker, one step of one user at a time and at low priority (`BUILD_NICE`): a step ends
with its user's turn, so two users' builds share it, and a request's thread gets the CPU first.
During an import (`importing`) its user's writes are not queued one by one: the import builds the
indexes once when it ends (search/imported.py).

The literal indexes (literal_store.py: memos, reading notes, todo tasks and inbox items) follow the
same writes on a worker of their own, so a literal search (`settle_literal`) never waits for an
embedding; a literal search that finds its kind's index missing or out of step asks for a rebuild
of that kind there (`literal_missing`), in line with the updates.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.ports.storage import Condition, Cursor, Item, ItemStore, Key, QueryPage, Update, WriteOp
from ..store.item_rules import key_of
from .fair_queue import FairQueue
from .searchables import searchables_of

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
LITERAL_REBUILD_SECONDS = 60.0
#: Keys one turn of a user's AI index updates takes, on each of its two workers (words; vectors:
#: an embedding batch, about a second of CPU).
INDEX_BATCH = 64
#: Keys one turn of a user's literal index updates takes (no model: tokenising only).
LITERAL_BATCH = 256
#: The build worker's nice value: steps run when the requests leave the CPU free.
BUILD_NICE = 10


@dataclass(frozen=True)
class Rebuild:
    """A queued rebuild of one literal index kind (`literal_missing`)."""

    kind: str


LiteralWork = str | Rebuild


class FollowingStore:
    def __init__(self, inner: ItemStore) -> None:
        self._inner = inner
        self._services: Services | None = None
        self._worker: FairQueue[str] = FairQueue(self._refresh, batch=INDEX_BATCH, name="mesq-search-words")
        self._vectors: FairQueue[str] = FairQueue(self._embed, batch=INDEX_BATCH, name="mesq-search-index")
        self._literal_worker: FairQueue[LiteralWork] = FairQueue(
            self._literal, batch=LITERAL_BATCH, name="mesq-literal-index"
        )
        self._builds: FairQueue[str] = FairQueue(self._build_step, batch=1, name="mesq-search-build", nice=BUILD_NICE)
        self._importing: dict[str, int] = defaultdict(int)
        self._rebuilding: set[tuple[str, str]] = set()
        self._last_rebuild: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def follow(self, services: Services) -> None:
        self._services = services
        services.search.settle = self.settle
        services.search.settle_literal = self.settle_literal
        services.search.literal_missing = self.literal_missing
        services.search.request_build = self.request_build
        services.search.settle_build = self._builds.settle
        services.search.importing = self.importing

    def request_build(self, user_id: str, again: bool = False) -> None:
        """Run the user's AI index build (or what is left of it) on the build worker."""
        self._builds.submit(user_id, ["build"])

    def _build_step(self, user_id: str, _work: list[str]) -> None:
        try:
            if self._services is None:
                return
            self._services.search.give_way()  # to the requests (mesq serve), before the step's loads
            from .build import step  # numpy, bm25s, jieba: only once there is a build

            if not step(self._services, user_id).done:
                self._builds.submit(user_id, ["build"])  # the next step after every other user's turn
        except Exception:  # the next write or search asks again; `mesq search reindex` repairs
            log.exception("search: index build step failed")

    @contextmanager
    def importing(self, user_id: str) -> Iterator[bool]:
        """While it lasts, `user_id`'s writes are not queued for the indexes (an import writes
        thousands; search/imported.py builds the indexes once afterwards)."""
        with self._lock:
            self._importing[user_id] += 1
        try:
            yield True  # paused: the caller indexes afterwards
        finally:
            with self._lock:
                self._importing[user_id] -= 1
                if not self._importing[user_id]:
                    del self._importing[user_id]

    def settle_literal(self, user_id: str) -> None:
        """Wait until every literal index update queued for `user_id` so far is done."""
        self._literal_worker.settle(user_id)

    def wait_idle(self) -> None:
        """Wait until every queued index update (vectors too) and build of every user has run
        (tests, shutdown)."""
        self._worker.wait_idle()
        self._vectors.wait_idle()
        self._literal_worker.wait_idle()
        self._builds.wait_idle()
        self._worker.wait_idle()  # a build's end may have queued nothing, but a write during it did
        self._vectors.wait_idle()  # and the words of that write hand their vectors on

    def literal_missing(self, user_id: str, kind: str = "memo") -> None:
        """Queue one rebuild of the user's literal index of `kind`: none while one is queued, and
        at most one a minute a user and kind (counters that disagree with the records would
        otherwise rebuild it on every search; the searches scan meanwhile)."""
        wanted = (user_id, kind)
        with self._lock:
            now = time.monotonic()
            if wanted in self._rebuilding or self._services is None:
                return
            if now - self._last_rebuild.get(wanted, -LITERAL_REBUILD_SECONDS) < LITERAL_REBUILD_SECONDS:
                return
            self._rebuilding.add(wanted)
            self._last_rebuild[wanted] = now
        self._literal_worker.submit(user_id, [Rebuild(kind)])

    def _literal(self, user_id: str, work: list[LiteralWork]) -> None:
        sort_keys = [item for item in work if isinstance(item, str)]
        for rebuilt in [item for item in work if isinstance(item, Rebuild)]:
            try:
                if self._services is not None:
                    from .literal_store import rebuild  # numpy: only with the first write

                    rebuild(self._services, user_id, rebuilt.kind)
            except Exception:  # a literal search scans until the index is rebuilt
                log.exception("search: in-process literal index rebuild failed")
            finally:
                with self._lock:
                    self._rebuilding.discard((user_id, rebuilt.kind))
        try:
            if self._services is not None and sort_keys:
                from .literal_store import refresh

                refresh(self._services, user_id, sort_keys)
        except Exception:  # the write is stored; a literal search scans until the index is rebuilt
            log.exception("search: in-process literal index update failed")

    def settle(self, user_id: str, timeout: float | None = None) -> bool:
        """Wait until the index holds the words of every write queued for `user_id` so far (their
        vectors may still be on their way; at most `timeout` seconds): True when it does."""
        return self._worker.settle(user_id, timeout)

    def _refresh(self, user_id: str, sort_keys: list[str]) -> None:
        try:
            if self._services is not None:
                # Imported here: the index pulls numpy and bm25s, which a process that never
                # writes a searchable record (a CLI command) need not pay.
                from .indexer import refresh

                self._vectors.submit(user_id, refresh(self._services, user_id, sort_keys, vectors=False))
        except Exception:  # the write is stored; the index catches up on reindex
            log.exception("search: in-process index update failed")

    def _embed(self, user_id: str, doc_keys: list[str]) -> None:
        try:
            if self._services is not None:
                from .indexer import attach_vectors

                attach_vectors(self._services, user_id, doc_keys)
        except Exception:  # the words are indexed; the vector comes with the next write or a reindex
            log.exception("search: in-process embedding failed")

    def _changed(self, keys: Sequence[Key]) -> None:
        if self._services is None:
            return
        searchables = searchables_of(self._services)
        by_user: dict[str, list[str]] = defaultdict(list)
        for pk, sk in keys:
            owner = searchables.owner(pk, sk)
            if owner is not None and owner not in self._importing:
                by_user[owner].append(sk)
        literal = searchables.literal_prefixes  # the records the literal indexes hold
        for user_id, sort_keys in by_user.items():
            self._worker.submit(user_id, sort_keys)
            self._literal_worker.submit(user_id, [key for key in sort_keys if key.startswith(literal)])

    # -- writes: delegate, then report ---------------------------------------------------------

    def put(self, item: Item, condition: Condition | None = None) -> None:
        self._inner.put(item, condition)
        self._changed([(item["pk"], item["sk"])])

    def update(self, op: Update) -> Item:
        result = self._inner.update(op)
        self._changed([op.key])
        return result

    def delete(self, key: Key, condition: Condition | None = None) -> None:
        self._inner.delete(key, condition)
        self._changed([key])

    def transact(self, ops: Sequence[WriteOp]) -> None:
        self._inner.transact(ops)
        self._changed([key_of(op) for op in ops])

    # -- reads: delegate -----------------------------------------------------------------------

    def get(self, key: Key) -> Item | None:
        return self._inner.get(key)

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        return self._inner.batch_get(keys)

    def query(
        self,
        partition: str,
        *,
        index: str | None = None,
        prefix: str | None = None,
        start: str | None = None,
        end: str | None = None,
        descending: bool = False,
        limit: int | None = None,
        after: Cursor | None = None,
        keys_only: bool = False,
    ) -> QueryPage:
        return self._inner.query(
            partition, index=index, prefix=prefix, start=start, end=end,
            descending=descending, limit=limit, after=after, keys_only=keys_only,
        )  # fmt: skip

    def create_table_if_missing(self, timeout: float = 300.0) -> bool:
        """DynamoDB's one adapter extra (`mesq serve --storage dynamodb`): table DDL, no item write."""
        created: bool = self._inner.create_table_if_missing(timeout)  # type: ignore[attr-defined]
        return created

    def __getattr__(self, name: str) -> Any:
        # Only private adapter state passes through (a test reading SQLite's connection): every
        # port method is overridden above, so a new write can never slip past `_changed`
        # (tests/search/test_following_store.py).
        if name.startswith("_") and not name.startswith("__") and name != "_inner":
            return getattr(self._inner, name)
        raise AttributeError(f"FollowingStore does not pass {name!r} through; override it explicitly")

    def close(self) -> None:
        self._builds.close(drain=False)  # a build resumes from its last step next time
        self._worker.close()
        self._vectors.close()
        self._literal_worker.close()
        self._inner.close()
