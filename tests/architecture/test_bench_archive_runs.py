"""`make bench`'s archive section reads what the CLI prints (bench/archive.py): the import's
closing line and its index build's. Both changed without the section knowing (the wording in a
person's words, then the index build inside `mesq import`), and the next full bench stopped on
it an hour in. Run here at its smallest size (1,000 memos, 1,000 tasks), so a change to the
CLI's lines fails a test, not a bench."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_archive_section_runs_at_its_smallest_size() -> None:
    env = {**os.environ, "MESQ_BENCH_SCALE": "0.001"}
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "archive.py")], capture_output=True, text=True, env=env, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = done.stdout
    for kind in ("1k memos", "1k tasks"):
        assert f"import {kind} through the CLI" in rows and f"import {kind}: the index build after it" in rows, rows
        assert f"export {kind}: peak RSS" in rows, rows
