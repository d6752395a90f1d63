"""The array pipeline (filter masks, per-term coverage, z-scores over arrays, only `limit` + the
closest matches sorted) answers exactly as a document-by-document reading of the same rules, kept
here as the oracle: same hits and closest matches in the same order with the same scores, same
ranks per returned hit, same stage statuses and candidate counts, on random corpora (snapshot +
overlay with hidden and removed keys), filters, limits, floors and rerankers. The rules' numbers
(weights, floor) are the relevance test's business (test_relevance.py)."""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from mesq.kernel.ports.models import Vectors
from mesq.search import pipeline
from mesq.search.crosslingual import GLOSSARY, is_chinese
from mesq.search.documents import Doc
from mesq.search.index import Entry, SearchIndex, unit
from mesq.search.probes import CHINESE, ENGLISH, MIXED, Probes
from mesq.search.tokenizer import tokens

WORDS = ["alpha", "beta", "gamma", "delta", "北京", "樱花", "跑步", "kitchen", "faucet", "plumber", "budget"]
DIMENSION = 8
Hit = tuple[str, float]


def _oracle(
    index: SearchIndex, query: str, embedder: Any, reranker: Any, accept: Callable[[Doc], bool], limit: int | None,
    floor: float,
) -> tuple[list[Hit], list[Hit], dict[str, dict[str, int]], list[tuple[str, str, int]], bool]:  # fmt: skip
    """Every visible document, one at a time: its coverage, similarity, confidence."""
    entries = {entry.doc.key: entry for entry in index.entries()}
    wanted = {key for key, entry in entries.items() if accept(entry.doc)}
    stages: list[tuple[str, str, int]] = []
    terms = list(dict.fromkeys(tokens(query)))
    weight = {}
    bm25: dict[str, float] = {}
    for term in terms:
        found = dict(index.lexical([term]))
        df = len(found)
        weight[term] = math.log(1 + (len(entries) - df + 0.5) / (df + 0.5))
        for key, score in found.items():
            bm25[key] = bm25.get(key, 0.0) + score
    total = sum(weight.values())
    coverage = {
        key: sum(weight[t] for t in terms if t in entries[key].tokens) / total if total else 0.0 for key in entries
    }
    lexical = sorted((key for key in bm25 if key in wanted), key=lambda key: (-bm25[key], key))
    stages.append(("bm25", "ok", len(lexical)))
    z: dict[str, float] = {}
    note_z: dict[str, float] = {}
    score: dict[str, float] = {}
    vector: list[str] | None = None
    if embedder is None or index.dimension is None:
        stages.append(("vector", "unavailable", 0))
    else:
        chinese_notes = {key: is_chinese(entries[key].doc.text) for key in entries}
        other_language = any(value != is_chinese(query) for value in chinese_notes.values())
        gloss = GLOSSARY.translate(query) if other_language else None
        vectors = embedder.embed([query, gloss] if gloss else [query], query=True)
        # In the index's order: the mean and deviation then round as the pipeline's do (two usable
        # notes sit at z = +-1 exactly, and a set's order would put one on either side of VECTOR_MIN_Z).
        usable = sorted((key for key in wanted if entries[key].vector is not None), key=index.position_of)
        standard = []
        # The similarities as the index's products round them (equal texts must tie exactly), and
        # the gloss column as the sum the pipeline divides (V.q + V.g) / |q + g| (a product with
        # unit(q + g) rounds the last bits differently); `position_of` is the plumbing under test.
        every = index.similarities(np.stack(vectors))
        if gloss:
            norm = max(float(np.linalg.norm(vectors[0] + vectors[1])), 1e-12)
            every = np.stack([every[:, 0], (every[:, 0] + every[:, 1]) / norm], axis=1)
        for at in range(every.shape[1]):
            similarity = np.array([every[index.position_of(key), at] for key in usable], dtype=np.float32)
            mask = np.ones(len(usable), dtype=bool)
            prior = getattr(embedder, "similarity_prior", None)
            standard.append(dict(zip(usable, pipeline._standard(similarity, mask, prior).tolist(), strict=True)))
        # The note side: each note's similarity against its own over the probe queries of the
        # query's language (the statistics as the index keeps them: plumbing under test).
        probes = pipeline.probes_for(embedder)
        group = CHINESE if is_chinese(query) else ENGLISH
        for key in usable:
            at = index.position_of(key)
            other = chinese_notes[key] != is_chinese(query)
            z[key] = standard[0][key]
            if gloss and other:
                z[key] = max(z[key], standard[1][key])
            if probes is None:  # a model without probes: the query side alone
                note_z[key] = z[key]
            else:  # its mean over the probes of the query's language, or the pairs' with the gloss
                column, at_group = (1, MIXED) if gloss and other else (0, group)
                # float32 as the pipeline's arrays; the means as the index keeps them (plumbing)
                mean = index.note_means(probes)[at_group, at]
                note_z[key] = float((every[at, column] - mean) / probes.spread[at_group])
        score = {key: (z[key] + note_z[key]) / 2 for key in usable}
        by_score = sorted(usable, key=lambda key: (-score[key], key))
        vector = [key for key in by_score if score[key] >= pipeline.VECTOR_MIN_Z][: pipeline.VECTOR_CANDIDATES]
        if len(vector) < pipeline.CLOSEST_MATCHES:  # the nearest few are always candidates
            nearest = set(by_score[: pipeline.CLOSEST_MATCHES])
            vector = sorted(set(vector) | nearest, key=lambda key: (-score[key], key))
        stages.append(("vector", "ok", len(vector)))
    # The gap, within the note's language (Chinese or not): a note of the leading group to the
    # first note below the group, any other note to the best. The group: the first `size` scores,
    # for the widest drop after a score within GROUP_BAND of the best that is at least
    # GROUP_RATIO times every drop before it (at most GROUP_MAX; the first on a tie; size 1 always
    # qualifies).
    by_language: dict[bool, list[float]] = {}
    for key, value in score.items():
        by_language.setdefault(is_chinese(entries[key].doc.text), []).append(value)
    union = set(lexical) | set(vector or ())
    scores = {}
    for key in union:
        if vector is None or key not in z:  # no branch, or a note without a vector: no evidence
            similarity = gap = 0.0
        else:
            ordered = sorted(by_language[is_chinese(entries[key].doc.text)], reverse=True)
            size, widest = 1, -math.inf
            for count in range(1, min(pipeline.GROUP_MAX, len(ordered) - 1) + 1):
                if ordered[0] - ordered[count - 1] > pipeline.GROUP_BAND:
                    break
                drop = ordered[count - 1] - ordered[count]
                inside = max((ordered[i - 1] - ordered[i] for i in range(1, count)), default=0.0)
                if drop >= pipeline.GROUP_RATIO * inside and drop > widest:
                    size, widest = count, drop
            lowest, below = ordered[size - 1], ordered[size] if len(ordered) > size else 0.0
            similarity = score[key]
            gap = similarity - (below if similarity >= lowest else ordered[0])
        value = pipeline.confidence(np.array([coverage[key]]), np.array([similarity]), np.array([gap]))[0]
        scores[key] = float(value)
    fused = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    stages.append(("fusion", "ok", len(fused)))
    bar = floor
    if not fused:
        stages.append(("rerank", "skipped", 0))
    elif reranker is None:
        stages.append(("rerank", "fused", len(fused)))
    else:
        head = fused[: pipeline.RERANK_CANDIDATES]
        texts = [entries[key].doc.text for key, _ in head]
        fused = sorted(zip([key for key, _ in head], reranker.rerank(query, texts), strict=True),
                       key=lambda item: (-item[1], item[0]))  # fmt: skip
        stages.append(("rerank", "ok", len(head)))
        bar = floor if floor != pipeline.FLOOR else getattr(reranker, "min_relevance", pipeline.FLOOR)
    confident = [item for item in fused if item[1] >= bar]
    cap = len(fused) if limit is None else limit
    hits = confident[:cap]
    closest = [] if len(confident) > cap else fused[len(confident) :][: min(pipeline.CLOSEST_MATCHES, cap)]
    ranks: dict[str, dict[str, int]] = {}
    for key, _ in hits + closest:
        ranks[key] = {}
        if key in lexical:
            ranks[key]["bm25"] = lexical.index(key) + 1
        if vector is not None and key in vector:
            ranks[key]["vector"] = vector.index(key) + 1
    rounded = [(key, round(score, 6)) for key, score in hits]
    return rounded, [(key, round(score, 6)) for key, score in closest], ranks, stages, vector is None


