"""`mesq import USER --from todoist DIR_OR_CSV`: four projects of 260 tasks (1,040 tasks, 416
subtasks), through the real command line: projects as spaces, sections as columns in order,
subtasks, priorities, labels as tags, dates in English and Chinese read in each file's
TIMEZONE, "every friday" / "每周五" / "every monday at 9am" as RRULEs, descriptions and comments
in the notes; a second run creates nothing; undo of the run leaves the account as it was;
what cannot be read is kept verbatim in the notes and listed."""

from __future__ import annotations

import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mesq.auth.users import create_user
from mesq.imports.plan import SourceError
from mesq.imports.run import import_call
from mesq.imports.undo import undo_import
from mesq.todos.state import load_state
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services, build_services
from tests.conftest import run_cli
from tests.settings import inprocess_settings

from .checks import call, visible
from .exports import ExpectedTask, todoist_csv, todoist_export

#: The import builds the account's search indexes itself (issue 46); BM25 only here, so a thousand
#: records are not embedded on a shared machine (tests/search covers the embedding build).
KEYWORDS_ONLY = {"MESQ_SEARCH_PROVIDER": "none"}


def check_board(services: Services, user_id: str, expected: dict[str, ExpectedTask]) -> None:
    state = load_state(services.items, user_id)
    spaces = {space["id"]: space for space in state.spaces.values()}
    columns = {column["id"]: column for column in state.columns.values()}
    tasks = [task for task in state.every_task() if not task.get("deletedAt")]
    roots = {task["title"]: task for task in tasks if task["parentId"] is None and task["title"] in expected}
    assert set(roots) == set(expected)
    for title, want in expected.items():
        task = roots[title]
        assert spaces[task["spaceId"]]["name"] == want.project, title
        assert columns[task["columnId"]]["name"] == want.section, title
        assert task["priority"] == want.priority, title
        assert task["tags"] == want.tags, title
        assert task["due"] == want.due, title
        assert task["timezone"] == want.timezone, title
        assert task["recurrence"] == want.recurrence, title
        assert task["done"] is False, title
        assert all(part in task["notes"] for part in want.notes_has), (title, task["notes"])
        assert task["notes"].count("**Comment by Tester") == want.comments, title
        subtasks = sorted((s for s in tasks if s["parentId"] == task["id"]), key=lambda s: s["position"])
        assert [s["title"] for s in subtasks] == want.subtasks, title
        assert all(s["priority"] == "none" for s in subtasks)  # written as 4: p4, no priority
    for column_id in {task["columnId"] for task in roots.values()}:
        in_column = sorted((t for t in roots.values() if t["columnId"] == column_id), key=lambda t: t["position"])
        assert [expected[t["title"]].order for t in in_column] == list(range(len(in_column)))


def test_four_projects_through_the_command_line_then_undo(tmp_path: Path) -> None:
    folder = tmp_path / "todoist"
    expected = todoist_export(folder, datetime.now(UTC), projects=4, tasks=260)
    data = tmp_path / "data"
    services = build_services(inprocess_settings(data_dir=data))
    try:
        user = create_user(services.items, "alice", "correct horse battery")
        call(services, user["id"], "create_todo_task", title="mine before the import", tags=["label1"])
        before = visible(services, user["id"])
    finally:
        services.items.close()
    first = run_cli("import", "alice", "--from", "todoist", str(folder), "--data-dir", str(data), env=KEYWORDS_ONLY)
    assert first.returncode == 0, first.stderr
    assert re.search(
        r"^3 tags, 152 comments, 4 spaces, 24 columns, 1040 tasks, 416 subtasks imported;", first.stdout
    ), first.stdout
    run_id = re.search(r"--undo-run (\S+)", first.stdout).group(1)  # type: ignore[union-attr]
    second = run_cli("import", "alice", "--from", "todoist", str(folder), "--data-dir", str(data), env=KEYWORDS_ONLY)
    assert second.stdout.startswith("nothing new imported; 1040 already there"), second.stdout
    services = build_services(inprocess_settings(data_dir=data))
    try:
        check_board(services, user["id"], expected)
        undone = undo_import(import_call(services, user["id"], "undo"), run_id)
        assert undone.undone["task"] == 1040 and undone.removed_spaces == 4 and not undone.not_undone
        assert visible(services, user["id"]) == before
    finally:
        services.items.close()


