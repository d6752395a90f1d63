"""Search made ready after `mesq serve` listens, never before it and never inside a request.

`mesq serve` binds and answers first; the warm-up starts on a background thread at a lower CPU
priority once the server has served its first request, or has been quiet for `QUIET_SECONDS`
when nobody asks (at the latest `LATEST_SECONDS` after the start); before each of its steps it
waits while a request is in flight or has just ended (`GIVE_WAY_SECONDS` at most), so the first
searches after a start do not share the interpreter with its loads. It then, per user:
- loads each literal index (search_memos, search_reading_notes, query_todos' `query`) into the
  process's cache, or queues its rebuild on the literal worker when there is none of this format,
  so the first literal search after a start reads memory, not the store (issue 42 §4);
- queues the AI index build (search/build.py) of a user whose index is missing, of another model
  or unfinished (a stop in the middle of an import's build resumes here);
and imports the query pipeline (numpy, bm25s) and loads the CC-CEDICT glossary a query's
Chinese <-> English gloss reads (search/crosslingual.py: parsed by a short-lived child process,
so the server keeps only its ~6 MB of tables; that parse begins first, before any step gives way,
and until it is loaded a query goes without the gloss rather than wait or parse it itself). A
new account (no index, no searchable record) costs two reads and no import. The embedding model
and jieba's dictionary are never loaded here: the model loads on the first search or write (tens
of milliseconds, ~25 MiB), jieba on the first Han text (about a second, ~70 MiB), so an idle
server stays small.

`MESQ_SEARCH_PROVIDER=none` (search off): nothing at all is loaded or imported here.

`SearchRuntime.ready` (what `/healthz` reports as `ready`) turns true when the warm-up is done.
Code Mode waits for it (`wait_until_warm`) before a script's clock starts.

On Lambda, `prepare_for_snapshot` runs in the init of the functions that search when the init is
off the request path (`prepare_at_init`: SnapStart snapshots it): the pipeline imported, jieba's
dictionary read and the providers built, so no request pays for them.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.keys import user_partition
from ..kernel.ports.models import SearchRuntime

if TYPE_CHECKING:
    from .crosslingual import Glossary

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
#: The warm-up waits for the server to be this quiet (no request in flight or finished within).
QUIET_SECONDS = 0.5
#: ... but starts this long after the server listens at the latest.
LATEST_SECONDS = 5.0
#: The warm-up thread's nice value: requests get the CPU first.
WARM_UP_NICE = 10
#: Before each step (an import, one index load, the glossary) the warm-up waits until no request
#: is in flight and none ended within STEP_QUIET_SECONDS (a client's next request follows its last
#: answer within milliseconds), this long at most: the nice value does not give a request the
#: interpreter's lock, and the first search after a start would share it with the warm-up's loads.
GIVE_WAY_SECONDS = 3.0
STEP_QUIET_SECONDS = 0.1
#: Background work (the build worker's steps) begins no sooner than this after the warm-up is
#: done: a client that waited for `/healthz` to say ready sends its first requests at once, with
#: nothing before them that counts as activity, and a build step begun in that gap shared the
#: interpreter with them (the first literal searches at 100k measured up to 92 ms, against ~25).
AFTER_READY_SECONDS = 1.0


def warm_in_background(
    services: Services,
    settled: Callable[[float], bool] | None = None,
    before: Callable[[], None] | None = None,
    quiet: Callable[[float], bool] | None = None,
    freeze_loaded: bool = False,
) -> threading.Thread:
    """Start the warm-up thread; `settled(seconds)` says whether the server has served a request
    or been quiet that long (None: start at once). `before` runs first on the same thread, at
    the same moment (`mesq serve`: the rest of its app); it handles its own failure.
    `quiet(seconds)` says whether no request is in flight and none ended that recently: each step
    waits for it (GIVE_WAY_SECONDS at most), and so does each step of the build worker from now on,
    which first waits for the warm-up to have been done AFTER_READY_SECONDS. `freeze_loaded`
    (`mesq serve`, the process's own): once loaded, everything the warm-up loaded is collected once
    and kept out of the garbage collector's later full passes (`_freeze_loaded`)."""
    done = services.search.warm_up_started()  # before the thread runs: `ready` is False until done
    finished: list[float] = []
    give_way = _giving_way(quiet)

    def after_ready() -> None:
        done.wait()
        time.sleep(max(0.0, finished[0] + AFTER_READY_SECONDS - time.monotonic()))

    if quiet is not None:  # the build worker's steps give way too (follow.py), and wait for ready
        services.search.give_way = _giving_way(quiet, after_ready)

    def warm() -> None:
        try:
            with contextlib.suppress(OSError):  # this thread only (Linux: a nice value per thread)
                os.nice(WARM_UP_NICE)
            started = time.monotonic()
            while settled is not None and not settled(QUIET_SECONDS):
                if time.monotonic() - started >= LATEST_SECONDS:
                    break
                time.sleep(QUIET_SECONDS / 5)
            if before is not None:
                before()
            services.search.warm_up_working()
            warm_up(services, give_way)
            if freeze_loaded:
                give_way()
                _freeze_loaded()
        except Exception:  # searches load what they need themselves
            log.exception("search: the start-up warm-up failed")
        finally:
            finished.append(time.monotonic())
            done.set()

    thread = threading.Thread(target=warm, name="mesq-search-warm-up", daemon=True)
    thread.start()
    return thread


def _freeze_loaded() -> None:
    """One full collection now, on this thread before `ready`, then every object alive moved out
    of the collector's reach (`gc.freeze`). A user's literal indexes are hundreds of thousands of
    objects (330k at 100k memos), and a full pass over them took 85-96 ms: one fell inside the
    first search after a start (94 ms, against ~20). Frozen objects are still freed when their
    last reference goes (reference counting); only cycles among them would stay."""
    gc.collect()
    gc.freeze()


def _giving_way(quiet: Callable[[float], bool] | None, first: Callable[[], None] | None = None) -> Callable[[], None]:
    def give_way() -> None:
        if first is not None:
            first()
        deadline = time.monotonic() + GIVE_WAY_SECONDS
        while quiet is not None and not quiet(STEP_QUIET_SECONDS) and time.monotonic() < deadline:
            time.sleep(0.01)

    return give_way


def warm_up(services: Services, give_way: Callable[[], None] = lambda: None) -> None:
    if not services.search.enabled:
        return
    from ..auth.users import list_users

    for user in list_users(services.items):
        _warm_user(services, str(user["id"]), give_way)


def _warm_user(services: Services, user_id: str, give_way: Callable[[], None]) -> None:
    """One user's literal indexes into memory and a due AI build queued. A user without any
    index and without a searchable record (a new account) costs two reads and no import."""
    from . import pointers
    from .searchables import searchables_of

    partition = user_partition(user_id)
    keys = [(partition, sk) for sk in (pointers.AI_INDEX, pointers.AI_BUILD, *pointers.LITERAL.values())]
    found = {item["sk"] for item in services.items.batch_get(keys)}
    if not found and not any(
        services.items.query(partition, prefix=source.prefix, limit=1, keys_only=True).items
        for source in searchables_of(services).documents
    ):
        return
    from .crosslingual import GLOSSARY

    GLOSSARY.load_in_background()  # first, and without giving way: a child process parses it
    give_way()
    from . import pipeline  # noqa: F401  (numpy, bm25s: what the first search imports)
    from .build import needed
    from .literal_store import repository

    for kind in searchables_of(services).literal:
        give_way()
        if kind.pointer_sk not in found or repository(services, kind).load(user_id) is None:
            services.search.literal_missing(user_id, kind.name)
    if needed(services, user_id) is not None:
        services.search.request_build(user_id)
    GLOSSARY.load()  # waits for the parse begun above: `ready` means the gloss is there too


def prepare_for_snapshot(runtime: SearchRuntime, glossary: Glossary | None = None) -> None:
    """Lambda's init (SnapStart, provisioned concurrency): the pipeline, jieba's dictionary, the
    providers and the CC-CEDICT glossary (`glossary`: the process's), ahead of every request; the
    index itself is per user and loads on a user's first search. Without the glossary in the
    snapshot, a restored container's first query across languages parsed it in the request (~2 s)."""
    from . import pipeline  # noqa: F401
    from .crosslingual import GLOSSARY
    from .tokenizer import tokens

    tokens("预热 warm-up")
    runtime.warm_embedder()
    (glossary or GLOSSARY).load()
