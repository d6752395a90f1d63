"""Each imported file is a stranger's file (issue 45 §5). On SQLite + local files and on DynamoDB
Local + S3 over HTTP: a ZIP bomb, path traversal in a member name, a symbolic link member, an
HTML page that declares entities (an entity bomb), a SQLite file that is not memos', a damaged
one, one whose write-ahead log is not folded in, one whose table computes a column (SQLite would run
the file's expression for every row it checks), a CSV with a field past any Todoist cell, and a
memos local file reached through a link out of its folder: each refused with one line, the
store left exactly as it was. A page with script and event handlers imports as text the
timeline renders inert; a YAML alias bomb in a memo is kept as text (no importer reads YAML)."""

from __future__ import annotations

import sqlite3
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from mesq.auth.users import create_user
from mesq.imports.plan import SourceError
from mesq.memos import store as memo_store
from mesq.web.kit.markdown import render_markdown
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .checks import call, records
from .conftest import blob_names
from .exports import memos_database

CARD = '<div class="memo"><div class="time">2024-01-02 03:04:05</div><div class="content"><p>{}</p></div>{}</div>'


def _flomo(path: Path, body: str, members: dict[str, bytes] | None = None, files: str = "") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("flomo@x/index.html", f"<html><body>{CARD.format(body, files)}</body></html>")
        for name, data in (members or {}).items():
            archive.writestr(name, data)
    return path


