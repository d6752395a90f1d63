"""A query and its gloss are embedded and scored at once (search/pipeline.py `_GLOSS_HELPER`):
the bundled engine's calls may overlap (every buffer per call), the gloss runs on a helper thread
while the request's thread does the query, and when every helper is busy the request runs the
gloss itself instead of waiting for one. The answer is the same whichever thread did the work."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.kernel.ports.models import Vectors
from mesq.search import pipeline
from mesq.search.crosslingual import GLOSSARY
from mesq.search.documents import Doc
from mesq.search.index import Entry, SearchIndex

NOTES = [
    ("n1", "The plumber fixed the kitchen faucet on Saturday"),
    ("n2", "厨房的水龙头漏水，周六请了水管工"),
    ("n3", "北京的樱花四月开得最好"),
    ("n4", "Cherry blossoms in Beijing peak in April"),
    ("n5", "跑步以后膝盖疼，去医院看了"),
    ("n6", "Quarterly budget review with the finance team"),
]
QUERIES = ["kitchen faucet plumber", "北京 樱花", "跑步 膝盖", "budget review"]


class ThreadRecorder:
    """The real bundled model, noting which thread embedded each text."""

    def __init__(self, embedder: BundledEmbedder) -> None:
        self.embedder = embedder
        self.name = embedder.name
        self.similarity_prior = embedder.similarity_prior
        self.threads: dict[str, str] = {}

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        for text in texts:
            self.threads[text] = threading.current_thread().name
        return self.embedder.embed(texts, query=query)


@pytest.fixture(scope="module")
def index(local_embedder: BundledEmbedder) -> SearchIndex:
    GLOSSARY.load()
    vectors = local_embedder.embed([text for _, text in NOTES])
    entries = [
        Entry(Doc("memo", key, text, {"status": "NORMAL"}), (), vector)
        for (key, text), vector in zip(NOTES, vectors, strict=True)
    ]
    return SearchIndex(entries, dimension=int(vectors.shape[1]))


def _answer(index: SearchIndex, query: str, embedder: object) -> list[tuple[str, float]]:
    outcome = pipeline.search(index, query, embedder=embedder, reranker=None, accept=lambda doc: True, limit=6)  # type: ignore[arg-type]
    return [(doc.id, score) for doc, score in outcome.hits + outcome.closest]


@contextmanager
def every_helper_busy() -> Iterator[None]:
    """Every gloss helper held (as by other searches) until the block ends."""
    helpers = pipeline._GLOSS_HELPER
    workers = helpers._max_workers
    started, release = threading.Barrier(workers + 1), threading.Event()
    holds = [helpers.submit(lambda: (started.wait(10), release.wait(30))) for _ in range(workers)]
    started.wait(10)
    try:
        yield
    finally:
        release.set()
        for held in holds:
            held.result(10)


def test_the_bundled_engine_embeds_the_same_from_many_threads_at_once(local_embedder: BundledEmbedder) -> None:
    texts = [text for _, text in NOTES] + QUERIES
    alone = {text: local_embedder.embed([text], query=True)[0] for text in texts}
    with ThreadPoolExecutor(4) as pool:
        for _ in range(5):
            together = list(pool.map(lambda text: local_embedder.embed([text], query=True)[0], texts))
            for text, vector in zip(texts, together, strict=True):
                assert np.array_equal(vector, alone[text]), text


@pytest.mark.timing  # the helper must start before the request's own embedding ends; on a loaded
# worker it may not, and the request then does the gloss itself, by design (CI, 2026-12-07)
def test_the_gloss_is_embedded_on_a_helper_while_the_request_embeds_the_query(
    index: SearchIndex, local_embedder: BundledEmbedder
) -> None:
    recorder = ThreadRecorder(local_embedder)
    _answer(index, "kitchen faucet plumber", recorder)
    gloss = GLOSSARY.translate("kitchen faucet plumber")
    assert gloss, "the glossary knows these words"
    assert recorder.threads["kitchen faucet plumber"] == threading.current_thread().name
    assert recorder.threads[gloss].startswith("mesq-gloss")


def test_with_every_helper_busy_the_request_does_the_gloss_itself_and_answers_the_same(
    index: SearchIndex, local_embedder: BundledEmbedder
) -> None:
    reference = {query: _answer(index, query, local_embedder) for query in QUERIES}
    with every_helper_busy():
        recorder = ThreadRecorder(local_embedder)
        for query in QUERIES:
            assert _answer(index, query, recorder) == reference[query], query
    assert len(recorder.threads) > len(QUERIES), "some queries were glossed"
    assert set(recorder.threads.values()) == {threading.current_thread().name}
