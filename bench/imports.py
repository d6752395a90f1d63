"""Imports from other apps at 10k records (SQLite): a memos database of 10,000 memos (a third with
attachments, in the database and beside it), a flomo export of 10,000 cards (a third with an
image) and Todoist CSVs of 10,000 tasks (+ subtasks, comments, English and Chinese dates), each
built by the tests' builders (tests/imports/exports.py) and imported through `import_file`, the
code path of `mesq import --from` (in process: the figure is the import's, not an interpreter's
start). Reported: records/s of each, beside the same run's baseline, one `create_memo` or
`create_todo_task` call per record through `invoke_sync` (what a script over the API does at
best, without HTTP), and that a second import creates nothing.

Run alone (`python bench/imports.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCALE = float(os.environ.get("MESQ_BENCH_SCALE", "1"))
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "layers" / "core"))

BASELINE_CALLS = 1_000


def _baseline(services: object, user_id: str, operation: str, calls: int) -> float:
    from tests.imports.checks import call

    began = time.perf_counter()
    for index in range(calls):
        if operation == "create_memo":
            call(services, user_id, operation, content=f"baseline memo {index} #bench/base")  # type: ignore[arg-type]
        else:
            call(services, user_id, operation, title=f"baseline task {index}", priority="high")  # type: ignore[arg-type]
    return calls / (time.perf_counter() - began)


def _point(kind: str, count: int, build: object, baseline_operation: str) -> list[tuple[str, str, str]]:
    from mesq.auth.users import create_user
    from mesq.wiring.config import Settings
    from mesq.wiring.imports import ImportOptions, import_file
    from mesq.wiring.services import build_services

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = build(folder)  # type: ignore[operator]
        services = build_services(Settings(data_dir=folder / "data", search_index_updates="off"))
        try:
            user = create_user(services.items, "mover", "correct horse battery")
            options = ImportOptions(memos_user="alice", now=datetime.now(UTC))
            report = import_file(services, user["id"], kind, path, options=options)
            again = import_file(services, user["id"], kind, path, options=options)
            created = sum(report.imported[name] for name in ("memos", "tasks", "subtasks"))
            assert not (again.imported["memos"] or again.imported["tasks"]), again.summary()
            other = create_user(services.items, "baseline", "correct horse battery")
            base = _baseline(services, other["id"], baseline_operation, max(100, int(BASELINE_CALLS * SCALE)))
        finally:
            services.items.close()
    return [
        (
            f"import --from {kind}: {created} records ({report.summary().split(' imported')[0]})",
            f"{report.per_second:.0f} rec/s",
            f"{report.per_second / base:.2f}x one {baseline_operation} per record ({base:.0f} rec/s); "
            f"{report.seconds:.1f} s; 2nd run created 0",
        )
    ]


def rows_imports() -> list[tuple[str, str, str]]:
    from tests.imports.exports import flomo_export, memos_database, todoist_export

    count = max(200, int(10_000 * SCALE))

    def memos(folder: Path) -> Path:
        memos_database(folder / "memos", "latest", count=count)
        return folder / "memos" / "memos_prod.db"

    def flomo(folder: Path) -> Path:
        flomo_export(folder / "flomo.zip", count=count)
        return folder / "flomo.zip"

    def todoist(folder: Path) -> Path:
        todoist_export(folder / "todoist", datetime.now(UTC), projects=max(1, count // 1000), tasks=1000)
        return folder / "todoist"

    return [
        *_point("memos", count, memos, "create_memo"),
        *_point("flomo", count, flomo, "create_memo"),
        *_point("todoist", count, todoist, "create_todo_task"),
    ]


if __name__ == "__main__":
    for name, value, note in rows_imports():
        print(f"{name:<70} {value:>12}  {note}")
