"""The pipeline's failure modes and the rerank contract: vector down -> degraded with BM25 hits;
both down -> SERVICE_UNAVAILABLE; zero candidates -> an empty answer; the first 30 candidates
reranked in batches of 20; scopes decide the kinds search_everything returns; the index follows writes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from mesq.kernel.errors import Forbidden, ServiceUnavailable
from mesq.kernel.ports.models import ProviderError, Vectors
from mesq.reading.importer import import_snapshots, parse_document
from mesq.search import pipeline
from mesq.wiring.services import Services
from tests.reading.export_files import export

from .conftest import run


class DownEmbedder:
    name = "down"

    def __init__(self) -> None:
        self.up = True

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        if not self.up:
            raise ProviderError("down")
        return np.ones((len(texts), 4), dtype=np.float32) / 2


class CountingReranker:
    name = "counting"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def rerank(self, query: str, docs: Sequence[str]) -> list[float]:
        self.batches.append(len(docs))
        return [float(len(doc)) for doc in docs]


def _stage(answer: dict, name: str) -> dict:
    return next(stage for stage in answer["stages"] if stage["name"] == name)


def test_vector_down_is_degraded_with_bm25_results(make_services: Callable[..., Services]) -> None:
    services = make_services()
    embedder = DownEmbedder()
    services.search.embedder = embedder
    memo = run(services, "create_memo", {"content": "the plumber fixes the kitchen faucet"})["memo"]
    services.items.wait_idle()  # type: ignore[attr-defined]  # the index was built while the embedder was up
    embedder.up = False
    answer = run(services, "search_ai_memos", {"query": "faucet"})
    assert answer["degraded"] is True
    assert [item["id"] for item in answer["items"]] == [memo["id"]]
    assert _stage(answer, "vector")["status"] == "failed" and _stage(answer, "bm25")["status"] == "ok"


def test_both_branches_down_is_service_unavailable(
    make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    services = make_services()
    embedder = DownEmbedder()
    services.search.embedder = embedder
    run(services, "create_memo", {"content": "anything"})
    embedder.up = False

    def broken(*_args: object) -> list[tuple[str, float]]:
        raise RuntimeError("bm25 broke")

    monkeypatch.setattr(pipeline.SearchIndex, "postings", broken)
    with pytest.raises(ServiceUnavailable):
        run(services, "search_ai_memos", {"query": "anything"})


def test_zero_candidates_is_a_normal_empty_answer(make_services: Callable[..., Services]) -> None:
    services = make_services()
    run(services, "create_memo", {"content": "tomatoes on the balcony"})
    answer = run(services, "search_ai_memos", {"query": "kubernetes"})
    assert answer["items"] == [] and _stage(answer, "bm25") == {
        **_stage(answer, "bm25"),
        "status": "ok",
        "candidates": 0,
    }
    assert _stage(answer, "rerank")["status"] == "skipped"


def test_the_first_30_candidates_are_reranked_in_batches_of_20(make_services: Callable[..., Services]) -> None:
    services = make_services()
    reranker = CountingReranker()
    services.search.reranker = reranker
    for i in range(95):
        run(services, "create_memo", {"content": f"weekly report number {i} " + "x" * i})
    answer = run(services, "search_ai_memos", {"query": "weekly report", "limit": 3})
    assert reranker.batches == [20, 10]
    assert _stage(answer, "fusion")["candidates"] == 95
    assert _stage(answer, "rerank") == {**_stage(answer, "rerank"), "status": "ok", "candidates": 30}
    scores = [item["score"] for item in answer["items"]]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)  # the reranker's scores, best first


def test_without_limit_every_candidate_is_returned(make_services: Callable[..., Services]) -> None:
    services = make_services()
    for i in range(30):
        run(services, "create_memo", {"content": f"note about gardening {i}"})
    answer = run(services, "search_ai_memos", {"query": "gardening"})
    assert len(answer["items"]) == 30 and _stage(answer, "rerank")["status"] == "fused"


def test_filters_and_trash(make_services: Callable[..., Services]) -> None:
    services = make_services()
    tagged = run(services, "create_memo", {"content": "budget review #work"})["memo"]
    plain = run(services, "create_memo", {"content": "budget for the holiday"})["memo"]
    assert [i["id"] for i in run(services, "search_ai_memos", {"query": "budget", "tags": ["work"]})["items"]] == [
        tagged["id"]
    ]
    run(services, "delete_memo", {"id": plain["id"], "expectedRevision": plain["revision"]})
    assert [i["id"] for i in run(services, "search_ai_memos", {"query": "budget"})["items"]] == [tagged["id"]]
    run(services, "restore_memo", {"id": plain["id"], "expectedRevision": plain["revision"] + 1})
    assert len(run(services, "search_ai_memos", {"query": "budget"})["items"]) == 2


def test_search_everything_obeys_scopes(make_services: Callable[..., Services]) -> None:
    services = make_services()
    memo = run(services, "create_memo", {"content": "plumber invoice"})["memo"]
    task = run(services, "create_todo_task", {"title": "call the plumber", "notes": "about the invoice"})["task"]
    both = run(services, "search_everything", {"query": "plumber"})
    assert {(i["kind"], i["id"]) for i in both["items"]} == {("memo", memo["id"]), ("todo_task", task["id"])}
    memo_only = run(services, "search_everything", {"query": "plumber"}, scopes=frozenset({"memo:read"}))
    assert [(i["kind"], i["id"]) for i in memo_only["items"]] == [("memo", memo["id"])]
    todo_only = run(services, "search_everything", {"query": "plumber"}, scopes=frozenset({"todo:read"}))
    assert [i["kind"] for i in todo_only["items"]] == ["todo_task"]


def test_search_everything_refuses_kinds_the_credential_cannot_read(make_services: Callable[..., Services]) -> None:
    """Asked by name for a kind its scopes do not read, the search says so (FORBIDDEN naming the
    scope), instead of an empty answer an agent reads as "nothing matches"."""
    services = make_services()
    run(services, "create_memo", {"content": "plumber invoice"})
    reading_only = frozenset({"reading:read"})
    with pytest.raises(Forbidden, match="memo:read"):
        run(services, "search_everything", {"query": "plumber", "kinds": ["memo"]}, scopes=reading_only)
    with pytest.raises(Forbidden, match="todo:read"):
        run(
            services,
            "search_everything",
            {"query": "plumber", "kinds": ["reading_note", "todo_task"]},
            scopes=reading_only,
        )
    # Without `kinds`, or with only readable ones, the kinds the credential reads are searched.
    assert run(services, "search_everything", {"query": "plumber"}, scopes=reading_only)["items"] == []
    memo_only = frozenset({"memo:read"})
    assert [
        i["kind"]
        for i in run(services, "search_everything", {"query": "plumber", "kinds": ["memo"]}, scopes=memo_only)["items"]
    ] == ["memo"]


def test_a_write_is_searchable_by_the_next_query(make_services: Callable[..., Services]) -> None:
    services = make_services()
    run(services, "create_memo", {"content": "first"})
    assert run(services, "search_ai_memos", {"query": "樱花"})["items"] == []
    memo = run(services, "create_memo", {"content": "北京大学的樱花开了"})["memo"]
    assert [i["id"] for i in run(services, "search_ai_memos", {"query": "樱花"})["items"]] == [memo["id"]]


def test_reading_note_hits_name_their_book_and_note_type(make_services: Callable[..., Services]) -> None:
    services = make_services()
    import_snapshots(services.items, "u1", parse_document(export(books=2, notes=4)), "2026-01-01T00:00:00.000000Z")
    memo = run(services, "create_memo", {"content": "content of a memo"})["memo"]
    books = {book["id"]: book["title"] for book in run(services, "list_reading_books", {})["books"]}
    items = run(services, "search_everything", {"query": "content"})["items"]
    notes = [item for item in items if item["kind"] == "reading_note"]
    assert len(notes) == 4
    assert {(books[n["bookId"]], n["bookTitle"]) for n in notes} == {("Book 0 书",) * 2, ("Book 1 书",) * 2}
    assert sorted(n["noteType"] for n in notes) == ["highlight", "highlight", "highlight", "note"]
    (memo_hit,) = [item for item in items if item["kind"] == "memo"]
    assert memo_hit["id"] == memo["id"] and not {"bookId", "bookTitle", "noteType"} & set(memo_hit)


def test_chinese_words_after_digits_are_found_by_their_words(make_services: Callable[..., Services]) -> None:
    # "跑步5公里" and "12月18日上午9点" were one BM25 term each from the digit on: 公里 and 上午
    # found nothing by their words (nor, with no vectors, at all).
    services = make_services()
    services.search.embedder = None
    run_memo = run(services, "create_memo", {"content": "跑步5公里，配速6分10秒"})["memo"]
    visit = run(services, "create_memo", {"content": "医院复诊预约在12月18日上午9点"})["memo"]
    assert [i["id"] for i in run(services, "search_ai_memos", {"query": "公里"})["items"]] == [run_memo["id"]]
    assert [i["id"] for i in run(services, "search_ai_memos", {"query": "上午"})["items"]] == [visit["id"]]


def test_a_plural_query_finds_the_notes_of_its_singular(make_services: Callable[..., Services]) -> None:
    services = make_services()
    services.search.embedder = None
    ids = {
        run(services, "create_memo", {"content": f"Bought a new mechanical keyboard #{n}"})["memo"]["id"] for n in "ab"
    }
    assert {i["id"] for i in run(services, "search_ai_memos", {"query": "keyboards"})["items"]} == ids


def test_search_everything_leaves_archived_memos_out_as_search_ai_memos_does(
    make_services: Callable[..., Services],
) -> None:
    """search_everything is search_ai_memos across kinds (contract §9), whose `status` is NORMAL
    unless asked: an archived memo answered search_everything but not search_ai_memos. Both
    leave it out now; search_ai_memos `status: ARCHIVED` still finds it."""
    services = make_services()
    kept = run(services, "create_memo", {"content": "plumber invoice, paid"})["memo"]
    archived = run(services, "create_memo", {"content": "plumber invoice from last year"})["memo"]
    run(services, "update_memo", {"id": archived["id"], "expectedRevision": archived["revision"], "status": "ARCHIVED"})
    memos = [i["id"] for i in run(services, "search_ai_memos", {"query": "plumber"})["items"]]
    everything = [i["id"] for i in run(services, "search_everything", {"query": "plumber"})["items"]]
    assert memos == everything == [kept["id"]]
    asked = run(services, "search_ai_memos", {"query": "plumber", "status": "ARCHIVED"})["items"]
    assert [i["id"] for i in asked] == [archived["id"]]
