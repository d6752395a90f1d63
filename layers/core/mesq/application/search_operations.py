"""The search operations (docs/contract.md §9): `search_ai_memos` (memos, with memo filters) and
`search_everything` (memos, todos, reading notes: only the kinds the caller's scopes may read).
They read every domain (the memo filters, a reading note's book), so they stand above the domains,
over the search engine (mesq/search) they query.

A user without an index yet (or with one of another embedding model) gets one built from the
store on the first query (later writes keep
it current: indexer.py). The hits come from the index; a memo hit is re-checked against the
caller's filter on the index's copy of status, tags and creation time.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from ..kernel.context import Call
from ..memos.filters import filter_from
from ..reading.store import read_book
from ..search.documents import Doc, Kind, snippet

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


def _index(call: Call) -> SearchIndex:
    from ..search.index import SearchIndex
    from ..search.indexer import rebuild, repository

    repo, user_id = repository(call.services), call.principal.user_id
    call.services.search.settle(user_id)
    for _attempt in range(3):
        loaded = repo.load(user_id)
        if loaded is not None:
            return loaded[0]
        pointer = repo.pointer(user_id)
        if pointer is None or repo.stale(pointer):
            rebuild(call.services, user_id)
    loaded = repo.load(user_id)
    return loaded[0] if loaded is not None else SearchIndex()


def _run(call: Call, args: dict[str, Any], accept: Accept, accept_key: Hashable) -> Outcome:
    from ..search.pipeline import search

    runtime = call.services.search
    return search(
        _index(call), args["query"], embedder=runtime.embedder, reranker=runtime.reranker,
        accept=accept, accept_key=accept_key, limit=args.get("limit"),
    )  # fmt: skip


def _hit(outcome: Outcome, doc: Doc, score: float) -> dict[str, Any]:
    ranks = outcome.matched(doc)
    return {
        "id": doc.id, "score": score, "snippet": snippet(doc.text),
        "matchedBy": [branch for branch in ("bm25", "vector") if branch in ranks], "ranks": ranks,
    }  # fmt: skip


def _answer(outcome: Outcome, hits: list[dict[str, Any]]) -> dict[str, Any]:
    return {"items": hits, "degraded": outcome.degraded, "stages": outcome.stages}


def search_ai_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memo_filter = filter_from(
        {name: args[name] for name in ("status", "tags", "createdFrom", "createdTo") if name in args}
    )

    def accept(doc: Doc) -> bool:
        return doc.kind == "memo" and not memo_filter.is_empty_range and memo_filter.matches(doc.meta)

    outcome = _run(call, args, accept, ("memo", memo_filter))
    hits = [_hit(outcome, doc, score) for doc, score in outcome.hits]
    return _answer(outcome, hits)


def search_everything(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    granted = call.principal.scopes
    kinds = {kind for kind, scope in KIND_SCOPES.items() if scope in granted}
    kinds &= set(args.get("kinds", kinds))

    def accept(doc: Doc) -> bool:
        return doc.kind in kinds

    outcome = _run(call, args, accept, ("kinds", frozenset(kinds)))
    hits = [{"kind": doc.kind, **_hit(outcome, doc, score), **_book_of(call, doc)} for doc, score in outcome.hits]
    return _answer(outcome, hits)


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
