"""The bilingual relevance set (relevance_set.py) on the bundled model: recall@5 and MRR@10 per
class for BM25 alone, the vector branch alone and the hybrid order, the default answer (the hits
above the confidence floor, then `closestMatches`) and its hits alone ("items": the note as a
confident answer, not "less related"), tuning and held-out halves side by side (`pytest -s` shows
the table, then the absent topics' and the twins' figures). The goals (issue 42) are asserted on the held-out half only:

- hybrid MRR@10 >= the vector branch's MRR@10 in every class (fusion never costs rank). The
  vector branch is credited with a place only where it tells the notes apart: a note whose
  z-score is within TIE_Z of the query's note shares its place, and the note takes the lower
  one (`_vector_rank`). The same model gives slightly different floats on another CPU: on two
  x86 machines the vector branch's first two notes for "credit card fraud, card frozen" came
  0.023 standard deviations apart, in opposite orders, and fusion (which adds the second
  note's "credit card" match) ranked them the same on both;
- hybrid recall@5: zh and en paraphrase >= 0.95, zh->en and en->zh >= 0.6, controls 1.0;
- "one answer" (all 20 queries): the default answer has <= 3 hits for >= 80 % and the right
  note first for >= 90 %;
- absent topics (relevance_set.ABSENT, held-out half): no item (no hit at or above the floor)
  for >= ABSENT_EMPTY_SHARE of the queries, and no hit at "match" confidence (0.9+) for any;
- twins (relevance_set.TWINS, held-out half): the other-language note of the pair is in the
  default answer (items, then closestMatches) for >= TWIN_SHOWN_SHARE of the queries, and both
  notes are items for >= TWIN_ITEMS_SHARE.

The fusion weights and the floor were fitted on the tuning half (tests/search/calibrate.py).
Each query runs twice through `search_ai_memos`: with the floor at 0 (every candidate is a hit:
the hybrid position, and each hit's `ranks` for where BM25 and the vector branch put it), and as
a client calls it (the default answer)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest.mock import patch

import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.search import pipeline
from mesq.search.indexer import rebuild
from mesq.search.tokenizer import tokens
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import run
from .relevance_set import (
    ABSENT,
    CLASSES,
    CONTROL,
    EN_PARAPHRASE,
    EN_TO_ZH,
    MEMOS,
    ONE_ANSWER,
    PARAPHRASES,
    QUERIES,
    TWINS,
    ZH_PARAPHRASE,
    ZH_TO_EN,
)  # fmt: skip

K = 5
MRR_DEPTH = 10
#: Within this many standard deviations of similarity the vector branch does not tell two notes
#: apart (see the module's docstring: 0.023 measured between two machines).
TIE_Z = 0.05
MODES = ("bm25", "vector", "hybrid", "answer", "items")
#: Hybrid recall@5 asserted on the held-out half.
GOALS = {ZH_PARAPHRASE: 0.95, EN_PARAPHRASE: 0.95, ZH_TO_EN: 0.6, EN_TO_ZH: 0.6, CONTROL: 1.0}
#: The default answer on the "one answer" class: at most this many hits ...
ONE_ANSWER_HITS = 3
ONE_ANSWER_SMALL_SHARE = 0.8  # ... for at least this share of its queries,
ONE_ANSWER_FIRST_SHARE = 0.9  # and the right note first for at least this share.
#: Absent topics, held-out half: no item for at least this share, and never a hit at MATCH or more.
ABSENT_EMPTY_SHARE = 0.8
MATCH = 0.9
#: Twins, held-out half: the other-language note in the default answer (items, then closest
#: matches) for at least this share, and both notes items for at least the second.
TWIN_SHOWN_SHARE = 0.8
TWIN_ITEMS_SHARE = 0.6


@dataclass(frozen=True)
class Score:
    recall: float
    mrr: float
    queries: int


@dataclass(frozen=True)
class Answer:
    """One query's default answer: how many hits, and whether its note came first."""

    hits: int
    first: bool


def test_the_set_is_what_it_claims() -> None:
    assert len(MEMOS) >= 150 and len(QUERIES) >= 120
    assert {cls for _q, _m, cls, _h in QUERIES} == set(CLASSES)
    assert sum(1 for _q, _m, cls, _h in QUERIES if cls == ONE_ANSWER) == 20
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
    for query, (same, other), _half in TWINS:  # BM25 finds the same-language note, never its twin
        assert set(tokens(query)) & set(tokens(MEMOS[same])), query
        assert not set(tokens(query)) & set(tokens(MEMOS[other])), query
    for group in (TWINS, ABSENT):
        halves = [entry[-1] for entry in group]
        assert halves.count("tuning") == halves.count("held_out")


def _ranks(services: Services, ids: dict[str, str], query: str, memo: str) -> dict[str, int | None]:
    """Where the note is: in each branch, in the hybrid order, in the default answer (its hits,
    then its closest matches) and among its hits alone ("items")."""
    branches: list[tuple[object, object]] = []
    similarity = pipeline._similarity

    def kept(index, *args):  # type: ignore[no-untyped-def]
        semantic = similarity(index, *args)
        branches.append((index, semantic))
        return semantic

    with patch.object(pipeline, "FLOOR", 0.0), patch.object(pipeline, "_similarity", kept):
        items = run(services, "search_ai_memos", {"query": query, "limit": 1000})["items"]
    found: dict[str, int | None] = dict.fromkeys(MODES)
    for position, item in enumerate(items, start=1):
        if item["id"] == ids[memo]:
            vector = _vector_rank(*branches[-1], ids[memo]) if item["ranks"].get("vector") else None
            found = {"bm25": item["ranks"].get("bm25"), "vector": vector, "hybrid": position}
    answer = run(services, "search_ai_memos", {"query": query})
    shown = [item["id"] for item in answer["items"] + answer["closestMatches"]]
    found["answer"] = shown.index(ids[memo]) + 1 if ids[memo] in shown else None
    confident = [item["id"] for item in answer["items"]]  # the answer's items alone: at or above the floor
    found["items"] = confident.index(ids[memo]) + 1 if ids[memo] in confident else None
    return found


