"""The AI index build (search/build.py) and what a search answers while there is none: a build
runs in steps that survive a stop (a process gone between two steps, a step that fails half-way)
and never starts again from nothing; writes during a build end up in the index it makes; an
import that extends an index embeds only what is new; a search on an account without an index
answers at once from the literal index, degraded with a reason, and a later one is complete; the
build worker runs at a lower CPU priority. A recording model stands in for the embedding model.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from mesq.application.registries import SEARCHABLES
from mesq.kernel.ports.models import Vectors
from mesq.search import build, follow, literal_store
from mesq.store.paging import walk
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import run

USER = "u1"
WORDS = ("faucet", "river", "garden", "invoice", "piano", "水龙头", "花园", "发票")


class Recorder:
    """A model that records the passages it embedded; `fail_after` passages, it fails."""

    name = "recorder"

    def __init__(self) -> None:
        self.passages: list[str] = []
        self.fail_after: int | None = None

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        if not query:
            if self.fail_after is not None and len(self.passages) + len(texts) > self.fail_after:
                raise RuntimeError("killed")  # not a ProviderError: the step itself dies
            self.passages += list(texts)
        rows = [np.random.default_rng(zlib.crc32(text.encode())).standard_normal(8) for text in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), 8)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture
def open_services(tmp_path: Path) -> Iterator[Callable[..., Services]]:
    """Services over one data directory: each call is a (re)started process with its own model."""
    opened: list[Services] = []

    def open_with(model: Recorder, updates: str = "inprocess") -> Services:
        settings = inprocess_settings(data_dir=tmp_path / "data", search_provider="none", search_index_updates=updates)
        services = build_services(settings)
        services.search.embedder = model
        opened.append(services)
        return services

    yield open_with
    for services in opened:
        services.items.close()


def _memos(services: Services, count: int, start: int = 0) -> list[str]:
    return [
        run(services, "create_memo", {"content": f"note {n} about {WORDS[n % len(WORDS)]}"})["memo"]["id"]
        for n in range(start, start + count)
    ]


def _indexed(services: Services) -> set[tuple[str, str]]:
    loaded = build.repository(services).load(USER)
    assert loaded is not None
    return {(entry.doc.key, entry.doc.text) for entry in loaded[0].entries()}


def _stored(services: Services) -> set[tuple[str, str]]:
    docs = (SEARCHABLES.doc_of(item) for item in walk(services.items, f"U#{USER}"))
    return {(doc.key, doc.text) for doc in docs if doc is not None}


def test_a_stopped_build_resumes_at_its_last_step(open_services, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "STEP_RECORDS", 8)
    first = Recorder()
    services = open_services(first, updates="off")  # `mesq import`: nothing follows the writes
    _memos(services, 30)
    for _step in range(2):
        assert not build.step(services, USER).done
    assert len(first.passages) == 16 and build.progress_of(build.state(services, USER)).walked == 16
    first.fail_after = 20  # the third step dies half-way (a kill -9 inside it loses that step only)
    with pytest.raises(RuntimeError, match="killed"):
        build.step(services, USER)
    assert build.progress_of(build.state(services, USER)).walked == 16  # its cursor did not move

    second = Recorder()
    restarted = open_services(second, updates="off")  # another process: nothing in memory
    finished = build.run(restarted, USER)
    assert finished.done and finished.documents == 30
    assert len(second.passages) == 14  # the 16 of the first two steps were not embedded again
    assert _indexed(restarted) == _stored(restarted)
    assert build.state(restarted, USER) is None
    blobs = [path.name for path in (restarted.settings.blob_dir / "search").rglob("*")]
    assert blobs and not [name for name in blobs if name.startswith("build-")]  # its segments are gone


def test_writes_during_a_build_are_in_the_index_it_ends_with(open_services, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "STEP_RECORDS", 4)
    model = Recorder()
    offline = open_services(model, updates="off")
    ids = _memos(offline, 12)
    assert not build.step(offline, USER).done  # the walk is past the first four memos
    services = open_services(model)  # `mesq serve` on the same data, its follower on
    walked = ids[0]  # a memo the walk has read: only the build's patch carries its new text
    memo = run(services, "get_memo", {"id": walked})["memo"]
    run(services, "update_memo", {"id": walked, "expectedRevision": memo["revision"], "content": "edited faucet"})
    gone = run(services, "get_memo", {"id": ids[1]})["memo"]
    run(services, "delete_memo", {"id": ids[1], "expectedRevision": gone["revision"]})
    _memos(services, 2, start=100)
    services.items.wait_idle()  # type: ignore[attr-defined]  # the follower's patches, then the build's steps
    assert build.state(services, USER) is None
    assert _indexed(services) == _stored(services)
    assert ("memo:" + walked, "edited faucet") in _indexed(services)


def test_a_search_waits_for_a_build_of_one_step_at_most() -> None:
    from mesq.application import search_operations as operations

    assert operations.SMALL_BUILD == build.STEP_RECORDS


def test_an_import_into_an_indexed_account_embeds_only_what_is_new(open_services) -> None:
    model = Recorder()
    services = open_services(model, updates="off")
    _memos(services, 10)
    assert build.run(services, USER).documents == 10 and len(model.passages) == 10
    _memos(services, 5, start=10)  # an import's writes
    finished = build.run(services, USER)
    assert finished.documents == 15 and len(model.passages) == 15  # the ten already embedded were reused
    assert _indexed(services) == _stored(services)


def test_a_search_without_an_index_answers_at_once_then_completely(
    open_services, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = Recorder()
    offline = open_services(model, updates="off")
    ids = _memos(offline, 300)
    for kind in SEARCHABLES.literal:  # what an import leaves before its AI build: the literal indexes
        literal_store.rebuild(offline, USER, kind)
    services = open_services(model)
    gate = threading.Event()
    real_step = build.step

    def held_step(*args: object, **kwargs: object) -> build.Progress:
        assert gate.wait(30)  # the build worker is held: the search cannot wait it out
        return real_step(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "step", held_step)
    started = time.monotonic()
    first = run(services, "search_ai_memos", {"query": "faucet invoice", "limit": 5})
    took = time.monotonic() - started
    assert first["degraded"] is True and "being built" in first["reason"], first
    assert took < 1.0, f"{took:.2f} s"
    assert first["items"] and all(item["matchedBy"] == ["literal"] for item in first["items"])
    assert {item["id"] for item in first["items"]} <= {ids[n] for n in range(300) if n % len(WORDS) in (0, 3)}
    gate.set()
    services.items.wait_idle()  # type: ignore[attr-defined]  # the queued build ran on the build worker
    later = run(services, "search_ai_memos", {"query": "faucet invoice", "limit": 5})
    assert later["degraded"] is False and "reason" not in later
    assert {branch for item in later["items"] for branch in item["matchedBy"]} <= {"bm25", "vector"}


def test_the_build_worker_runs_at_a_lower_priority(open_services) -> None:
    services = open_services(Recorder())
    seen: list[int] = []
    thread_of = threading.Event()

    def probe(_services: Services, _user: str, *_rest: object) -> build.Progress:
        stat = Path(f"/proc/self/task/{threading.get_native_id()}/stat").read_text()
        seen.append(int(stat.rsplit(")", 1)[1].split()[16]))  # field 19: nice
        thread_of.set()
        return build.Progress(0, 0, 0, True)

    original = build.step
    build.step = probe  # type: ignore[assignment]
    try:
        services.search.request_build(USER)
        assert thread_of.wait(30)
    finally:
        build.step = original
    main_nice = int(Path(f"/proc/self/task/{threading.get_native_id()}/stat").read_text().rsplit(")", 1)[1].split()[16])
    assert seen == [main_nice + follow.BUILD_NICE] or seen == [19]
