"""The hybrid query (docs/contract.md §9): bm25 -> vector -> fusion -> rerank, each a stage with
its status, duration and candidate count.

- bm25: every document sharing a term with the query (after the caller's filter);
- vector: the documents whose cosine similarity to the query is at least the model's floor
  (`min_similarity` of the embedder, calibrated per model; `MIN_SIMILARITY` otherwise), at most
  `VECTOR_CANDIDATES` of them (a vector always has a nearest neighbour, so without a floor every
  document would be a candidate);
- fusion: reciprocal-rank fusion of the two lists (rank-based, so BM25 and cosine scales never
  mix); the union is the candidate set;
- rerank: the reranker scores EVERY candidate, in batches of `RERANK_BATCH`; without one (the
  local provider) the order is the fused one and the stage says `fused`.

Statuses: `ok`, `failed` (the provider raised), `unavailable` (no provider configured), `fused`
(rerank by fused score), `skipped` (nothing to rerank). `degraded` is true when exactly one branch
answered; when neither can, ServiceUnavailable. Zero candidates is a normal empty answer.
`Outcome.ranks` says, per hit, which branches found it and at which rank (1 = best).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.errors import ServiceUnavailable
from ..kernel.model_ports import Embedder, ProviderError, Reranker
from .documents import Doc
from .index import SearchIndex
from .tokens import tokens

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
RERANK_BATCH = 20
RRF_K = 60
MIN_SIMILARITY = 0.3
VECTOR_CANDIDATES = 100
#: How many nearest documents the vector branch ranks before the caller's filter (a narrow filter
#: can leave fewer than VECTOR_CANDIDATES; BM25 is exhaustive, the vector branch is a top-k).
FILTER_HEADROOM = 4
Accept = Callable[[Doc], bool]


@dataclass
class Outcome:
    hits: list[tuple[Doc, float]]
    stages: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False
    #: doc key -> {branch: rank in that branch (1 = best)}, for every candidate.
    ranks: dict[str, dict[str, int]] = field(default_factory=dict)

    def matched(self, doc: Doc) -> dict[str, int]:
        return self.ranks.get(doc.key, {})


class _Stage:
    def __init__(self, outcome: Outcome, name: str) -> None:
        self.record: dict[str, Any] = {"name": name, "status": "ok", "ms": 0.0, "candidates": 0}
        outcome.stages.append(self.record)
        self._start = time.perf_counter()

    def done(self, status: str, candidates: int) -> None:
        self.record.update(
            status=status, candidates=candidates, ms=round((time.perf_counter() - self._start) * 1000, 2)
        )


def _lexical(index: SearchIndex, query: str, accept: Accept, outcome: Outcome) -> list[str] | None:
    stage = _Stage(outcome, "bm25")
    try:
        hits = [key for key, _score in index.lexical(tokens(query)) if _accepted(index, key, accept)]
    except Exception:  # the branch fails alone; the other one may still answer
        log.exception("search: bm25 branch failed")
        stage.done("failed", 0)
        return None
    stage.done("ok", len(hits))
    return hits


def _vector(
    index: SearchIndex, query: str, embedder: Embedder | None, accept: Accept, outcome: Outcome
) -> list[str] | None:
    stage = _Stage(outcome, "vector")
    if embedder is None or index.dimension is None:
        stage.done("unavailable", 0)
        return None
    try:
        vector = embedder.embed([query], query=True)[0]
        floor = float(getattr(embedder, "min_similarity", MIN_SIMILARITY))
        hits: list[str] = []
        for key, score in index.similar(vector, VECTOR_CANDIDATES * FILTER_HEADROOM):
            if score < floor or len(hits) >= VECTOR_CANDIDATES:
                break
            if _accepted(index, key, accept):
                hits.append(key)
    except ProviderError:
        log.warning("search: vector branch failed", exc_info=True)
        stage.done("failed", 0)
        return None
    stage.done("ok", len(hits))
    return hits


def _accepted(index: SearchIndex, key: str, accept: Accept) -> bool:
    entry = index.entry(key)
    return entry is not None and accept(entry.doc)


def _fuse(lists: list[list[str]], outcome: Outcome) -> list[tuple[str, float]]:
    stage = _Stage(outcome, "fusion")
    scores: dict[str, float] = {}
    for ranked in lists:
        for rank, key in enumerate(ranked):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
    fused = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    stage.done("ok", len(fused))
    return fused


def _rerank(
    index: SearchIndex, query: str, fused: list[tuple[str, float]], reranker: Reranker | None, outcome: Outcome
) -> list[tuple[str, float]]:
    stage = _Stage(outcome, "rerank")
    if not fused:
        stage.done("skipped", 0)
        return fused
    if reranker is None:
        stage.done("fused", len(fused))
        return fused
    try:
        scored: list[tuple[str, float]] = []
        for start in range(0, len(fused), RERANK_BATCH):
            batch = [key for key, _ in fused[start : start + RERANK_BATCH]]
            texts = [entry.doc.text if (entry := index.entry(key)) else "" for key in batch]
            scored += zip(batch, reranker.rerank(query, texts), strict=True)
    except (ProviderError, ValueError):
        log.warning("search: rerank failed; keeping the fused order", exc_info=True)
        stage.done("failed", len(fused))
        return fused
    stage.done("ok", len(scored))
    return sorted(scored, key=lambda item: (-item[1], item[0]))


def search(
    index: SearchIndex,
    query: str,
    *,
    embedder: Embedder | None,
    reranker: Reranker | None,
    accept: Accept,
    limit: int | None = None,
) -> Outcome:
    outcome = Outcome(hits=[])
    lexical = _lexical(index, query, accept, outcome)
    vector = _vector(index, query, embedder, accept, outcome)
    answered = [hits for hits in (lexical, vector) if hits is not None]
    if not answered:
        raise ServiceUnavailable("AI search is unavailable right now (no search branch answered); try again later")
    outcome.degraded = len(answered) == 1
    for branch, hits in (("bm25", lexical), ("vector", vector)):
        for rank, key in enumerate(hits or (), start=1):
            outcome.ranks.setdefault(key, {})[branch] = rank
    ranked = _rerank(index, query, _fuse(answered, outcome), reranker, outcome)
    chosen = ranked if limit is None else ranked[:limit]
    outcome.hits = [(entry.doc, round(score, 6)) for key, score in chosen if (entry := index.entry(key)) is not None]
    return outcome
