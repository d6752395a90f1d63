"""A change of embedding model rebuilds the index; vectors of two models never meet in one index.
The index pointer records its model id (persist.py); a process with another model finds it stale
on its first search (and on its first write) and queues a build of the whole index with its own
model (search/build.py), which the build worker runs; meanwhile a search answers from the old
index's BM25 alone, degraded."""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from mesq.kernel.ports.models import Vectors
from mesq.search.indexer import repository
from mesq.search.persist import pointer_key
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import run

NOTES = ["the plumber fixes the kitchen faucet", "水管工修好了厨房的水龙头", "a walk along the river at dusk"]


class RecordingEmbedder:
    """A model of `dimension` dimensions that records the passages it embedded."""

    def __init__(self, name: str, dimension: int) -> None:
        self.name, self.dimension = name, dimension
        self.passages: list[str] = []

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        if not query:
            self.passages += list(texts)
        rows = [np.random.default_rng(zlib.crc32(text.encode())).standard_normal(self.dimension) for text in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dimension)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture
def open_services(tmp_path: Path) -> Iterator:
    opened: list[Services] = []

    def open_with(embedder: RecordingEmbedder) -> Services:
        """The same data directory, as a restart with `embedder` configured would open it."""
        settings = inprocess_settings(
            data_dir=tmp_path / "data", search_provider="none", search_index_updates="inprocess"
        )
        services = build_services(settings)
        services.search.embedder = embedder
        opened.append(services)
        return services

    yield open_with
    for services in opened:
        services.items.close()


def assert_index_of(services: Services, model: RecordingEmbedder, documents: int) -> None:
    pointer = services.items.get(pointer_key("u1"))
    assert pointer is not None and pointer["model"] == model.name
    loaded = repository(services).load("u1")
    assert loaded is not None
    index, _pointer = loaded
    live = [entry for entry in index.snapshot_entries if entry.doc.key not in index.overlay]  # overlay hides these
    entries = live + [entry for entry in index.overlay.values() if entry is not None]
    assert len(entries) == documents and index.dimension == model.dimension
    assert all(entry.vector is not None and entry.vector.shape == (model.dimension,) for entry in entries)


def test_a_search_with_another_model_rebuilds_the_index(open_services) -> None:
    old = RecordingEmbedder("model-a", 4)
    services = open_services(old)
    made = [run(services, "create_memo", {"content": note})["memo"]["id"] for note in NOTES]
    services.items.wait_idle()  # type: ignore[attr-defined]  # words and vectors
    assert_index_of(services, old, len(NOTES))

    new = RecordingEmbedder("model-b", 8)
    restarted = open_services(new)  # the model changed between two starts
    first = run(restarted, "search_ai_memos", {"query": "kitchen faucet"})
    if first["degraded"]:  # the build had not finished within the search's short wait
        if "embedding model" in first["reason"]:  # not begun: the old index's BM25 alone
            assert [stage["status"] for stage in first["stages"][:2]] == ["ok", "unavailable"]
        else:  # begun (a loaded machine): the new build's progress is what the search reports
            assert "being built" in first["reason"]
    restarted.items.wait_idle()  # type: ignore[attr-defined]  # the build worker ran the build
    answer = run(restarted, "search_ai_memos", {"query": "kitchen faucet"})
    assert answer["degraded"] is False and "reason" not in answer
    assert {item["id"] for item in answer["items"]} <= set(made) and answer["items"]
    assert sorted(new.passages) == sorted(NOTES)  # every document embedded again, by the new model
    assert_index_of(restarted, new, len(NOTES))


def test_a_write_with_another_model_rebuilds_instead_of_adding_to_the_old_index(open_services) -> None:
    old = RecordingEmbedder("model-a", 4)
    services = open_services(old)
    for note in NOTES:
        run(services, "create_memo", {"content": note})
    services.items.wait_idle()  # type: ignore[attr-defined]  # words and vectors

    new = RecordingEmbedder("model-c", 6)
    restarted = open_services(new)
    run(restarted, "create_memo", {"content": "a fourth note, written after the change"})
    restarted.items.wait_idle()  # type: ignore[attr-defined]  # the update found the index stale: a build ran
    assert len(new.passages) >= len(NOTES) + 1 and set(NOTES) <= set(new.passages)
    assert_index_of(restarted, new, len(NOTES) + 1)


def test_an_index_of_older_terms_is_rebuilt_keeping_its_vectors(open_services) -> None:
    """Terms from before traditional Chinese read as simplified (an index without `tokens` in its
    pointer): the next search queues a build that makes the terms again and embeds nothing."""
    from mesq.search.tokenizer import TOKENS_FORMAT

    model = RecordingEmbedder("model-a", 4)
    services = open_services(model)
    note = run(services, "create_memo", {"content": "醫院複診的時間改到週五"})["memo"]
    services.items.wait_idle()  # type: ignore[attr-defined]
    pointer = services.items.get(pointer_key("u1"))
    assert pointer is not None and pointer["tokens"] == TOKENS_FORMAT
    # As an older version stored it: traditional terms, no `tokens`.
    loaded = repository(services).load("u1")
    assert loaded is not None
    index, _pointer = loaded
    from mesq.search.index import Entry, SearchIndex
    from mesq.search.tokenizer import _RUNS

    old_terms = [
        Entry(entry.doc, tuple(word or han for han, word in _RUNS.findall(entry.doc.text)), entry.vector)
        for entry in index.entries()
    ]
    older = SearchIndex(old_terms, {}, index.dimension)
    assert repository(services).save("u1", older, pointer)
    stored = services.items.get(pointer_key("u1"))
    assert stored is not None
    services.items.put({key: value for key, value in stored.items() if key != "tokens"})
    embedded = len(model.passages)

    restarted = open_services(model)
    run(restarted, "search_ai_memos", {"query": "医院复诊"})  # queues the build
    restarted.items.wait_idle()  # type: ignore[attr-defined]
    rebuilt = restarted.items.get(pointer_key("u1"))
    assert rebuilt is not None and rebuilt["tokens"] == TOKENS_FORMAT
    assert len(model.passages) == embedded  # the vectors were kept
    answer = run(restarted, "search_ai_memos", {"query": "医院复诊"})
    assert [item["id"] for item in answer["items"]] == [note["id"]] and answer["degraded"] is False
