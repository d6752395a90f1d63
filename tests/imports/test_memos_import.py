"""`mesq import USER --from memos PATH`: a memos database of each schema generation (0.20, 0.22,
0.24, the latest), read-only, into MeSQ memos with their times, pins, archives, tags from the
content and from memos' own fields, attachment bytes (in the database and beside it), comments
appended and references linked; a second run creates nothing; undo of the run leaves the account
as it was. The big one (1,000 memos) goes through the real command line."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mesq.auth.users import create_user
from mesq.imports.plan import SourceError
from mesq.imports.run import import_call
from mesq.imports.undo import undo_import
from mesq.kernel.tags import expand_tag_paths
from mesq.memos import store as memo_store
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services, build_services
from tests.conftest import run_cli
from tests.settings import inprocess_settings

from .checks import attachment_digests, call, memos_by_origin, visible
from .exports import GENERATIONS, ExpectedMemo, memos_database

ALICE = ImportOptions(memos_user="alice")

#: The import builds the account's search indexes itself (issue 46); BM25 only here, so a thousand
#: records are not embedded on a shared machine (tests/search covers the embedding build).
KEYWORDS_ONLY = {"MESQ_SEARCH_PROVIDER": "none"}


def check_memos(services: Services, user_id: str, expected: dict[str, ExpectedMemo]) -> None:
    """Every memo, record by record: times, pin, archive, tags, attachment bytes, comments, order."""
    found = memos_by_origin(services, user_id)
    assert set(expected) <= set(found)
    assert "bobs" not in found and not any(uid.startswith("c0") for uid in found)  # bob's memo, comments
    for uid, want in expected.items():
        memo = found[uid]
        assert memo["createdAt"] == want.created, uid
        assert memo["updatedAt"] == want.updated, uid
        assert memo["pinned"] is want.pinned, uid
        assert memo["status"] == ("ARCHIVED" if want.archived else "NORMAL"), uid
        assert set(memo["tags"]) == want.tags, (uid, memo["tags"])
        assert memo["tagPaths"] == expand_tag_paths(sorted(want.tags)), uid
        assert attachment_digests(services, memo) == want.files, uid
        assert memo["content"].count("**Comment") == want.comments, uid
        assert memo["origin"] == {"app": "memos", "id": uid, "visibility": want.visibility}
        assert memo["contentSource"] == "memos"
    ordered = sorted(expected.values(), key=lambda memo: memo.order)
    assert [found[memo.uid]["createdAt"] for memo in ordered] == sorted(memo.created for memo in ordered)


@pytest.mark.parametrize("generation", sorted(GENERATIONS))
def test_each_schema_generation_imports_whole(services: Services, tmp_path: Path, generation: str) -> None:
    expected = memos_database(tmp_path / "memos", generation, count=60)
    database = tmp_path / "memos" / "memos_prod.db"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    user = create_user(services.items, "alice", "correct horse battery")
    with pytest.raises(SourceError, match="several memos users; name one with --memos-user"):
        import_file(services, user["id"], "memos", database)
    report = import_file(services, user["id"], "memos", database, options=ALICE)
    assert report.imported["memos"] == 60 and report.skipped_count == 0, report.as_dict()
    check_memos(services, user["id"], expected)
    first = next(iter(expected))
    references = [m for m in memos_by_origin(services, user["id"]).values() if "→ [" in m["content"]]
    assert references and all(
        re.search(r"→ \[Memo \d+ about .*\]\(/memos/mm[\w-]+/edit\)", m["content"]) for m in references
    )
    assert first in memos_by_origin(services, user["id"])
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before  # read-only, never modified
    again = import_file(services, user["id"], "memos", tmp_path / "memos", options=ALICE)  # the folder works too
    assert again.imported["memos"] == 0 and again.existing["memos"] == 60


def test_a_thousand_memos_through_the_command_line_then_undo(tmp_path: Path) -> None:
    expected = memos_database(tmp_path / "memos", "latest", count=1000)
    data = tmp_path / "data"
    services = build_services(inprocess_settings(data_dir=data))
    try:
        user = create_user(services.items, "alice", "correct horse battery")
        call(services, user["id"], "create_memo", content="mine before the import #own", pinned=True)
        before = visible(services, user["id"])
    finally:
        services.items.close()
    database = str(tmp_path / "memos" / "memos_prod.db")
    command = ("import", "alice", "--from", "memos", database, "--memos-user", "alice", "--data-dir", str(data))
    first = run_cli(*command, env=KEYWORDS_ONLY)
    assert first.returncode == 0, first.stderr
    assert re.search(r"1000 memos, \d+ tags, 357 attachments, 20 comments imported; .*run (\S+)", first.stdout), (
        first.stdout
    )
    run_id = re.search(r"--undo-run (\S+)", first.stdout).group(1)  # type: ignore[union-attr]
    second = run_cli(*command, env=KEYWORDS_ONLY)
    assert second.returncode == 0 and second.stdout.startswith("nothing new imported; 1000 already there"), (
        second.stdout
    )

    services = build_services(inprocess_settings(data_dir=data))
    try:
        check_memos(services, user["id"], expected)
        stats = memo_store.read_stats(services.items, user["id"])
        assert (stats["normal"], stats["archived"], stats["pinned"]) == (1000 - 25 + 1, 25, 40 + 1)
        listed = call(services, user["id"], "list_changes", runId=run_id, limit=5)["changes"]
        assert listed and {c["actor"]["name"] for c in listed} == {"mesq import --from memos"}
        undone = undo_import(import_call(services, user["id"], "undo"), run_id)
        assert undone.undone["memo"] == 1000 and not undone.not_undone
        assert visible(services, user["id"]) == before
    finally:
        services.items.close()


def test_a_comment_on_itself_or_a_loop_of_comments_stays_a_memo(services: Services, tmp_path: Path) -> None:
    """memos writes neither, but a stranger's database may: a memo answering itself, or two
    answering each other, would be appended to a memo that is not imported as one, so lost with
    nothing said. Each stays a memo of its own."""
    memos_database(tmp_path / "m", "latest", count=2)
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    ids = []
    for uid, text in (("loopa", "loop a"), ("loopb", "loop b"), ("itself", "answers itself")):
        ids.append(
            db.execute(
                "INSERT INTO memo (uid, creator_id, created_ts, updated_ts, content)"
                " VALUES (?, 1, 1700000000, 1700000000, ?)",
                (uid, text),
            ).lastrowid
        )
    db.executemany(
        "INSERT INTO memo_relation VALUES (?, ?, 'COMMENT')", [(ids[0], ids[1]), (ids[1], ids[0]), (ids[2], ids[2])]
    )
    db.commit()
    db.close()
    user = create_user(services.items, "loops", "correct horse battery")
    report = import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    assert report.imported["memos"] == 5, report.as_dict()
    found = memos_by_origin(services, user["id"])
    assert {"loopa", "loopb", "itself"} <= set(found)


def test_bytes_that_are_not_utf8_and_a_blob_kept_as_text(services: Services, tmp_path: Path) -> None:
    """memos (Go) stores whatever bytes it is sent: a content cut mid-character is TEXT that is not
    UTF-8, which SQLite's reader refused for the whole database ("its tables are not the ones memos
    keeps"); it imports with U+FFFD, listed. An attachment's bytes stored as TEXT were a 500
    (bytes() of a str): they import as their bytes."""
    memos_database(tmp_path / "m", "latest", count=4)  # memo 0 has a picture in the database
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    first = db.execute("SELECT id, uid FROM memo WHERE creator_id = 1 ORDER BY id LIMIT 1").fetchone()
    db.execute("UPDATE memo SET content = CAST(X'E4BDA0E5A5BD20FF20237461672062' AS TEXT) WHERE id = ?", (first[0],))
    db.execute("UPDATE attachment SET blob = 'plain text bytes' WHERE memo_id = ?", (first[0],))
    db.commit()
    db.close()
    user = create_user(services.items, "bytes", "correct horse battery")
    report = import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    assert (f"memos/{first[1]}", "bytes that are not UTF-8 text, each kept as �") in report.kept, report.kept
    memo = memos_by_origin(services, user["id"])[first[1]]
    assert memo["content"].startswith("你好 \ufffd #tag b") and "tag" in memo["tags"]
    assert services.blobs.get(memo["resources"][0]["path"]) == b"plain text bytes"


def test_a_time_no_calendar_holds_skips_that_memo_and_names_it(services: Services, tmp_path: Path) -> None:
    """One memo of a stranger's database with a time past year 9999 refused the whole import with
    "a memo time 99999999999999 is not a Unix time", naming no memo: the person could not tell
    which of a thousand to fix, and nothing else came over. That memo is skipped and listed by its
    uid, as flomo's card with an unreadable time is; a later edit time past it falls back to its
    creation; a comment's unreadable time is written as it is in the heading."""
    memos_database(tmp_path / "m", "latest", count=2)
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    rows = [
        ("farfuture", 99999999999999, 1700000000, "时间坏了 #坏"),
        ("editedlater", 1700000000, 99999999999999, "只有编辑时间坏了 #好"),
    ]
    ids = [
        db.execute(
            "INSERT INTO memo (uid, creator_id, created_ts, updated_ts, content) VALUES (?, 1, ?, ?, ?)",
            (uid, created, updated, text),
        ).lastrowid
        for uid, created, updated, text in rows
    ]
    answer = db.execute(
        "INSERT INTO memo (uid, creator_id, created_ts, updated_ts, content)"
        " VALUES ('oddanswer', 2, -99999999999999, 0, '评论时间坏了')"
    ).lastrowid
    db.execute("INSERT INTO memo_relation VALUES (?, ?, 'COMMENT')", (answer, ids[1]))
    db.commit()
    db.close()
    user = create_user(services.items, "times", "correct horse battery")
    report = import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    assert ("memos/farfuture", "a memo time 99999999999999 is not a Unix time") in report.skipped, report.skipped
    found = memos_by_origin(services, user["id"])
    assert "farfuture" not in found
    edited = found["editedlater"]
    assert edited["createdAt"] == edited["updatedAt"] == "2023-11-14T22:13:20.000000Z"
    assert "-99999999999999" in edited["content"] and "> 评论时间坏了" in edited["content"]


