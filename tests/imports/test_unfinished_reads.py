"""What listing and settling the imports that did not finish read (`imports/reports.py`): Settings →
Import lists them from each run's small open item (`IMPORTOPEN#<runId>`), never the reports (up
to 256 KB each), and marks one whose process is gone without reading its report again; a finished
run settles the same file's unfinished runs the same way. Store calls are counted through a
proxy over the real store; the dead writers are real processes that kept their reports and ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from mesq.auth.users import create_user
from mesq.imports.plan import Report
from mesq.imports.reports import (
    PREFIX,
    forget_report,
    keep_interrupted,
    keep_progress,
    mark_undone,
    read_report,
    report_key,
    save_report,
    settle_unfinished,
    unfinished_reports,
)
from mesq.kernel.i18n import Text
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore, Key, QueryPage
from mesq.kernel.timestamps import now_timestamp
from mesq.store.paging import walk
from mesq.wiring.services import Services

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCE = "f" * 32
#: A process that keeps running reports (as a server's import does from before its first write)
#: and ends without their final reports: a `mesq serve` killed mid-import, as the next reader sees it.
_WRITER = """
import sys
from collections import Counter
from pathlib import Path
from mesq.imports.plan import Report
from mesq.imports.reports import keep_progress
from mesq.kernel.timestamps import now_timestamp
from mesq.wiring.services import build_services
from tests.settings import inprocess_settings

services = build_services(inprocess_settings(data_dir=Path(sys.argv[1])))
for run_id in sys.argv[4:]:
    report = Report("flomo", run_id=run_id, imported=Counter(memos=7))
    keep_progress(services.items, sys.argv[2], report, now_timestamp(), sys.argv[3])
services.items.close()
"""


def kept_by_a_process_that_ended(services: Services, user_id: str, *run_ids: str, source: str = SOURCE) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "layers" / "core"), str(REPO_ROOT)])}
    subprocess.run(
        [sys.executable, "-c", _WRITER, str(services.settings.data_dir), user_id, source, *run_ids],
        env=env,
        cwd=REPO_ROOT,
        check=True,
        timeout=120,
    )


def _size(item: Any) -> int:
    return len(json.dumps(item, ensure_ascii=False, default=str).encode("utf-8")) if item is not None else 0


class Counted:
    """The real item store, counting the reads made through it (calls and bytes of items answered)."""

    def __init__(self, inner: ItemStore) -> None:
        self.inner = inner
        self.gets: list[Key] = []
        self.queries: list[str | None] = []
        self.read_bytes = 0

    def get(self, key: Key) -> Any:
        self.gets.append(key)
        item = self.inner.get(key)
        self.read_bytes += _size(item)
        return item

    def batch_get(self, keys: Any) -> Any:
        self.gets.extend(keys)
        found = self.inner.batch_get(keys)
        self.read_bytes += sum(_size(item) for item in found)
        return found

    def query(self, partition: str, **options: Any) -> QueryPage:
        self.queries.append(options.get("prefix"))
        page = self.inner.query(partition, **options)
        self.read_bytes += sum(_size(item) for item in page.items)
        return page

    def __getattr__(self, name: str) -> Any:  # the writes, as they are
        return getattr(self.inner, name)


def _cut_short(services: Services, user_id: str, run_id: str, source: str = SOURCE) -> None:
    report = Report("todoist", run_id=run_id, imported=Counter(tasks=48))
    save_report(services.items, user_id, report, cut_short=Text("the server was stopping"), source=source)


def _big_finished(services: Services, user_id: str, run_id: str) -> None:
    """A finished run's report near the stored cap: 200 skipped and kept lines of long Chinese."""
    report = Report("todoist", run_id=run_id, imported=Counter(tasks=900))
    for line in range(250):
        where = Text("%(project)s line %(line)s", project="项目" * 20, line=line)
        report.skip(where, Text("label %(label)s kept in the notes", label="长" * 60))
        report.keep(where, Text("label %(label)s kept in the notes", label="长" * 60))
    save_report(services.items, user_id, report)


def _raw(services: Services, user_id: str, run_id: str) -> dict[str, Any]:
    stored = services.items.get(report_key(user_id, run_id))
    assert stored is not None
    return stored


