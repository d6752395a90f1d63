"""A user's AI index built in steps that survive a stop: `mesq import` (every kind) runs it to the
end with progress lines, `mesq serve` runs it on its low-priority build worker (follow.py), the
indexer function on AWS step by step from its build queue (stream.py). A search never builds.

The build walks the user's searchable records in sort-key order (the prefixes of the searchables'
document sources, searchables.py, one after the other). Each step reads at most `STEP_RECORDS`
records after the cursor, turns them into index entries (tokens; vectors in chunks of
`EMBED_CHUNK`, giving way to requests between chunks, never only between steps) and
stores them as one segment blob; then it moves the cursor in the build's state item, conditional
on its generation. A stopped build (kill -9, a Lambda timeout) therefore loses at most the step it
was in: the next step starts at the cursor.

- state item pk `U#<user>` sk `SEARCH#BUILD`: `build` (id), `model` (the embedding model the
  vectors come from: a build for another model is discarded and started again), `prefix` (which
  of those prefixes the walk is in), `after` (the last sort key walked), `segments` (blob ids, in
  order), `walked`, `total` (records counted when the build started: the progress), `fresh`,
  `generation`;
- segment blobs `search/<user hash>/build-<segment id>.seg`: persist.py's entry format, with the
  keys of walked records that are not searchable (a later segment wins over an earlier one).

Writes during a build (`patch`, called by indexer.refresh under the user's index lock): their
entries become a segment appended after the step that holds the lock, so the build ends with the
store as it is then, whichever of the walk and the write saw a record last. A step holds that lock
while it reads and stores, so in one process a patch never lands between them; across processes
the generation condition makes the slower writer redo its step.

The last step merges the segments into one index and stores it as the user's index (replacing an
older one, whose writes the patches carried), then removes the state and the segments. Entries
of the replaced index whose text is unchanged are reused (their tokens always, their vectors when
they are of the same model), so extending an index after an import embeds only what is new;
`fresh` (a repair: `mesq search reindex`) reuses nothing.

Memory: a step holds one step's records and entries; the merge holds the finished index once, as
a search that loads it does.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.keys import user_partition
from ..kernel.ports.models import ProviderError
from ..kernel.ports.storage import BlobNotFound, Condition, ConditionFailed, Item
from . import pointers
from .documents import Doc
from .index import Entry, SearchIndex
from .persist import IndexRepository, folder_of, pack_entries, unpack_entries
from .searchables import Searchables, searchables_of
from .tokenizer import tokens
from .user_locks import UserLocks

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
BUILD_SK = pointers.AI_BUILD
#: Records a step reads at most (one store page; about 256 x 50 ms of embedding on one core).
STEP_RECORDS = 256
#: A step stops early past this many seconds of work, so the worker yields to other users and a
#: stop loses little; the step's cursor is the last record it finished.
STEP_SECONDS = 2.0
#: The same for a build run in the foreground (the command line), which no other work waits on.
FOREGROUND_STEP_SECONDS = 10.0
#: Texts per embedder call: between two, the build gives way to requests in flight (mesq serve).
#: (A query's own embedding does not wait for a chunk: the bundled engine's calls overlap.)
EMBED_CHUNK = 8
COMMIT_ATTEMPTS = 5
#: One lock per user for everything that changes a user's AI index or its build (indexer.py too).
index_lock = UserLocks()


@dataclass(frozen=True)
class Progress:
    """Where a build is: records walked of those counted at its start, documents indexed."""

    walked: int
    total: int
    documents: int
    done: bool

    @property
    def share(self) -> float:
        return 1.0 if self.done or not self.total else min(self.walked / self.total, 0.99)


def repository(services: Services) -> IndexRepository:
    return IndexRepository(services.items, services.blobs, services.search)


def _state_key(user_id: str) -> tuple[str, str]:
    return (user_partition(user_id), BUILD_SK)


def state(services: Services, user_id: str) -> Item | None:
    return services.items.get(_state_key(user_id))


def progress_of(build: Item | None) -> Progress:
    if build is None:
        return Progress(0, 0, 0, True)
    return Progress(int(build["walked"]), int(build["total"]), int(build["documents"]), False)


def _segment_path(user_id: str, segment: str) -> str:
    return f"{folder_of(user_id)}/build-{segment}.seg"


def _prefixes(services: Services) -> tuple[str, ...]:
    """What the walk reads, in its order: each searchable kind's sort-key prefix."""
    return tuple(source.prefix for source in searchables_of(services).documents)


