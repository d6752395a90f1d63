"""The search operations (docs/contract.md §9): `search_ai_memos` (memos, with memo filters) and
`search_everything` (memos, todos, reading notes: only the kinds the caller's scopes may read).
They read every domain (the memo filters, a reading note's book), so they stand above the domains,
over the search engine (mesq/search) they query.

A search never builds an index (search/build.py builds them in the background). It waits at most
`SETTLE_SECONDS` for its user's queued index updates, then answers from what exists, with
`degraded: true` and a `reason` when that is less than the whole index:
- the index lags writes still queued: the index as it is;
- a build is under way (after an import: the new records are not in the index yet): the index as
  it is, or the literal indexes' matches (fallback.py) while there is none;
- the index is another embedding model's: its BM25 branch alone (its tokens hold; its vectors
  do not compare with this model's), and the build for this model is queued;
- no index at all: the literal indexes' matches, and the build is queued.
The hits come from the index; a memo hit is re-checked against the caller's filter on the
index's copy of status, tags and creation time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as day_time
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from ..auth.user_zone import configured_zone
from ..kernel.context import Call
from ..kernel.errors import Forbidden
from ..kernel.keys import user_partition
from ..kernel.timestamps import format_timestamp, utc_now
from ..memos.filters import filter_from
from ..reading.store import read_book
from ..search.documents import Doc, Kind, snippet
from ..search.period import Period, listed_period, read_period
from ..search.searchables import searchables_of
from ..store.paging import walk

if TYPE_CHECKING:  # the index and pipeline (bm25s, numpy) load on the first search, not at cold start
    from ..search.index import SearchIndex
    from ..search.pipeline import Accept, Outcome

#: Which scope reads which kind of hit.
KIND_SCOPES: dict[Kind, str] = {
    "memo": "memo:read",
    "todo_task": "todo:read",
    "inbox_item": "todo:read",
    "reading_note": "reading:read",
}
#: How long a search waits for its user's queued index updates (a write a moment ago is one
#: embedding away; the first write after a start also loads the model and jieba: about 2 s on a
#: busy machine) before it answers from the index as it is.
SETTLE_SECONDS = 2.5
#: How long a search waits for a queued build (a small account's is one step: the index is
#: there after it) before it answers from what exists: a missing index answers within a second.
BUILD_WAIT_SECONDS = 0.5
#: ... when the build has at most this many records left (one step: build.STEP_RECORDS, which
#: is not imported here: it would import the index engines for a search that has no index).
SMALL_BUILD = 256
DEFAULT_LIMIT = 10
REASONS = {
    "updating": "recent writes are still being indexed; they may be missing from these results",
    "building": "the search index is being built ({progress}); results may miss records until it is done",
    "missing": "the search index is being built ({progress}); until then, exact word matches only",
    "stale": "the search index is being rebuilt for a new embedding model ({progress}); keyword matches only",
}


@dataclass
class _LiteralOutcome:
    """The fallback's answer (fallback.py), shaped as the pipeline's `Outcome` is read here."""

    hits: list[tuple[Doc, float]]
    stages: list[dict[str, Any]]
    degraded: bool = True
    reason: str | None = None
    #: The fallback has no confidence, so nothing is "less related" (closestMatches stays empty).
    closest: list[tuple[Doc, float]] = field(default_factory=list)

    def matched(self, doc: Doc) -> dict[str, int]:
        return {"literal": next(rank for rank, (hit, _) in enumerate(self.hits, 1) if hit.key == doc.key)}


@dataclass
class _ListedOutcome(_LiteralOutcome):
    """A period's records themselves (`上周`, "what did I write last week"), newest first: no
    branch matched them, the question asked for them all."""

    degraded: bool = False

    def matched(self, doc: Doc) -> dict[str, int]:
        return {}


#: The query `_run` reads as "list the window's records": a period asked for as a whole.
LISTING = ""


@dataclass
class _Source:
    """What a search answers from: an index (None: the literal fallback), and why it is degraded."""

    index: SearchIndex | None
    why: str | None = None
    vectors: bool = True


def _progress(call: Call) -> str:
    from ..search.build import progress_of, state

    progress = progress_of(state(call.services, call.principal.user_id))
    if progress.done or not progress.total:
        return "queued"
    return f"{progress.walked:,} of {progress.total:,} records read"


def _source(call: Call) -> _Source:
    from ..search import pointers

    services, user_id = call.services, call.principal.user_id
    settled = services.search.settle(user_id, timeout=SETTLE_SECONDS)
    deadline = time.monotonic() + BUILD_WAIT_SECONDS
    keys = [(user_partition(user_id), pointers.AI_INDEX), (user_partition(user_id), pointers.AI_BUILD)]
    waited = False
    for _attempt in range(4):  # a writer may replace the version between its reads
        found = {item["sk"]: item for item in services.items.batch_get(keys)}
        pointer, building = found.get(pointers.AI_INDEX), found.get(pointers.AI_BUILD)
        stale = pointer is not None and not pointers.same_model(pointer, services.search.model_id)
        # Terms of an older tokenizer: the index answers (its vectors hold), and a build remakes them.
        old_terms = pointer is not None and not pointers.same_tokens(pointer)
        if building is not None or pointer is None or stale or old_terms:
            services.search.request_build(user_id)  # queued, or resumed where no worker runs it now
            small = building is None or int(building["total"]) - int(building["walked"]) <= SMALL_BUILD
            if not waited and small:  # a small account's build is one step: the wait may see it end
                waited = True
                if services.search.settle_build(user_id, timeout=max(deadline - time.monotonic(), 0.0)):
                    continue
        if pointer is None:
            return _Source(None, "missing")
        from ..search.build import repository  # the index engines (numpy, bm25s): only with an index to read

        loaded = repository(services).load(user_id, any_model=True, pointer=pointer)
        if loaded is None:
            continue
        why = "stale" if stale else "building" if building is not None else None if settled else "updating"
        return _Source(loaded[0], why, not stale)
    return _Source(None, "missing")


def _run(
    call: Call, args: dict[str, Any], accept: Accept, accept_key: Hashable, kinds: set[Kind]
) -> Outcome | _LiteralOutcome:
    runtime = call.services.search
    source = _source(call)
    if args["query"] == LISTING:  # an index that lags or is missing: the records themselves, never degraded
        index = source.index if source.why is None else None
        return _listed(call, index, kinds, accept, args.get("limit") or DEFAULT_LIMIT)
    if source.index is None:  # the literal indexes' matches: no AI engine is imported for them
        from ..search.fallback import literal_hits

        limit = args.get("limit") or DEFAULT_LIMIT
        started = time.perf_counter()
        hits = literal_hits(call.services, call.principal.user_id, args["query"], kinds, accept, limit)
        ms = round((time.perf_counter() - started) * 1000, 2)
        outcome: Outcome | _LiteralOutcome = _LiteralOutcome(
            hits, [{"name": "literal", "status": "ok", "ms": ms, "candidates": len(hits)}]
        )
    else:
        from ..search.pipeline import search

        outcome = search(
            source.index, args["query"], embedder=runtime.embedder if source.vectors else None,
            reranker=runtime.reranker, accept=accept, accept_key=accept_key, limit=args.get("limit"),
        )  # fmt: skip
    if source.why is not None:
        outcome.degraded = True
        outcome.reason = REASONS[source.why].format(progress=_progress(call) if "{" in REASONS[source.why] else "")
    return outcome


def _listed(call: Call, index: SearchIndex | None, kinds: set[Kind], accept: Accept, limit: int) -> _ListedOutcome:
    """The records `accept` takes (the window is in it), newest first: the index's documents, or,
    without an index in step with the writes, the records themselves (read as the build reads
    them), so the list is whole either way."""
    started = time.perf_counter()
    if index is not None:
        docs = [entry.doc for entry in index.entries() if entry.doc.kind in kinds and accept(entry.doc)]
    else:
        docs = []
        searchables = searchables_of(call.services)
        partition = user_partition(call.principal.user_id)
        for source in searchables.documents:
            if source.kind not in kinds:
                continue
            records = walk(call.services.items, partition, prefix=source.prefix)
            docs += [doc for item in records if (doc := searchables.doc_of(item)) and accept(doc)]
    docs.sort(key=lambda doc: (str(doc.meta.get("createdAt") or ""), doc.key), reverse=True)
    ms = round((time.perf_counter() - started) * 1000, 2)
    return _ListedOutcome(
        [(doc, 1.0) for doc in docs[:limit]], [{"name": "period", "status": "ok", "ms": ms, "candidates": len(docs)}]
    )


def _hit(outcome: Outcome | _LiteralOutcome, doc: Doc, score: float) -> dict[str, Any]:
    ranks = outcome.matched(doc)
    return {
        "id": doc.id, "score": score, "snippet": snippet(doc.text),
        "matchedBy": [branch for branch in ("bm25", "vector", "literal") if branch in ranks], "ranks": ranks,
    }  # fmt: skip


def _answer(outcome: Outcome | _LiteralOutcome, hit: Callable[[Doc, float], dict[str, Any]]) -> dict[str, Any]:
    """`items`: the hits at or above the confidence floor; `closestMatches`: the few below it
    ("less related"), so an agent sees where confidence ends (docs/contract.md §9); `reason`:
    why the answer is degraded when the index is the cause."""
    answer = {
        "items": [hit(doc, score) for doc, score in outcome.hits],
        "closestMatches": [hit(doc, score) for doc, score in outcome.closest],
        "degraded": outcome.degraded, "stages": outcome.stages,
    }  # fmt: skip
    if outcome.reason is not None:
        answer["reason"] = outcome.reason
    return answer


def _period(
    call: Call, args: dict[str, Any], read: Callable[[str, date], Period | None] = read_period
) -> tuple[Period, dict[str, str]] | None:
    """The query's time phrase (search/period.py, `read`) as createdFrom / createdTo in the
    user's zone (else UTC), unless the caller gave a creation range of its own."""
    if "createdFrom" in args or "createdTo" in args:
        return None
    if read(args["query"], utc_now().date()) is None:  # most queries: no read of the zone
        return None
    zone_name = configured_zone(call.services.items, call.principal.user_id)
    zone = ZoneInfo(zone_name) if zone_name else ZoneInfo("UTC")
    period = read(args["query"], utc_now().astimezone(zone).date())
    if period is None:
        return None

    def at(day: date) -> str:
        return format_timestamp(datetime.combine(day, day_time(0), zone))

    return period, {"createdFrom": at(period.start), "createdTo": at(period.end)}