def test_listing_marks_the_runs_of_an_ended_process_without_reading_their_reports_again(services: Services) -> None:
    """Each unfinished run was read twice: its item from the query, then again by key (`read_report`)
    to mark it interrupted when its process was gone: N unfinished runs, N more GetItems."""
    user = create_user(services.items, "lister", "correct horse battery")["id"]
    assert unfinished_reports(services.items, user) == []  # the account's first listing (see the index test)
    kept_by_a_process_that_ended(services, user, "run-dead-1", "run-dead-2", "run-dead-3")
    _cut_short(services, user, "run-cut")
    for run_id in ("run-dead-1", "run-dead-2", "run-dead-3"):  # a reader of the store: still running
        assert "running" in _raw(services, user, run_id)

    counted = Counted(services.items)
    listed = unfinished_reports(counted, user)  # type: ignore[arg-type]

    assert sorted(stored["report"]["runId"] for stored in listed) == [
        "run-cut",
        "run-dead-1",
        "run-dead-2",
        "run-dead-3",
    ]
    assert all(stored.get("interrupted") or stored.get("cutShort") for stored in listed)
    assert counted.gets == [], counted.gets
    for run_id in ("run-dead-1", "run-dead-2", "run-dead-3"):  # marked for good, the report too
        stored = _raw(services, user, run_id)
        assert stored.get("interrupted") is True and "running" not in stored
        assert stored["report"]["imported"]["memos"] == 7


def test_settling_marks_and_completes_the_runs_of_an_ended_process_without_reading_their_reports(
    services: Services,
) -> None:
    """A finished run of the same file settles the runs that did not finish: those still `running`
    with their process gone were read again by key (`read_report`) before being marked."""
    user = create_user(services.items, "settler", "correct horse battery")["id"]
    assert unfinished_reports(services.items, user) == []
    kept_by_a_process_that_ended(services, user, "run-dead-1", "run-dead-2")
    _cut_short(services, user, "run-cut")
    kept_by_a_process_that_ended(services, user, "run-other-file", source="0" * 32)

    counted = Counted(services.items)
    settle_unfinished(counted, user, "run-final", SOURCE)  # type: ignore[arg-type]

    assert counted.gets == [], counted.gets
    for run_id in ("run-dead-1", "run-dead-2", "run-cut"):
        assert _raw(services, user, run_id)["completedBy"] == "run-final"
    assert "completedBy" not in _raw(services, user, "run-other-file")
    assert "running" in _raw(services, user, "run-other-file")  # another file's run: not settled, not read
    assert [stored["report"]["runId"] for stored in unfinished_reports(services.items, user)] == ["run-other-file"]


def test_the_import_page_list_reads_only_what_it_shows(services: Services) -> None:
    """Settings → Import read every kept report in full (up to 256 KB each: its skipped and kept
    lines, twice) to list the two runs that did not finish among forty. It reads their small
    items now: one query, a few hundred bytes a listed run, however many reports are kept."""
    user = create_user(services.items, "many-reports", "correct horse battery")["id"]
    for number in range(40):
        _big_finished(services, user, f"run-done-{number:02}")
    kept_by_a_process_that_ended(services, user, "run-dead")
    _cut_short(services, user, "run-cut")
    whole = sum(_size(item) for item in walk(services.items, user_partition(user), prefix=PREFIX))
    assert whole > 40 * 50_000  # what the listing read before: every report, whole
    unfinished_reports(services.items, user)

    counted = Counted(services.items)
    listed = unfinished_reports(counted, user)  # type: ignore[arg-type]

    assert sorted(stored["report"]["runId"] for stored in listed) == ["run-cut", "run-dead"]
    assert counted.read_bytes < 2_000, f"{counted.read_bytes} bytes read for the list; all the reports: {whole}"
    assert len(counted.queries) == 1 and counted.gets == [], (counted.queries, counted.gets)


def test_reports_kept_before_the_open_items_are_listed_once_indexed(services: Services) -> None:
    """Reports kept by a version without open items (a running one whose process is gone, an
    interrupted one, one cut short, one completed by a run since undone, one completed by a run
    that stands, a finished one): the first listing indexes them, once; later ones read one query."""
    user = create_user(services.items, "older-reports", "correct horse battery")["id"]
    kept_by_a_process_that_ended(services, user, "run-dead")
    keep_interrupted(services.items, user, Report("flomo", run_id="run-faulted"), now_timestamp())
    _cut_short(services, user, "run-cut")
    _cut_short(services, user, "run-settled-then-undone")
    _cut_short(services, user, "run-settled")
    save_report(services.items, user, Report("flomo", run_id="run-undone-completer"))
    save_report(services.items, user, Report("flomo", run_id="run-completer"))
    save_report(services.items, user, Report("flomo", run_id="run-done"))
    partition = user_partition(user)
    for item in walk(services.items, partition, prefix="IMPORTOPEN"):  # as an older version kept them
        services.items.delete((partition, item["sk"]))
    for run_id, completer in (("run-settled-then-undone", "run-undone-completer"), ("run-settled", "run-completer")):
        services.items.put(_raw(services, user, run_id) | {"completedBy": completer})
    services.items.put(_raw(services, user, "run-undone-completer") | {"undone": {"memos": 0}})

    listed = unfinished_reports(services.items, user)

    expected = ["run-cut", "run-dead", "run-faulted", "run-settled-then-undone"]
    assert sorted(stored["report"]["runId"] for stored in listed) == expected
    assert _raw(services, user, "run-dead").get("interrupted") is True
    counted = Counted(services.items)
    assert sorted(stored["report"]["runId"] for stored in unfinished_reports(counted, user)) == expected  # type: ignore[arg-type]
    assert len(counted.queries) == 1 and counted.gets == []


