"""The Hypothesis profiles (tests/hypothesis_lanes.py): a run that names no profile has no
per-example wall-clock deadline either, so a loaded machine's pause cannot fail a property."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO


def test_an_example_paused_past_200_ms_is_not_a_failure():
    """The first example stalls 0.3 s, as a descheduled worker does; under Hypothesis' own default
    (200 ms) that was DeadlineExceeded, then FlakyFailure when the replay ran in time."""
    calls: list[int] = []

    @given(st.integers(min_value=0, max_value=3))
    def stalls_once(number: int) -> None:
        if not calls:
            time.sleep(0.3)
        calls.append(number)

    stalls_once()
    assert settings.default.deadline is None and len(calls) > 1


def test_a_named_profile_still_wins(tmp_path: Path):
    """`make test` loads `ci` (derandomized): the no-profile default must not replace it, whether
    the lanes module is imported before the flag is read (as here, a plugin) or after."""
    probe = tmp_path / "test_profile_probe.py"
    probe.write_text(
        "def test_profile():\n"
        "    from hypothesis import settings\n"
        "    assert settings.get_current_profile_name() == 'ci', settings.get_current_profile_name()\n"
        "    assert settings.default.derandomize and settings.default.deadline is None\n"
    )
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.hypothesis_lanes"]
    run = subprocess.run([*argv, "--hypothesis-profile=ci", f"--rootdir={tmp_path}", str(probe)],
                         capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