def _created_in(window: dict[str, str], doc: Doc) -> bool:
    created = doc.meta.get("createdAt")
    return isinstance(created, str) and window["createdFrom"] <= created < window["createdTo"]


def _searched(
    call: Call, args: dict[str, Any], answer: Callable[[dict[str, Any], dict[str, str] | None], dict[str, Any]]
) -> dict[str, Any]:
    """`answer` of the query as asked, or, when it names a time ("上周", "last month"), of the
    rest of it over the notes created then (`period` says which days). When nothing in that
    window is a confident hit, the query as asked over every date when that has one (a diary's
    "今天跑步" is words, not only a date), else the window's answer still: "昨天的吉他课" shows
    what came nearest yesterday, not a closer-sounding note of another day. A query that asks for
    the period itself (`上周`, `上周写了什么`, "what did I write last week": period.listed_period)
    is answered with the window's records, newest first, even when there are none."""
    listed = _period(call, args, listed_period)
    if listed is not None:
        period, window = listed
        listed_answer = answer({**args, "query": LISTING}, window)
        return {**listed_answer, "period": {"phrase": period.phrase, **window, "listed": True}}
    read = _period(call, args)
    if read is None:
        return answer(args, None)
    period, window = read
    found = {**answer({**args, "query": period.rest}, window), "period": {"phrase": period.phrase, **window}}
    if found["items"]:
        return found
    anywhen = answer(args, None)
    return anywhen if anywhen["items"] else found


