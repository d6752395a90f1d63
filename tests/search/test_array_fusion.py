"""The array pipeline (filter masks, RRF over rank arrays, only `limit` hits materialised) gives
exactly the answer of the list pipeline it replaced, kept here as the oracle: same hits in the same
order with the same scores, same ranks per returned hit, same stage statuses and candidate counts,
on random corpora (snapshot + overlay with hidden and removed keys), filters, limits and rerankers."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from mesq.kernel.ports.models import Vectors
from mesq.search import pipeline
from mesq.search.documents import Doc
from mesq.search.index import Entry, SearchIndex, unit
from mesq.search.tokenizer import tokens

WORDS = ["alpha", "beta", "gamma", "delta", "北京", "樱花", "跑步", "kitchen", "faucet", "plumber", "budget"]
DIMENSION = 8


def _oracle(
    index: SearchIndex,
    query: str,
    embedder: Any,
    reranker: Any,
    accept: Callable[[Doc], bool],
    limit: int | None,
) -> tuple[list[tuple[str, float]], dict[str, dict[str, int]], list[tuple[str, str, int]], bool]:
    """The list pipeline as it was before the array fusion (pipeline.py before issue 28 item 6)."""
    stages: list[tuple[str, str, int]] = []

    def ok(key: str) -> bool:
        entry = index.entry(key)
        return entry is not None and accept(entry.doc)

    lexical = [key for key, _ in index.lexical(tokens(query)) if ok(key)]
    stages.append(("bm25", "ok", len(lexical)))
    vector: list[str] | None = None
    if embedder is None or index.dimension is None:
        stages.append(("vector", "unavailable", 0))
    else:
        query_vector = embedder.embed([query], query=True)[0]
        vector = []
        for key, score in index.similar(query_vector, pipeline.VECTOR_CANDIDATES * pipeline.FILTER_HEADROOM):
            if score < embedder.min_similarity or len(vector) >= pipeline.VECTOR_CANDIDATES:
                break
            if ok(key):
                vector.append(key)
        stages.append(("vector", "ok", len(vector)))
    answered = [hits for hits in (lexical, vector) if hits is not None]
    ranks: dict[str, dict[str, int]] = {}
    for branch, hits in (("bm25", lexical), ("vector", vector)):
        for rank, key in enumerate(hits or (), start=1):
            ranks.setdefault(key, {})[branch] = rank
    scores: dict[str, float] = {}
    for ranked in answered:
        for rank, key in enumerate(ranked):
            scores[key] = scores.get(key, 0.0) + 1.0 / (pipeline.RRF_K + rank + 1)
    fused = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    stages.append(("fusion", "ok", len(fused)))
    if not fused:
        stages.append(("rerank", "skipped", 0))
    elif reranker is None:
        stages.append(("rerank", "fused", len(fused)))
    else:
        texts = [entry.doc.text if (entry := index.entry(key)) else "" for key, _ in fused]
        fused = sorted(zip([key for key, _ in fused], reranker.rerank(query, texts), strict=True),
                       key=lambda item: (-item[1], item[0]))  # fmt: skip
        stages.append(("rerank", "ok", len(fused)))
    chosen = fused if limit is None else fused[:limit]
    hits = [(key, round(score, 6)) for key, score in chosen]
    return hits, {key: ranks[key] for key, _ in hits}, stages, len(answered) == 1


class HashEmbedder:
    """Deterministic vectors from the words (close texts, close vectors), so the floor matters."""

    name = "hash"
    min_similarity = 0.55

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        rows = []
        for text in texts:
            vector = np.zeros(DIMENSION, dtype=np.float32)
            for word in text.split():
                vector[hash(word) % DIMENSION] += 1.0
            rows.append(unit(vector + 0.01))
        return np.array(rows, dtype=np.float32)


class LengthReranker:
    name = "length"

    def rerank(self, query: str, docs: Sequence[str]) -> list[float]:
        return [float(len(doc) % 7) for doc in docs]  # many ties: the key decides


def _doc(rng: random.Random, i: int, version: int) -> Doc:
    kind = rng.choice(("memo", "memo", "todo_task", "reading_note"))
    text = " ".join(rng.choices(WORDS, k=rng.randint(1, 6)))
    meta = {"status": rng.choice(("NORMAL", "ARCHIVED")), "tagPaths": rng.sample(["a", "b", "c"], rng.randint(0, 2))}
    return Doc(kind, f"d{i:03d}v{version}" if rng.random() < 0.1 else f"d{i:03d}", text, meta)


def _index(rng: random.Random, embedder: HashEmbedder) -> SearchIndex:
    def entry(doc: Doc) -> Entry:
        vector = embedder.embed([doc.text])[0] if rng.random() < 0.9 else None
        return Entry(doc, tuple(tokens(doc.text)), vector)

    size = rng.randint(0, 120)
    index = SearchIndex([entry(_doc(rng, i, 0)) for i in range(size)], dimension=DIMENSION)
    index.snapshot()
    for _write in range(rng.randint(0, 3)):  # overlay: newer copies, new docs, removals
        upserts = [entry(_doc(rng, rng.randint(0, size + 20), 1)) for _ in range(rng.randint(0, 15))]
        removals = [f"memo:d{rng.randint(0, size):03d}" for _ in range(rng.randint(0, 5))]
        index.apply(upserts, removals)
    return index


FILTERS: list[tuple[str, Callable[[Doc], bool]]] = [
    ("all", lambda doc: True),
    ("memos", lambda doc: doc.kind == "memo"),
    ("archived-b", lambda doc: doc.kind == "memo" and doc.meta["status"] == "ARCHIVED" and "b" in doc.meta["tagPaths"]),
    ("notes", lambda doc: doc.kind == "reading_note"),
    ("none", lambda doc: False),
]


@pytest.mark.parametrize("seed", range(60))
def test_array_fusion_answers_exactly_as_the_list_fusion(seed: int) -> None:
    rng = random.Random(seed)
    embedder = HashEmbedder()
    index = _index(rng, embedder)
    for _query in range(6):
        query = " ".join(rng.choices([*WORDS, "absent"], k=rng.randint(1, 3)))
        name, accept = rng.choice(FILTERS)
        use_embedder = embedder if rng.random() < 0.8 else None
        reranker = LengthReranker() if rng.random() < 0.3 else None
        limit = rng.choice((None, 1, 3, 10, 500))
        for key in (name, None, name):  # uncached, no key, then the kept mask
            outcome = pipeline.search(index, query, embedder=use_embedder, reranker=reranker, accept=accept,
                                      accept_key=key, limit=limit)  # fmt: skip
            hits, ranks, stages, degraded = _oracle(index, query, use_embedder, reranker, accept, limit)
            assert [(doc.key, score) for doc, score in outcome.hits] == hits
            assert {doc.key: outcome.matched(doc) for doc, _ in outcome.hits} == ranks
            assert [(s["name"], s["status"], s["candidates"]) for s in outcome.stages] == stages
            assert outcome.degraded == degraded


class SpreadEmbedder(HashEmbedder):
    """Vectors spread over more dimensions with a low floor, so the vector branch fills up with
    documents found anywhere in the BM25 order (deep ranks, the bound and the counted ranks)."""

    min_similarity = 0.05

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        rows = []
        for text in texts:
            vector = np.zeros(DIMENSION, dtype=np.float32)
            for n, word in enumerate(text.split()):
                vector[(hash(word) + n) % DIMENSION] += 1.0 + n % 3
            rows.append(unit(vector + 0.01))
        return np.array(rows, dtype=np.float32)


class BagEmbedder(HashEmbedder):
    """Bag-of-words vectors: cosine order close to the BM25 order, so the vector candidates crowd
    BM25's head (the head must reach past them to hold `limit` BM25-only positions)."""

    min_similarity = 0.05

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        rows = []
        for text in texts:
            vector = np.zeros(DIMENSION, dtype=np.float32)
            for word in text.split():
                vector[WORDS.index(word) % DIMENSION if word in WORDS else DIMENSION - 1] += 1.0
            rows.append(unit(vector + 0.001))
        return np.array(rows, dtype=np.float32)


