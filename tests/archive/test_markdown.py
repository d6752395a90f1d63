"""`mesq import USER --markdown DIR_OR_ZIP`: one memo per `.md` file, with front matter (created,
updated, tags, pinned), `#tags`, and the images a note embeds as its attachments; bad notes are
listed and skipped while the rest import; a second run creates nothing; a ZIP works like a folder.
Real SQLite and local blob store; the memos are read back through the operations (`invoke_sync`)."""

from __future__ import annotations

import hashlib
import random
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mesq.application.invocation import invoke_sync
from mesq.archive.markdown_import import MarkdownReport, NoteError, import_markdown, parse_note
from mesq.auth.user_zone import set_zone
from mesq.auth.users import create_user
from mesq.kernel.context import Principal
from mesq.kernel.keys import user_partition
from mesq.kernel.spec import load_spec
from mesq.memos import store as memo_store
from mesq.store.paging import walk
from mesq.wiring.services import Services, build_services
from tests.conftest import run_cli
from tests.settings import inprocess_settings

FILES = 1000
SCOPES = frozenset({"memo:read", "memo:write"})


def _picture(index: int) -> bytes:
    return hashlib.sha256(str(index).encode()).digest() * (8 + index % 5) + bytes([index % 256])


def _vault(root: Path) -> dict[str, dict[str, Any]]:
    """FILES notes in nested folders; what each one should become, by relative path."""
    rng = random.Random(28)
    expected: dict[str, dict[str, Any]] = {}
    for index in range(FILES):
        folder = root / f"year-{2020 + index % 4}" / f"m{index % 12:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"note-{index:04d}.md"
        created = f"202{index % 4}-{1 + index % 12:02d}-{1 + index % 28:02d}T{index % 24:02d}:15:00+08:00"
        front_tags = [f"topic/t{index % 7}"] + (["reading"] if index % 3 == 0 else [])
        pinned = index % 10 == 0
        body = f"Note {index} about #inline{index % 5} and more words {rng.random():.6f}."
        pictures: dict[str, bytes] = {}
        if index % 4 == 0:  # a Markdown image beside the note
            pictures[f"img-{index}.png"] = _picture(index)
            body += f"\n\n![a picture](img-{index}.png)"
        if index % 20 == 0:  # an Obsidian embed of a file in a shared attachments folder
            shared = root / "attachments"
            shared.mkdir(exist_ok=True)
            data = _picture(index + 100_000)
            (shared / f"scan-{index}.jpg").write_bytes(data)
            body += f"\n\n![[scan-{index}.jpg|300]]"
            pictures[f"scan-{index}.jpg"] = data
        for file_name, data in pictures.items():
            if file_name.startswith("img-"):
                (folder / file_name).write_bytes(data)
        lines = ["---", f"created: {created}"]
        if index % 2 == 0:
            lines.append(f"updated: '202{index % 4}-12-31T00:00:00Z'")
        lines.append("tags:")
        lines += [f"  - {tag}" for tag in front_tags]
        lines += [f"pinned: {'true' if pinned else 'false'}", "aliases: [ignored]", "---", ""]
        (folder / name).write_text("\n".join(lines) + body + "\n", encoding="utf-8")
        tags = [f"inline{index % 5}", *front_tags]
        expected[(folder / name).relative_to(root).as_posix()] = {
            "created": created,
            "updated": f"202{index % 4}-12-31T00:00:00.000000Z" if index % 2 == 0 else None,
            "tags": tags,
            "pinned": pinned,
            "pictures": pictures,
            "index": index,
        }
    return expected


def _bad_notes(root: Path) -> dict[str, str]:
    """Notes that must be skipped, with a word their reason must contain."""
    (root / "bad").mkdir()
    (root / "bad" / "yaml.md").write_text("---\ntags: [unclosed\n---\nbody\n", encoding="utf-8")
    (root / "bad" / "latin1.md").write_bytes("caf\xe9 #tag\n".encode("latin-1"))
    (root / "bad" / "escape.md").write_text("look ![x](../../outside.png)\n", encoding="utf-8")
    (root / "bad" / "missing.md").write_text("look ![[nowhere.png]]\n", encoding="utf-8")
    (root / "bad" / "pinned.md").write_text("---\npinned: maybe\n---\ntext\n", encoding="utf-8")
    limit = load_spec().document["components"]["schemas"]["MemoContent"]["maxLength"]
    (root / "bad" / "huge.md").write_text("x" * (limit + 1), encoding="utf-8")
    (root.parent / "outside.png").write_bytes(b"secret bytes")
    (root / "bad" / "link.png").symlink_to(root.parent / "outside.png")  # a link out is not "inside"
    (root / "bad" / "link.md").write_text("look ![x](link.png)\n", encoding="utf-8")
    return {
        "bad/yaml.md": "not valid YAML",
        "bad/latin1.md": "not UTF-8",
        "bad/escape.md": "outside the folder",
        "bad/missing.md": "not in the folder",
        "bad/link.md": "not in the folder",
        "bad/pinned.md": "pinned",
        "bad/huge.md": "over the memo limit",
    }


