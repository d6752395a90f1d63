"""Keeping a user's index in step with the store: the same code behind the DynamoDB Streams
function (functions/indexer) and the in-process hook of `mesq serve` (follow.py).

`refresh` takes the sort keys that changed and RE-READS them, so it does not care about the order
or repetition of change records: whatever the store holds now is what the index gets (a memo in
the trash, a deleted task: removed; anything else searchable: re-indexed). Vectors come from the
configured embedder; when it is absent or fails, the document is still indexed for BM25 and only
misses the vector branch until the next `rebuild` (`mesq search reindex USERNAME`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.keys import user_partition
from ..kernel.ports.models import ProviderError
from ..store.paging import walk
from .documents import Doc
from .index import Entry, SearchIndex
from .persist import IndexRepository
from .searchables import searchables_of
from .tokenizer import tokens
from .user_locks import UserLocks

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
SAVE_ATTEMPTS = 5
EMBED_BATCH = 64
_user_lock = UserLocks()


def repository(services: Services) -> IndexRepository:
    return IndexRepository(services.items, services.blobs, services.search)


def entries_for(services: Services, docs: list[Doc]) -> list[Entry]:
    """Tokens always; vectors when the embedder answers."""
    vectors: list[object] = [None] * len(docs)
    embedder = services.search.embedder
    if embedder is not None and docs:
        try:
            for start in range(0, len(docs), EMBED_BATCH):
                batch = embedder.embed([doc.text for doc in docs[start : start + EMBED_BATCH]])
                vectors[start : start + len(batch)] = list(batch)
        except ProviderError:
            log.warning("search: embedding failed; %d documents indexed for BM25 only", len(docs))
            vectors = [None] * len(docs)
    return [Entry(doc, tuple(tokens(doc.text)), vector) for doc, vector in zip(docs, vectors, strict=True)]  # type: ignore[arg-type]


def _searchable(services: Services, user_id: str) -> Iterator[Doc]:
    partition = user_partition(user_id)
    for source in searchables_of(services).documents:
        for item in walk(services.items, partition, prefix=source.prefix):
            doc = source.doc(item)
            if doc is not None:
                yield doc


def rebuild(services: Services, user_id: str) -> int:
    """A fresh index from everything the user has; returns the number of documents."""
    repo = repository(services)
    index = SearchIndex(entries_for(services, list(_searchable(services, user_id))))
    vectors = [entry.vector for entry in index.snapshot_entries if entry.vector is not None]
    index.dimension = int(vectors[0].shape[0]) if vectors else None
    with _user_lock(user_id):
        for _attempt in range(SAVE_ATTEMPTS):
            current = repo.pointer(user_id)
            if repo.save(user_id, index, current):
                return len(index.snapshot_entries)
    raise RuntimeError("search index: could not store the rebuilt index (concurrent writers)")


def refresh(services: Services, user_id: str, sort_keys: Iterable[str]) -> None:
    """Bring the index up to date for these changed keys (other keys are ignored)."""
    searchables = searchables_of(services)
    wanted = sorted({key for key in sort_keys if searchables.source(key) is not None})
    if not wanted:
        return
    partition = user_partition(user_id)
    found = {item["sk"]: item for item in services.items.batch_get([(partition, key) for key in wanted])}
    docs = [doc for doc in (searchables.doc_of(found[key]) for key in wanted if key in found) if doc is not None]
    kept = {doc.key for doc in docs}
    removed = [f"{searchables.source_kind(key)}:{key.rsplit('#', 1)[-1]}" for key in wanted]
    removed = [key for key in removed if key not in kept]
    upserts = entries_for(services, docs)
    repo = repository(services)
    with _user_lock(user_id):
        for _attempt in range(SAVE_ATTEMPTS):
            loaded = repo.load(user_id)
            if loaded is None and ((pointer := repo.pointer(user_id)) is None or repo.stale(pointer)):
                break  # no index yet, or another model's: build one from the store (it includes these changes)
            if loaded is None:
                continue
            index, pointer = loaded
            index.apply(upserts, removed)
            if repo.save(user_id, index, pointer):
                return
            repo.forget(user_id)
        else:
            raise RuntimeError("search index: could not store the update (concurrent writers)")
    rebuild(services, user_id)