@pytest.mark.parametrize("seed", range(12))
def test_the_first_hits_of_many_bm25_candidates_answer_as_the_list_fusion(seed: int, monkeypatch: Any) -> None:
    """Hundreds of BM25 candidates per query (a tiny vocabulary), the vector branch full, its
    candidates spread over the BM25 order or crowding its head: fusion takes only BM25's head and
    counts the ranks of the vector candidates that can still reach the first `limit`; hits, order
    (ties by key), scores and ranks stay the list pipeline's."""
    calls = {"partial": 0, "counted": 0}
    head, rank_of = pipeline._Lexical.head, pipeline._Lexical.rank_of

    def counting_head(self: Any, count: int) -> Any:
        calls["partial"] += count < len(self)
        return head(self, count)

    def counting_rank_of(self: Any, position: int) -> int:
        calls["counted"] += 1
        return rank_of(self, position)

    monkeypatch.setattr(pipeline._Lexical, "head", counting_head)
    monkeypatch.setattr(pipeline._Lexical, "rank_of", counting_rank_of)
    monkeypatch.setattr(pipeline, "HEAD_PAST_LIMIT", (0, 3, 40, 500)[seed % 4])  # any head is exact
    rng = random.Random(1000 + seed)
    embedder = SpreadEmbedder() if seed % 3 else BagEmbedder()
    words = WORDS[:4]
    docs = [Doc("memo", f"d{i:04d}", " ".join(rng.choices(words, k=rng.randint(1, 8))), {}) for i in range(900)]
    index = SearchIndex([Entry(doc, tuple(tokens(doc.text)), embedder.embed([doc.text])[0]) for doc in docs],
                        dimension=DIMENSION)  # fmt: skip
    if seed % 2:  # an overlay: newer copies and removals
        newer = [Doc("memo", f"d{rng.randint(0, 950):04d}", " ".join(rng.choices(words, k=3)), {}) for _ in range(30)]
        removed = [f"memo:d{rng.randint(0, 900):04d}" for _ in range(10)]
        index.apply([Entry(doc, tuple(tokens(doc.text)), embedder.embed([doc.text])[0]) for doc in newer], removed)
    for _query in range(12):
        query = " ".join(rng.choices(words, k=rng.randint(1, 3)))
        name, accept = rng.choice(FILTERS[:2])
        limit = rng.choice((1, 2, 5, 20, 60))
        outcome = pipeline.search(index, query, embedder=embedder, reranker=None, accept=accept, accept_key=name,
                                  limit=limit)  # fmt: skip
        hits, ranks, stages, degraded = _oracle(index, query, embedder, None, accept, limit)
        assert [(doc.key, score) for doc, score in outcome.hits] == hits
        assert {doc.key: outcome.matched(doc) for doc, _ in outcome.hits} == ranks
        assert [(s["name"], s["status"], s["candidates"]) for s in outcome.stages] == stages
        assert outcome.degraded == degraded
    if pipeline.HEAD_PAST_LIMIT < 500:  # only BM25's head was ordered; deep vector candidates counted
        assert calls["partial"] and (calls["counted"] or isinstance(embedder, BagEmbedder))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_bm25_head_and_ranks_are_the_full_order(dtype: Any) -> None:
    """`_Lexical.head` / `rank_of` agree with the full order, ties (equal scores) by key, for the
    float32 order key and the lexsort of any other scores."""
    rng = np.random.default_rng(7)
    scores = rng.choice(np.array([0.0, 0.5, 1.25, 2.0, 3.5], dtype=dtype), size=400)
    tie = rng.permutation(1000)[:400].astype(np.int64)
    found = np.flatnonzero(scores > 0)
    branch = pipeline._Lexical(scores, found, tie)
    order = found[np.lexsort((tie[found], -scores[found]))]
    assert branch.order.tolist() == order.tolist()
    for count in (0, 1, 7, 100, len(found), len(found) + 5):
        assert branch.head(count).tolist() == order[:count].tolist()
    assert [branch.rank_of(int(position)) for position in order] == list(range(len(order)))
