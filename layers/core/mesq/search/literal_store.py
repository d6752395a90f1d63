"""Where a user's literal indexes (literal.py; what each holds: its domain's `LiteralKind`,
literal_kind.py, handed in) live and how they follow writes: the same pattern as the AI index
(persist.py, indexer.py), beside it under the user's `search/` folder. One index per kind
(memos, reading notes, todo tasks and inbox items):

- `search/<user hash>/<stem>-<id>.snap`: the snapshot (rows as JSON, postings as .npy, zipped);
- `search/<user hash>/<stem>-<id>.ovl`: the overlay (JSON: changed rows and removed ids);
- pointer item pk `U#<user>` sk `SEARCH#LITERAL#<KIND>`: `snapshot`, `overlay`, `generation`,
  `format` (an index of another format is stale: not used, rebuilt on the next write) and `rows`.

A query gives `current` the row count the store's own counters imply (memos: the memo counters'
normal + archived + deleted; reading notes: the books' note counters; todos: the column and inbox
list sizes); an index whose count disagrees (writes it has not seen yet: stream lag, an import)
is not used, and the query scans instead.

`refresh` (the in-process follower and the stream function, with the changed sort keys) re-reads
the keys and applies them to every kind they belong to; with no index (or a stale one) it builds
one from the store. Writers switch the pointer conditionally on its generation, so two writers
cannot lose each other's change.
"""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from collections.abc import Iterable
from typing import Any

import numpy as np
from aws_lambda_powertools import Logger

from ..kernel.collector import collector_paused
from ..kernel.context import Services
from ..kernel.keys import user_partition
from ..kernel.ports.storage import BlobNotFound, BlobStore, Item, ItemStore
from .literal_index import LiteralIndex
from .literal_kind import LiteralKind, Row
from .persist import folder_of, swap_pointer
from .searchables import searchables_of
from .user_locks import UserLocks

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
SAVE_ATTEMPTS = 5
_user_lock = UserLocks()  # one per user for every kind: a user's literal writers are one worker anyway


def _cache_key(kind: LiteralKind, user_id: str) -> str:
    # SearchRuntime.cache keys: the AI index uses the bare user id.
    return f"literal:{kind.name}:{user_id}"


def _rows_json(rows: Iterable[Row]) -> list[list[Any]]:
    return [[row.id, row.fields, row.text] for row in rows]


def _pack_snapshot(index: LiteralIndex) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("rows.json", json.dumps(_rows_json(index.rows), ensure_ascii=False))
        for name, array in (("codes", index.codes), ("offsets", index.offsets), ("postings", index.postings)):
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            archive.writestr(f"{name}.npy", buffer.getvalue())
    return out.getvalue()


def _unpack_snapshot(kind: LiteralKind, data: bytes) -> LiteralIndex:
    with zipfile.ZipFile(io.BytesIO(data)) as archive, collector_paused():  # kernel/collector.py
        rows = [Row(row[0], row[1], row[2]) for row in json.loads(archive.read("rows.json"))]
        arrays = [
            np.load(io.BytesIO(archive.read(f"{name}.npy")), allow_pickle=False)
            for name in ("codes", "offsets", "postings")
        ]
    codes, offsets, postings = arrays
    return LiteralIndex(kind.order, rows, codes, offsets, postings, descending=kind.descending)


def _pack_overlay(index: LiteralIndex) -> bytes:
    live = [row for row in index.overlay.values() if row is not None]
    removed = [key for key, row in index.overlay.items() if row is None]
    return json.dumps({"rows": _rows_json(live), "removed": removed}, ensure_ascii=False).encode("utf-8")


def _unpack_overlay(data: bytes) -> dict[str, Row | None]:
    body = json.loads(data)
    overlay: dict[str, Row | None] = {row[0]: Row(row[0], row[1], row[2]) for row in body["rows"]}
    overlay.update(dict.fromkeys(body["removed"]))
    return overlay


#: The kind a caller that names none means: the memo index, the first there was.
DEFAULT_KIND = "memo"