def search_ai_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    def answer(asked: dict[str, Any], window: dict[str, str] | None) -> dict[str, Any]:
        memo_filter = filter_from(
            {name: asked[name] for name in ("status", "tags", "createdFrom", "createdTo") if name in asked}
            | (window or {})
        )

        def accept(doc: Doc) -> bool:
            return doc.kind == "memo" and not memo_filter.is_empty_range and memo_filter.matches(doc.meta)

        outcome = _run(call, asked, accept, ("memo", memo_filter), {"memo"})
        return _answer(outcome, lambda doc, score: _hit(outcome, doc, score))

    return _searched(call, args, answer)


def search_everything(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    granted = call.principal.scopes
    # A kind asked for by name that the credential cannot read is refused, not dropped: an empty
    # answer would read as "nothing matches" (the same message as a route's missing scope).
    missing = sorted({KIND_SCOPES[kind] for kind in args.get("kinds", ())} - granted)
    if missing:
        raise Forbidden("this credential lacks the scope(s) %(missing)s", missing=", ".join(missing))
    kinds = {kind for kind, scope in KIND_SCOPES.items() if scope in granted}
    kinds &= set(args.get("kinds", kinds))
    # search_ai_memos across kinds (contract §9): its memos are its default's, NORMAL (an
    # archived memo answered here and not there).
    memo_filter = filter_from({})

    def answer(asked: dict[str, Any], window: dict[str, str] | None) -> dict[str, Any]:
        def accept(doc: Doc) -> bool:
            return (
                doc.kind in kinds
                and (doc.kind != "memo" or memo_filter.matches(doc.meta))
                and (window is None or _created_in(window, doc))
            )

        key = ("kinds", frozenset(kinds), tuple(sorted(window.items())) if window else None)
        outcome = _run(call, asked, accept, key, kinds)
        return _answer(
            outcome, lambda doc, score: {"kind": doc.kind, **_hit(outcome, doc, score), **_book_of(call, doc)}
        )

    return _searched(call, args, answer)


def _book_of(call: Call, doc: Doc) -> dict[str, Any]:
    """A reading-note hit's book (id, title: read now, so a renamed book shows its current title)
    and note type, so an agent can open the book; nothing for other kinds."""
    if doc.kind != "reading_note":
        return {}
    book = read_book(call.services.items, call.principal.user_id, doc.meta["bookId"])
    fields = {"bookId": doc.meta["bookId"], "bookTitle": book["title"] if book else None}
    fields["noteType"] = doc.meta.get("noteType")
    return {name: value for name, value in fields.items() if value is not None}


OPERATIONS = {fn.__name__: fn for fn in (search_ai_memos, search_everything)}
