"""The start-up warm-up and who waits for it: Code Mode waits (`wait_until_warm`) before a
script's clock starts, so a script sent right after `mesq serve` starts does not spend its wall
time on the model's load. A gated fake model stands in for a slow load: no sleeps."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from mesq.kernel.ports.models import ProviderError, SearchRuntime
from mesq.search.warm_up import warm_in_background


class GatedModel:
    name = "gated"

    def __init__(self, fails: bool = False) -> None:
        self.gate = threading.Event()
        self.loading = threading.Event()
        self.fails = fails

    def warm(self) -> None:
        self.loading.set()
        assert self.gate.wait(30)
        if self.fails:
            raise ProviderError("no model")

    def embed(self, texts: Sequence[str], query: bool = False) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32)


def test_wait_until_warm_returns_only_when_the_load_is_done():
    model = GatedModel()
    runtime = SearchRuntime(build=lambda: (model, None))
    thread = warm_in_background(runtime)
    assert model.loading.wait(30)
    runtime.wait_until_warm(0.05)  # still loading: the short wait times out...
    assert thread.is_alive()
    model.gate.set()
    runtime.wait_until_warm(30)  # ...the long one returns once the load is done
    thread.join(30)
    assert not thread.is_alive()


def test_a_failed_load_still_releases_the_waiters():
    model = GatedModel(fails=True)
    runtime = SearchRuntime(build=lambda: (model, None))
    thread = warm_in_background(runtime)
    model.gate.set()
    runtime.wait_until_warm(30)
    thread.join(30)
    assert runtime._warm_up_done is not None and runtime._warm_up_done.is_set()


def test_without_a_warm_up_nothing_waits():
    runtime = SearchRuntime(build=lambda: (GatedModel(), None))  # Lambda: no warm-up thread
    done = threading.Event()
    waiter = threading.Thread(target=lambda: (runtime.wait_until_warm(30), done.set()))
    waiter.start()
    assert done.wait(5)  # returned at once, not after its 30 s
    waiter.join()
