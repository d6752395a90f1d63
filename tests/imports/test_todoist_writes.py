"""Todoist files that used to be half-written or to answer 500: many new labels in one batch, a
run cut short, dates past what a due may hold, an unknown DATE_LANG, a damaged quote, more tasks
than an import takes. Each file is built here, small."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mesq.auth.users import create_user
from mesq.imports import todo_writes
from mesq.imports.plan import CutShort, SourceError
from mesq.kernel.errors import ValidationError
from mesq.todos.state import load_state
from mesq.wiring.imports import import_file
from mesq.wiring.services import Services

from .exports import todoist_csv


def _task(title: str, date: str = "", lang: str = "", zone: str = "") -> list[str]:
    return ["task", title, "", "1", "1", "", "", date, lang, zone]


def _labelled(path: Path) -> Path:
    """A full batch of plain tasks, then a batch of tasks with five new labels each."""
    rows = [_task(f"plain {i}") for i in range(24)]
    rows += [_task(f"tagged {i} " + " ".join(f"@t{i}x{j}" for j in range(5))) for i in range(24)]
    return todoist_csv(path / "Labels.csv", rows)


def test_many_new_labels_fit_their_writes(services: Services, tmp_path: Path) -> None:
    user = create_user(services.items, "lena", "correct horse battery")
    report = import_file(services, user["id"], "todoist", _labelled(tmp_path))
    assert report.imported["tasks"] == 48 and report.imported["tags"] == 120, report.as_dict()
    state = load_state(services.items, user["id"])
    assert {f"t{i}x{j}" for i in range(24) for j in range(5)} <= set(state.tags)


def test_a_run_cut_short_says_what_it_wrote_and_the_next_completes_it(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = create_user(services.items, "mira", "correct horse battery")
    path = todoist_csv(tmp_path / "Chores.csv", [_task(f"chore {i}") for i in range(30)])
    real_apply = todo_writes.apply
    calls: list[int] = []

    def failing_second_batch(call: Any, build: Any, conflict: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:  # the space, the first batch, then this one
            raise ValidationError("the store went away")
        return real_apply(call, build, conflict, **kwargs)

    monkeypatch.setattr(todo_writes, "apply", failing_second_batch)
    with pytest.raises(CutShort) as cut:
        import_file(services, user["id"], "todoist", path)
    report = cut.value.report
    assert report.run_id and report.imported["tasks"] == 24, report.as_dict()
    assert report.run_id in cut.value.refusal and "24 tasks" in cut.value.refusal
    monkeypatch.setattr(todo_writes, "apply", real_apply)
    again = import_file(services, user["id"], "todoist", path)
    assert again.imported["tasks"] == 6 and again.existing["tasks"] == 24, again.as_dict()


def test_dates_a_due_cannot_hold_are_kept_as_text(services: Services, tmp_path: Path) -> None:
    """Year 9999 west of UTC, a DATE_LANG dateparser does not know: kept in the notes and listed,
    like any phrase the importer cannot read; year 1 (Kiritimati's local mean time then was
    -10:29:20) is a due the write path takes, written as 0001-...; every task is written."""
    rows = [_task(f"early {i}", "Jan 1 0001 1am", "en", "Pacific/Kiritimati") for i in range(25)]
    rows += [
        _task("late", "Dec 31 9999 11pm", "en", "Etc/GMT+12"),
        _task("late fr", "31 déc. 9999 23:00", "fr", "Etc/GMT+12"),
        _task("unknown language", "demain", "zz", "UTC"),
    ]
    user = create_user(services.items, "nora", "correct horse battery")
    report = import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "Dates.csv", rows))
    assert report.imported["tasks"] == 28, report.as_dict()
    kept = dict(report.kept)
    assert "9999" in kept["Dates line 27"] and "9999" in kept["Dates line 28"]
    assert "demain" in kept["Dates line 29"]
    tasks = {task["title"]: task for task in load_state(services.items, user["id"]).every_task()}
    assert tasks["early 0"]["due"] == {"type": "datetime", "at": "0001-01-01T11:29:20Z"}
    assert tasks["late"]["due"] is None and "Todoist date 'Dec 31 9999 11pm'" in tasks["late"]["notes"]


def test_a_planned_task_the_write_path_refuses_stops_the_import_before_any_write(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesq.imports import todoist

    user = create_user(services.items, "olga", "correct horse battery")
    monkeypatch.setattr(
        todoist, "read_date", lambda *args: todoist.DateRead({"type": "datetime", "at": "1-01"}, "UTC", None)
    )
    path = todoist_csv(tmp_path / "Bad.csv", [_task("fine"), _task("bad due", "whenever")])
    with pytest.raises(SourceError, match="Bad line 3"):
        import_file(services, user["id"], "todoist", path)
    assert not any(task["title"] == "fine" for task in load_state(services.items, user["id"]).every_task())


def test_more_tasks_than_an_import_or_a_column_takes_is_refused_before_any_write(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesq.imports import todoist

    monkeypatch.setattr(todoist, "MAX_TASKS", 30)  # the real caps, 20,000 and 5,000, at a small scale
    monkeypatch.setattr(todoist, "MAX_TASKS_PER_COLUMN", 10)
    user = create_user(services.items, "pam", "correct horse battery")
    one_column = todoist_csv(tmp_path / "Long.csv", [_task(f"t {i}") for i in range(11)])
    with pytest.raises(SourceError, match="Long line 12: over 10 tasks in one column"):
        import_file(services, user["id"], "todoist", one_column)
    rows: list[list[str]] = []
    for section in range(4):
        rows += [["section", f"s{section}"], *(_task(f"t {section} {i}") for i in range(8))]
    many = todoist_csv(tmp_path / "Many.csv", rows)
    with pytest.raises(SourceError, match=r"Many\.csv: over 30 tasks in one import"):
        import_file(services, user["id"], "todoist", many)
    assert not any(task["title"].startswith("t ") for task in load_state(services.items, user["id"]).every_task())


def test_a_csv_cut_inside_a_quote_is_refused(services: Services, tmp_path: Path) -> None:
    user = create_user(services.items, "quinn", "correct horse battery")
    path = tmp_path / "Cut.csv"
    path.write_text('TYPE,CONTENT\ntask,first\ntask,"an open quote\ntask,swallowed\n', encoding="utf-8")
    with pytest.raises(SourceError, match=r"Cut\.csv: a quoted cell opened at line 3 is never closed"):
        import_file(services, user["id"], "todoist", path)


def test_a_stop_of_the_server_ends_an_import_at_its_next_batch(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM to `mesq serve` (uvicorn's handle_exit) asks worker threads to stop: an import in
    one ends between two batches, cut short (the next run completes it), so the stop never waits
    for the rest of it."""
    import threading

    import uvicorn

    from mesq.kernel import concurrency
    from mesq.runtime.server import _Server

    monkeypatch.setattr(concurrency, "_STOP", threading.Event())  # this test's own, not the process's
    _Server(uvicorn.Config(app=None)).handle_exit(15, None)
    user = create_user(services.items, "rosa", "correct horse battery")
    path = todoist_csv(tmp_path / "Stop.csv", [_task(f"t {i}") for i in range(30)])
    with pytest.raises(CutShort, match="the server is stopping") as cut:
        import_file(services, user["id"], "todoist", path)
    assert cut.value.report.imported["tasks"] == 0
    monkeypatch.setattr(concurrency, "_STOP", threading.Event())
    assert import_file(services, user["id"], "todoist", path).imported["tasks"] == 30


