"""A download or copy cut short is refused as cut short, nothing written: a flomo ZIP without its
end, a Todoist CSV that stops in the middle of a row or of a character. A CSV cut mid-row was
imported up to the cut (its last task with half a date kept as text, the rest of the project
missing: half an import that looked whole), and one cut inside a character was called a
spreadsheet's re-encoding; a ZIP without its end was "no end of central directory record"."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesq.auth.users import create_user
from mesq.imports.plan import SourceError
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .checks import records
from .exports import flomo_export

HEADER = "TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\r\n"
ROWS = (
    "section,待办,,,,,,,,\r\n"
    "task,写周报 @工作,每周五要交,4,1,林 (12345678),,每周五,zh,Asia/Shanghai\r\n"
    "task,每天背单词,,3,1,林 (12345678),,every day,en,Asia/Shanghai\r\n"
    "task,交房租,,2,1,林 (12345678),,每月15号,zh,Asia/Shanghai\r\n"
)


def _refused(services: Services, path: Path, kind: str, name: str) -> str:
    user = create_user(services.items, "cut", "correct horse battery")
    before = records(services, user["id"])
    with pytest.raises(SourceError) as refused:
        import_file(services, user["id"], kind, path, options=ImportOptions(label=name, filename=name))
    assert records(services, user["id"]) == before
    return refused.value.message


def test_a_flomo_zip_without_its_end_is_said_to_be_cut_short(services: Services, tmp_path: Path) -> None:
    whole = tmp_path / "whole.zip"
    flomo_export(whole, count=20)
    cut = tmp_path / "flomo.zip"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    message = _refused(services, cut, "flomo", "flomo.zip")
    assert message == "flomo.zip: the ZIP is cut short (its end is missing); download or copy it again", message


@pytest.mark.parametrize(
    "cut",
    [
        pytest.param(lambda data: data[: data.index(b"every day") + 5], id="mid-row"),
        pytest.param(lambda data: data[: data.index("交房租".encode()) + 1], id="mid-character"),
    ],
)
def test_a_todoist_csv_cut_short_is_refused_whole(services: Services, tmp_path: Path, cut: object) -> None:
    path = tmp_path / "工作 [1].csv"
    path.write_bytes(cut((HEADER + ROWS).encode()))  # type: ignore[operator]
    message = _refused(services, path, "todoist", "工作 [1].csv")
    assert message.startswith("工作 [1].csv: line "), message
    assert message.endswith(
        " ends in the middle of a row, so the file is cut short. Export the project from Todoist again"
    )


def test_a_whole_csv_without_a_last_line_break_imports(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "工作 [1].csv"
    path.write_bytes((HEADER + ROWS).rstrip("\r\n").encode())  # a hand-made file may end so: every row whole
    user = create_user(services.items, "whole", "correct horse battery")
    report = import_file(services, user["id"], "todoist", path)
    assert report.imported["tasks"] == 3, report.as_dict()