def _count(services: Services, user_id: str) -> int:
    """The records the walk will read (keys only): the progress' denominator."""
    partition, total = user_partition(user_id), 0
    for prefix in _prefixes(services):
        after = None
        while True:
            page = services.items.query(partition, prefix=prefix, after=after, limit=1000, keys_only=True)
            total += len(page.items)
            if page.next_key is None:
                break
            after = page.next_key
            services.search.give_way()  # 100 pages at 100k records: the requests' reads go between
    return total


def start(services: Services, user_id: str, *, fresh: bool = False) -> Item:
    """The user's build, begun now unless one for this model is under way (kept: it resumes)."""
    model = services.search.model_id
    for _attempt in range(COMMIT_ATTEMPTS):
        current = state(services, user_id)
        if current is not None and current.get("model") == model and (not fresh or current.get("fresh")):
            return current
        pk, sk = _state_key(user_id)
        build: dict[str, Any] = {
            "pk": pk, "sk": sk, "build": uuid.uuid4().hex, "prefix": 0, "segments": [], "walked": 0,
            "documents": 0, "total": _count(services, user_id), "fresh": fresh,
            "generation": int(current["generation"]) + 1 if current else 1,
        }  # fmt: skip
        if model is not None:
            build["model"] = model
        if _swap(services, user_id, build, current):
            if current is not None:
                _remove_segments(services, user_id, current["segments"])
            return build
    raise RuntimeError("search index build: could not start (concurrent writers)")


def _swap(services: Services, user_id: str, build: Item | None, previous: Item | None) -> bool:
    """Put (or, with `build` None, delete) the state only if nobody moved it since `previous`."""
    unmoved = Condition(exists=False) if previous is None else Condition(equals={"generation": previous["generation"]})
    try:
        if build is None:
            services.items.delete(_state_key(user_id), unmoved)
        else:
            services.items.put(build, unmoved)
    except ConditionFailed:
        return False
    return True


def _remove_segments(services: Services, user_id: str, segments: Iterable[str]) -> None:
    for segment in segments:
        services.blobs.delete(_segment_path(user_id, segment))


# -- entries ---------------------------------------------------------------------------------------


class _Reuse:
    """Entries of the index being replaced, by key: an unchanged text keeps its tokens when the
    index's terms are this tokenizer's, and its vector when the index is of the model this build
    embeds with."""

    def __init__(self, services: Services, user_id: str, fresh: bool) -> None:
        self.entries: dict[str, Entry | None] = {}
        self.same_model = False
        self.same_tokens = False
        if fresh:
            return
        repo = repository(services)
        pointer = repo.pointer(user_id)
        loaded = repo.load(user_id, any_model=True) if pointer is not None else None
        if loaded is not None:
            index, pointer = loaded
            self.entries = {entry.doc.key: entry for entry in index.entries()}
            self.same_model = repo.same_model(pointer)
            self.same_tokens = repo.same_tokens(pointer)

    def find(self, doc: Doc) -> Entry | None:
        old = self.entries.get(doc.key)
        if old is None or old.doc.text != doc.text:
            return None
        terms = old.tokens if self.same_tokens else tuple(tokens(doc.text))
        return Entry(doc, terms, old.vector if self.same_model else None)


def entries_of(
    services: Services, docs: Sequence[Doc], reuse: _Reuse | None = None, chunk: int = EMBED_CHUNK
) -> list[Entry]:
    """Tokens always; vectors when the embedder answers (a failure indexes the chunk for BM25
    only; the next build embeds it again)."""
    found = [reuse.find(doc) if reuse is not None else None for doc in docs]
    embedder = services.search.embedder
    missing = [i for i, entry in enumerate(found) if entry is None or (entry.vector is None and embedder is not None)]
    vectors: dict[int, Any] = {}
    if embedder is not None:
        for begin in range(0, len(missing), chunk):
            part = missing[begin : begin + chunk]
            try:
                batch = embedder.embed([docs[i].text for i in part])
            except ProviderError:
                log.warning("search: embedding failed; %d documents indexed for BM25 only", len(part))
                continue
            vectors.update(zip(part, batch, strict=True))
            time.sleep(0)  # between chunks: a request waiting for the interpreter gets it now
            services.search.give_way()  # and a request in flight finishes first (mesq serve)
    entries = []
    for i, doc in enumerate(docs):
        old = found[i]
        terms = old.tokens if old is not None else tuple(tokens(doc.text))
        vector = vectors.get(i, old.vector if old is not None else None)
        entries.append(Entry(doc, terms, vector))
    return entries