def _read(services: Services, user_id: str, operation: str, args: dict[str, Any]) -> dict[str, Any]:
    principal = Principal(user_id, SCOPES, "test", "pat")
    result: dict[str, Any] = invoke_sync(
        load_spec().operations[operation], args, principal=principal, services=services, trace_id="t", channel="api"
    )
    return result


def _memos(services: Services, user_id: str) -> list[dict[str, Any]]:
    return list(memo_store.all_memos(services.items, user_id))


def _check(services: Services, user_id: str, expected: dict[str, dict[str, Any]]) -> None:
    memos = {memo["id"]: memo for memo in _memos(services, user_id)}
    assert len(memos) == FILES
    by_index = {}
    for memo in memos.values():
        match = re.match(r"Note (\d+) ", memo["content"])
        assert match, memo["content"]
        by_index[int(match.group(1))] = memo
    from mesq.kernel.timestamps import normalize_timestamp

    for _path, want in expected.items():
        memo = by_index[want["index"]]
        assert memo["createdAt"] == normalize_timestamp(want["created"], "created")
        assert memo["updatedAt"] == (want["updated"] or memo["createdAt"])
        assert memo["tags"] == want["tags"], memo["content"]
        assert memo["pinned"] is want["pinned"]
        assert memo["contentSource"] == "markdown"
        got = {resource["displayName"]: resource for resource in memo["resources"]}
        assert set(got) == set(want["pictures"])
        for name, data in want["pictures"].items():
            assert got[name]["fileSize"] == len(data)
            assert services.blobs.get(got[name]["path"]) == data  # bytes equal
            assert got[name]["type"] == "image"
    # Counters and tag counters moved with the writes (the domain write path, not raw records).
    counts = memo_store.read_stats(services.items, user_id)
    assert counts["normal"] == FILES
    assert counts["pinned"] == sum(want["pinned"] for want in expected.values())
    tag_counts = memo_store.read_tag_counts(services.items, user_id)
    assert tag_counts["topic"] == FILES
    assert tag_counts["reading"] == sum("reading" in want["tags"] for want in expected.values())
    # The operations read them like any memo: a pinned-only tag filter through list_memos.
    listed = _read(services, user_id, "list_memos", {"tags": ["reading"], "pinned": True, "limit": 100})
    assert {memo["id"] for memo in listed["pinnedItems"] + listed["timelineItems"]} == {
        by_index[want["index"]]["id"] for want in expected.values() if want["pinned"] and "reading" in want["tags"]
    }


def _change_records(services: Services, user_id: str) -> int:
    return sum(1 for _ in walk(services.items, user_partition(user_id), prefix="CHANGE#"))


@pytest.fixture
def services(tmp_path: Path) -> Any:
    built = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    try:
        yield built
    finally:
        built.items.close()


def _user(services: Services, name: str = "alice") -> str:
    return str(create_user(services.items, name, "correct horse battery")["id"])


def _assert_failed(report: MarkdownReport, bad: dict[str, str]) -> None:
    reasons = {path: str(reason) for path, reason in report.failed}
    assert set(reasons) == set(bad), report.failed
    for path, word in bad.items():
        assert word in reasons[path], (path, reasons[path])


