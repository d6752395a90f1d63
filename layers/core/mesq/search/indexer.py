"""Keeping a user's index in step with the store: the same code behind the DynamoDB Streams
function (functions/indexer) and the in-process hook of `mesq serve` (follow.py).

`refresh` takes the sort keys that changed and RE-READS them, so it does not care about the order
or repetition of change records: whatever the store holds now is what the index gets (a memo in
the trash, a deleted task: removed; anything else searchable: re-indexed). Vectors come from the
configured embedder; when it is absent or fails, the document is still indexed for BM25 and only
misses the vector branch until the next build (`mesq search reindex USERNAME`).

A user without an index (or with one of another model) gets a build (build.py): one step here
when the account fits in it (a new account's first write: its index is there for the next
search), else asked to run where builds run (`SearchRuntime.request_build`: the build worker of
`mesq serve`, the build queue on AWS); while it runs, every refresh carries its writes into the
build (`build.patch`) as well as into the current index.
"""

from __future__ import annotations

from collections.abc import Iterable

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.keys import user_partition
from . import build
from .build import entries_of, index_lock, repository
from .searchables import searchables_of

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
SAVE_ATTEMPTS = 5
__all__ = ["rebuild", "refresh", "repository"]


def rebuild(services: Services, user_id: str) -> int:
    """A fresh index from everything the user has, built here to its end (resuming a fresh build
    a stop interrupted); returns the number of documents."""
    return build.run(services, user_id, fresh=True).documents


def refresh(services: Services, user_id: str, sort_keys: Iterable[str]) -> None:
    """Bring the index up to date for these changed keys (other keys are ignored)."""
    searchables = searchables_of(services)
    wanted = sorted({key for key in sort_keys if searchables.source(key) is not None})
    if not wanted:
        return
    repo = repository(services)
    pointer = repo.pointer(user_id)
    if (pointer is None or repo.stale(pointer)) and build.state(services, user_id) is None:
        started = build.start(services, user_id)  # nothing to update: the build reads these records too
        if int(started["total"]) <= build.STEP_RECORDS:  # a new account: one step, here and now
            build.step(services, user_id)
        else:
            services.search.request_build(user_id)
        return
    partition = user_partition(user_id)
    found = {item["sk"]: item for item in services.items.batch_get([(partition, key) for key in wanted])}
    docs = [doc for doc in (searchables.doc_of(found[key]) for key in wanted if key in found) if doc is not None]
    kept = {doc.key for doc in docs}
    removed = [f"{searchables.source_kind(key)}:{key.rsplit('#', 1)[-1]}" for key in wanted]
    removed = [key for key in removed if key not in kept]
    upserts = entries_of(services, docs)
    with index_lock(user_id):
        building = build.patch(services, user_id, upserts, removed)
        for _attempt in range(SAVE_ATTEMPTS):
            loaded = repo.load(user_id)
            if loaded is None and ((pointer := repo.pointer(user_id)) is None or repo.stale(pointer)):
                break  # no index of this model yet: the build makes one (these changes included)
            if loaded is None:
                continue
            index, pointer = loaded
            index.apply(upserts, removed)
            if repo.save(user_id, index, pointer):
                return
            repo.forget(user_id)
        else:
            raise RuntimeError("search index: could not store the update (concurrent writers)")
    if not building:
        build.start(services, user_id)
    services.search.request_build(user_id)
