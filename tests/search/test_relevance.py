"""Recall@5 on the checked-in relevance set: hybrid >= 0.9, and the vector branch adds recall
over BM25 alone (the paraphrases share no token with their target)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mesq.search.local_models import BundledEmbedder
from mesq.search.tokens import tokens
from mesq.services import Services

from .conftest import run
from .relevance_set import MEMOS, QUERIES


@pytest.fixture
def loaded(make_services: Callable[..., Services], local_embedder: BundledEmbedder) -> tuple[Services, dict[str, str]]:
    services = make_services()
    services.search.embedder = local_embedder
    ids = {name: run(services, "create_memo", {"content": text})["memo"]["id"] for name, text in MEMOS.items()}
    return services, ids


def _recall(services: Services, ids: dict[str, str], branch_off: bool = False) -> float:
    if branch_off:
        services.search.embedder = None
    found = 0
    for query, expected, _paraphrase in QUERIES:
        items = run(services, "search_ai_memos", {"query": query, "limit": 5})["items"]
        found += ids[expected] in [item["id"] for item in items]
    return found / len(QUERIES)


def test_the_set_is_what_it_claims() -> None:
    assert len(MEMOS) >= 60 and len(QUERIES) >= 25
    paraphrases = [(q, m) for q, m, p in QUERIES if p]
    assert paraphrases
    for query, memo in paraphrases:
        assert not set(tokens(query)) & set(tokens(MEMOS[memo])), query


def test_hybrid_recall_at_5_and_what_the_vector_branch_adds(loaded: tuple[Services, dict[str, str]]) -> None:
    services, ids = loaded
    hybrid = _recall(services, ids)
    bm25_only = _recall(services, ids, branch_off=True)
    print(f"recall@5 hybrid={hybrid:.2f} bm25-only={bm25_only:.2f}")
    assert hybrid >= 0.9
    assert hybrid > bm25_only
