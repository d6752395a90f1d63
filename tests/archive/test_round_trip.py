"""Export -> import into a fresh instance -> export again gives equal record sets and
byte-equal attachments, on SQLite + local blobs and on DynamoDB (moto, DynamoDB Local) + moto S3;
a second import creates nothing; a bad archive changes nothing and names its first bad line;
secrets never leave."""

from __future__ import annotations

import base64
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.application.invocation import invoke_sync
from mesq.archive.exporter import export_account
from mesq.archive.format import MANIFEST, RECORDS, ArchiveError
from mesq.archive.importer import import_account
from mesq.auth.tokens import create_token
from mesq.auth.user_zone import set_zone
from mesq.auth.users import create_user
from mesq.kernel.context import Principal
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import BlobStore, ItemStore
from mesq.kernel.spec import load_spec
from mesq.reading.importer import import_snapshots, parse_document
from mesq.store.paging import walk
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from ..contract.blob_fixtures import fake_aws, s3_store  # noqa: F401
from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint, moto, moto_env  # noqa: F401
from ..reading.export_files import export as reading_export

BACKENDS = ["sqlite", "moto", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)]
SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})
PICTURE = bytes(range(256)) * 40
PLAN = b"%PDF-1.4 plan " + bytes(range(255, -1, -1)) * 8


def _sqlite_pair(tmp_path: Path, name: str) -> tuple[ItemStore, BlobStore]:
    return SQLiteItemStore(tmp_path / f"{name}.db"), LocalBlobStore(tmp_path / f"{name}-blobs")


@pytest.fixture(params=BACKENDS)
def backends(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any, Any]]:
    """(source items, source blobs, target items, target blobs): two separate instances."""
    if request.param == "sqlite":
        source, target = _sqlite_pair(tmp_path, "a"), _sqlite_pair(tmp_path, "b")
        yield (*source, *target)
        return
    items: ItemStore = request.getfixturevalue(request.param)
    blobs = request.getfixturevalue("s3_store")
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    other = DynamoDBItemStore(items.table_name + "-b", client=items._client)  # type: ignore[attr-defined]
    other.create_table_if_missing()
    from mesq.adapters.store.blobs_s3 import S3BlobStore

    blobs.client.create_bucket(Bucket="mesq-archive-target")
    target_blobs = S3BlobStore("mesq-archive-target", client=blobs.client)
    yield items, blobs, other, target_blobs
    if request.param == "dynamodb_local":
        other._client.delete_table(TableName=other.table_name)


def caller(items: ItemStore, blobs: BlobStore, user_id: str) -> Any:
    services = Services(settings=inprocess_settings(), items=items, blobs=blobs)  # type: ignore[call-arg]
    principal = Principal(user_id=user_id, scopes=SCOPES, credential_id="pat:t", kind="pat", name="tester")
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        return invoke_sync(
            spec.operations[operation_id],
            arguments,
            principal=principal,
            services=services,
            trace_id="t",
            channel="api",
        )

    return call


def populate(items: ItemStore, blobs: BlobStore, username: str) -> str:
    user = create_user(items, username, "correct horse battery")
    create_token(items, user["id"], name="secret", scopes="memo:read")
    call = caller(items, blobs, user["id"])
    resource = call(
        "upload_memo_resource",
        displayName="cat.png",
        mimeType="image/png",
        content=base64.b64encode(PICTURE).decode(),
    )
    call(
        "create_memo",
        content="# 标题 #travel/japan with a picture",
        resources=[{k: resource[k] for k in ("path", "displayName", "mimeType", "fileSize", "type") if k in resource}],
    )
    call("create_memo", content="second #work", pinned=True)
    sheet = call("upload_todo_attachment", displayName="plan.pdf", mimeType="application/pdf",
                 content=base64.b64encode(PLAN).decode())  # fmt: skip
    task = call(
        "create_todo_task",
        title="Write the report",
        priority="high",
        due={"type": "date", "date": "2030-01-02"},
        attachments=[{"path": sheet["path"]}],
        tags=["紧急", "work/项目", "C++"],  # a tag's history is keyed by its name, not an ASCII id
    )
    call("create_todo_subtask", taskId=task["task"]["id"], title="outline")
    weekly = call("create_todo_task", title="water the plants", recurrence="FREQ=WEEKLY",
                  due={"type": "datetime", "at": "2030-01-07T09:00:00+08:00"})["task"]  # fmt: skip
    reminders = [{"type": "absolute", "at": "2030-01-07T08:30:00+08:00"}]
    call("set_todo_reminders", id=weekly["id"], expectedRevision=weekly["revision"], reminders=reminders)
    call("create_todo_inbox_item", title="call the bank")
    # A reading book with notes (the shelf is written by its import, not by a tool).
    import_snapshots(items, user["id"], parse_document(reading_export(books=1, notes=3)), "2030-01-01T00:00:00.000000Z")
    return str(user["id"])


