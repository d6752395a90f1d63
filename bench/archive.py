"""Export and import at scale (SQLite): a 100k-memo account and a 50k-task board are written with
direct batched store transactions (bench/run.py `_seed_memos`, bench/todo_views.py `_seed`), then
`mesq export` writes each to an archive and `mesq import` loads it into a fresh data directory, as a
person runs them (subprocesses); the import must create every exported record, and a second import
nothing. Reported: the export's
time and peak RSS against `mesq user list`'s peak RSS (the CLI's own footprint, same run), and the
import's throughput (records over the seconds its closing line gives, before the index build,
which is reported apart) against the direct seed's records/s.

Run alone (`python bench/archive.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: MESQ_BENCH_SCALE=0.1: a tenth of the sizes, for a quick try (the goals name the full sizes).
SCALE = float(os.environ.get("MESQ_BENCH_SCALE", "1"))
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))


#: Runs `mesq` as `python -m mesq.runtime.cli` does, and at exit writes the process's VmHWM (its
#: peak RSS since exec, KiB) to the file named by argv[1]. Not `ru_maxrss` from `wait4`: Linux
#: carries the parent's high-water mark across the fork/vfork + exec into the child's `ru_maxrss`,
#: so inside `make bench` (a parent of 1 GiB by this section) every command read 1,190 MiB.
_PEAK_RSS_CLI = """
import atexit, re, runpy, sys
peak_file = sys.argv.pop(1)
def peak():
    with open("/proc/self/status") as status:
        kib = re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)
    with open(peak_file, "w") as out:
        out.write(kib)
atexit.register(peak)
runpy.run_module("mesq.runtime.cli", run_name="__main__", alter_sys=True)
"""


#: `mesq import` builds the search indexes before it exits (search/imported.py). With the bundled
#: model that embeds all 150k records, an hour on this machine's two cores, and the section would
#: time the model, not the import (the embedding rate is ai_search's and import_to_search's
#: figure). The import here runs without a model: its index build is the literal indexes and the
#: AI index's words, reported apart from the import's own rate.
_IMPORT_ENV = {"MESQ_SEARCH_PROVIDER": "none"}


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[str, float, int]:
    """(stdout, seconds, peak RSS KiB) of one `mesq` command (`env`: more variables)."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(REPO / "layers" / "core"), str(REPO)])}
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as peak:
        began = time.perf_counter()
        process = subprocess.run(
            [sys.executable, "-c", _PEAK_RSS_CLI, peak.name, *args], capture_output=True, env=env, check=False
        )
        seconds = time.perf_counter() - began
        if process.returncode:
            raise RuntimeError(f"mesq {' '.join(args)}: {process.stderr.decode()}")
        return process.stdout.decode(), seconds, int(peak.read())


def _records(items: Any, user_id: str) -> int:
    from mesq.archive.format import exported
    from mesq.kernel.keys import user_partition
    from mesq.store.paging import walk

    # Not the counters (STATS#...): the import's write paths keep their own (the attachments'
    # bytes, the tasks' counts) from the start, whether the archive carried one or not.
    sks = (item["sk"] for item in walk(items, user_partition(user_id)))
    return sum(1 for sk in sks if exported(sk) and not sk.startswith("STATS#"))


def _point(count: int, kind: str, seed: Any) -> list[tuple[str, str, str]]:
    """Seed `count` `kind` (memos or tasks) for one user, `mesq export` them to an archive and
    `mesq import` it into a fresh data directory (then again: nothing new)."""
    from goals import record  # the closing goals table (bench/goals.py)

    from mesq.auth.users import create_user
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    label = f"{count // 1000}k {kind}"
    with tempfile.TemporaryDirectory() as tmp:
        source, target, archive = Path(tmp) / "a", Path(tmp) / "b", Path(tmp) / "account.zip"
        services = build_services(Settings(data_dir=source))
        user = create_user(services.items, "mover", "correct horse battery")
        began = time.perf_counter()
        seed(services, user["id"])
        seed_seconds = time.perf_counter() - began
        records = _records(services.items, user["id"])
        services.items.close()
        _, _, baseline_rss = _cli("user", "list", "--data-dir", str(source))
        _, export_seconds, export_rss = _cli("export", "mover", "--out", str(archive), "--data-dir", str(source))
        services = build_services(Settings(data_dir=target))
        moved = create_user(services.items, "mover", "correct horse battery")
        services.items.close()
        out, _, _ = _cli("import", "mover", str(archive), "--data-dir", str(target), env=_IMPORT_ENV)
        # "imported 100,000 memos into mover; 6.9s": the import's own seconds, before the index build
        took = float(re.search(r"^imported .* into mover[^;\n]*; ([\d.]+)s$", out, re.MULTILINE).group(1))  # type: ignore[union-attr]
        index_seconds = float(re.search(r"search index: [\d,]+ documents in ([\d.]+)s", out).group(1))  # type: ignore[union-attr]
        services = build_services(Settings(data_dir=target))
        created = _records(services.items, moved["id"])
        services.items.close()
        assert created == records, f"the import must create every exported record ({created} of {records}): {out}"
        rate = records / max(took, 1e-6)
        again, _, _ = _cli("import", "mover", str(archive), "--data-dir", str(target), env=_IMPORT_ENV)
        assert again.startswith("nothing new:"), again
        seed_rate = records / seed_seconds
        size = archive.stat().st_size / 1e6
        record(f"import rec/s {kind}", count, rate, seed_rate, "direct batched seed", "rec/s")
        if kind == "memos":
            record("export peak RSS", count, export_rss / 1024, baseline_rss / 1024, "`mesq user list`", "MiB")
        return [
            (f"export {label} ({records} records, {size:.0f} MB archive)", f"{export_seconds:.1f} s", ""),
            (
                f"export {label}: peak RSS",
                f"{export_rss / 1024:.0f} MiB",
                f"{export_rss / baseline_rss:.2f}x `mesq user list` ({baseline_rss / 1024:.0f} MiB)",
            ),
            (
                f"import {label} through the CLI",
                f"{rate:.0f} rec/s",
                f"{rate / seed_rate:.2f}x direct batched seed ({seed_rate:.0f} rec/s)",
            ),
            (f"import {label}: the index build after it (no model: words only)", f"{index_seconds:.1f} s", ""),
        ]


def rows_archive() -> list[tuple[str, str, str]]:
    from run import _seed_memos
    from todo_views import _seed

    memos, tasks = (max(1_000, int(count * SCALE)) for count in (100_000, 50_000))
    return [
        *_point(memos, "memos", lambda services, user_id: _seed_memos(services.items, user_id, memos)),
        *_point(tasks, "tasks", lambda services, user_id: _seed(services, user_id, tasks)),
    ]


if __name__ == "__main__":
    for name, value, note in rows_archive():
        print(f"{name:<60} {value:>12}  {note}")