def test_a_project_of_fifty_sections_is_written_whole(services: Services, tmp_path: Path) -> None:
    """A space takes 50 columns; a project of 50 sections (each with a task) imports them all. The
    space and its columns were one transaction (three operations a column with its change record
    and counts): past some 30 sections the run stopped before its first write, 'needs 153 writes'."""
    rows: list[list[str]] = []
    for i in range(50):
        rows += [["section", f"阶段 {i}", "", "", "", "", "", "", "", ""], _task(f"task {i}")]
    user = create_user(services.items, "olga", "correct horse battery")
    report = import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "Stages.csv", rows))
    assert report.imported["columns"] == 50 and report.imported["tasks"] == 50, report.as_dict()
    state = load_state(services.items, user["id"])
    space = next(space for space in state.spaces.values() if space["name"] == "Stages")
    assert [column["name"] for column in sorted(state.columns_of(space["id"]), key=lambda c: c["position"])] == [
        f"阶段 {i}" for i in range(50)
    ]
    again = import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "Stages.csv", rows))
    assert not again.imported.get("columns") and again.existing["tasks"] == 50, again.as_dict()


def test_a_task_of_a_hundred_thousand_comments_is_planned_in_linear_time(tmp_path: Path) -> None:
    """Each comment was appended to its task's notes by copying them whole, and the notes were cut
    to the limit only once the file was read: 40,000 comments on one task took 5.2 s to plan,
    a 64 MiB CSV of them (600,000) some 20 minutes of a core, before the first write. Notes past
    the limit take no more text (they are cut and listed as shortened, as before). The bound is
    loose (this machine is shared): the quadratic plan took about 37 s here."""
    import time
    from datetime import UTC, datetime

    from mesq.imports.plan import Report
    from mesq.imports.todoist import plan_todoist
    from mesq.kernel.i18n import Translator
    from mesq.todos import model

    comments = "".join(f"note,comment {i} {'x' * 60},Bob (1),2024-03-05 09:30\n" for i in range(100_000))
    data = ("TYPE,CONTENT,AUTHOR,DATE\ntask,one,,\n" + comments).encode()
    report = Report("todoist")
    started = time.perf_counter()
    plan = plan_todoist([("P.csv", data)], "u", report, "UTC", datetime.now(UTC), Translator("en"))
    took = time.perf_counter() - started
    (task,) = plan.spaces[0].columns[0].tasks
    assert len(task.notes) == model.NOTES_MAX and task.notes.endswith("…")
    assert task.cut is not None  # listed as shortened once written
    assert took < 15, took