# -- the walk ---------------------------------------------------------------------------------------


def _removed_key(searchables: Searchables, sort_key: str) -> str:
    return f"{searchables.source_kind(sort_key)}:{sort_key.rsplit('#', 1)[-1]}"


def _walk_step(
    services: Services, user_id: str, build: Item, reuse: _Reuse, seconds: float
) -> tuple[Item, list[Entry], list[str]]:
    """The next records after the cursor (at most STEP_RECORDS, for about `seconds`, over as many
    prefixes as that reaches) as entries, and the state that follows them."""
    started = time.monotonic()
    searchables = searchables_of(services)
    prefixes = _prefixes(services)
    prefix, after = int(build["prefix"]), build.get("after")
    partition = user_partition(user_id)
    entries: list[Entry] = []
    removed: list[str] = []
    walked = 0
    while prefix < len(prefixes) and walked < STEP_RECORDS and time.monotonic() - started < seconds:
        cursor = {"pk": partition, "sk": after} if after else None
        page = services.items.query(partition, prefix=prefixes[prefix], after=cursor, limit=STEP_RECORDS - walked)
        taken = 0
        for begin in range(0, len(page.items), EMBED_CHUNK * 4):
            part = page.items[begin : begin + EMBED_CHUNK * 4]
            docs = []
            for item in part:
                doc = searchables.doc_of(item)
                if doc is None:
                    removed.append(_removed_key(searchables, item["sk"]))
                else:
                    docs.append(doc)
            entries += entries_of(services, docs, reuse)
            taken += len(part)
            if time.monotonic() - started > seconds:
                break
        walked += taken
        if taken < len(page.items) or page.next_key is not None:
            after = page.items[taken - 1]["sk"] if taken else after
        else:  # this prefix is done: the next one from its start
            prefix, after = prefix + 1, None
    following = dict(build)
    following.update(prefix=prefix, walked=int(build["walked"]) + walked)
    following["documents"] = int(build["documents"]) + len(entries)
    if after:
        following["after"] = after
    else:
        following.pop("after", None)
    return following, entries, removed


def _commit(
    services: Services, user_id: str, build: Item, following: Item, entries: list[Entry], removed: list[str]
) -> Item | None:
    """Store the segment and move the state to `following` (plus the segment): the state stored,
    or None when another writer moved it first."""
    segment = uuid.uuid4().hex
    path = _segment_path(user_id, segment)
    committed = dict(following)
    if entries or removed:
        dimension = next((int(entry.vector.shape[0]) for entry in entries if entry.vector is not None), None)
        services.blobs.put(path, pack_entries(entries, removed, dimension), "application/zip")
        committed["segments"] = [*build["segments"], segment]
    committed["generation"] = int(build["generation"]) + 1
    if _swap(services, user_id, committed, build):
        return committed
    if entries or removed:
        services.blobs.delete(path)
    return None


def patch(services: Services, user_id: str, upserts: list[Entry], removed: list[str]) -> bool:
    """Carry a write into the user's build (the caller holds `index_lock`): False when none runs."""
    for _attempt in range(COMMIT_ATTEMPTS):
        build = state(services, user_id)
        if build is None:
            return False
        if _commit(services, user_id, build, build, upserts, removed) is not None:
            return True
    raise RuntimeError("search index build: could not add a write (concurrent writers)")


def _finish(services: Services, user_id: str, build: Item) -> int | None:
    """Merge the segments into the user's index; None when the state moved meanwhile."""
    merged: dict[str, Entry | None] = {}
    dimension: int | None = None
    for segment in build["segments"]:
        try:
            blob = services.blobs.get(_segment_path(user_id, segment))
        except BlobNotFound:
            return None  # another writer finished this build and removed its segments
        entries, removed, found_dimension, _bm25 = unpack_entries(blob)
        dimension = dimension or found_dimension
        merged.update((entry.doc.key, entry) for entry in entries)
        merged.update(dict.fromkeys(removed))
    live = sorted((entry for entry in merged.values() if entry is not None), key=lambda entry: entry.doc.key)
    index = SearchIndex(live, dimension=dimension)
    repo = repository(services)
    for _attempt in range(COMMIT_ATTEMPTS):
        if repo.save(user_id, index, repo.pointer(user_id)):
            break
    else:
        raise RuntimeError("search index build: could not store the index (concurrent writers)")
    if not _swap(services, user_id, None, build):
        return None  # a write patched the build meanwhile: merge again with it
    _remove_segments(services, user_id, build["segments"])
    return len(live)