def _bomb(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("flomo@x/index.html", f"<html>{CARD.format('hi', '')}</html>")
        archive.writestr("flomo@x/file/zeros.png", b"\0" * (40 * 1024 * 1024))
    return path


def _symlink(path: Path) -> Path:
    _flomo(path, "hi")
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo("flomo@x/file/link.png")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    return path


def _entities(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        lol = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "lol"}">' for i in range(10))
        archive.writestr("flomo@x/index.html", f"<!DOCTYPE html [{lol}]><html>{CARD.format('&l9;', '')}</html>")
    return path


def _not_memos(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes (body) VALUES ('hello')")
    db.commit()
    db.close()
    return path


def _damaged(path: Path) -> Path:
    memos_database(path.parent / "ok", "latest", count=40)
    data = bytearray((path.parent / "ok" / "memos_prod.db").read_bytes())
    for offset in range(4096, len(data), 4096):  # every page after the first: garbage
        data[offset + 8 : offset + 64] = b"\xff" * 56
    path.write_bytes(bytes(data))
    return path


def _pending_wal(path: Path) -> Path:
    memos_database(path.parent, "latest", count=5)
    (path.parent / "memos_prod.db-wal").write_bytes(b"\0" * 4096)
    return path.parent / "memos_prod.db"


def _zip_with_pending_wal(path: Path) -> Path:
    """A ZIP of a running memos' folder: memos keeps SQLite in WAL mode, so its latest memos may be
    in `memos_prod.db-wal` only. Read from the ZIP, only the database was copied out: imported
    without them, unsaid."""
    _pending_wal(path.parent / "folder" / "memos_prod.db")
    bundle = path.parent / "memos.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        for file in (path.parent / "folder").rglob("*"):
            if file.is_file():
                archive.write(file, "memos/" + file.relative_to(path.parent / "folder").as_posix())
    return bundle


def _escaping_link(path: Path) -> Path:
    memos_database(path.parent, "latest", count=20)  # memo 5 has assets/5_scan.jpg
    target = path.parent / "assets" / "5_scan.jpg"
    target.unlink()
    (path.parent.parent / "secret.jpg").write_bytes(b"secret")
    target.symlink_to(path.parent.parent / "secret.jpg")
    return path.parent / "memos_prod.db"


def _generated_column(path: Path) -> Path:
    """memos' tables, one of them computing a column: SQLite would run the file's expression for
    every row it checks or reads (a 900 MB `printf` a row, from a file of 45 KB)."""
    memos_database(path.parent, "latest", count=5)
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE webhook (id INTEGER PRIMARY KEY, url TEXT,"
        " big TEXT GENERATED ALWAYS AS (printf('%.*c', 10, 'x')))"
    )
    db.execute("INSERT INTO webhook (url) VALUES ('x')")
    db.commit()
    db.close()
    return path


def _huge_cell(path: Path) -> Path:
    path.write_text("TYPE,CONTENT\ntask," + "x" * (2 * 1024 * 1024) + "\n", encoding="utf-8")
    return path


#: (kind, how the file is made, words the one-line error holds)
HOSTILE: list[tuple[str, Callable[[Path], Path], str]] = [
    ("flomo", _bomb, "ZIP bomb"),
    ("flomo", lambda p: _flomo(p, "hi", {"../../evil.png": b"x"}), "path traversal"),
    (
        "flomo",
        lambda p: _flomo(p, "hi", {}, '<div class="files"><img src="../../../etc/passwd"></div>'),
        "leaves the export",
    ),
    ("flomo", _symlink, "symbolic link"),
    ("flomo", _entities, "declares entities"),
    ("flomo", lambda p: (p.write_bytes(b"PK\x03\x04 not really"), p)[1], "the ZIP is cut short (its end is missing)"),
    ("memos", _not_memos, "not a memos database"),
    ("memos", _damaged, "damaged"),
    ("memos", _pending_wal, "stop memos first"),
    ("memos", _zip_with_pending_wal, "stop memos first"),
    ("memos", _escaping_link, "symbolic link"),
    ("memos", _generated_column, "GENERATED ALWAYS AS"),
    ("todoist", _huge_cell, "over 1048576 characters"),
    ("todoist", lambda p: (p.write_text("just,a,csv\n1,2,3\n"), p)[1], "not a Todoist CSV"),
]


def test_hostile_files_get_one_line_and_change_nothing(both_stores: Services, tmp_path: Path) -> None:
    services = both_stores
    user = create_user(services.items, "target", "correct horse battery")
    call(services, user["id"], "create_memo", content="here before #mine")
    call(services, user["id"], "create_todo_task", title="also here")
    before, blobs_before = records(services, user["id"]), blob_names(services)
    for number, (kind, make, words) in enumerate(HOSTILE):
        folder = tmp_path / f"case{number}" / "memos"
        folder.mkdir(parents=True)
        path = make(folder / ("memos_prod.db" if kind == "memos" else "export.zip" if kind == "flomo" else "p.csv"))
        with pytest.raises(SourceError) as refused:
            import_file(services, user["id"], kind, path, options=ImportOptions(memos_user="alice"))
        message = refused.value.message
        assert words in message and "\n" not in message and len(message) < 400, (number, message)
        assert records(services, user["id"]) == before, number
        assert blob_names(services) == blobs_before, number


def test_script_and_handlers_import_as_inert_text(services: Services, tmp_path: Path) -> None:
    body = (
        '<b onclick="steal()">bold</b> &lt;script&gt;alert(1)&lt;/script&gt; <script>alert(2)</script>'
        '<a href="javascript:alert(3)">click</a> <img src="x" onerror="alert(4)"><iframe src="https://evil"></iframe>'
        '<a href="https://ok.example/x">fine</a>'
    )
    user = create_user(services.items, "reader", "correct horse battery")
    report = import_file(services, user["id"], "flomo", _flomo(tmp_path / "x.zip", body))
    assert report.imported["memos"] == 1
    (memo,) = list(memo_store.all_memos(services.items, user["id"]))
    assert (
        "alert(2)" not in memo["content"] and "javascript:" not in memo["content"] and "iframe" not in memo["content"]
    )
    html = str(render_markdown(memo["content"]))
    assert "<script" not in html and "onclick" not in html and "onerror" not in html and "javascript:" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<strong>bold</strong>" in html
    assert 'href="https://ok.example/x"' in html


def test_a_yaml_alias_bomb_stays_text_and_hidden_files_stay_unread(services: Services, tmp_path: Path) -> None:
    memos_database(tmp_path / "m", "latest", count=1)
    bomb = (
        "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b]\n---\nbody"
    )
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    db.execute("UPDATE memo SET content = ? WHERE creator_id = 1", (bomb,))
    db.commit()
    db.close()
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")  # and a stranger's reference to a hidden file
    db.execute(
        "INSERT INTO attachment (uid, creator_id, filename, memo_id, storage_type, reference)"
        " SELECT 'peek' || id, 1, 'id_rsa', id, 'LOCAL', '.ssh/id_rsa' FROM memo WHERE creator_id = 1"
    )
    db.commit()
    db.close()
    (tmp_path / "m" / ".ssh").mkdir()
    (tmp_path / "m" / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
    user = create_user(services.items, "yaml", "correct horse battery")
    report = import_file(services, user["id"], "memos", tmp_path / "m", options=ImportOptions(memos_user="alice"))
    skipped = [why for which, why in report.skipped if "id_rsa" in which]
    # the memo's, and its comment's (alice answers herself): a comment's files join its memo
    assert skipped == ["its file '.ssh/id_rsa' is not in the database's folder"] * 2
    (memo,) = [m for m in memo_store.all_memos(services.items, user["id"]) if m["contentSource"] == "memos"]
    assert memo["content"].startswith(bomb)


def test_import_twice_then_undo_on_both_stores(both_stores: Services, tmp_path: Path) -> None:
    """The write paths, the second run and the undo by run on each store (GSIs, conditions)."""
    from datetime import UTC, datetime

    from mesq.imports.run import import_call
    from mesq.imports.undo import undo_import

    from .checks import visible
    from .exports import flomo_export, todoist_export

    services = both_stores
    user = create_user(services.items, "twice", "correct horse battery")
    call(services, user["id"], "create_memo", content="before #mine", pinned=True)
    call(services, user["id"], "create_todo_task", title="before")
    before = visible(services, user["id"])
    memos_database(tmp_path / "m", "latest", count=30)
    flomo_export(tmp_path / "f.zip", count=20)
    todoist_export(tmp_path / "t", datetime.now(UTC), projects=1, tasks=40)
    sources = [("memos", tmp_path / "m"), ("flomo", tmp_path / "f.zip"), ("todoist", tmp_path / "t")]
    options = ImportOptions(memos_user="alice")
    runs = []
    for kind, path in sources:
        first = import_file(services, user["id"], kind, path, options=options)
        again = import_file(services, user["id"], kind, path, options=options)
        assert first.imported["memos"] + first.imported["tasks"] in (30, 20, 40), first.summary()
        assert not (again.imported["memos"] or again.imported["tasks"] or again.imported["subtasks"]), again.summary()
        runs.append(first.run_id)
    for run_id in runs:
        undone = undo_import(import_call(services, user["id"], "undo"), run_id)
        assert not undone.not_undone, undone.not_undone
    assert visible(services, user["id"]) == before


def test_a_report_of_long_lists_is_kept_on_both_stores(both_stores: Services) -> None:
    """A report keeps 200 entries of each list, each entry's words up to 300 characters, twice (in
    English and as templates): a file whose skipped, kept and shortened lines are long Chinese
    names made a 2 MB item, which DynamoDB refuses (400 KB), so the import, written, answered 500
    and had no report page. The stored lists are cut to fit; the counts stay exact."""
    from mesq.imports.plan import Report
    from mesq.imports.reports import read_report, save_report
    from mesq.kernel.i18n import Text

    report = Report("todoist", run_id="bigReport001")
    project = "项目" * 120
    for line in range(250):
        where = Text("%(project)s line %(line)s", project=project, line=line)
        report.skip(where, Text("label %(label)s kept in the notes", label="长" * 400))
        report.keep(where, Text("label %(label)s kept in the notes", label="长" * 400))
        report.shorten(where, Text("label %(label)s kept in the notes", label="长" * 400))
    user = create_user(both_stores.items, "rita", "correct horse battery")
    save_report(both_stores.items, user["id"], report)
    stored = read_report(both_stores.items, user["id"], "bigReport001")
    assert stored is not None
    assert stored["report"]["skippedCount"] == stored["report"]["keptCount"] == 250
    assert stored["report"]["shortenedCount"] == 250
    for name in ("skipped", "kept", "shortened"):
        assert 0 < len(stored["report"][name]) == len(stored["words"][name]) <= 200, name


def test_an_undone_report_of_long_lists_is_kept_on_both_stores(both_stores: Services) -> None:
    """Undoing an import adds what the undo did to its stored report (up to 100 records it left,
    each with its title of up to 500 characters): on a report already cut to fit, DynamoDB
    refused the item, after the undo had run."""
    from mesq.imports import reports
    from mesq.imports.plan import Report
    from mesq.imports.reports import mark_undone, read_report, save_report
    from mesq.kernel.i18n import Text

    def made(length: int) -> Report:
        report = Report("todoist", run_id="bigReport002")
        for line in range(250):
            where = Text("%(project)s line %(line)s", project="项目", line=line)
            report.skip(where, Text("label %(label)s kept in the notes", label="长" * length))
            report.keep(where, Text("label %(label)s kept in the notes", label="长" * length))
        return report

    # the longest entries whose report is stored whole, just under the cut
    length = max(n for n in range(10, 300, 5) if reports._size(*reports._fitted(made(n).as_dict(), made(n).words()))
                 > 0 and len(reports._fitted(made(n).as_dict(), made(n).words())[0]["skipped"]) == 200)  # fmt: skip
    report = made(length)
    user = create_user(both_stores.items, "sara", "correct horse battery")
    save_report(both_stores.items, user["id"], report)
    left = [{"changeId": f"c{n}", "record": {"kind": "task", "id": f"t{n}", "title": "题" * 500},
             "action": "create", "code": "REVISION_CONFLICT", "message": "changed since: " + "改" * 200}
            for n in range(100)]  # fmt: skip
    mark_undone(both_stores.items, user["id"], "bigReport002",
                {"undone": {"task": 900}, "notUndone": left, "notUndoneCount": 100, "removedSpaces": 1})  # fmt: skip
    stored = read_report(both_stores.items, user["id"], "bigReport002")
    assert stored is not None and stored["undone"]["notUndoneCount"] == 100 and stored["undone"]["removedSpaces"] == 1
    assert stored["report"]["skippedCount"] == 250