def test_what_cannot_be_read_is_kept_in_the_notes_and_listed(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "Odds [1].csv"
    rows = [
        ["task", "=cmd|' /C calc'!A0 @ok", "", "4", "1", "", "", "sometime after the rains", "en", "Asia/Shanghai"],
        ["task", "bad zone", "", "1", "1", "", "", "tomorrow", "en", "Mars/Olympus"],
        ["task", "deep", "", "1", "3", "", "", "", "", ""],
        ["task", "every two weeks", "", "1", "1", "", "", "every 2 weeks", "en", "UTC"],
        ["task", "second tuesdays", "", "1", "1", "", "", "every second tuesday", "en", "UTC"],
        ["note", "a project note", "", "", "", "", "", "", "", ""],
        ["weird", "a row of another kind", "", "", "", "", "", "", "", ""],
    ]
    todoist_csv(path, rows)
    user = create_user(services.items, "carol", "correct horse battery")
    report = import_file(
        services, user["id"], "todoist", path, options=ImportOptions(now=datetime(2026, 12, 4, tzinfo=UTC))
    )
    assert report.imported["tasks"] == 4 and report.imported["subtasks"] == 1, report.as_dict()
    kept = dict(report.kept)
    assert "sometime after the rains" in kept["Odds line 2"]
    assert "Mars/Olympus" in kept["Odds line 3"]
    assert "indent 3" in kept["Odds line 4"]
    assert "Odds line 6" not in kept  # "every second tuesday" is read now (quick add's grammar)
    tasks = {t["title"]: t for t in load_state(services.items, user["id"]).every_task()}
    injected = tasks["=cmd|' /C calc'!A0"]  # CSV injection: kept as text, exactly
    assert injected["tags"] == ["ok"] and injected["due"] is None
    assert "Todoist date 'sometime after the rains'" in injected["notes"]
    assert "a row of another kind" in injected["notes"]  # kept in the project's first task
    assert "**Comment**\n\na project note" in tasks["second tuesdays"]["notes"]  # a note follows its task
    assert tasks["bad zone"]["timezone"] == "UTC" and tasks["bad zone"]["due"] == {"type": "date", "date": "2026-12-05"}
    assert tasks["every two weeks"]["recurrence"] == "FREQ=WEEKLY;INTERVAL=2"  # the quick-add grammar's
    assert tasks["every two weeks"]["due"] == {"type": "date", "date": "2026-12-04"}  # starts on the import's day
    assert tasks["second tuesdays"]["recurrence"] == "FREQ=MONTHLY;BYDAY=2TU"
    assert "Todoist date" not in (tasks["second tuesdays"].get("notes") or "")


def test_the_first_column_is_named_in_the_persons_language(services: Services, tmp_path: Path) -> None:
    """Tasks before any section go to a column named as a new board's first (docs/i18n.md):
    待办 for a Chinese request, To do for an English one; its id comes from an English key, so
    the same file imported again in the other language finds the same column and tasks."""
    path = tmp_path / "Errands.csv"
    todoist_csv(path, [["task", "buy rice", "", "1", "1"]])
    user = create_user(services.items, "dora", "correct horse battery")
    first = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))
    assert first.imported["tasks"] == 1, first.as_dict()
    state = load_state(services.items, user["id"])
    errands = next(space for space in state.spaces.values() if space["name"] == "Errands")
    names = [column["name"] for column in state.columns.values() if column["spaceId"] == errands["id"]]
    assert names == ["待办"]
    default = next(space for space in state.spaces.values() if space["id"] != errands["id"])
    assert default["name"] == "默认"  # the board the import's first write made, in the same language
    again = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="en"))
    assert again.imported["tasks"] == 0 and again.existing["tasks"] == 1, again.as_dict()


