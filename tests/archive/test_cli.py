"""`mesq export` and `mesq import` as a person runs them: a real subprocess on two data
directories; the closing line gives the throughput, a second import creates nothing, a bad
archive is refused with its first bad line and writes nothing."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from mesq.wiring.services import build_services
from tests.conftest import run_cli
from tests.settings import inprocess_settings

from .test_round_trip import populate

PASSWORD = "correct horse battery\n"


def test_export_then_import_twice_and_a_bad_archive(tmp_path: Path) -> None:
    source_dir, target_dir = tmp_path / "a", tmp_path / "b"
    services = build_services(inprocess_settings(data_dir=source_dir))
    try:
        populate(services.items, services.blobs, "alice")
    finally:
        services.items.close()
    out = tmp_path / "alice.zip"
    exported = run_cli("export", "alice", "--out", str(out), "--data-dir", str(source_dir))
    assert exported.returncode == 0, exported.stderr
    # In the person's words (issue 41): what the account holds, never `3 MEMO, 5 MEMOTAG, 2 STATS`.
    held = "2 memos, 3 tasks, 1 inbox item, 1 space, 2 attachments, 1 book, 3 reading notes and 10 history entries"
    assert exported.stdout == f"exported {held} to {out}\n", exported.stdout
    assert not re.search(r"[A-Z]{3,}", exported.stdout)

    made = run_cli("user", "create", "bob", "--password-stdin", "--data-dir", str(target_dir), stdin=PASSWORD)
    assert made.returncode == 0, made.stderr
    first = run_cli("import", "bob", str(out), "--data-dir", str(target_dir))
    assert first.returncode == 0, first.stderr
    # The report, then the search indexes the import built (issue 46): no repair command to run.
    indexed = r"literal search indexes: [\d,]+ rows in [0-9.]+s\nsearch index: [\d,]+ documents in [0-9.]+s; [^\n]+\n"
    assert re.fullmatch(rf"imported {held} into bob; [0-9.]+s\n{indexed}", first.stdout), first.stdout
    assert "reindex" not in first.stdout
    second = run_cli("import", "bob", str(out), "--data-dir", str(target_dir))
    assert second.stdout.startswith(f"nothing new: bob already holds what alice.zip holds ({held}); "), second.stdout

    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    refused = run_cli("import", "bob", str(bad), "--data-dir", str(target_dir))
    assert refused.returncode == 1
    assert refused.stderr.startswith("mesq: nothing imported: bad.zip: not a readable ZIP archive"), refused.stderr

    with zipfile.ZipFile(out) as archive:
        assert "manifest.json" in archive.namelist()


def test_an_import_says_which_preferences_it_took_from_the_archive(tmp_path: Path) -> None:
    source_dir, target_dir = tmp_path / "a", tmp_path / "b"
    for folder, name, extra in ((source_dir, "alice", ["--language", "zh"]), (target_dir, "bob", [])):
        made = run_cli("user", "create", name, *extra, "--password-stdin", "--data-dir", str(folder), stdin=PASSWORD)
        assert made.returncode == 0, made.stderr
    zoned = run_cli("user", "set-timezone", "alice", "Asia/Shanghai", "--data-dir", str(source_dir))
    assert zoned.returncode == 0, zoned.stderr
    out = tmp_path / "alice.zip"
    exported = run_cli("export", "alice", "--out", str(out), "--data-dir", str(source_dir))
    assert exported.returncode == 0, exported.stderr
    # No records, but not empty: it carries the language and zone (it said "an empty account").
    assert exported.stdout == f"exported alice's language zh and time zone Asia/Shanghai, no records yet, to {out}\n"
    first = run_cli("import", "bob", str(out), "--data-dir", str(target_dir))
    assert first.returncode == 0, first.stderr
    assert "empty account" not in first.stdout, first.stdout
    assert "took the archive's language zh and time zone Asia/Shanghai: bob had not set its own\n" in first.stdout
    second = run_cli("import", "bob", str(out), "--data-dir", str(target_dir))
    assert "took the archive's" not in second.stdout