def test_two_memos_of_one_uid_are_two_memos(services: Services, tmp_path: Path) -> None:
    """memos keeps uids unique, but a database made or mended by hand may not: the second memo of
    a uid took the first's id and was dropped, reported as "1 already there". Each is imported,
    the second listed; a second run creates nothing."""
    memos_database(tmp_path / "m", "latest", count=2)
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    db.execute("DROP INDEX IF EXISTS idx_memo_uid")
    db.executescript(
        "CREATE TABLE memo_copy AS SELECT * FROM memo; DROP TABLE memo;"
        " CREATE TABLE memo (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL, creator_id INTEGER NOT NULL,"
        " created_ts BIGINT NOT NULL, updated_ts BIGINT NOT NULL, row_status TEXT NOT NULL DEFAULT 'NORMAL',"
        " content TEXT NOT NULL DEFAULT '', visibility TEXT NOT NULL DEFAULT 'PRIVATE', pinned INTEGER NOT NULL"
        " DEFAULT 0, payload TEXT NOT NULL DEFAULT '{}'); INSERT INTO memo SELECT * FROM memo_copy;"
        " DROP TABLE memo_copy;"
    )
    for created, text in ((1700000000, "第一条 #重复"), (1700000100, "第二条，内容不同 #重复")):
        db.execute(
            "INSERT INTO memo (uid, creator_id, created_ts, updated_ts, content) VALUES ('dup', 1, ?, ?, ?)",
            (created, created, text),
        )
    db.commit()
    db.close()
    user = create_user(services.items, "dups", "correct horse battery")
    report = import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    assert report.imported["memos"] == 4 and not report.existing, report.as_dict()
    assert ("memos/dup", "another memo of this database has the same uid: imported as a memo of its own") in (
        report.kept
    ), report.kept
    contents = [memo["content"] for memo in memo_store.all_memos(services.items, user["id"])]
    assert "第一条 #重复" in contents and "第二条，内容不同 #重复" in contents
    again = import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    assert not again.imported.get("memos") and again.existing["memos"] == 4, again.as_dict()