def test_a_real_exports_meta_row_and_multi_line_cells(services: Services, tmp_path: Path) -> None:
    """What Todoist's "Export as a template" writes: IS_COLLAPSED, a `meta,view_style=board` row (how
    Todoist shows the project: no record, nothing kept of it), rows of empty cells between groups,
    CRLF, a DESCRIPTION of several lines (its line breaks kept as "\\n"), a comment by `Ann (123)` at a
    UTC time: the report's line numbers are the file's own lines."""
    path = tmp_path / "Work [2203306141].csv"
    path.write_bytes(
        "\r\n".join(
            [
                "TYPE,CONTENT,DESCRIPTION,IS_COLLAPSED,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,"
                "DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG",
                "meta,view_style=board,,,,,,,,,,,,,",
                ",,,,,,,,,,,,,,",
                'task,write the report,"first line\r\nsecond line\r\nthird line",,3,1,Ann (123),,'
                "每周五,zh,Asia/Shanghai,,,,",
                "note,sent it,,,,,Ann (123),,2026-12-03T16:30:00.000000Z,,,,,,",
                "section,Later,,False,,,,,,,,,,,",
                "task,someday,,,1,1,Ann (123),,when pigs fly,en,UTC,,,,",
            ]
        ).encode("utf-8")
        + b"\r\n"
    )
    user = create_user(services.items, "erin", "correct horse battery")
    report = import_file(
        services, user["id"], "todoist", path, options=ImportOptions(now=datetime(2026, 12, 4, tzinfo=UTC))
    )
    assert report.imported["tasks"] == 2, report.as_dict()
    assert [which for which, _ in report.kept] == ["Work line 9"], report.kept  # the file's line (rows counted: 7)
    tasks = {t["title"]: t for t in load_state(services.items, user["id"]).every_task()}
    # the comment's heading: its author's name (not Todoist's user number), its time in the import's zone
    assert tasks["write the report"]["notes"] == (
        "first line\nsecond line\nthird line\n\n---\n**Comment by Ann, 2026-12-03 16:30 UTC**\n\nsent it"
    )
    assert tasks["write the report"]["recurrence"] == "FREQ=WEEKLY;BYDAY=FR"
    assert "view_style" not in tasks["someday"]["notes"] and "Todoist date 'when pigs fly'" in tasks["someday"]["notes"]


def test_two_projects_of_one_name_in_a_backup(services: Services, tmp_path: Path) -> None:
    """Todoist lets two projects share a name ("Notes" under two parents): its backup holds
    `Notes [111].csv` and `Notes [222].csv`. Both import, the second's space named with its id
    (listed); a second run finds both again (the whole backup was refused before)."""
    backup = tmp_path / "backup.zip"
    header = "TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\r\n"
    with zipfile.ZipFile(backup, "w") as archive:
        archive.writestr("Notes [111].csv", header + "task,first,,4,1,,,,,\r\n")
        archive.writestr("Notes [222].csv", header + "task,second,,4,1,,,,,\r\n")
    user = create_user(services.items, "fay", "correct horse battery")
    report = import_file(services, user["id"], "todoist", backup)
    assert report.imported["spaces"] == 2 and report.imported["tasks"] == 2, report.as_dict()
    assert report.kept == [("Notes [222].csv", "a second project named 'Notes': its space is named 'Notes [222]'")]
    state = load_state(services.items, user["id"])
    assert {"Notes", "Notes [222]"} <= {space["name"] for space in state.spaces.values()}
    again = import_file(services, user["id"], "todoist", backup)
    assert again.imported.get("tasks", 0) == 0 and again.existing["tasks"] == 2, again.as_dict()


