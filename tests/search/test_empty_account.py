"""An account with nothing to search (a new one, or one whose notes are all deleted): its AI
search answered `degraded: true` with the vector stage `unavailable`, as if the model were down,
and the memo page drew "Degraded AI search: only part of the search answered" over a first
search. No note is no vector to compare with: an empty answer, not a missing branch (contract §9:
"empty and degraded stay distinct")."""

from __future__ import annotations

from collections.abc import Callable

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.search.indexer import rebuild
from mesq.wiring.services import Services

from .conftest import run


def test_an_empty_account_is_an_empty_answer_not_a_degraded_one(
    make_services: Callable[..., Services], local_embedder: BundledEmbedder
) -> None:
    services = make_services()
    services.search.embedder = local_embedder
    rebuild(services, "u1")  # the index of an account with no record
    for operation in ("search_ai_memos", "search_everything"):
        answer = run(services, operation, {"query": "上周读了什么书"})
        assert answer["items"] == [] and answer["closestMatches"] == []
        assert answer["degraded"] is False, answer
        assert {stage["name"]: stage["status"] for stage in answer["stages"]}["vector"] == "ok"
    # A model that is not there is still said: the same empty account without an embedder.
    services.search.embedder = None
    answer = run(services, "search_ai_memos", {"query": "读书"})
    assert answer["degraded"] is True
