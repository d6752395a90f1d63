"""kernel/collector.py: the collector paused around a bulk build, pauses nesting and overlapping
across threads, and back on only when the last ends (a collector that was off stays off:
tests/runtime/test_startup.py, through the start's pause, which is this one)."""

from __future__ import annotations

import gc
import threading

from mesq.kernel.collector import collector_paused


def test_pauses_nest_overlap_and_restore_the_collector() -> None:
    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            inside.set()
            assert release.wait(10)

    thread = threading.Thread(target=other)
    with collector_paused():
        assert not gc.isenabled()
        thread.start()
        assert inside.wait(10)
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause still holds
    release.set()
    thread.join(10)
    assert gc.isenabled()