def test_an_attachment_of_no_memo_is_listed_as_not_imported(services: Services, tmp_path: Path) -> None:
    """A file in the export that no memo references (memos keeps an upload whose memo was never
    saved, or a row pointing at a memo that is gone) was dropped with nothing said: it is listed
    as not imported, by name, with why. Another memos user's loose files are not this import's."""
    memos_database(tmp_path / "m", "latest", count=2)
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    insert = (
        "INSERT INTO attachment (uid, creator_id, filename, type, size, memo_id, blob, storage_type, reference)"
        " VALUES (?, ?, ?, 'image/png', 3, ?, X'010203', 'DATABASE', '')"
    )
    db.execute(insert, ("loose1", 1, "loose.png", None))
    db.execute(insert, ("gone1", 1, "gone.png", 99999))
    db.execute(insert, ("bobs1", 2, "bobs.png", None))
    db.commit()
    db.close()
    user = create_user(services.items, "loosefiles", "correct horse battery")
    report = import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    skipped = dict(report.skipped)
    assert skipped.get("attachment 'loose.png'") == "not attached to any memo", report.skipped
    assert skipped.get("attachment 'gone.png'") == "not attached to any memo", report.skipped
    assert not any("bobs.png" in which for which, _why in report.skipped), report.skipped
    assert report.skipped_count == 2