def records(items: ItemStore, user_id: str) -> dict[str, dict[str, Any]]:
    """The exported kinds of a partition, owner-neutral (the user id replaced by `~`; a packed
    change record compared unpacked, since its packed text holds the owner's id compressed)."""
    from mesq.archive.format import exported, rehome
    from mesq.history.records import expanded

    return {  # the bare id too: the reminder index entry names its user
        item["sk"]: json.loads(json.dumps(rehome(expanded(item), user_id, "~")).replace(user_id, "~"))
        for item in walk(items, user_partition(user_id))
        if exported(item["sk"]) and not item["sk"].startswith("TODO#COUNT#TREE#")  # graph counts: re-seeded
    }


def archive_records(path: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(path) as archive:
        return [json.loads(line) for line in archive.read(RECORDS).splitlines()]


def test_round_trip_is_equal_and_idempotent(backends: tuple[Any, Any, Any, Any], tmp_path: Path) -> None:
    items, blobs, other_items, other_blobs = backends
    source = populate(items, blobs, "alice")
    first = tmp_path / "first.zip"
    report = export_account(items, blobs, source, first, "2030-01-01T00:00:00Z")
    assert report.blobs == 2 and report.records >= 8
    # The fixture reaches every carried family: shelf, recurrence, reminders, both attachment kinds.
    for kind in ("READ#BOOK", "READ#NOTE", "REMIND#TASK", "MEMOATT", "TODOATT", "CHANGE"):
        assert report.counts.get(kind), (kind, report.counts)
    assert any(r.get("recurrence") == "FREQ=WEEKLY" and r.get("reminders") for r in archive_records(first))

    target = create_user(other_items, "bob", "correct horse battery")["id"]
    imported = import_account(other_items, other_blobs, target, first)
    # counters and the reminder index are recomputed, not copied (they are still equal below)
    assert imported.created + imported.derived == report.records and imported.existing == 0
    assert records(other_items, target) == records(items, source)

    again = import_account(other_items, other_blobs, target, first)
    assert again.created == 0 and again.existing + again.derived == report.records
    assert records(other_items, target) == records(items, source)

    second = tmp_path / "second.zip"
    export_account(other_items, other_blobs, target, second, "2030-01-01T00:00:00Z")
    neutral = [json.dumps(rehome_any(r, source)) for r in archive_records(first) if not _graph_count(r)]
    assert neutral == [json.dumps(rehome_any(r, target)) for r in archive_records(second) if not _graph_count(r)]
    with zipfile.ZipFile(first) as one, zipfile.ZipFile(second) as two:
        blob_one = [n for n in one.namelist() if n.startswith("attachments/")]
        blob_two = [n for n in two.namelist() if n.startswith("attachments/")]
        assert len(blob_one) == len(blob_two) == 2 and blob_one == blob_two  # named alike (ids are kept)
        assert sorted(map(one.read, blob_one)) == sorted(map(two.read, blob_two)) == sorted([PICTURE, PLAN])
        # Every member but the records (which name the owner) is the same, byte for byte and in
        # the manifest: the attachments, the memo pages and their checksums, sizes and types.
        files_one, files_two = (json.loads(z.read(MANIFEST))["files"] for z in (one, two))
        assert sorted(one.namelist()) == sorted(two.namelist())
        files_one.pop(RECORDS), files_two.pop(RECORDS)
        assert files_one == files_two
        assert all(one.read(n) == two.read(n) for n in one.namelist() if n not in (RECORDS, MANIFEST))


def _graph_count(record: dict[str, Any]) -> bool:
    """The graph counts an import leaves to be counted again (archive/counters.py)."""
    return str(record["sk"]).startswith("TODO#COUNT#TREE#")


def rehome_any(item: dict[str, Any], user_id: str) -> dict[str, Any]:
    from mesq.archive.format import rehome

    result: dict[str, Any] = json.loads(json.dumps(rehome(item, user_id, "~")).replace(user_id, "~"))
    return result


def test_secrets_never_leave_and_memos_are_markdown(tmp_path: Path) -> None:
    items, blobs = _sqlite_pair(tmp_path, "a")
    source = populate(items, blobs, "alice")
    out = tmp_path / "a.zip"
    export_account(items, blobs, source, out, "2030-01-01T00:00:00Z")
    with zipfile.ZipFile(out) as archive:
        kinds = {record["sk"].partition("#")[0] for record in archive_records(out)}
        assert "PAT" not in kinds and "PROFILE" not in kinds and "IDEM" not in kinds
        pages = [name for name in archive.namelist() if name.startswith("memos/")]
        assert len(pages) == 2
        texts = [archive.read(name).decode() for name in pages]
        assert any("pinned: true" in text and '"work"' in text for text in texts)
        assert any("# 标题" in text for text in texts)
        manifest = json.loads(archive.read(MANIFEST))
        assert set(manifest["files"]) == set(archive.namelist()) - {MANIFEST}


def test_memo_pages_give_times_in_the_accounts_own_zone(tmp_path: Path) -> None:
    """The Markdown pages are for people: a memo written at 04:13 on 7 December in Kiritimati
    (14:13Z on the 6th) says 2026-12-07T04:13...+14:00 there, the same instant, not the UTC day
    before; an account without a zone keeps UTC's `Z`. records.jsonl keeps the stored UTC form."""
    items, blobs = _sqlite_pair(tmp_path, "a")
    source = populate(items, blobs, "alice")
    for item in walk(items, user_partition(source), prefix="MEMO#"):
        items.put({**item, "createdAt": "2026-12-06T14:13:15.773071Z", "updatedAt": "2026-12-06T14:20:00.000000Z"})

    def pages(name: str) -> tuple[list[str], str]:
        out = tmp_path / name
        export_account(items, blobs, source, out, "2030-01-01T00:00:00Z")
        with zipfile.ZipFile(out) as archive:
            texts = [archive.read(page).decode() for page in archive.namelist() if page.startswith("memos/")]
            return texts, archive.read(RECORDS).decode()

    texts, _ = pages("utc.zip")
    assert all('created: "2026-12-06T14:13:15.773071Z"' in text for text in texts)
    set_zone(items, source, "Pacific/Kiritimati")
    texts, records_text = pages("kiritimati.zip")
    assert texts and all('created: "2026-12-07T04:13:15.773071+14:00"' in text for text in texts)
    assert all('updated: "2026-12-07T04:20:00+14:00"' in text for text in texts)
    assert '"createdAt":"2026-12-06T14:13:15.773071Z"' in records_text


def _rewrite(path: Path, out: Path, change: Any) -> None:
    """A copy of the archive with `records.jsonl` changed and the manifest's checksum updated
    (so only the record check can catch it)."""
    import hashlib

    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        manifest = json.loads(source.read(MANIFEST))
        lines = change(source.read(RECORDS).splitlines())
        body = b"\n".join(lines) + b"\n"
        manifest["files"][RECORDS]["sha256"] = hashlib.sha256(body).hexdigest()
        for name in source.namelist():
            if name not in (MANIFEST, RECORDS):
                target.writestr(name, source.read(name))
        target.writestr(RECORDS, body)
        target.writestr(MANIFEST, json.dumps(manifest))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda lines: [*lines[:3], b"{not json", *lines[3:]], "records.jsonl line 4: not JSON"),
        # A field nested past the parser's stack, and one past the cap but parseable: one line, no RecursionError.
        (
            lambda lines: [*lines[:3], b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}", *lines[3:]],
            "records.jsonl line 4: nested deeper than 64 levels",
        ),
        (
            lambda lines: [*lines[:1], lines[1][:-1] + b',"x":' + b"[" * 70 + b"]" * 70 + b"}", *lines[2:]],
            "records.jsonl line 2: nested deeper than 64 levels",
        ),
        (lambda lines: [*lines, lines[0]], r"out of order: an? [a-z ]+ \(an archive lists each record once"),
        (lambda lines: [*lines, b'{"pk":"U#someone-else","sk":"MEMO#x"}'], "a record of another account"),
        (
            lambda lines: [*lines[:1], lines[1].replace(b'"sk":"', b'"sk":"PAT#'), *lines[2:]],
            "a kind of record an archive does not carry",
        ),
    ],
)
def test_a_bad_archive_writes_nothing(tmp_path: Path, change: Any, message: str) -> None:
    items, blobs = _sqlite_pair(tmp_path, "a")
    source = populate(items, blobs, "alice")
    good, bad = tmp_path / "good.zip", tmp_path / "bad.zip"
    export_account(items, blobs, source, good, "2030-01-01T00:00:00Z")
    _rewrite(good, bad, change)
    other_items, other_blobs = _sqlite_pair(tmp_path, "b")
    target = create_user(other_items, "bob", "correct horse battery")["id"]
    with pytest.raises(ArchiveError, match=message) as refused:
        import_account(other_items, other_blobs, target, bad)
    assert not re.search(r"[A-Z]+#", refused.value.message)  # never a storage key (issue 41)
    assert records(other_items, target) == {}
    assert not (tmp_path / "b-blobs").exists() or not any((tmp_path / "b-blobs").rglob("*.*"))


