"""runtime/startup.py: the collector is off while a start makes its objects, back on after (even
when the start fails), and the objects made are frozen."""

from __future__ import annotations

import gc

import pytest

from mesq.runtime.startup import collector_paused


def test_the_collector_is_paused_inside_and_the_objects_frozen_after() -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    try:
        with collector_paused():
            assert not gc.isenabled()
            made = [[] for _ in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen_before + len(made)
    finally:
        gc.unfreeze()


def test_a_failing_start_turns_the_collector_back_on() -> None:
    try:
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("the start failed")
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
