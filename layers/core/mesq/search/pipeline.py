"""The hybrid query (docs/contract.md §9): bm25 -> vector -> fusion -> rerank, each a stage with
its status, duration and candidate count.

- bm25: every document sharing a term with the query (after the caller's filter);
- vector: the documents whose cosine similarity to the query is at least the model's floor
  (`min_similarity` of the embedder, calibrated per model; `MIN_SIMILARITY` otherwise), at most
  `VECTOR_CANDIDATES` of them (a vector always has a nearest neighbour, so without a floor every
  document would be a candidate);
- fusion: reciprocal-rank fusion of the two lists (rank-based, so BM25 and cosine scales never
  mix); the union is the candidate set. Candidates are index positions in numpy arrays (the
  caller's filter is a mask, fusion sums over rank arrays), and without a reranker only the first
  `limit` are sorted and materialised, from BM25's head and the vector candidates (RRF's rank
  bound, `_fuse_top`), so a 50k-candidate query neither sorts them all nor works per candidate;
- rerank: the reranker scores EVERY candidate, in batches of `RERANK_BATCH`; without one (the
  local provider) the order is the fused one and the stage says `fused`.

Statuses: `ok`, `failed` (the provider raised), `unavailable` (no provider configured), `fused`
(rerank by fused score), `skipped` (nothing to rerank). `degraded` is true when exactly one branch
answered; when neither can, ServiceUnavailable. Zero candidates is a normal empty answer.
`Outcome.ranks` says, per hit, which branches found it and at which rank (1 = best).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
from aws_lambda_powertools import Logger

from ..kernel.errors import ServiceUnavailable
from ..kernel.ports.models import Embedder, ProviderError, Reranker
from .documents import Doc
from .index import SearchIndex
from .tokenizer import tokens

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
RERANK_BATCH = 20
RRF_K = 60
MIN_SIMILARITY = 0.3
VECTOR_CANDIDATES = 100
#: How many nearest documents the vector branch ranks before the caller's filter (a narrow filter
#: can leave fewer than VECTOR_CANDIDATES; BM25 is exhaustive, the vector branch is a top-k).
FILTER_HEADROOM = 4
#: How far past `limit` fusion orders BM25's candidates when it need not order them all: a vector
#: candidate BM25 ranks past that has its BM25 rank counted (~10 us per 50k candidates) unless the
#: rank bound rules it out. At 100k bench memos (~50k BM25 candidates) 500 leaves ~7 counts a
#: query against ~97 with none, while ordering 500 more costs little (docs/search.md).
HEAD_PAST_LIMIT = 500
Accept = Callable[[Doc], bool]
Mask = npt.NDArray[np.bool_]


@dataclass
class Outcome:
    hits: list[tuple[Doc, float]]
    stages: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False
    #: doc key -> {branch: rank in that branch (1 = best)}, for every returned hit.
    ranks: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Why the answer is degraded, in words, when the index (not a branch) is the cause
    #: (search/operations.py).
    reason: str | None = None

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


class _Lexical:
    """The BM25 branch's candidates (index positions, ascending) and their order: best score first,
    ties by key. The whole order (`order`, one sort) is built only when asked for: a query with a
    `limit` and no reranker needs only the first few (`head`, a partition) and the ranks of a few
    more (`rank_of`, a count), which on the bench's ~50k candidates is several times cheaper."""

    def __init__(self, scores: npt.NDArray[np.floating], found: npt.NDArray[np.intp], tie: npt.NDArray[np.int64]):
        self.found = found
        self._scores = scores[found]
        self._tie = tie[found]
        #: One int64 per candidate whose ascending order is the branch's order (see `_order_key`).
        self._keys = _order_key(self._scores, self._tie)

    def __len__(self) -> int:
        return len(self.found)

    @cached_property
    def order(self) -> npt.NDArray[np.intp]:
        """Every candidate, best first."""
        if self._keys is None:
            return self.found[np.lexsort((self._tie, -self._scores))]
        return self.found[np.argsort(self._keys)]

    def head(self, count: int) -> npt.NDArray[np.intp]:
        """The first `count` candidates, best first (the order's first `count`, without sorting the rest)."""
        if self._keys is None or count >= len(self.found):
            return self.order[:count]
        if count <= 0:
            return self.found[:0]
        first = np.argpartition(self._keys, count - 1)[:count]
        return self.found[first[np.argsort(self._keys[first])]]

    def rank_of(self, position: int) -> int:
        """A candidate's place in the order (0 = best): how many candidates come before it."""
        if self._keys is None:
            return int(np.flatnonzero(self.order == position)[0])
        key = self._keys[np.searchsorted(self.found, position)]
        return int(np.count_nonzero(self._keys < key))