def test_more_text_than_one_import_takes_is_refused_before_a_write(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20,000 tasks of 50,000-character notes (a few MB of CSVs zipped) would be a gigabyte held
    before the first write; the titles and notes of an import are capped in all (lowered here)."""
    from mesq.imports import todoist

    monkeypatch.setattr(todoist, "MAX_TEXT_CHARACTERS", 500)
    user = create_user(services.items, "uma", "correct horse battery")
    first = todoist_csv(tmp_path / "A.csv", [_task(f"task {i} " + "x" * 40) for i in range(5)])
    assert import_file(services, user["id"], "todoist", first).imported["tasks"] == 5
    second = todoist_csv(tmp_path / "B.csv", [_task(f"task {i} " + "x" * 40) for i in range(20)])
    with pytest.raises(SourceError) as refused:
        import_file(services, user["id"], "todoist", second)
    assert "over 500 characters" in refused.value.message, refused.value.message
    assert {space["name"] for space in load_state(services.items, user["id"]).spaces.values()} >= {"A"}
    assert "B" not in {space["name"] for space in load_state(services.items, user["id"]).spaces.values()}


def test_one_projects_text_is_capped_as_its_rows_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The text cap was checked once a project's file was read to its end, so one 64 MiB CSV
    (its comments grown by their headings) planned some 180 Mi characters before its refusal.
    The cap now holds row by row: past it, no further row is read."""
    from datetime import UTC, datetime

    from mesq.imports import todoist
    from mesq.imports.plan import Report
    from mesq.kernel.i18n import Translator

    monkeypatch.setattr(todoist, "MAX_TEXT_CHARACTERS", 500)
    real_rows, read = todoist._rows, []

    def counted(file_name: str, data: bytes) -> Any:
        for found in real_rows(file_name, data):
            read.append(found[0])
            yield found

    monkeypatch.setattr(todoist, "_rows", counted)
    rows = "".join(f"task,task {i} {'x' * 40}\n" for i in range(1_000))
    with pytest.raises(SourceError) as refused:
        todoist.plan_todoist(
            [("Big.csv", ("TYPE,CONTENT\n" + rows).encode())], "u", Report("todoist"), "UTC", datetime.now(UTC),
            Translator("en"),
        )  # fmt: skip
    assert "over 500 characters" in refused.value.message, refused.value.message
    assert len(read) < 20, len(read)


def test_rows_kept_for_a_projects_notes_are_held_only_up_to_the_notes_limit() -> None:
    """Rows of an unknown TYPE (and comments on the project) are kept in the first task's notes,
    which are cut at the notes limit; every one of them was held, then joined into one string,
    before the cut: 4,000 rows of 2,000 characters held 16 MB twice. Past the limit, no more."""
    import tracemalloc
    from datetime import UTC, datetime

    from mesq.imports.plan import Report
    from mesq.imports.todoist import plan_todoist
    from mesq.kernel.i18n import Translator
    from mesq.todos import model

    unknown = "".join(f"odd,row {i} {'y' * 2_000}\n" for i in range(4_000))
    data = ("TYPE,CONTENT\ntask,first\n" + unknown).encode()
    tracemalloc.start()
    try:
        plan = plan_todoist([("P.csv", data)], "u", Report("todoist"), "UTC", datetime.now(UTC), Translator("en"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (task,) = plan.spaces[0].columns[0].tasks
    assert len(task.notes) == model.NOTES_MAX and task.notes.endswith("…"), len(task.notes)
    assert peak < 12 * 1024 * 1024, peak  # the 8 MB CSV was also held five times as text (40 MB)


@pytest.mark.parametrize("at", [5, (1 << 20) - 1, 1 << 20, (3 << 20) + 7])
def test_a_csv_that_is_not_utf8_is_refused_with_its_first_bad_byte(at: int) -> None:
    """The file is checked a megabyte at a time (not decoded whole); the offset a person is told
    is still the file's own, across the slices' edges and after a character cut by one."""
    from datetime import UTC, datetime

    from mesq.imports.plan import Report
    from mesq.imports.todoist import plan_todoist
    from mesq.kernel.i18n import Translator

    head = b"TYPE,CONTENT\ntask,"
    body = ("中" * ((at + 1_000) // 3 + 1)).encode()
    data = head + body
    data = data[:at] + b"\xff" + data[at + 1 :]
    with pytest.raises(UnicodeDecodeError) as whole:
        data.decode("utf-8")
    expected = whole.value.start  # the sequence the byte breaks starts up to two bytes before it
    assert at - 2 <= expected <= at
    with pytest.raises(SourceError) as refused:
        plan_todoist([("P.csv", data)], "u", Report("todoist"), "UTC", datetime.now(UTC), Translator("en"))
    assert f"(byte {expected})" in refused.value.message, refused.value.message


def test_a_second_run_does_not_say_it_imported_shortened_notes(services: Services, tmp_path: Path) -> None:
    """A task whose notes were cut is listed "imported but shortened" when it is written; the
    same file imported again wrote nothing, yet said "nothing new imported; 1 already there; 1
    imported but shortened" (the list was made while planning)."""
    rows = [["task", "long", "x" * 60_000, "1", "1", "", "", "", "", ""], _task("short")]
    path = todoist_csv(tmp_path / "Long.csv", rows)
    user = create_user(services.items, "vida", "correct horse battery")
    first = import_file(services, user["id"], "todoist", path)
    assert first.imported["tasks"] == 2 and first.shortened_count == 1, first.as_dict()
    again = import_file(services, user["id"], "todoist", path)
    assert again.existing["tasks"] == 2 and again.shortened_count == 0 and not again.shortened, again.as_dict()
    assert "shortened" not in again.summary(), again.summary()


@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_a_csv_a_spreadsheet_saved_with_semicolons_or_tabs_imports(
    services: Services, tmp_path: Path, delimiter: str
) -> None:
    """Excel in a German or French locale saves "CSV" with semicolons ("Unicode text": tabs); the
    file was refused with "its first line must name TYPE and CONTENT", which it does."""
    lines = [
        ["TYPE", "CONTENT", "PRIORITY", "INDENT", "DATE", "DATE_LANG"],
        ["task", "写周报 @工作", "4", "1", "每周五", "zh"],
        ["task", "子任务; with a semicolon", "1", "2", "", ""],
    ]
    body = "\n".join(delimiter.join(f'"{cell}"' if delimiter in cell else cell for cell in line) for line in lines)
    path = tmp_path / "Excel.csv"
    path.write_bytes(("\ufeff" + body + "\n").encode())
    user = create_user(services.items, "wren", "correct horse battery")
    report = import_file(services, user["id"], "todoist", path)
    assert report.imported["tasks"] == 1 and report.imported["subtasks"] == 1, report.as_dict()
    state = load_state(services.items, user["id"])
    titles = {task["title"]: task for task in state.tasks.values()}
    assert titles["写周报"]["tags"] == ["工作"] and titles["写周报"]["recurrence"] == "FREQ=WEEKLY;BYDAY=FR"
    assert "子任务; with a semicolon" in titles


def test_a_csv_of_many_short_rows_is_planned_without_holding_them(tmp_path: Path) -> None:
    """Every record of a CSV was read into a list of dicts (one entry a column) before the first
    was planned: a 64 MiB CSV of one task and 3.5 million empty comments (`note,x,,,,,,,,,,,,`,
    well under the file cap, a megabyte or two zipped) took some 2.4 GB, 8 MiB of them 300 MB.
    The records are now planned as they are read."""
    import tracemalloc
    from datetime import UTC, datetime

    from mesq.imports.plan import Report
    from mesq.imports.todoist import plan_todoist
    from mesq.kernel.i18n import Translator

    header = "TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\n"
    data = (header + "task,one,,,,,,,,\n" + "note,x,,,,,,,,\n" * 100_000).encode()
    tracemalloc.start()
    try:
        plan = plan_todoist([("P.csv", data)], "u", Report("todoist"), "UTC", datetime.now(UTC), Translator("en"))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (task,) = plan.spaces[0].columns[0].tasks
    assert task.comments == 100_000 and task.cut is not None
    assert peak < 4 * len(data) + 8 * 1024 * 1024, (peak, len(data))


def test_a_column_of_long_chinese_notes_is_written_whole(services: Services, tmp_path: Path) -> None:
    """24 tasks a transaction with notes of 49,000 Chinese characters (147 KB each) were 3.6 MB,
    past what one atomic write takes (3.5 MB): the import stopped after the space, and importing
    the same file again, as its message said, stopped at the same batch. Batches are cut by bytes too."""
    user = create_user(services.items, "long-zh", "correct horse battery")
    rows = [["task", f"长备注 {n}", "长" * 49_000, "4", "1"] for n in range(30)]
    report = import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "Long.csv", rows))
    assert report.imported["tasks"] == 30, report.as_dict()
