"""Indexing leaves the write (issue 44): on `mesq serve` a write queues its keys; the follower
puts the new words in the AI index at once and the embedding after, on a worker of its own
(follow.py, indexer.refresh(vectors=False) then attach_vectors). A search right after a write
finds the memo by its words while the embedding has not run, never waits for it, and finds it by
meaning once the vector is attached; an edit made meanwhile is not overwritten by the older text's
vector."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

from mesq.kernel.ports.models import Vectors
from mesq.search import pipeline
from mesq.search.indexer import repository
from mesq.wiring.services import Services

from .conftest import run


class HeldEmbedder:
    """Embeds queries at once and documents only once released (the model's slow batch)."""

    name = "held"

    def __init__(self) -> None:
        self.released = threading.Event()
        self.documents: list[str] = []

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        if not query:
            assert self.released.wait(30)
            self.documents += texts
        return np.stack([self.vector(text) for text in texts])

    def vector(self, text: str) -> np.ndarray:
        return np.full(4, 1.0 + len(text) % 3, dtype=np.float32)


def _indexed(services: Services) -> HeldEmbedder:
    """Services whose user has an index already (a first write, embedded), the embedder held."""
    embedder = HeldEmbedder()
    services.search.embedder = embedder
    embedder.released.set()
    run(services, "create_memo", {"content": "an index exists before the test's write"})
    services.items.wait_idle()  # type: ignore[attr-defined]
    embedder.released.clear()
    return embedder


def _entry(services: Services, memo_id: str):  # type: ignore[no-untyped-def]
    loaded = repository(services).load("u1")
    assert loaded is not None
    return loaded[0].entry(f"memo:{memo_id}")


def test_a_search_right_after_a_write_finds_it_by_its_words_then_by_meaning(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    embedder = _indexed(services)
    memo = run(services, "create_memo", {"content": "the plumber fixes the kitchen faucet"})["memo"]
    began = time.perf_counter()
    answer = run(services, "search_ai_memos", {"query": "faucet"})
    assert time.perf_counter() - began < 20  # it did not wait for the held embedding (30 s)
    hits = {item["id"]: item for item in answer["items"]}
    assert hits[memo["id"]]["matchedBy"] == ["bm25"]
    assert _entry(services, memo["id"]).vector is None

    embedder.released.set()
    services.items.wait_idle()  # type: ignore[attr-defined]
    assert _entry(services, memo["id"]).vector is not None
    answer = run(services, "search_ai_memos", {"query": "faucet"})
    assert "vector" in next(item for item in answer["items"] if item["id"] == memo["id"])["matchedBy"]


def test_an_edit_while_the_old_text_embeds_keeps_the_new_text(make_services: Callable[..., Services]) -> None:
    services = make_services()
    embedder = _indexed(services)
    memo = run(services, "create_memo", {"content": "first words"})["memo"]
    services.search.settle("u1")  # the words are in; the embedding is held
    run(services, "update_memo", {"id": memo["id"], "expectedRevision": 1, "content": "second words"})
    assert _entry(services, memo["id"]).vector is None
    services.search.settle("u1")
    embedder.released.set()
    services.items.wait_idle()  # type: ignore[attr-defined]
    entry = _entry(services, memo["id"])
    assert entry.doc.text == "second words" and entry.vector is not None
    assert "second words" in embedder.documents
    # a status change keeps the vector: the text did not change, nothing is embedded again
    embedded = len(embedder.documents)
    run(services, "update_memo", {"id": memo["id"], "expectedRevision": 2, "pinned": True})
    services.items.wait_idle()  # type: ignore[attr-defined]
    assert _entry(services, memo["id"]).vector is not None and len(embedder.documents) == embedded


class TopicEmbedder(HeldEmbedder):
    """A vector per topic word (the first it finds; a note of none points nowhere in particular),
    so a tap note sits nearest a query about faucets; documents wait for `released`."""

    TOPICS = ("faucet tap", "garden", "train", "piano", "bread", "chess")

    def vector(self, text: str) -> np.ndarray:
        row = np.full(len(self.TOPICS), 0.3, dtype=np.float32)
        topic = next((at for at, words in enumerate(self.TOPICS) if any(w in text for w in words.split())), None)
        if topic is not None:
            row[topic] = 1.0
        return row


def test_a_literal_match_not_yet_embedded_keeps_its_words_confidence(
    make_services: Callable[..., Services],
) -> None:
    """A memo written a moment ago has no vector yet: its similarity is unknown, not low. It is
    scored as a BM25-only candidate is (coverage alone), not as a note far below the best vector:
    before, a full match of the query fell to the floor (0.14) under the nearest semantic guess."""
    services = make_services()
    embedder = TopicEmbedder()
    services.search.embedder = embedder
    embedder.released.set()
    neighbour = run(services, "create_memo", {"content": "the tap in the bathroom drips"})["memo"]
    for topic in TopicEmbedder.TOPICS[1:]:
        for n in range(4):
            run(services, "create_memo", {"content": f"{topic} note {n}"})
    services.items.wait_idle()  # type: ignore[attr-defined]
    embedder.released.clear()
    literal = run(services, "create_memo", {"content": "call about the leaking faucet"})["memo"]
    answer = run(services, "search_ai_memos", {"query": "leaking faucet"})
    assert _entry(services, literal["id"]).vector is None
    hits = {item["id"]: item for item in answer["items"]}
    assert hits[literal["id"]]["matchedBy"] == ["bm25"]
    words_alone = float(pipeline.confidence(np.ones(1), np.zeros(1), np.zeros(1))[0])
    assert hits[literal["id"]]["score"] == round(words_alone, 6)
    assert "vector" in hits[neighbour["id"]]["matchedBy"]  # found by meaning too
    embedder.released.set()
    services.items.wait_idle()  # type: ignore[attr-defined]
