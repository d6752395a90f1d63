"""The bilingual relevance set (relevance_set.py) on the bundled model: recall@5 and MRR@10 per
class for BM25 alone, the vector branch alone and the hybrid answer, tuning and held-out halves
printed side by side (`pytest -s` shows the table). The goals (issue 27) are asserted on the
held-out half only: hybrid Chinese and English paraphrase >= 0.85, controls 1.0, cross-language
>= 0.6 (reported, not reached by the bundled model: see GOALS).

One `search_ai_memos` call per query gives all three figures: the hybrid rank is the hit's position,
and each hit's `ranks` says where BM25 and the vector branch put it on their own."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.search.indexer import rebuild
from mesq.search.tokenizer import tokens
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import run
from .relevance_set import CLASSES, CONTROL, CROSS_LANGUAGE, MEMOS, PARAPHRASES, QUERIES

K = 5
MRR_DEPTH = 10
MODES = ("bm25", "vector", "hybrid")
#: Asserted on the held-out half. Cross-language (goal 0.6) is not asserted at 0.6: the bundled
#: 4-bit e5-small reaches 0.14 (zh->en) and 0.43 (en->zh) on the tuning half, so the test holds it
#: to beating BM25 alone and prints what it reaches (docs/search.md).
GOALS = {"zh_paraphrase": 0.85, "en_paraphrase": 0.85, CONTROL: 1.0}


@dataclass(frozen=True)
class Score:
    recall: float
    mrr: float
    queries: int


def test_the_set_is_what_it_claims() -> None:
    assert len(MEMOS) >= 150 and len(QUERIES) >= 100
    assert {cls for _q, _m, cls, _h in QUERIES} == set(CLASSES)
    for query, memo, cls, _half in QUERIES:
        assert memo in MEMOS, query
        shared = set(tokens(query)) & set(tokens(MEMOS[memo]))
        if cls in PARAPHRASES:
            assert not shared, (query, shared)  # only the vector branch can find it
        if cls == CONTROL:
            assert shared, query
    for cls in CLASSES:
        halves = [half for _q, _m, c, half in QUERIES if c == cls]
        assert abs(halves.count("tuning") - halves.count("held_out")) <= 1, cls


def _ranks(services: Services, ids: dict[str, str], query: str, memo: str) -> dict[str, int | None]:
    items = run(services, "search_ai_memos", {"query": query, "limit": 1000})["items"]
    found: dict[str, int | None] = dict.fromkeys(MODES)
    for position, item in enumerate(items, start=1):
        if item["id"] == ids[memo]:
            found = {"bm25": item["ranks"].get("bm25"), "vector": item["ranks"].get("vector"), "hybrid": position}
    return found


def evaluate(services: Services, ids: dict[str, str], half: str) -> dict[tuple[str, str], Score]:
    """(class, mode) -> recall@K and MRR@MRR_DEPTH over the queries of `half`."""
    rows: dict[str, list[dict[str, int | None]]] = {cls: [] for cls in CLASSES}
    for query, memo, cls, query_half in QUERIES:
        if query_half == half:
            rows[cls].append(_ranks(services, ids, query, memo))
    scores: dict[tuple[str, str], Score] = {}
    for cls, ranked in rows.items():
        for mode in MODES:
            positions = [row[mode] for row in ranked]
            recall = sum(1 for p in positions if p is not None and p <= K) / len(positions)
            mrr = sum(1 / p for p in positions if p is not None and p <= MRR_DEPTH) / len(positions)
            scores[cls, mode] = Score(round(recall, 2), round(mrr, 2), len(positions))
    return scores


def table(scores: dict[str, dict[tuple[str, str], Score]]) -> str:
    lines = [f"{'class':<14} {'half':<9} {'n':>3}  " + "  ".join(f"{mode + ' R@5/MRR':>16}" for mode in MODES)]
    for cls in CLASSES:
        for half, by_mode in scores.items():
            n = by_mode[cls, "hybrid"].queries
            cells = "  ".join(f"{by_mode[cls, m].recall:>9.2f}/{by_mode[cls, m].mrr:.2f}" for m in MODES)
            lines.append(f"{cls:<14} {half:<9} {n:>3}  {cells}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory, local_embedder: BundledEmbedder
) -> Iterator[tuple[Services, dict[str, str]]]:
    data_dir: Path = tmp_path_factory.mktemp("relevance")
    settings = inprocess_settings(data_dir=data_dir, search_provider="none", search_index_updates="off")
    services = build_services(settings)
    services.search.embedder = local_embedder
    ids = {name: run(services, "create_memo", {"content": text})["memo"]["id"] for name, text in MEMOS.items()}
    rebuild(services, "u1")  # updates "off": one build, as an import's (a search never builds one)
    yield services, ids
    services.items.close()


@pytest.mark.slow
@pytest.mark.timeout(1200)  # indexes 150 notes and runs 101 queries on a shared machine
def test_held_out_half_meets_the_goals(indexed: tuple[Services, dict[str, str]]) -> None:
    services, ids = indexed
    scores = {half: evaluate(services, ids, half) for half in ("tuning", "held_out")}
    print(f"\nrelevance set, bundled model, floor {BundledEmbedder.min_similarity}:\n{table(scores)}")
    held_out = scores["held_out"]
    misses = {
        cls: held_out[cls, "hybrid"].recall for cls, goal in GOALS.items() if held_out[cls, "hybrid"].recall < goal
    }
    assert not misses, f"hybrid recall@5 below the goal on the held-out half: {misses}"
    for cls in PARAPHRASES | CROSS_LANGUAGE:  # BM25 cannot find these; the vector branch carries them
        assert held_out[cls, "hybrid"].recall > held_out[cls, "bm25"].recall, cls