class LiteralRepository:
    def __init__(self, items: ItemStore, blobs: BlobStore, cache: dict[str, Any], kind: LiteralKind) -> None:
        self._items, self._blobs, self._cache, self.kind = items, blobs, cache, kind

    def pointer(self, user_id: str) -> Item | None:
        return self._items.get((user_partition(user_id), self.kind.pointer_sk))

    def load(self, user_id: str) -> tuple[LiteralIndex, Item] | None:
        """The user's current index (cached by version), or None: none built yet, a stale
        format, or a writer replaced the version between the two reads."""
        pointer = self.pointer(user_id)
        if pointer is None or pointer.get("format") != self.kind.format:
            return None
        version = (pointer["snapshot"], pointer["overlay"])
        cached = self._cache.get(_cache_key(self.kind, user_id))
        if cached is not None and cached[0] == version:
            return cached[1], pointer
        folder, stem = folder_of(user_id), self.kind.blob_stem
        try:
            if cached is not None and cached[0][0] == pointer["snapshot"]:
                old: LiteralIndex = cached[1]
                index = old.fork()
            else:
                index = _unpack_snapshot(self.kind, self._blobs.get(f"{folder}/{stem}-{pointer['snapshot']}.snap"))
                index.snapshot_id = str(pointer["snapshot"])
            index.overlay = _unpack_overlay(self._blobs.get(f"{folder}/{stem}-{pointer['overlay']}.ovl"))
        except BlobNotFound:
            return None
        self._cache[_cache_key(self.kind, user_id)] = (version, index)
        return index, pointer

    def save(self, user_id: str, index: LiteralIndex, previous: Item | None) -> bool:
        """Store `index` as the user's new version; False when another writer got there first."""
        folder, stem = folder_of(user_id), self.kind.blob_stem
        snapshot_id = index.snapshot_id or uuid.uuid4().hex
        if index.snapshot_id is None:
            self._blobs.put(f"{folder}/{stem}-{snapshot_id}.snap", _pack_snapshot(index), "application/zip")
        overlay_id = uuid.uuid4().hex
        self._blobs.put(f"{folder}/{stem}-{overlay_id}.ovl", _pack_overlay(index), "application/json")
        pk, sk = user_partition(user_id), self.kind.pointer_sk
        pointer: dict[str, Any] = {
            "pk": pk, "sk": sk, "snapshot": snapshot_id, "overlay": overlay_id, "format": self.kind.format,
            "generation": int(previous["generation"]) + 1 if previous else 1, "rows": len(index),
        }  # fmt: skip
        if not swap_pointer(self._items, pointer, previous):
            return False
        index.snapshot_id = snapshot_id
        self._cache[_cache_key(self.kind, user_id)] = ((snapshot_id, overlay_id), index)
        if previous is not None and "snapshot" in previous:  # a reader that still holds them has them in memory
            if previous["snapshot"] != snapshot_id:
                self._blobs.delete(f"{folder}/{stem}-{previous['snapshot']}.snap")
            self._blobs.delete(f"{folder}/{stem}-{previous['overlay']}.ovl")
        return True

    def forget(self, user_id: str) -> None:
        self._cache.pop(_cache_key(self.kind, user_id), None)


def _kind(services: Services, kind: LiteralKind | str) -> LiteralKind:
    return searchables_of(services).literal_named(kind) if isinstance(kind, str) else kind


def repository(services: Services, kind: LiteralKind | str = DEFAULT_KIND) -> LiteralRepository:
    return LiteralRepository(services.items, services.blobs, services.search.cache, _kind(services, kind))


def rebuild(services: Services, user_id: str, kind: LiteralKind | str = DEFAULT_KIND) -> int:
    """A fresh index of `kind` (or the kind of that name) from every record the user has (the
    backfill); returns its row count."""
    kind = _kind(services, kind)
    index = LiteralIndex.build(kind.order, kind.all_rows(services.items, user_id), kind.descending)
    repo = repository(services, kind)
    with _user_lock(user_id):
        for _attempt in range(SAVE_ATTEMPTS):
            if repo.save(user_id, index, repo.pointer(user_id)):
                return len(index)
    raise RuntimeError(f"literal {kind.name} index: could not store the rebuilt index (concurrent writers)")


def refresh(services: Services, user_id: str, sort_keys: Iterable[str]) -> None:
    """Bring every kind's index up to date for these changed keys (other records are ignored).
    A kind that fails does not stop the others; the first failure is raised after them."""
    keys = sorted(set(sort_keys))
    failure: Exception | None = None
    for kind in searchables_of(services).literal:
        wanted = [key for key in keys if kind.owns(key)]
        if not wanted:
            continue
        try:
            _refresh_kind(services, user_id, kind, wanted)
        except Exception as error:
            failure = failure or error
    if failure is not None:
        raise failure


def _refresh_kind(services: Services, user_id: str, kind: LiteralKind, wanted: list[str]) -> None:
    upserts, removed = kind.changed(services.items, user_id, wanted)
    repo = repository(services, kind)
    with _user_lock(user_id):
        for _attempt in range(SAVE_ATTEMPTS):
            loaded = repo.load(user_id)
            if loaded is None:
                pointer = repo.pointer(user_id)
                if pointer is None or pointer.get("format") != kind.format:
                    break  # none yet, or a stale format: build one from the store (these changes included)
                continue  # replaced between the pointer and the blob reads: read again
            index, pointer = loaded[0].fork(), loaded[1]
            index.apply(upserts, removed)
            if repo.save(user_id, index, pointer):
                return
            repo.forget(user_id)
        else:
            raise RuntimeError(f"literal {kind.name} index: could not store the update (concurrent writers)")
    rebuild(services, user_id, kind)


def _load_quietly(services: Services, user_id: str, kind: LiteralKind) -> LiteralIndex | None:
    try:
        loaded = repository(services, kind).load(user_id)
    except Exception:  # the index is an accelerator: a store or blob failure means scanning
        log.exception("literal index: load failed; scanning")
        return None
    return None if loaded is None else loaded[0]


def current(services: Services, user_id: str, expected_rows: int, kind: LiteralKind) -> LiteralIndex | None:
    """The index a query may use: in step with the store as far as the counters tell (exactly
    `expected_rows` rows), else None and the caller scans. In-process, the queued updates are
    waited for first, and an index that is missing or out of step is rebuilt in the background."""
    for _attempt in range(2):  # twice: a write that committed a moment ago queues its update just after
        services.search.settle_literal(user_id)
        index = _load_quietly(services, user_id, kind)
        if index is not None and len(index) == expected_rows:
            return index
    services.search.literal_missing(user_id, kind.name)
    return None