def test_a_header_of_a_hundred_thousand_columns_is_refused_before_its_rows_are_built(
    services: Services, tmp_path: Path
) -> None:
    """Each row was kept as a dict over every column of the header: a 0.7 MB file of 100,000
    columns and 200 rows took 780 MB (an 8 MB file of a million columns, gigabytes). A Todoist
    CSV has 14 columns; a header far past that is no Todoist export and is refused, nothing written."""
    user = create_user(services.items, "wide", "correct horse battery")
    call(services, user["id"], "create_todo_task", title="here before")
    before = visible(services, user["id"])
    header = "TYPE,CONTENT," + ",".join(f"c{index}" for index in range(100_000))
    path = tmp_path / "Wide [1].csv"
    path.write_text(header + "\n" + "task,x\n" * 200, encoding="utf-8")
    with pytest.raises(SourceError) as refused:
        import_file(services, user["id"], "todoist", path)
    message = refused.value.message
    assert "100002 columns" in message and "Wide [1].csv" in message, message
    assert "\n" not in message and len(message) < 400, message
    assert visible(services, user["id"]) == before
    # a real export's columns, and a few a spreadsheet may add, are read as before
    extra = tmp_path / "Extra [2].csv"
    extra.write_text("TYPE,CONTENT," + ",".join(f"c{index}" for index in range(60)) + "\ntask,kept\n", encoding="utf-8")
    report = import_file(services, user["id"], "todoist", extra)
    assert report.imported["tasks"] == 1, report


def test_labels_as_chinese_writers_type_them(services: Services, tmp_path: Path) -> None:
    # `@工作，@紧急`: a label ends at Chinese punctuation as at an ASCII comma, and a label right
    # after it is a label too (it was `label @工作，` kept in the notes, `@紧急` left in the title);
    # an address (`bob@example.com`) stays text.
    path = tmp_path / "工作 [7].csv"
    rows = [
        ["task", "写周报 @工作，@紧急", "", "4", "1"],
        ["task", "买菜 @购物、@家务；", "", "1", "1"],
        ["task", "mail bob@example.com @work, then @home.", "", "1", "1"],
    ]
    todoist_csv(path, rows)
    user = create_user(services.items, "chen", "correct horse battery")
    report = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))
    assert report.imported["tasks"] == 3 and not report.kept, report.as_dict()
    tasks = {t["title"]: t for t in load_state(services.items, user["id"]).every_task()}
    assert tasks["写周报"]["tags"] == ["工作", "紧急"] and not tasks["写周报"].get("notes")
    assert tasks["买菜"]["tags"] == ["购物", "家务"]
    assert tasks["mail bob@example.com then"]["tags"] == ["work", "home"]


