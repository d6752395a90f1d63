"""The files of an export archive carry real dates (docs/archive.md): a person who unzips it sees
each memo's page dated when the memo last changed and the other files dated when the archive was
made, in their own zone, not 1 January 1980 (zipfile's default for a member opened by name, which
every file of an archive showed before)."""

from __future__ import annotations

import struct
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.archive.exporter import export_account
from mesq.auth.user_zone import set_zone
from mesq.auth.users import create_user

from .test_round_trip import caller, records

EXPORTED_AT = "2026-12-06T16:30:00.000000Z"  # 00:30 on 7 December in Shanghai, 11:30 on the 6th in New York
UNIX_TIME = 0x5455  # the extended-timestamp extra field (Info-ZIP): the modification time in Unix seconds


def _unix_time(info: zipfile.ZipInfo) -> int | None:
    extra = info.extra
    while len(extra) >= 4:
        kind, size = struct.unpack("<HH", extra[:4])
        if kind == UNIX_TIME and size >= 5 and extra[4] & 1:
            return int(struct.unpack("<i", extra[5:9])[0])
        extra = extra[4 + size :]
    return None


@pytest.mark.parametrize(
    ("zone", "made"),
    [
        ("Asia/Shanghai", (2026, 12, 7, 0, 30, 0)),
        ("America/New_York", (2026, 12, 6, 11, 30, 0)),
        (None, (2026, 12, 6, 16, 30, 0)),
    ],
)
def test_every_file_is_dated_in_the_accounts_zone(tmp_path: Path, zone: str | None, made: tuple[int, ...]) -> None:
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "blobs")
    alice = create_user(items, "alice", "correct horse battery")["id"]
    if zone:
        set_zone(items, alice, zone)
    memo = caller(items, blobs, alice)("create_memo", content="浇花 #家务")["memo"]
    archive = tmp_path / "alice.zip"
    export_account(items, blobs, alice, archive, EXPORTED_AT)
    updated = datetime.fromisoformat(memo["updatedAt"].replace("Z", "+00:00"))
    with zipfile.ZipFile(archive) as opened:
        infos = {info.filename: info for info in opened.infolist()}
        page = infos.pop(f"memos/{memo['id']}.md")
        local = updated.astimezone(ZoneInfo(zone) if zone else UTC)
        assert page.date_time == (local.year, local.month, local.day, local.hour, local.minute, local.second // 2 * 2)
        assert _unix_time(page) == int(updated.timestamp())
        assert page.compress_type == zipfile.ZIP_DEFLATED
        assert infos, "records and the manifest"
        for name, info in infos.items():
            assert info.date_time == made, name
            assert _unix_time(info) == int(datetime(2026, 12, 6, 16, 30, tzinfo=UTC).timestamp()), name
            assert info.compress_type == zipfile.ZIP_DEFLATED, name
    assert records(items, alice)  # the archive's source is untouched


def test_a_memo_older_than_a_zip_date_can_hold_is_dated_when_the_archive_was_made(tmp_path: Path) -> None:
    """A ZIP date starts in 1980: a memo an import dated 1970 gets the archive's date, not a wrapped one."""
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "blobs")
    alice = create_user(items, "alice", "correct horse battery")["id"]
    memo = caller(items, blobs, alice)("create_memo", content="old")["memo"]
    key = (f"U#{alice}", f"MEMO#{memo['id']}")
    stored = items.get(key)
    assert stored is not None
    items.put({**stored, "updatedAt": "1970-01-01T00:00:00.000000Z"})
    archive = tmp_path / "alice.zip"
    export_account(items, blobs, alice, archive, EXPORTED_AT)
    with zipfile.ZipFile(archive) as opened:
        page = opened.getinfo(f"memos/{memo['id']}.md")
    assert page.date_time == (2026, 12, 6, 16, 30, 0)
    assert _unix_time(page) == 0  # its own instant, which the extended timestamp holds


@pytest.mark.parametrize("updated", ["1979-06-01T12:00:00.000000Z", "1901-12-14T00:00:00.000000Z"])
def test_a_memo_from_before_1980_keeps_its_own_instant_for_unzip(tmp_path: Path, updated: str) -> None:
    """The DOS date cannot say 1979, but the extended timestamp can (1901 to 2038): unzip and
    7-Zip set a file's time from it, so the page unzips dated when the memo changed, not when
    the archive was made. The DOS date, all a file manager reading the zip itself has, stays the
    archive's."""
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "blobs")
    alice = create_user(items, "alice", "correct horse battery")["id"]
    set_zone(items, alice, "Asia/Kathmandu")
    memo = caller(items, blobs, alice)("create_memo", content="old")["memo"]
    key = (f"U#{alice}", f"MEMO#{memo['id']}")
    stored = items.get(key)
    assert stored is not None
    items.put({**stored, "updatedAt": updated})
    archive = tmp_path / "alice.zip"
    export_account(items, blobs, alice, archive, EXPORTED_AT)
    with zipfile.ZipFile(archive) as opened:
        page = opened.getinfo(f"memos/{memo['id']}.md")
    assert page.date_time == (2026, 12, 6, 22, 15, 0)  # 16:30 UTC on Kathmandu's clock (+05:45)
    assert _unix_time(page) == int(datetime.fromisoformat(updated.replace("Z", "+00:00")).timestamp())