class HashEmbedder:
    """Deterministic vectors from the words (close texts, close vectors)."""

    name = "hash"

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        rows = []
        for text in texts:
            vector = np.zeros(DIMENSION, dtype=np.float32)
            for word in text.split():
                vector[zlib.crc32(word.encode()) % DIMENSION] += 1.0  # not hash(): the same on every run
            rows.append(unit(vector + 0.01))
        return np.array(rows, dtype=np.float32)


class LengthReranker:
    name = "length"
    min_relevance = 3.0

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


def _hash_probes(embedder: HashEmbedder) -> Probes:
    """Probes for the hash model (the note side under test): each group's mean probe vector."""
    groups = [["北京 樱花", "跑步", "北京"], ["alpha beta", "kitchen", "budget plumber"], ["alpha 北京", "faucet 跑步"]]
    centroids = np.stack([embedder.embed(texts, query=True).mean(axis=0) for texts in groups]).astype(np.float32)
    return Probes("hash", centroids, np.array([0.2, 0.25, 0.3], dtype=np.float32))


@pytest.mark.parametrize("seed", range(60))
def test_the_array_pipeline_answers_as_the_document_by_document_oracle(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    embedder = HashEmbedder()
    if seed % 2:  # half the corpora read the notes by the probes too, half by the query side alone
        probes = _hash_probes(embedder)
        monkeypatch.setattr(pipeline, "probes_for", lambda model: probes if model.name == "hash" else None)
    index = _index(rng, embedder)
    for _query in range(6):
        query = " ".join(rng.choices([*WORDS, "absent"], k=rng.randint(1, 3)))
        name, accept = rng.choice(FILTERS)
        use_embedder = embedder if rng.random() < 0.8 else None
        reranker = LengthReranker() if rng.random() < 0.3 else None
        limit = rng.choice((None, 1, 3, 10, 500))
        floor = rng.choice((pipeline.FLOOR, 0.0, 0.5))
        for key in (name, None, name):  # uncached, no key, then the kept mask
            asked_floor = None if floor == pipeline.FLOOR else floor
            outcome = pipeline.search(index, query, embedder=use_embedder, reranker=reranker, accept=accept,
                                      accept_key=key, limit=limit, floor=asked_floor)  # fmt: skip
            hits, closest, ranks, stages, degraded = _oracle(index, query, use_embedder, reranker, accept, limit, floor)
            assert [(doc.key, score) for doc, score in outcome.hits] == hits
            assert [(doc.key, score) for doc, score in outcome.closest] == closest
            returned = outcome.hits + outcome.closest
            assert {doc.key: outcome.matched(doc) for doc, _ in returned} == ranks
            assert [(s["name"], s["status"], s["candidates"]) for s in outcome.stages] == stages
            assert outcome.degraded == degraded


def test_scores_are_confidences_and_the_floor_splits_them() -> None:
    """Every score is in [0, 1]; hits are at or above the floor, closest matches below it."""
    rng = random.Random(5)
    embedder = HashEmbedder()
    index = _index(rng, embedder)
    while len(index) < 30:
        index = _index(rng, embedder)
    outcome = pipeline.search(index, "kitchen faucet", embedder=embedder, reranker=None, accept=lambda doc: True)
    assert all(0.0 <= score <= 1.0 for _doc, score in outcome.hits + outcome.closest)
    assert all(score >= pipeline.FLOOR for _doc, score in outcome.hits)
    assert all(score < pipeline.FLOOR for _doc, score in outcome.closest)
    assert len(outcome.closest) <= pipeline.CLOSEST_MATCHES


def test_one_incidental_word_does_not_outrank_a_strong_semantic_match() -> None:
    """A note that shares one of four query words weighs little next to a note the vector finds."""
    coverage = np.array([0.25, 0.0])
    z = np.array([0.5, 2.5])
    gap = np.array([-2.0, 2.0])
    weak_word, meaning = pipeline.confidence(coverage, z, gap)
    assert meaning > weak_word
    full, _ = pipeline.confidence(np.array([1.0, 0.0]), np.zeros(2), np.zeros(2))
    assert full >= pipeline.FLOOR  # every query term: a hit even when the vector says nothing


def test_the_glossary_parsed_in_a_child_is_the_one_parsed_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server takes the glossary from a short-lived child (its parse's garbage stays out of the
    server's heap); what the child hands over is byte for byte the in-process parse, which is also
    the fallback when no child can run."""
    from mesq.search import crosslingual
    from mesq.search.crosslingual import _Table, _texts_from_a_child, build_texts

    here = build_texts()

    def no_fallback() -> tuple[bytes, bytes]:
        raise AssertionError("the child did not answer; the parse fell back to this process")

    monkeypatch.setattr(crosslingual, "build_texts", no_fallback)
    child = _texts_from_a_child()
    assert child == here
    zh, en = (_Table(text) for text in child)
    assert len(zh) > 90_000 and len(en) > 50_000
    assert zh.get("血压") == "blood pressure" and en.get("blood pressure") == "血压"
    assert zh.get("不是一个词语") is None and len(_Table()) == 0


def test_a_search_reads_the_index_as_it_was_when_it_began() -> None:
    """A write (`apply`) replaces the cached index's overlay part and positions in place; a
    search reads `frozen()`, so one that a write overtakes still sees one consistent state (it
    once read a 3-position mask and 5 similarities: `mesq serve`, a write during a search)."""

    def entry(number: int) -> Entry:
        vector = unit(np.arange(1, 5, dtype=np.float32) * (number + 1) % 7 + 1)
        return Entry(Doc("memo", f"m{number}", f"note {number}", {}), ("note", f"n{number}"), vector)

    index = SearchIndex([entry(0)], dimension=4)
    index.apply([entry(1), entry(2)])
    seen = index.frozen()
    index.apply([entry(3), entry(4)])
    mask = seen.accepted(lambda _doc: True, None)
    query = unit(np.ones(4, dtype=np.float32))[None, :]
    assert len(mask) == len(seen.similarities(query)) == len(seen.tie_order()) == 3
    assert len(index.accepted(lambda _doc: True, None)) == len(index.similarities(query)) == 5


def _bench_module() -> Any:
    """bench/ai_search.py, loaded by its path: its memo generators and query sets."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "ai_search.py"
    spec = importlib.util.spec_from_file_location("bench_ai_search", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_queries_answer_as_the_oracle_on_a_bench_shaped_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's own query sets (bench/ai_search.py) over its two kinds of memo, 1,600 of them
    with repeated texts (BM25 candidates by the thousand, ties in every score, more than
    VECTOR_CANDIDATES vector candidates, both languages mixed) and an overlay that hides and
    removes snapshot copies: the array pipeline, with every shortcut it takes at 100k, answers as
    the document-by-document oracle (the 100k before/after comparison of the bench's queries is
    too slow for the suite; this is its shape at a size the suite can afford)."""
    bench = _bench_module()
    rng = random.Random(95)
    embedder = HashEmbedder()
    probes = _hash_probes(embedder)
    monkeypatch.setattr(pipeline, "probes_for", lambda model: probes if model.name == "hash" else None)
    realistic = bench.RealisticCorpus(rng, vocabulary=400)
    hostile_texts = [bench._memo(rng, i) for i in range(200)]
    realistic_texts = [realistic.memo_and_terms()[0] for _ in range(200)]
    texts = [text for i in range(800) for text in (hostile_texts[i % 200], realistic_texts[i % 200])]

    def entry(i: int, text: str) -> Entry:
        doc = Doc("memo", f"m{i:05d}", text, {"status": "NORMAL"})
        return Entry(doc, tuple(tokens(text)), embedder.embed([text])[0] if i % 50 else None)

    index = SearchIndex([entry(i, text) for i, text in enumerate(texts)], dimension=DIMENSION)
    index.snapshot()
    index.apply([entry(i * 97, rng.choice(texts)) for i in range(20)], [f"memo:m{i * 89:05d}" for i in range(8)])
    queries = [*bench.QUERIES, *(realistic.query() for _ in range(4))]
    for query in queries:
        for limit, floor in ((20, None), (None, 0.0)):
            outcome = pipeline.search(index, query, embedder=embedder, reranker=None, accept=lambda doc: True,
                                      accept_key="all", limit=limit, floor=floor)  # fmt: skip
            bar = pipeline.FLOOR if floor is None else floor
            hits, closest, ranks, stages, _ = _oracle(index, query, embedder, None, lambda doc: True, limit, bar)
            assert [(doc.key, score) for doc, score in outcome.hits] == hits, query
            assert [(doc.key, score) for doc, score in outcome.closest] == closest, query
            assert {doc.key: outcome.matched(doc) for doc, _ in outcome.hits + outcome.closest} == ranks, query
            assert [(s["name"], s["status"], s["candidates"]) for s in outcome.stages] == stages, query


def test_the_kth_largest_by_a_sample_is_the_kth_largest() -> None:
    """`_first`'s edge: the k-th largest of arrays long enough to be sampled (ties, runs of equal
    scores, k past the sample's size, sorted and reversed input) is the sorted array's k-th."""
    rng = np.random.default_rng(95)
    for trial in range(400):
        size = int(rng.integers(1, 12_000))
        k = int(rng.integers(1, min(size, 3_000) + 1))
        if trial % 4 == 0:
            scores = rng.integers(0, int(rng.integers(1, 40)), size).astype(np.float64)  # many ties
        elif trial % 4 == 1:
            scores = np.sort(rng.standard_normal(size))  # the sample's stride lands on the low end
        elif trial % 4 == 2:
            scores = np.sort(rng.standard_normal(size))[::-1].copy()
        else:
            scores = rng.standard_normal(size)
        assert pipeline._kth_largest(scores, k) == np.sort(scores)[size - k], (trial, size, k)
