"""An import leaves a searchable account: every kind (an archive, Markdown, memos / flomo /
Todoist), from every edge, builds or extends the user's AI and literal indexes as part of it.

- The command line (`mesq import`, whose writes nothing follows) marks the build before the
  first write (`before_import`: a stop anywhere leaves a build that `mesq serve` or the next run
  resumes), then builds both kinds of index to the end with progress lines (`index_now`). A
  rerun after a stop resumes the AI build at its last step (search/build.py).
- A server process (REST, the browser) runs the import inside `during_import`: the in-process
  follower skips the import's writes one by one; when the import ends (or fails half-way) the
  literal indexes are rebuilt there and then (no model: seconds at 100k), and the AI build is
  started and queued on the build worker, which runs it in steps at low priority. On AWS the
  stream function follows every write anyway (`importing` is a no-op there): the follower's
  refresh extends the index, or starts a build for a user without one.

`reindex_needed` tells the command line whether to suggest `mesq search reindex` (a stop left a
build unfinished, or an index is missing or of another model).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from .searchables import searchables_of

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
#: A progress line at least every this many seconds, and at every tenth of the way.
PROGRESS_SECONDS = 30.0


def before_import(services: Services, user_id: str) -> None:
    """Mark the AI build an import will need, before its first write."""
    from .build import start

    start(services, user_id)


@contextmanager
def during_import(services: Services, user_id: str) -> Iterator[None]:
    """Around an import in a server process: see the module's docstring."""
    with services.search.importing(user_id) as paused:
        try:
            yield
        finally:
            if paused:
                _index_in_background(services, user_id)


def _index_in_background(services: Services, user_id: str) -> None:
    try:
        from . import build, literal_store

        for kind in searchables_of(services).literal:
            literal_store.rebuild(services, user_id, kind)
        build.start(services, user_id)
    except Exception:  # the import is stored; a search queues what is missing
        log.exception("search: indexing after an import failed")
    services.search.request_build(user_id)


def index_now(services: Services, user_id: str, say: Callable[[str], None], *, fresh: bool = False) -> None:
    """The command line's indexing after an import: the literal indexes, then the AI index in
    steps (resuming one a stop left), a progress line now and then. `fresh` (a repair, `mesq
    search reindex`): every document tokenised and embedded again."""
    from . import build, literal_store

    started = time.perf_counter()
    rows = [literal_store.rebuild(services, user_id, kind) for kind in searchables_of(services).literal]
    say(f"literal search indexes: {sum(rows):,} rows in {time.perf_counter() - started:.1f}s")
    started = last_said = time.perf_counter()
    said_share = 0.0

    def progress(step: build.Progress) -> None:
        nonlocal last_said, said_share
        now = time.perf_counter()
        if not step.done and step.share - said_share < 0.1 and now - last_said < PROGRESS_SECONDS:
            return
        last_said, said_share = now, step.share
        if not step.done:
            say(f"search index: {step.walked:,} of {step.total:,} records ({step.share:.0%}), {now - started:.0f}s")

    finished = build.run(services, user_id, fresh=fresh, on_progress=progress)
    embedder = services.search.embedder
    vectors = f"vectors by {embedder.name}" if embedder is not None else "keywords only (no embedding model)"
    say(f"search index: {finished.documents:,} documents in {time.perf_counter() - started:.1f}s; {vectors}")


def reindex_needed(services: Services, user_id: str) -> bool:
    """Whether the user's indexes need `mesq search reindex` (or a `mesq serve` to finish them):
    an AI index missing, of another model or with an unfinished build; a literal index missing
    or of an older format."""
    from .build import needed
    from .literal_store import repository

    if needed(services, user_id) is not None:
        return True
    for kind in searchables_of(services).literal:
        pointer = repository(services, kind).pointer(user_id)
        if pointer is None or pointer.get("format") != kind.format:
            return True
    return False