def step(services: Services, user_id: str, reuse: _Reuse | None = None, seconds: float = STEP_SECONDS) -> Progress:
    """One step of the user's build (starting it when none is under way; a step that reaches
    the end of the walk finishes the build too, so a small account is built in one step)."""
    build = start(services, user_id)
    reuse = reuse or _Reuse(services, user_id, bool(build.get("fresh")))
    walks = len(_prefixes(services))
    for _attempt in range(COMMIT_ATTEMPTS):
        with index_lock(user_id):
            build = start(services, user_id)
            if int(build["prefix"]) < walks:
                following, entries, removed = _walk_step(services, user_id, build, reuse, seconds)
                committed = _commit(services, user_id, build, following, entries, removed)
                if committed is None:
                    continue
                build = committed
                if int(build["prefix"]) < walks:
                    return Progress(int(build["walked"]), int(build["total"]), int(build["documents"]), False)
            documents = _finish(services, user_id, build)
            if documents is not None:
                return Progress(int(build["walked"]), int(build["total"]), documents, True)
    raise RuntimeError("search index build: could not store a step (concurrent writers)")


def run(
    services: Services, user_id: str, *, fresh: bool = False, on_progress: Callable[[Progress], None] | None = None
) -> Progress:
    """The user's build to its end (resuming one under way): `mesq import`, `mesq search reindex`.
    Its steps are longer (`FOREGROUND_STEP_SECONDS`): nothing waits for a turn here, and fewer
    segments make a smaller state item; a stop still loses one step at most."""
    build = start(services, user_id, fresh=fresh)
    if not int(build["walked"]) and not build["segments"]:  # marked before an import wrote: count now
        recounted = {**build, "total": _count(services, user_id), "generation": int(build["generation"]) + 1}
        _swap(services, user_id, recounted, build)
    reuse = _Reuse(services, user_id, bool(build.get("fresh")))
    while True:
        progress = step(services, user_id, reuse, FOREGROUND_STEP_SECONDS)
        if on_progress is not None:
            on_progress(progress)
        if progress.done:
            return progress


def claim(services: Services, user_id: str, owner: str, seconds: float) -> bool:
    """Take the user's build for `seconds` (the indexer function on AWS, where several
    invocations may be asked to run it): False when there is none, or another live holder has it.
    Its steps keep the claim (they copy the state); `release` ends it."""
    for _attempt in range(COMMIT_ATTEMPTS):
        build = state(services, user_id)
        if build is None:
            return False
        holder, until = build.get("claimedBy"), float(build.get("claimedUntil", 0))
        if holder not in (None, owner) and until > time.time():
            return False
        claimed = {**build, "claimedBy": owner, "claimedUntil": int(time.time() + seconds) + 1}
        claimed["generation"] = int(build["generation"]) + 1
        if _swap(services, user_id, claimed, build):
            return True
    return False


def release(services: Services, user_id: str, owner: str) -> None:
    """End `owner`'s claim on the user's build, if it still holds one (nothing when it is done)."""
    for _attempt in range(COMMIT_ATTEMPTS):
        build = state(services, user_id)
        if build is None or build.get("claimedBy") != owner:
            return
        released = {key: value for key, value in build.items() if key not in ("claimedBy", "claimedUntil")}
        released["generation"] = int(build["generation"]) + 1
        if _swap(services, user_id, released, build):
            return


def needed(services: Services, user_id: str) -> str | None:
    """Why the user's AI index cannot answer fully now: "building" (a build is under way),
    "missing" (none yet), "stale" (another embedding model's, or older terms), or None (it can)."""
    if state(services, user_id) is not None:
        return "building"
    repo = repository(services)
    pointer = repo.pointer(user_id)
    if pointer is None:
        return "missing"
    return "stale" if repo.stale(pointer) else None