def _lexical(index: SearchIndex, query: str, accepted: Mask, outcome: Outcome) -> tuple[_Lexical | None, Mask]:
    """The branch and its candidate mask over index positions (all False when it failed)."""
    stage = _Stage(outcome, "bm25")
    try:
        scores = index.lexical_scores(tokens(query))
        member = (scores > 0) & accepted
        branch = _Lexical(scores, np.flatnonzero(member), index.tie_order())
    except Exception:  # the branch fails alone; the other one may still answer
        log.exception("search: bm25 branch failed")
        stage.done("failed", 0)
        return None, np.zeros(len(accepted), dtype=bool)
    stage.done("ok", len(branch))
    return branch, member


def _order_key(scores: npt.NDArray[np.floating], tie: npt.NDArray[np.int64]) -> npt.NDArray[np.int64] | None:
    """For positive float32 scores, one int64 per candidate that orders them best first, ties by
    `tie`: the score's bits (which order positive floats) above the tie rank. One argsort of it
    replaces a two-key lexsort (about 3x faster on the ~50k BM25 candidates of the bench's 100k
    corpus), and it can be partitioned and counted. None for other scores (then `np.lexsort`)."""
    if scores.dtype == np.float32 and (not len(tie) or int(tie.max()) < 2**32):
        bits = scores.view(np.int32).astype(np.int64)
        return ((np.int64(0x7F800000) - bits) << 32) | tie
    return None


def _vector(
    index: SearchIndex, query: str, embedder: Embedder | None, accepted: Mask, outcome: Outcome
) -> npt.NDArray[np.int64] | None:
    """The vector branch's candidates as index positions, best first."""
    stage = _Stage(outcome, "vector")
    if embedder is None or index.dimension is None:
        stage.done("unavailable", 0)
        return None
    try:
        vector = embedder.embed([query], query=True)[0]
        floor = float(getattr(embedder, "min_similarity", MIN_SIMILARITY))
        hits: list[int] = []
        for key, score in index.similar(vector, VECTOR_CANDIDATES * FILTER_HEADROOM):
            if score < floor or len(hits) >= VECTOR_CANDIDATES:
                break
            position = index.position_of(key)
            if position is not None and accepted[position]:
                hits.append(position)
    except ProviderError:
        log.warning("search: vector branch failed", exc_info=True)
        stage.done("failed", 0)
        return None
    stage.done("ok", len(hits))
    return np.asarray(hits, dtype=np.int64)


