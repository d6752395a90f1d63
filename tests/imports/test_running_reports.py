"""A server's import keeps its report `running` while it writes (`imports/reports.keep_progress`);
read back (`read_report`), it is marked interrupted only when its process is surely gone. Pids
are compared only within one numbering (one boot, one pid namespace): a report kept by another
Lambda environment or container whose Python happens to have this pid is judged by its progress."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters import processes as process_table
from mesq.imports.plan import Report
from mesq.imports.reports import keep_progress, read_report, report_key
from mesq.kernel.timestamps import now_timestamp
from mesq.wiring.services import Services

USER = "user-running-reports"


def _kept_by(services: Services, run_id: str, **process: Any) -> None:
    """A running report as the process `process` describes kept it."""
    keep_progress(services.items, USER, Report("flomo", run_id=run_id, imported=Counter(memos=7)), now_timestamp())
    stored = services.items.get(report_key(USER, run_id))
    assert stored is not None
    services.items.put(stored | {"running": stored["running"] | process})


def test_another_environments_import_with_this_pid_is_still_running(services: Services) -> None:
    """Lambda containers sharing one DynamoDB table (or containers sharing a data directory) give
    their Python the same small pid: a report kept a second ago by another one, whose pid is this
    process's and whose start differs, was marked interrupted (and offered Undo) while it wrote."""
    _kept_by(services, "run-other-env", pids="another-boot/pid:[4026531836]", start="12", aliveAt=time.time() - 1)
    stored = read_report(services.items, USER, "run-other-env")
    assert stored is not None and "running" in stored and "interrupted" not in stored


def test_another_environments_import_silent_for_15_minutes_is_interrupted(services: Services) -> None:
    """The same pid and even the same start (a Lambda environment boots as the next one does), but
    another numbering and no progress for over 15 minutes: interrupted. It stayed running for good
    (Undo refused) since this process's pid and start matched."""
    start = process_table._process_start(os.getpid())
    _kept_by(services, "run-stale", pids="another-boot/pid:[4026531836]", start=start, aliveAt=time.time() - 16 * 60)
    stored = read_report(services.items, USER, "run-stale")
    assert stored is not None and stored.get("interrupted") is True and "running" not in stored


def test_an_import_of_another_users_live_process_is_not_interrupted(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two servers on one data directory run by two users: the other's live process answers the
    existence check with EPERM, which was taken for "gone"; its start time (readable) says it is the writer."""
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _kept_by(services, "run-other-user", pid=writer.pid, start=process_table._process_start(writer.pid))

        def other_users(pid: int, signal: int) -> None:
            raise PermissionError(1, "Operation not permitted")

        with monkeypatch.context() as patched:  # os.kill itself: undone before the writer is ended
            patched.setattr(process_table.os, "kill", other_users)
            stored = read_report(services.items, USER, "run-other-user")
        assert stored is not None and "running" in stored and "interrupted" not in stored
    finally:
        writer.kill()
        writer.wait()
    stored = read_report(services.items, USER, "run-other-user")  # and once it has ended: interrupted
    assert stored is not None and stored.get("interrupted") is True


@pytest.mark.parametrize("name", ["Chores.csv", "Inbox.csv"])  # a board column; Todoist's Inbox, into the inbox
def test_a_long_columns_tasks_are_counted_as_they_are_written(services: Services, tmp_path: Path, name: str) -> None:
    """A Todoist project without sections is one column of up to 5,000 tasks (some 200
    transactions, minutes on DynamoDB): its report was told of them only once the column ended,
    so a running report said 0 tasks the whole time and one interrupted mid-column (kill -9) said
    0 tasks written, though thousands were. Now it grows between two batches (24 records each)."""
    from mesq.auth.users import create_user
    from mesq.imports.run import Progress
    from mesq.wiring.imports import import_file

    user = create_user(services.items, "long-column", "correct horse battery")
    path = tmp_path / name
    path.write_text("TYPE,CONTENT\n" + "".join(f"task,chore {n}\n" for n in range(240)), encoding="utf-8")
    told: list[int] = []
    report = import_file(
        services, user["id"], "todoist", path, progress=Progress(lambda kept: told.append(kept.imported["tasks"]), 0.0)
    )
    assert report.imported["tasks"] == 240
    assert told == sorted(told) and [count for count in told if 0 < count < 240] == list(range(24, 240, 24)), told


def test_without_proc_a_dead_writer_on_this_host_is_interrupted_at_once(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS has no /proc (no boot id, no pid namespaces: its pids are the host's): a report whose
    writer on this host has ended is interrupted at once, by its pid, not after 15 minutes."""
    monkeypatch.setattr(process_table, "_pid_space", lambda: "")
    monkeypatch.setattr(process_table, "_process_start", lambda pid: "")
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    _kept_by(services, "run-no-proc", pid=ended.pid, start="")
    stored = read_report(services.items, USER, "run-no-proc")
    assert stored is not None and stored.get("interrupted") is True


def test_a_run_taken_for_interrupted_and_undone_stops_and_keeps_the_undo(services: Services, tmp_path: Path) -> None:
    """A reader that takes a live run for gone marks its report interrupted and offers Undo; the
    run's next progress save wrote "running" over it (and its final save over the Undo's mark), so
    the run went on writing beside the Undo and the page offered Undo again as if none had run.
    Now the run stops at its next save (cut short) and its last save keeps what the Undo did."""
    from mesq.auth.users import create_user
    from mesq.imports.plan import CutShort
    from mesq.imports.reports import mark_undone, save_report
    from mesq.imports.run import Progress
    from mesq.wiring.imports import import_file

    from .exports import flomo_export

    user = create_user(services.items, "taken-for-gone", "correct horse battery")
    flomo_export(tmp_path / "flomo.zip", count=12)
    saves = {"n": 0}

    def kept(report: Report) -> None:
        saves["n"] += 1
        if saves["n"] == 4:  # another reader, meanwhile: interrupted, then undone from its page
            stored = services.items.get(report_key(user["id"], report.run_id))
            assert stored is not None
            marked = {key: value for key, value in stored.items() if key != "running"}
            services.items.put(marked | {"interrupted": True})
            mark_undone(services.items, user["id"], report.run_id, {"undone": {"memos": 3}})
        keep_progress(services.items, user["id"], report, now_timestamp())

    with pytest.raises(CutShort, match="taken for interrupted") as cut:
        import_file(services, user["id"], "flomo", tmp_path / "flomo.zip", progress=Progress(kept, 0.0))
    assert cut.value.report.imported["memos"] == 2  # of 12: it stopped at the save after the mark
    save_report(services.items, user["id"], cut.value.report)  # as the server's edge does
    stored = read_report(services.items, user["id"], cut.value.report.run_id)
    assert stored is not None and stored["undone"]["undone"] == {"memos": 3} and "running" not in stored
