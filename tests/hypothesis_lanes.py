"""Hypothesis example counts per lane (docs/testing.md). `make test` (what CI runs) loads the `ci`
profile: the full counts, derandomized, so a fresh clone explores exactly the examples CI will (a
random draw once failed CI on a case no run here had drawn). `make test-fast` loads the `fast`
profile (`--hypothesis-profile=fast`): a fifth of them, random, so it keeps finding new ones. A
test that names its own count writes it as `examples(n)`, so the profile scales it too (an
explicit `max_examples=n` would override any profile)."""

from __future__ import annotations

from hypothesis import settings

FULL = 100  # Hypothesis' own default max_examples
FAST = 20

# No per-example deadline in the lanes: they run on xdist workers beside Chromium and servers, where
# a 200 ms example of a pure function (the board's positions) once failed a run at load 14.
settings.register_profile("fast", max_examples=FAST, deadline=None)
settings.register_profile("ci", max_examples=FULL, derandomize=True, deadline=None)
# A run that names no profile (`pytest tests/todos/board/...`, or any lane a script starts without
# the flag) had Hypothesis' own default: a 200 ms wall-clock deadline per example, which a
# descheduled process misses (FlakyFailure: "failed on the first call but did not on a
# subsequent one"). None of these tests promises a per-example time, so that run gets `dev`:
# the full counts, random, no deadline. Loaded only over Hypothesis' own default, so a
# `--hypothesis-profile` loaded before this import is kept (and one loaded after replaces it).
settings.register_profile("dev", max_examples=FULL, deadline=None)
if settings.get_current_profile_name() == "default":
    settings.load_profile("dev")


def examples(full: int) -> int:
    """`full` under the default profile; the same share of it as the loaded profile's
    max_examples is of FULL (a fifth under `fast`), never fewer than 5."""
    return max(5, full * settings.default.max_examples // FULL)
