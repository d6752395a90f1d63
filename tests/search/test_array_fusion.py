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

from mesq.kernel.model_ports import Vectors
from mesq.search import pipeline
from mesq.search.documents import Doc
from mesq.search.index import Entry, SearchIndex, unit
from mesq.search.tokens import tokens

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