def _vector_rank(index, semantic, note_id: str) -> int:  # type: ignore[no-untyped-def]
    """The note's place in the vector branch, a tie (within TIE_Z) counted as the lower place."""
    at = next(position for position in semantic.candidates if index.entry_at(int(position)).doc.id == note_id)
    score = semantic.score  # the vector branch's own order (query and note side, pipeline.py)
    near = score[at] - TIE_Z
    return 1 + sum(1 for position in semantic.candidates if position != at and score[position] > near)


def default_answer(services: Services, ids: dict[str, str], query: str, memo: str) -> Answer:
    items = run(services, "search_ai_memos", {"query": query})["items"]
    return Answer(hits=len(items), first=bool(items) and items[0]["id"] == ids[memo])


@dataclass(frozen=True)
class Nothing:
    """An absent topic's default answer: its items and its best score (items or closest)."""

    query: str
    items: int
    best: float


def nothing_answer(services: Services, query: str) -> Nothing:
    answer = run(services, "search_ai_memos", {"query": query})
    scores = [item["score"] for item in answer["items"] + answer["closestMatches"]]
    return Nothing(query, len(answer["items"]), max(scores, default=0.0))


@dataclass(frozen=True)
class Twin:
    """A twin query's default answer: is the other-language note shown, are both items."""

    query: str
    shown: bool
    items: bool


def twin_answer(services: Services, ids: dict[str, str], query: str, pair: tuple[str, str]) -> Twin:
    answer = run(services, "search_ai_memos", {"query": query})
    items = [item["id"] for item in answer["items"]]
    shown = items + [item["id"] for item in answer["closestMatches"]]
    return Twin(query, ids[pair[1]] in shown, all(ids[memo] in items for memo in pair))


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
            cells = "  ".join(f"{by_mode[cls, m].recall:>11.2f}/{by_mode[cls, m].mrr:.2f}" for m in MODES)
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
@pytest.mark.timeout(1800)  # indexes 170 notes and runs 161 queries two or three times on a shared machine
def test_held_out_half_meets_the_goals(indexed: tuple[Services, dict[str, str]]) -> None:
    services, ids = indexed
    scores = {half: evaluate(services, ids, half) for half in ("tuning", "held_out")}
    answers = [default_answer(services, ids, q, memo) for q, memo, cls, _half in QUERIES if cls == ONE_ANSWER]
    small = sum(1 for answer in answers if answer.hits <= ONE_ANSWER_HITS) / len(answers)
    first = sum(1 for answer in answers if answer.first) / len(answers)
    print(f"\nrelevance set, bundled model, floor {pipeline.FLOOR}:\n{table(scores)}")
    print(f"one answer, default answer: <= {ONE_ANSWER_HITS} hits {small:.2f}, right note first {first:.2f}")
    halves = ("tuning", "held_out")
    nothing = {half: [nothing_answer(services, q) for q, h in ABSENT if h == half] for half in halves}
    twins = {half: [twin_answer(services, ids, q, pair) for q, pair, h in TWINS if h == half] for half in halves}
    for half in ("tuning", "held_out"):
        empty = sum(1 for answer in nothing[half] if not answer.items) / len(nothing[half])
        worst = max(nothing[half], key=lambda answer: answer.best)
        shown = sum(1 for answer in twins[half] if answer.shown) / len(twins[half])
        both = sum(1 for answer in twins[half] if answer.items) / len(twins[half])
        print(f"absent topics, {half}: no item {empty:.2f}, best score {worst.best:.2f} ({worst.query!r}); "
              f"twins, {half}: other-language note shown {shown:.2f}, both items {both:.2f}")  # fmt: skip
    held_out = scores["held_out"]
    empty = [answer for answer in nothing["held_out"] if not answer.items]
    assert len(empty) / len(nothing["held_out"]) >= ABSENT_EMPTY_SHARE, nothing["held_out"]
    assert not [answer for answer in nothing["held_out"] if answer.best >= MATCH], nothing["held_out"]
    assert sum(1 for answer in twins["held_out"] if answer.shown) / len(twins["held_out"]) >= TWIN_SHOWN_SHARE, twins
    assert sum(1 for answer in twins["held_out"] if answer.items) / len(twins["held_out"]) >= TWIN_ITEMS_SHARE, twins
    misses = {
        cls: held_out[cls, "hybrid"].recall for cls, goal in GOALS.items() if held_out[cls, "hybrid"].recall < goal
    }
    assert not misses, f"hybrid recall@5 below the goal on the held-out half: {misses}"
    costly = {
        cls: (held_out[cls, "hybrid"].mrr, held_out[cls, "vector"].mrr)
        for cls in CLASSES
        if held_out[cls, "hybrid"].mrr < held_out[cls, "vector"].mrr
    }
    assert not costly, f"fusion ranks the note lower than the vector branch alone (hybrid, vector MRR): {costly}"
    assert small >= ONE_ANSWER_SMALL_SHARE, small
    assert first >= ONE_ANSWER_FIRST_SHARE, first
