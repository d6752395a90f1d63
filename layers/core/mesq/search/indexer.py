"""Keeping a user's index in step with the store: the same code behind the DynamoDB Streams
function (functions/indexer) and the in-process hook of `mesq serve` (follow.py).

`refresh` takes the sort keys that changed and RE-READS them, so it does not care about the order
or repetition of change records: whatever the store holds now is what the index gets (a memo in
the trash, a deleted task: removed; anything else searchable: re-indexed). Vectors come from the
configured embedder; when it is absent or fails, the document is still indexed for BM25 and only
misses the vector branch until the next `rebuild` (`mesq search reindex USERNAME`).

`mesq serve` runs it in two steps (follow.py): `refresh(..., vectors=False)` right after the
write (tokens only: a search waits for this step, so it finds the new text at once by BM25), then
`attach_vectors` on the follower's slower queue (the embedding: the document joins the vector
branch a moment later). The stream function on AWS does both at once.
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


def _kept_vector(index: SearchIndex, doc: Doc) -> Entry:
    """The entry of a re-read document without embedding it: its vector kept when its text did
    not change (a status or tag edit), else none until `attach_vectors` runs."""
    current = index.entry(doc.key)
    vector = current.vector if current is not None and current.doc.text == doc.text else None
    return Entry(doc, tuple(tokens(doc.text)), vector)


def refresh(services: Services, user_id: str, sort_keys: Iterable[str], *, vectors: bool = True) -> list[str]:
    """Bring the index up to date for these changed keys (other keys are ignored). Without
    `vectors`, only tokens: returns the keys of the documents left without a vector, for
    `attach_vectors`."""
    searchables = searchables_of(services)
    wanted = sorted({key for key in sort_keys if searchables.source(key) is not None})
    if not wanted:
        return []
    partition = user_partition(user_id)
    found = {item["sk"]: item for item in services.items.batch_get([(partition, key) for key in wanted])}
    docs = [doc for doc in (searchables.doc_of(found[key]) for key in wanted if key in found) if doc is not None]
    kept = {doc.key for doc in docs}
    removed = [f"{searchables.source_kind(key)}:{key.rsplit('#', 1)[-1]}" for key in wanted]
    removed = [key for key in removed if key not in kept]
    embedded = entries_for(services, docs) if vectors else None
    repo = repository(services)
    with _user_lock(user_id):
        for _attempt in range(SAVE_ATTEMPTS):
            loaded = repo.load(user_id)
            if loaded is None and ((pointer := repo.pointer(user_id)) is None or repo.stale(pointer)):
                break  # no index yet, or another model's: build one from the store (it includes these changes)
            if loaded is None:
                continue
            index, pointer = loaded
            upserts = embedded if embedded is not None else [_kept_vector(index, doc) for doc in docs]
            index.apply(upserts, removed)
            if repo.save(user_id, index, pointer):
                return [entry.doc.key for entry in upserts if entry.vector is None]
            repo.forget(user_id)
        else:
            raise RuntimeError("search index: could not store the update (concurrent writers)")
    rebuild(services, user_id)
    return []


def attach_vectors(services: Services, user_id: str, doc_keys: Iterable[str]) -> None:
    """Embed the documents `refresh(..., vectors=False)` left without a vector, as the index holds
    them now (it never reads the store: the text embedded is the text indexed). A document whose
    text changed or that was removed meanwhile is skipped: the write that changed it queued its
    own turn here."""
    repo = repository(services)
    loaded = repo.load(user_id)
    if loaded is None or services.search.embedder is None:
        return
    pending = [entry for key in dict.fromkeys(doc_keys) if (entry := loaded[0].entry(key)) and entry.vector is None]
    embedded = {entry.doc.key: entry for entry in entries_for(services, [entry.doc for entry in pending])}
    embedded = {key: entry for key, entry in embedded.items() if entry.vector is not None}
    if not embedded:
        return
    with _user_lock(user_id):
        for _attempt in range(SAVE_ATTEMPTS):
            loaded = repo.load(user_id)
            if loaded is None:
                return
            index, pointer = loaded
            fresh = [
                Entry(current.doc, current.tokens, entry.vector)
                for key, entry in embedded.items()
                if (current := index.entry(key)) is not None and current.doc.text == entry.doc.text
            ]
            if not fresh:
                return
            index.apply(fresh)
            if repo.save(user_id, index, pointer):
                return
            repo.forget(user_id)
    raise RuntimeError("search index: could not store the vectors (concurrent writers)")