def test_a_date_phrase_repeated_over_a_project_is_read_once(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each DATE cell was read by the date grammar afresh (~3 ms of dateparser each): a 19,000-task
    export repeating a few phrases took 55 s to plan before its first write (its writes 24 s), a
    thread and an import slot held meanwhile. A phrase is read once per project and zone; each
    task still gets a due of its own."""
    from mesq.imports import todoist

    calls: list[str] = []
    real = todoist.read_date

    def counted(text: str, language: str, zone: str, now: datetime) -> todoist.DateRead | None:
        calls.append(text)
        return real(text, language, zone, now)

    monkeypatch.setattr(todoist, "read_date", counted)
    rows = [["task", f"周报 {index}", "", "1", "1", "", "", "每周一", "zh", "Asia/Shanghai"] for index in range(40)]
    rows += [["task", f"明天 {index}", "", "1", "1", "", "", "tomorrow 5pm", "en", ""] for index in range(40)]
    rows += [["task", "elsewhere", "", "1", "1", "", "", "tomorrow 5pm", "en", "Europe/Berlin"]]
    rows += [["task", title, "", "1", "1", "", "", "when pigs fly", "en", ""] for title in ("unread", "again")]
    path = todoist_csv(tmp_path / "Weekly [3].csv", rows)
    user = create_user(services.items, "weekly", "correct horse battery")
    now = datetime(2026, 12, 4, tzinfo=UTC)
    report = import_file(services, user["id"], "todoist", path, options=ImportOptions(now=now, timezone="UTC"))
    assert report.imported["tasks"] == 83, report.as_dict()
    assert sorted(calls) == ["tomorrow 5pm", "tomorrow 5pm", "when pigs fly", "每周一"], calls
    tasks = {task["title"]: task for task in load_state(services.items, user["id"]).every_task()}
    assert tasks["周报 0"]["recurrence"] == tasks["周报 39"]["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    assert tasks["周报 0"]["due"] == tasks["周报 39"]["due"] == {"type": "date", "date": "2026-12-07"}
    assert tasks["明天 7"]["due"] == {"type": "datetime", "at": "2026-12-05T17:00:00Z"}
    assert tasks["elsewhere"]["due"] == {"type": "datetime", "at": "2026-12-05T16:00:00Z"}
    assert "Todoist date 'when pigs fly'" in tasks["again"]["notes"]


def test_a_subtasks_notes_cut_at_the_limit_are_listed(services: Services, tmp_path: Path) -> None:
    """A task's notes past the limit were cut and listed; a subtask's were cut with nothing said
    (its comments or description lost unseen). Both are listed by their line, cut with an ellipsis."""
    from mesq.todos import model

    long_description = "长" * (model.NOTES_MAX + 10)
    rows = [
        ["task", "上级任务", "", "1", "1"],
        ["task", "子任务", long_description, "1", "2"],
        ["task", "另一个任务", long_description, "1", "1"],
    ]
    path = todoist_csv(tmp_path / "Long [4].csv", rows)
    user = create_user(services.items, "longnotes", "correct horse battery")
    report = import_file(services, user["id"], "todoist", path)
    # Imported, only shortened: never counted nor listed as skipped (the tasks are there).
    assert report.skipped_count == 0 and not report.skipped, report.skipped
    shortened = dict(report.shortened)
    assert report.shortened_count == 2
    assert shortened.get("Long line 3") == f"notes past {model.NOTES_MAX} characters were cut", report.shortened
    assert shortened.get("Long line 4") == f"notes past {model.NOTES_MAX} characters were cut", report.shortened
    assert "2 imported but shortened" in report.summary() and "skipped" not in report.summary()
    assert report.as_dict()["shortenedCount"] == 2 and len(report.words()["shortened"]) == 2
    tasks = {task["title"]: task for task in load_state(services.items, user["id"]).every_task()}
    assert len(tasks["子任务"]["notes"]) == model.NOTES_MAX and tasks["子任务"]["notes"].endswith("…")


@pytest.mark.parametrize(
    ("phrase", "due"),
    [
        ("May 15 2025", {"type": "date", "date": "2025-05-15"}),
        ("May 5 2024 4:04", {"type": "datetime", "at": "2024-05-05T04:04:00Z"}),
        ("May 5 2024 4pm", {"type": "datetime", "at": "2024-05-05T16:00:00Z"}),
        ("15 May 2025", {"type": "date", "date": "2025-05-15"}),
        ("may 15", {"type": "date", "date": "2027-05-15"}),
        ("Jun 15 2025", {"type": "date", "date": "2025-06-15"}),
    ],
)
def test_a_date_in_may_is_a_due(phrase: str, due: dict[str, str]) -> None:
    """Todoist's DATE cell is a date phrase whole; quick add's grammar never reads "may" as a month
    (a title's "may need milk"), so every due in May was kept in the notes as text ('May 5 2024
    4:04', one English date in twelve), and "May 5 2024 4:04" read as 6 May."""
    from datetime import UTC, datetime

    from mesq.imports.todoist import read_date

    found = read_date(phrase, "en", "UTC", datetime(2026, 12, 6, 23, 0, tzinfo=UTC))
    assert found is not None and found.due == due, (phrase, found)


def test_priority_is_read_as_todoists_csv_numbers_it_p1_to_p4(services: Services, tmp_path: Path) -> None:
    """Todoist's CSV writes a task's priority as its p-number (help article "Format a CSV file to
    import into Todoist": 1 is p1, the highest, 4 is p4, the lowest, no priority: what every
    task has until a person sets one). It was read as the API's numbers (4 = p1), so every plain
    task of an export came in urgent and every p1 task with no priority."""
    path = tmp_path / "书签 [2203306141].csv"
    path.write_bytes(
        "\r\n".join(
            [
                "TYPE,CONTENT,DESCRIPTION,IS_COLLAPSED,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,"
                "DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG",
                "meta,view_style=board,,,,,,,,,,,,,",
                "task,普通的一条,,,4,1,林 (53193251),,,,Asia/Shanghai,,,,",
                "task,紧急：交税,,,1,1,林 (53193251),,,,Asia/Shanghai,,,,",
                "task,重要,,,2,1,林 (53193251),,,,Asia/Shanghai,,,,",
                "task,一般,,,3,1,林 (53193251),,,,Asia/Shanghai,,,,",
                "task,子任务,,,4,2,林 (53193251),,,,Asia/Shanghai,,,,",
                "",
            ]
        ).encode()
    )
    user = create_user(services.items, "priorities", "correct horse battery")
    import_file(services, user["id"], "todoist", path)
    tasks = {task["title"]: task["priority"] for task in load_state(services.items, user["id"]).every_task()}
    assert tasks == {"普通的一条": "none", "紧急：交税": "urgent", "重要": "high", "一般": "medium", "子任务": "none"}


@pytest.mark.parametrize(
    ("phrase", "due"),
    [
        ("2027-01-05T09:00:00Z", {"type": "datetime", "at": "2027-01-05T09:00:00Z"}),
        ("2026-08-13T18:30:00-05:00", {"type": "datetime", "at": "2026-08-13T23:30:00Z"}),
        ("2027-01-05T09:00:00", {"type": "datetime", "at": "2027-01-05T01:00:00Z"}),  # no offset: the zone's
        ("2027-01-05T09:00:00.000000Z", {"type": "datetime", "at": "2027-01-05T09:00:00Z"}),
        ("2027-01-05", {"type": "date", "date": "2027-01-05"}),
    ],
)
def test_an_iso_8601_date_and_time_is_a_due(phrase: str, due: dict[str, str]) -> None:
    """A DATE written as an ISO 8601 timestamp (a CSV made by a script or another app's converter
    from Todoist's API, which gives due.datetime so) was no due: kept in the notes as text, though
    it names one instant exactly. Read in the row's zone when it has no offset of its own."""
    from mesq.imports.todoist import read_date

    found = read_date(phrase, "en", "Asia/Shanghai", datetime(2026, 12, 6, 23, 0, tzinfo=UTC))
    assert found is not None and found.due == due and found.rule is None, (phrase, found)


@pytest.mark.parametrize("language", ["pt_BR", "pt-BR", "pt"])
def test_a_date_lang_with_its_region_after_an_underscore_is_that_language(language: str) -> None:
    """Todoist names some languages with a region after an underscore (`pt_BR`, `zh_CN`, `zh_TW`):
    `pt_BR` was no language dateparser knows, so every Brazilian date was kept in the notes as
    text, where `pt-BR` and `pt` were read."""
    from mesq.imports.todoist import read_date

    found = read_date("15 de maio de 2027", language, "UTC", datetime(2026, 12, 6, 23, 0, tzinfo=UTC))
    assert found is not None and found.due == {"type": "date", "date": "2027-05-15"}, (language, found)