def test_open_runs_follow_their_reports_on_both_stores(both_stores: Services) -> None:
    """On SQLite and DynamoDB Local: a run kept running by another machine and silent for 16
    minutes is listed interrupted (its report marked by an update, never read); one cut short is
    listed until the same file's finished run settles it, and again once that run is undone; a
    finished, forgotten or undone run is not listed."""
    items = both_stores.items
    user = create_user(items, "both-" + uuid.uuid4().hex[:8], "correct horse battery")["id"]
    keep_progress(items, user, Report("flomo", run_id="run-far", imported=Counter(memos=3)), now_timestamp(), SOURCE)
    partition = user_partition(user)
    far = {"host": "another-machine", "pids": "", "pid": 7, "start": "", "aliveAt": time.time() - 16 * 60}
    for sk in (PREFIX + "run-far", "IMPORTOPEN#run-far"):  # as the other machine's last progress left them
        stored = items.get((partition, sk))
        if stored is not None:
            items.put(stored | {"running": far})
    _cut_short(both_stores, user, "run-cut")
    keep_progress(items, user, Report("flomo", run_id="run-forgotten"), now_timestamp(), SOURCE)
    forget_report(items, user, "run-forgotten")
    keep_progress(items, user, Report("flomo", run_id="run-done"), now_timestamp(), SOURCE)
    save_report(items, user, Report("flomo", run_id="run-done", imported=Counter(memos=2)), source="1" * 32)

    listed = unfinished_reports(items, user)
    assert sorted(stored["report"]["runId"] for stored in listed) == ["run-cut", "run-far"]
    far_report = _raw(both_stores, user, "run-far")
    assert far_report.get("interrupted") is True and "running" not in far_report
    assert far_report["report"]["imported"]["memos"] == 3

    save_report(items, user, Report("flomo", run_id="run-again"), source=SOURCE)
    settle_unfinished(items, user, "run-again", SOURCE)
    assert unfinished_reports(items, user) == []
    assert _raw(both_stores, user, "run-cut")["completedBy"] == "run-again"
    mark_undone(items, user, "run-again", {"undone": {"memos": 0}})
    listed = unfinished_reports(items, user)
    assert sorted(stored["report"]["runId"] for stored in listed) == ["run-cut", "run-far"]
    mark_undone(items, user, "run-cut", {"undone": {"tasks": 48}})
    assert [stored["report"]["runId"] for stored in unfinished_reports(items, user)] == ["run-far"]
    stored = read_report(items, user, "run-cut")
    assert stored is not None and stored["undone"] == {"undone": {"tasks": 48}, "notUndone": []}


def test_a_start_marks_every_accounts_runs_of_ended_processes(services: Services) -> None:
    """`mesq serve`'s start (jobs/unfinished_imports.py): every account's runs kept running by a
    process that has ended are marked interrupted, without a page or the report being read; a run
    of a live process (this one) and one another machine kept a minute ago stay running."""
    from mesq.jobs.unfinished_imports import mark_every_user

    first = create_user(services.items, "first-account", "correct horse battery")["id"]
    second = create_user(services.items, "second-account", "correct horse battery")["id"]
    kept_by_a_process_that_ended(services, first, "run-dead-a", "run-dead-b")
    kept_by_a_process_that_ended(services, second, "run-dead-c")
    keep_progress(services.items, second, Report("flomo", run_id="run-live"), now_timestamp(), SOURCE)
    keep_progress(services.items, second, Report("flomo", run_id="run-far"), now_timestamp(), SOURCE)
    partition = user_partition(second)
    far = {"host": "another-machine", "pids": "", "pid": 7, "start": "", "aliveAt": time.time() - 60}
    for sk in (PREFIX + "run-far", "IMPORTOPEN#run-far"):
        stored = services.items.get((partition, sk))
        if stored is not None:
            services.items.put(stored | {"running": far})

    assert mark_every_user(services.items) == 3

    for user, run_id in ((first, "run-dead-a"), (first, "run-dead-b"), (second, "run-dead-c")):
        stored = _raw(services, user, run_id)
        assert stored.get("interrupted") is True and "running" not in stored, run_id
    for run_id in ("run-live", "run-far"):
        assert "running" in _raw(services, second, run_id) and "interrupted" not in _raw(services, second, run_id)
    assert mark_every_user(services.items) == 0  # marked once