def test_a_tampered_file_fails_its_checksum(tmp_path: Path) -> None:
    items, blobs = _sqlite_pair(tmp_path, "a")
    source = populate(items, blobs, "alice")
    good, bad = tmp_path / "good.zip", tmp_path / "bad.zip"
    export_account(items, blobs, source, good, "2030-01-01T00:00:00Z")
    with zipfile.ZipFile(good) as archive, zipfile.ZipFile(bad, "w") as target:
        for name in archive.namelist():
            data = archive.read(name)
            target.writestr(name, data + b"x" if name.startswith("attachments/") else data)
    other_items, other_blobs = _sqlite_pair(tmp_path, "b")
    target_id = create_user(other_items, "bob", "correct horse battery")["id"]
    with pytest.raises(ArchiveError, match=r"checksum does not match|bytes in the archive, not"):
        import_account(other_items, other_blobs, target_id, bad)
    assert records(other_items, target_id) == {}


def test_the_manifest_written_an_entry_at_a_time_is_the_whole_documents_json() -> None:
    import io

    from mesq.archive.exporter import _write_manifest

    head = {"format": "mesq-archive", "version": 1, "owner": 'u\u00e9"1', "counts": {"MEMO": 2}}
    files = {
        "records.jsonl": ("ab" * 32, 10, None),
        'blobs/a "b".png': ("cd" * 32, 3, "image/png"),
        "memos/m.md": ("ef" * 32, 0, None),
    }
    written = io.BytesIO()
    _write_manifest(written, head, files)
    expected = {
        **head,
        "files": {
            "records.jsonl": {"sha256": "ab" * 32, "bytes": 10},
            'blobs/a "b".png': {"sha256": "cd" * 32, "bytes": 3, "contentType": "image/png"},
            "memos/m.md": {"sha256": "ef" * 32, "bytes": 0},
        },
    }
    assert json.loads(written.getvalue()) == expected
    _write_manifest(empty := io.BytesIO(), {"format": "f"}, {})
    assert json.loads(empty.getvalue()) == {"format": "f", "files": {}}