def _rrf(rank: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """A branch's RRF term for 0-based ranks: 1/(RRF_K + rank + 1), the float the list fusion added."""
    return 1.0 / (RRF_K + (rank + 1).astype(np.float64))


def _fuse(
    index: SearchIndex, branches: list[npt.NDArray[np.intp]], outcome: Outcome
) -> tuple[list[tuple[int, float]], int]:
    """Reciprocal-rank fusion over rank arrays (each branch's candidates, best first): score = sum of
    1/(RRF_K + rank + 1) (rank from 0) over the branches that found a position; every candidate,
    best first, ties by key (what a reranker scores, or a query without `limit` returns)."""
    stage = _Stage(outcome, "fusion")
    size = len(index.tie_order())
    scores = np.zeros(size, dtype=np.float64)
    found = np.zeros(size, dtype=bool)
    for order in branches:  # in branch order, so each sum is the same float a dict would build
        scores[order] += _rrf(np.arange(len(order), dtype=np.int64))
        found[order] = True
    union = np.flatnonzero(found)
    order = _first(index, union, scores[union], None)
    stage.done("ok", len(union))
    return [(position, float(scores[position])) for position in order.tolist()], len(union)


def _first(
    index: SearchIndex, positions: npt.NDArray[np.intp], scores: npt.NDArray[np.float64], limit: int | None
) -> npt.NDArray[np.intp]:
    """`positions` best score first, ties by key, cut at `limit`: only the positions scoring at least
    the limit-th best score are sorted (partition; ties at the edge kept)."""
    if limit is not None and limit < len(positions):
        if limit <= 0:
            return positions[:0]
        edge = -np.partition(-scores, limit - 1)[limit - 1]
        keep = scores >= edge
        positions, scores = positions[keep], scores[keep]
    order = positions[np.lexsort((index.tie_order()[positions], -scores))]
    return order if limit is None else order[:limit]


def _fuse_top(
    index: SearchIndex,
    lexical: _Lexical | None,
    member: Mask,
    vector: npt.NDArray[np.int64] | None,
    limit: int,
    outcome: Outcome,
) -> tuple[list[tuple[int, float]], int, dict[int, dict[str, int]]]:
    """RRF's first `limit` without ordering every BM25 candidate: the same hits, scores and ranks
    as `_fuse` (tests/search/test_array_fusion.py), plus each hit's ranks (1 = best).

    BM25's rank-r candidate scores at least 1/(RRF_K + r + 1), more than any candidate only BM25
    found at a later rank, so past BM25's first `limit` none of those can be returned. The pool is
    BM25's head (the first `limit + HEAD_PAST_LIMIT`) and the vector branch's candidates, whose
    ranks and scores are exact, except a vector candidate BM25 found past the head: its BM25 rank
    is at least the head's length, so its score is at most `bound`. When that is below the
    limit-th best exact score it cannot be returned (its rank is not needed); otherwise its rank
    is counted (the candidates whose order key is smaller)."""
    stage = _Stage(outcome, "fusion")
    near = vector if vector is not None else np.zeros(0, dtype=np.int64)
    found_near = member[near]
    candidates = (len(lexical) if lexical is not None else 0) + int(np.count_nonzero(~found_near))
    if limit <= 0:
        stage.done("ok", candidates)
        return [], candidates, {}
    head = lexical.head(limit + HEAD_PAST_LIMIT) if lexical is not None else np.zeros(0, dtype=np.intp)
    in_head = set(head.tolist())
    beyond = np.fromiter((position not in in_head for position in near.tolist()), dtype=bool, count=len(near))
    pool = np.concatenate([head, near[beyond]]).astype(np.int64)
    bm25_rank = np.concatenate([np.arange(len(head)), np.full(int(beyond.sum()), -1)]).astype(np.int64)
    vector_rank = np.full(len(pool), -1, dtype=np.int64)
    by_position = np.argsort(pool)
    vector_rank[by_position[np.searchsorted(pool[by_position], near)]] = np.arange(len(near))
    # Vector candidates BM25 found after the head: rank unknown, at least len(head).
    unknown = np.flatnonzero(np.concatenate([np.zeros(len(head), dtype=bool), found_near[beyond]]))
    if len(unknown):
        known = np.ones(len(pool), dtype=bool)
        known[unknown] = False
        scores = _pool_scores(bm25_rank, vector_rank)
        threshold = -np.partition(-scores[known], limit - 1)[limit - 1]  # the head has more than limit
        bound = _pool_scores(np.full(len(unknown), len(head), dtype=np.int64), vector_rank[unknown])
        out = unknown[bound < threshold]
        reach = unknown[bound >= threshold]
        assert lexical is not None  # found_near is all False without the branch
        for place in reach.tolist():
            bm25_rank[place] = lexical.rank_of(int(pool[place]))
        keep = np.ones(len(pool), dtype=bool)
        keep[out] = False
        pool, bm25_rank, vector_rank = pool[keep], bm25_rank[keep], vector_rank[keep]
    scores = _pool_scores(bm25_rank, vector_rank)
    where = {position: place for place, position in enumerate(pool.tolist())}
    chosen = _first(index, pool, scores, limit).tolist()
    stage.done("ok", candidates)
    ranks: dict[int, dict[str, int]] = {}
    for position in chosen:
        place = where[position]
        ranks[position] = {}
        if bm25_rank[place] >= 0:
            ranks[position]["bm25"] = int(bm25_rank[place]) + 1
        if vector_rank[place] >= 0:
            ranks[position]["vector"] = int(vector_rank[place]) + 1
    return [(position, float(scores[where[position]])) for position in chosen], candidates, ranks


def _pool_scores(bm25_rank: npt.NDArray[np.int64], vector_rank: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """RRF scores from per-branch 0-based ranks (-1 = not found), summed in branch order as `_fuse`."""
    scores = np.zeros(len(bm25_rank), dtype=np.float64)
    for rank in (bm25_rank, vector_rank):
        hit = rank >= 0
        scores[hit] += _rrf(rank[hit])
    return scores


def _rerank(
    index: SearchIndex,
    query: str,
    fusion: tuple[list[tuple[int, float]], int],
    reranker: Reranker | None,
    outcome: Outcome,
) -> list[tuple[int, float]]:
    """`fusion`: the fused list (cut at `limit` when there is no reranker) and the candidate count."""
    stage = _Stage(outcome, "rerank")
    fused, candidates = fusion
    if not candidates:
        stage.done("skipped", 0)
        return fused
    if reranker is None:
        stage.done("fused", candidates)
        return fused
    try:
        scored: list[tuple[int, float]] = []
        for start in range(0, len(fused), RERANK_BATCH):
            batch = [position for position, _ in fused[start : start + RERANK_BATCH]]
            texts = [index.entry_at(position).doc.text for position in batch]
            scored += zip(batch, reranker.rerank(query, texts), strict=True)
    except (ProviderError, ValueError):
        log.warning("search: rerank failed; keeping the fused order", exc_info=True)
        stage.done("failed", len(fused))
        return fused
    stage.done("ok", len(scored))
    tie = index.tie_order()
    return sorted(scored, key=lambda item: (-item[1], tie[item[0]]))


def search(
    index: SearchIndex,
    query: str,
    *,
    embedder: Embedder | None,
    reranker: Reranker | None,
    accept: Accept,
    accept_key: Hashable | None = None,
    limit: int | None = None,
) -> Outcome:
    """`accept_key` names the filter `accept` is (equal keys, equal filters): the index keeps its
    mask per snapshot, so a repeated filter costs no Python call per document."""
    outcome = Outcome(hits=[])
    accepted = index.accepted(accept, accept_key)
    lexical, member = _lexical(index, query, accepted, outcome)
    vector = _vector(index, query, embedder, accepted, outcome)
    if lexical is None and vector is None:
        raise ServiceUnavailable("AI search is unavailable right now (no search branch answered); try again later")
    outcome.degraded = lexical is None or vector is None
    if reranker is None and limit is not None:
        # Only `limit` hits are returned in the fused order: no full order of the BM25 branch.
        fused, candidates, ranks = _fuse_top(index, lexical, member, vector, max(limit, 0), outcome)
        chosen = _rerank(index, query, (fused, candidates), None, outcome)
    else:  # the reranker scores every fused candidate (or every one is returned): full orders
        bm25 = None if lexical is None else lexical.order
        orders = [order for order in (bm25, vector) if order is not None]
        ranked = _rerank(index, query, _fuse(index, orders, outcome), reranker, outcome)
        chosen = ranked if limit is None else ranked[:limit]
        ranks = _ranks(chosen, (("bm25", bm25), ("vector", vector)))
    for position, score in chosen:
        entry = index.entry_at(position)
        outcome.hits.append((entry.doc, round(score, 6)))
        outcome.ranks[entry.doc.key] = ranks[position]
    return outcome


def _ranks(
    chosen: list[tuple[int, float]], branches: tuple[tuple[str, npt.NDArray[np.intp] | None], ...]
) -> dict[int, dict[str, int]]:
    """Each chosen position's rank (1 = best) in each branch's full order that has it."""
    ranks: dict[int, dict[str, int]] = {position: {} for position, _ in chosen}
    wanted = np.array(list(ranks), dtype=np.int64)
    for name, order in branches:
        if order is None:
            continue
        at = np.flatnonzero(np.isin(order, wanted))  # each returned hit's place in this branch
        for place in at.tolist():
            ranks[int(order[place])][name] = place + 1
    return ranks
