"""Where a user's index lives: two blobs and one pointer item.

- `search/<user hash>/<id>.snap`: the snapshot (entries as JSON, vectors as float16 .npy and the
  BM25 model in bm25s's files, zipped: a load reads the model, it does not index again);
- `search/<user hash>/<id>.ovl`: the overlay (the same format, removed keys included);
- pointer item pk `U#<user>` sk `SEARCH#INDEX`: `snapshot`, `overlay` (blob ids), `generation` and
  `model`, the id of the embedding model whose vectors the index holds. An index of another model
  (the configuration changed) is stale: `load` does not return it, and the caller rebuilds it, so
  vectors of two models are never compared or mixed; and `tokens`, the tokenizer's version
  (`tokenizer.TOKENS_FORMAT`, 1 when absent): an index of older terms answers, and its next build
  makes the terms again and keeps the vectors.

Writers switch the pointer with a condition on its generation, so two writers cannot lose each
other's change (the loser reloads and retries). Readers read the pointer (one item) per query and
keep the loaded index per process keyed by (snapshot, overlay): a warm function reloads only what
changed, usually just the small overlay.
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
import uuid
import zipfile
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from ..kernel.collector import collector_paused
from ..kernel.keys import user_partition
from ..kernel.ports.models import SearchRuntime
from ..kernel.ports.storage import BlobNotFound, BlobStore, Condition, ConditionFailed, Item, ItemStore
from . import pointers
from .documents import Doc
from .index import Entry, Part, SearchIndex
from .tokenizer import TOKENS_FORMAT

POINTER_SK = pointers.AI_INDEX
#: The snapshot's BM25 model: bm25s's files under this folder of the zip.
BM25_MEMBER = "bm25/"
CONTENT_TYPE = "application/zip"


def pointer_key(user_id: str) -> tuple[str, str]:
    return (user_partition(user_id), POINTER_SK)


def folder_of(user_id: str) -> str:
    return "search/" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


def pack_entries(
    entries: list[Entry], removed: list[str], dimension: int | None, bm25: bm25s.BM25 | None = None
) -> bytes:
    """Entries as JSON (deflated), vectors as float16 .npy (stored), zipped; with `bm25` (a snapshot's) its model too,
    in bm25s's own files, so a load does not index every document again."""
    rows = [
        {"kind": e.doc.kind, "id": e.doc.id, "text": e.doc.text, "meta": e.doc.meta, "tokens": e.tokens}
        for e in entries
    ]
    has_vector = np.array([e.vector is not None and dimension is not None for e in entries], dtype=bool)
    vectors = np.zeros((len(entries), dimension or 0), dtype=np.float16)
    for i, entry in enumerate(entries):
        if has_vector[i] and entry.vector is not None and entry.vector.shape == (dimension,):
            vectors[i] = entry.vector
        else:
            has_vector[i] = False
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("entries.json", json.dumps({"rows": rows, "removed": removed, "dimension": dimension}))
        for name, array in (("vectors.npy", vectors), ("has_vector.npy", has_vector)):
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            # float16 vectors deflate by 9 % only, and inflating them was most of a load's reading
            # (20,000 notes: 107 ms of 15 MB, 21 ms stored; writing: 606 ms against 32): stored.
            stored = zipfile.ZIP_STORED if name == "vectors.npy" else None
            archive.writestr(name, buffer.getvalue(), compress_type=stored)
        if bm25 is not None:
            with tempfile.TemporaryDirectory(prefix="mesq-bm25-") as folder:
                bm25.save(folder, show_progress=False)
                for path in sorted(Path(folder).iterdir()):
                    archive.writestr(f"{BM25_MEMBER}{path.name}", path.read_bytes())
    return out.getvalue()


def unpack_entries(data: bytes) -> tuple[list[Entry], list[str], int | None, bm25s.BM25 | None]:
    """`pack_entries` reversed: entries, removed keys, dimension and the BM25 model (None when
    the blob has none: an overlay, a segment, or a snapshot written before it was kept)."""
    with collector_paused():  # kernel/collector.py
        return _unpacked(data)


def _unpacked(data: bytes) -> tuple[list[Entry], list[str], int | None, bm25s.BM25 | None]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        body = json.loads(archive.read("entries.json"))
        vectors = np.load(io.BytesIO(archive.read("vectors.npy")), allow_pickle=False).astype(np.float32)
        has_vector = np.load(io.BytesIO(archive.read("has_vector.npy")), allow_pickle=False)
        bm25 = None
        members = [name for name in archive.namelist() if name.startswith(BM25_MEMBER)]
        if members:
            with tempfile.TemporaryDirectory(prefix="mesq-bm25-") as folder:
                for name in members:
                    (Path(folder) / name.removeprefix(BM25_MEMBER)).write_bytes(archive.read(name))
                bm25 = bm25s.BM25.load(folder, show_progress=False)
    entries = [
        Entry(
            Doc(row["kind"], row["id"], row["text"], row["meta"]),
            tuple(row["tokens"]),
            vectors[i] if has_vector[i] else None,
        )
        for i, row in enumerate(body["rows"])
    ]
    return entries, list(body["removed"]), body["dimension"], bm25


def swap_pointer(items: ItemStore, pointer: Item, previous: Item | None) -> bool:
    """Put an index's new pointer only if no other writer moved it since `previous` was read (the
    same generation, or still none): False when one did. Shared by the AI and the literal index."""
    unmoved = Condition(exists=False) if previous is None else Condition(equals={"generation": previous["generation"]})
    try:
        items.put(pointer, unmoved)
    except ConditionFailed:
        return False
    return True


class IndexRepository:
    def __init__(self, items: ItemStore, blobs: BlobStore, runtime: SearchRuntime) -> None:
        self._items, self._blobs, self._cache = items, blobs, runtime.cache
        self._runtime = runtime

    def stale(self, pointer: Item) -> bool:
        """True when the stored index holds another model's vectors than this process makes, or
        terms of another tokenizer (`tokenizer.TOKENS_FORMAT`): a build makes it again."""
        return not (self.same_model(pointer) and self.same_tokens(pointer))

    def same_model(self, pointer: Item) -> bool:
        """The stored vectors are this process's model's: a build may reuse them."""
        return pointers.same_model(pointer, self._runtime.model_id)

    @staticmethod
    def same_tokens(pointer: Item) -> bool:
        """The stored terms are this tokenizer's: a build may reuse them."""
        return pointers.same_tokens(pointer)

    def pointer(self, user_id: str) -> Item | None:
        return self._items.get(pointer_key(user_id))

    def load(
        self, user_id: str, *, any_model: bool = False, pointer: Item | None = None
    ) -> tuple[SearchIndex, Item] | None:
        """The user's current index (cached by version), or None when none was built yet or the
        one stored is stale (another model's), unless `any_model` (its tokens serve BM25 alone
        while a build for this model runs, and a build reuses them)."""
        pointer = pointer or self.pointer(user_id)  # `pointer`: read by the caller just now
        if pointer is None or (self.stale(pointer) and not any_model):
            return None
        cached = self._cache.get(user_id)
        if cached is not None and cached[0] == (pointer["snapshot"], pointer["overlay"]):
            return cached[1], pointer
        folder = folder_of(user_id)
        try:
            if cached is not None and cached[0][0] == pointer["snapshot"]:
                index: SearchIndex = cached[1]
                base = SearchIndex(index.snapshot_entries, {}, index.dimension, index.snapshot_id, index._snapshot)
            else:
                snapshot = self._blobs.get(f"{folder}/{pointer['snapshot']}.snap")
                entries, _removed, dimension, bm25 = unpack_entries(snapshot)
                part = Part(entries, dimension, bm25) if bm25 is not None else None
                base = SearchIndex(entries, {}, dimension, str(pointer["snapshot"]), part)
            overlay, removed, dimension, _bm25 = unpack_entries(self._blobs.get(f"{folder}/{pointer['overlay']}.ovl"))
        except BlobNotFound:
            return None  # a writer replaced the version between the two reads: the caller retries
        base.dimension = base.dimension or dimension
        base.overlay = {**{entry.doc.key: entry for entry in overlay}, **dict.fromkeys(removed)}
        self._cache[user_id] = ((pointer["snapshot"], pointer["overlay"]), base)
        return base, pointer

    def save(self, user_id: str, index: SearchIndex, previous: Item | None) -> bool:
        """Store `index` as the user's new version; False when another writer got there first."""
        folder = folder_of(user_id)
        snapshot_changed = index.snapshot_id is None
        snapshot_id = index.snapshot_id or uuid.uuid4().hex
        if snapshot_changed:  # its BM25 model is built here, by the writer, and stored with it
            packed = pack_entries(index.snapshot_entries, [], index.dimension, index.snapshot().bm25)
            self._blobs.put(f"{folder}/{snapshot_id}.snap", packed, CONTENT_TYPE)
        overlay_id = uuid.uuid4().hex
        live = [entry for entry in index.overlay.values() if entry is not None]
        removed = [key for key, entry in index.overlay.items() if entry is None]
        self._blobs.put(f"{folder}/{overlay_id}.ovl", pack_entries(live, removed, index.dimension), CONTENT_TYPE)
        generation = int(previous["generation"]) + 1 if previous else 1
        pk, sk = pointer_key(user_id)
        pointer: dict[str, Any] = {
            "pk": pk, "sk": sk, "snapshot": snapshot_id, "overlay": overlay_id, "generation": generation,
            "documents": len(index), "tokens": TOKENS_FORMAT,
        }  # fmt: skip
        if self._runtime.model_id is not None:
            pointer["model"] = self._runtime.model_id
        if not swap_pointer(self._items, pointer, previous):
            return False
        index.snapshot_id = snapshot_id
        self._cache[user_id] = ((snapshot_id, overlay_id), index)
        if previous is not None:  # the old version's blobs: a reader that still holds them has them in memory
            if previous["snapshot"] != snapshot_id:
                self._blobs.delete(f"{folder}/{previous['snapshot']}.snap")
            self._blobs.delete(f"{folder}/{previous['overlay']}.ovl")
        return True

    def forget(self, user_id: str) -> None:
        """Drop this process's copy (after a lost race the next load reads the store again)."""
        self._cache.pop(user_id, None)

    def drop(self, user_id: str) -> None:
        pointer = self.pointer(user_id)
        if pointer is not None:
            self._items.delete(pointer_key(user_id))
            self._blobs.delete(f"{folder_of(user_id)}/{pointer['snapshot']}.snap")
            self._blobs.delete(f"{folder_of(user_id)}/{pointer['overlay']}.ovl")
        self._cache.pop(user_id, None)