def test_an_imported_date_only_reminder_starts_its_day_in_the_accounts_zone(tmp_path: Path) -> None:
    """Sweep F7: the reminder index an import rebuilds reads a date-only due without a zone of its
    own in the account's zone (the archive's, for a new account), as the source's writes did."""
    items, blobs = _sqlite_pair(tmp_path, "a")
    other_items, other_blobs = _sqlite_pair(tmp_path, "b")
    source = str(create_user(items, "lin", "correct horse battery")["id"])
    call = caller(items, blobs, source)
    call("set_time_zone", timeZone="Asia/Shanghai")
    rent = call("create_todo_task", title="交房租", due={"type": "date", "date": "2030-01-03"})["task"]
    call("set_todo_reminders", id=rent["id"], expectedRevision=rent["revision"],
         reminders=[{"type": "relative", "offset": "PT9H"}])  # fmt: skip
    nine = "2030-01-03T01:00:00.000000Z"  # 09:00 in Shanghai
    assert [e["at"] for e in walk(items, user_partition(source), prefix="REMIND#TASK#")] == [nine]
    archive = tmp_path / "lin.zip"
    export_account(items, blobs, source, archive, "2030-01-01T00:00:00Z")
    target = str(create_user(other_items, "wei", "correct horse battery")["id"])
    import_account(other_items, other_blobs, target, archive)
    assert [e["at"] for e in walk(other_items, user_partition(target), prefix="REMIND#TASK#")] == [nine]