def test_a_thousand_notes_import_with_dates_tags_pins_and_attachments_once(tmp_path: Path, services: Any) -> None:
    root = tmp_path / "vault"
    expected = _vault(root)
    bad = _bad_notes(root)
    user_id = _user(services)

    report = import_markdown(services, user_id, root)
    assert (report.files, report.created, report.existing) == (FILES + len(bad), FILES, 0)
    assert report.attachments == sum(len(want["pictures"]) for want in expected.values())
    _assert_failed(report, bad)
    print(f"\nmarkdown import: {FILES} notes in {report.seconds:.2f}s, {report.per_second:.0f} files/s")
    _check(services, user_id, expected)
    assert _change_records(services, user_id) == FILES  # the history saw every create
    stored = [services.blobs.get(r["path"]) for memo in _memos(services, user_id) for r in memo["resources"]]
    assert b"secret bytes" not in stored

    again = import_markdown(services, user_id, root)
    assert (again.created, again.existing, again.attachments) == (0, FILES, 0)
    assert len(_memos(services, user_id)) == FILES
    usage = services.items.get((user_partition(user_id), "STATS#ATTACHMENTS"))
    assert usage is not None and int(usage["count"]) == report.attachments  # no orphan uploads


def test_a_zip_works_like_the_folder_and_through_the_command_line(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    notes = root / "Notes"
    notes.mkdir(parents=True)
    (notes / "a.md").write_text(
        "---\ncreated: 2021-03-04\ntags: idea, later\npinned: true\n---\nFirst #idea ![[pic one.png]]\n",
        encoding="utf-8",
    )
    (notes / "pic one.png").write_bytes(b"\x89PNG picture")
    (notes / "b.md").write_text(
        "![x](<pic one.png>) and ![y](pic%20one.png) #second `![z](not-here.png)`\n", encoding="utf-8"
    )
    (notes / "bad.md").write_text("---\n: [\n---\n", encoding="utf-8")
    archive = tmp_path / "vault.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(root.rglob("*")):
            zipped.write(path, path.relative_to(tmp_path).as_posix())
        zipped.writestr("../outside.png", b"secret")  # a member outside the ZIP's root is never read
        zipped.writestr("vault/Notes/escape.md", "![x](../../outside.png)")

    data_dir = tmp_path / "data"
    made = run_cli("user", "create", "bob", "--password-stdin", "--data-dir", str(data_dir), stdin="pw long enough\n")
    assert made.returncode == 0, made.stderr
    first = run_cli("import", "bob", "--markdown", str(archive), "--data-dir", str(data_dir))
    assert first.returncode == 1, first.stderr  # one note was skipped
    assert "mesq: skipped Notes/bad.md: front matter is not valid YAML" in first.stderr, first.stderr
    assert "mesq: skipped Notes/escape.md: image '../../outside.png' points outside the folder" in first.stderr
    assert "imported 2 of 4 Markdown files into bob: 2 new, 0 already there, 2 skipped; 2 attachments;" in first.stdout
    assert re.search(r"\d+ files/s\)", first.stdout)
    second = run_cli("import", "bob", "--markdown", str(archive), "--data-dir", str(data_dir))
    assert "imported 2 of 4 Markdown files into bob: 0 new, 2 already there, 2 skipped; 0 attachments;" in second.stdout

    services = build_services(inprocess_settings(data_dir=data_dir))
    try:
        from mesq.auth.users import find_user_by_name

        user_id = find_user_by_name(services.items, "bob")["userId"]
        memos = sorted(_memos(services, user_id), key=lambda memo: memo["content"])
        assert [memo["content"] for memo in memos] == [
            "![x](<pic one.png>) and ![y](pic%20one.png) #second `![z](not-here.png)`",
            "First #idea ![[pic one.png]]\n\n#later",
        ]
        b, a = memos
        assert a["createdAt"] == "2021-03-04T00:00:00.000000Z" and a["pinned"] is True
        assert a["tags"] == ["idea", "later"] and b["tags"] == ["second"]
        assert len(b["resources"]) == 1  # the same file twice is one attachment
        for memo in memos:
            assert services.blobs.get(memo["resources"][0]["path"]) == b"\x89PNG picture"
        # The ZIP's single top folder is stripped: the folder itself gives the same paths and ids.
        report = import_markdown(services, user_id, root)
        assert (report.created, report.existing, len(report.failed)) == (0, 2, 1)
    finally:
        services.items.close()

    neither = run_cli("import", "bob", "--data-dir", str(data_dir))
    assert neither.returncode == 1 and "either an archive FILE or --markdown" in neither.stderr
    not_zip = tmp_path / "notes.txt"
    not_zip.write_text("hello")
    refused = run_cli("import", "bob", "--markdown", str(not_zip), "--data-dir", str(data_dir))
    assert refused.returncode == 1 and "nothing imported: notes.txt: not a readable ZIP archive" in refused.stderr


def test_a_note_over_the_attachment_quota_is_skipped_and_gives_back_what_it_uploaded(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "small.png").write_bytes(b"s" * 60)
    (root / "big.png").write_bytes(b"b" * 60)
    (root / "fits.md").write_text("one ![](small.png)\n", encoding="utf-8")
    (root / "over.md").write_text("both ![](small.png) ![](big.png)\n", encoding="utf-8")  # 60 fits, then 120 > 70 left
    services = build_services(inprocess_settings(data_dir=tmp_path / "data", attachment_quota_bytes=130))
    try:
        user_id = _user(services)
        report = import_markdown(services, user_id, root)
        assert (report.created, report.attachments) == (1, 1)
        assert [path for path, _ in report.failed] == ["over.md"] and "quota" in str(report.failed[0][1])
        usage = services.items.get((user_partition(user_id), "STATS#ATTACHMENTS"))
        assert usage is not None and (int(usage["bytes"]), int(usage["count"])) == (60, 1)  # over.md's upload undone
        assert [memo["content"] for memo in _memos(services, user_id)] == ["one ![](small.png)"]
        stored = [path for path in (tmp_path / "data").rglob("*") if path.is_file() and path.stat().st_size == 60]
        assert [path.read_bytes() for path in stored] == [b"s" * 60]  # and its bytes deleted
    finally:
        services.items.close()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\ncreated: 2024-13-01\n---\nx", "a date that does not exist"),
        ("---\ncreated: 0001-01-01T00:30:00+01:00\n---\nx", "outside 0001..9999"),
        ("---\na: " + "[" * 3000 + "\n---\nx", "depth cap"),
        ("---\ncreated: !!python/object/apply:os.system [ls]\n---\nx", "not valid YAML"),
        ("---\n- a list\n---\nx", "must be a mapping"),
        ("---\ncreated: soon\n---\nx", "not an ISO 8601"),
        ("---\ntags: [a, 'b c']\n---\nx", "not a valid tag"),
        ("---\ntags: x\nno end\n", "no closing"),
        ("---\n---\n", "empty"),
    ],
)
def test_a_bad_note_is_one_line_of_reason(text: str, reason: str) -> None:
    with pytest.raises(NoteError, match=reason):
        parse_note("u", "a.md", text.encode(), {}, 50)