def test_a_memo_that_references_itself_gets_no_link_to_itself(services: Services, tmp_path: Path) -> None:
    """A REFERENCE from a memo to itself (a stranger's database may hold one) wrote a link to the
    memo into its own content; it is dropped. A reference to another memo still links."""
    memos_database(tmp_path / "m", "latest", count=2)
    db = sqlite3.connect(tmp_path / "m" / "memos_prod.db")
    ids = [
        db.execute(
            "INSERT INTO memo (uid, creator_id, created_ts, updated_ts, content)"
            " VALUES (?, 1, 1700000000, 1700000000, ?)",
            (uid, text),
        ).lastrowid
        for uid, text in (("selfref", "points at itself"), ("target", "the other one"))
    ]
    db.executemany("INSERT INTO memo_relation VALUES (?, ?, 'REFERENCE')", [(ids[0], ids[0]), (ids[0], ids[1])])
    db.commit()
    db.close()
    user = create_user(services.items, "selfref", "correct horse battery")
    import_file(services, user["id"], "memos", tmp_path / "m", options=ALICE)
    found = memos_by_origin(services, user["id"])
    itself, other = found["selfref"], found["target"]
    assert f"/memos/{itself['id']}/edit" not in itself["content"], itself["content"]
    assert f"→ [the other one](/memos/{other['id']}/edit)" in itself["content"], itself["content"]


def test_a_local_file_gone_during_the_writes_cuts_the_run_short_with_its_report(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memos may keep running beside an import of its folder: a file deleted in memos after the
    import checked it. The memos written before it stay (their run can be undone), so the import
    must not say 'nothing imported' (a changed file) nor fail with the OSError's 500 (a file gone):
    it is cut short, with the report of what it wrote, and the next run completes it."""
    from mesq.imports import run
    from mesq.imports.plan import CutShort

    expected = memos_database(tmp_path / "memos", "latest", count=60)
    user = create_user(services.items, "vera", "correct horse battery")
    real_write = run.write_memo
    written: list[str] = []

    def write_then_delete(call: Any, memo: Any, kind: str) -> bool:
        if len(written) == 10:  # memos deletes the rest of the files meanwhile
            for asset in (tmp_path / "memos" / "assets").iterdir():
                asset.unlink()
        written.append(memo.memo_id)
        return real_write(call, memo, kind)

    monkeypatch.setattr(run, "write_memo", write_then_delete)
    with pytest.raises(CutShort) as cut:
        import_file(services, user["id"], "memos", tmp_path / "memos", options=ImportOptions(memos_user="alice"))
    report = cut.value.report
    assert report.run_id and report.imported["memos"] >= 10, report.as_dict()
    refusal = cut.value.refusal
    assert not refusal.startswith("nothing imported") and report.run_id in refusal and "assets/" in refusal, refusal
    monkeypatch.setattr(run, "write_memo", real_write)
    again = import_file(services, user["id"], "memos", tmp_path / "memos", options=ImportOptions(memos_user="alice"))
    assert again.existing["memos"] == report.imported["memos"], again.as_dict()
    assert again.existing["memos"] + again.imported["memos"] == len(expected), again.as_dict()