def test_windows_line_ends_a_bom_and_yaml_times() -> None:
    text = (
        "\ufeff---\r\ncreated: 2024-03-05 09:30\r\nupdated: 2024-03-05\r\ntags: '#a, b'\r\n...\r\nline\r\nnext #b\r\n"
    )
    note = parse_note("u", "a.md", text.encode(), {}, 50)
    assert note.content == "line\nnext #b\n\n#a"
    assert note.created == "2024-03-05T09:30:00.000000Z" and note.updated == "2024-03-05T00:00:00.000000Z"


def test_a_date_or_a_time_without_a_zone_is_the_persons(tmp_path: Path, services: Any) -> None:
    """`created: 2024-03-05` written by someone in St. John's is that day there (03:30Z), and
    `2024-03-05 09:30` is 09:30 there: read as UTC they were 4 March 20:30 and 06:00 on the
    timeline. The account's own zone, else the one the caller names (Settings → Import: the page's),
    else UTC as before; a time with its own offset keeps it."""
    user_id = _user(services)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "day.md").write_text("---\ncreated: 2024-03-05\n---\nA day\n", encoding="utf-8")
    (tmp_path / "notes" / "time.md").write_text("---\ncreated: 2024-03-05 09:30\n---\nA time\n", encoding="utf-8")
    (tmp_path / "notes" / "zoned.md").write_text(
        "---\ncreated: 2024-03-05T09:30:00+08:00\n---\nZoned\n", encoding="utf-8"
    )
    set_zone(services.items, user_id, "America/St_Johns")
    assert import_markdown(services, user_id, tmp_path / "notes").created == 3
    created = {memo["content"].strip(): memo["createdAt"] for memo in _memos(services, user_id)}
    assert created == {
        "A day": "2024-03-05T03:30:00.000000Z",
        "A time": "2024-03-05T13:00:00.000000Z",
        "Zoned": "2024-03-05T01:30:00.000000Z",
    }
    other = _user(services, "bob")  # no zone of its own: the caller's (a page's) zone
    import_markdown(services, other, tmp_path / "notes", zone="Asia/Kathmandu")
    created = {memo["content"].strip(): memo["createdAt"] for memo in _memos(services, other)}
    assert created["A day"] == "2024-03-04T18:15:00.000000Z"
