"""The account's language (Settings → Language) and time zone travel with its archive, in the
manifest's `account` (docs/archive.md), and an import sets each only where the importing account
has not set its own (decisions.md "preferences in an archive"). Before, the language was left
out, and an account's own zone was lost when an archive took the place of its untouched board."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.archive.exporter import export_account
from mesq.archive.format import MANIFEST, ArchiveError
from mesq.archive.importer import import_account
from mesq.auth.user_zone import configured_zone, set_zone
from mesq.auth.users import create_user, get_user, set_setting
from mesq.kernel.ports.storage import BlobStore, ItemStore

from .test_round_trip import caller, records

EXPORTED_AT = "2026-12-03T00:00:00Z"


def _source(tmp_path: Path, *, language: str = "zh", zone: str | None = "Asia/Shanghai") -> tuple[ItemStore, str]:
    items, blobs = SQLiteItemStore(tmp_path / "source.db"), LocalBlobStore(tmp_path / "source-blobs")
    alice = create_user(items, "alice", "correct horse battery")["id"]
    if language:
        set_setting(items, alice, "language", language)
    if zone:
        set_zone(items, alice, zone)
    caller(items, blobs, alice)("create_memo", content="hello #home")
    return items, alice


def _export(tmp_path: Path, items: ItemStore, user_id: str, scopes: list[str] | None = None) -> Path:
    archive = tmp_path / "alice.zip"
    export_account(items, LocalBlobStore(tmp_path / "source-blobs"), user_id, archive, EXPORTED_AT, scopes=scopes)
    return archive


def _target(tmp_path: Path) -> tuple[ItemStore, BlobStore, str]:
    items, blobs = SQLiteItemStore(tmp_path / "target.db"), LocalBlobStore(tmp_path / "target-blobs")
    return items, blobs, create_user(items, "bob", "correct horse battery")["id"]


def _language(items: ItemStore, user_id: str) -> str:
    return str((get_user(items, user_id) or {})["settings"]["language"])


def _manifest(archive: Path) -> dict[str, object]:
    with zipfile.ZipFile(archive) as opened:
        manifest: dict[str, object] = json.loads(opened.read(MANIFEST))
    return manifest


@pytest.mark.parametrize("scopes", [None, ["memo:read"], ["reading:read"]])
def test_every_export_carries_the_accounts_language_and_time_zone(tmp_path: Path, scopes: list[str] | None) -> None:
    items, alice = _source(tmp_path)
    assert _manifest(_export(tmp_path, items, alice, scopes))["account"] == {
        "language": "zh",
        "timeZone": "Asia/Shanghai",
    }


def test_an_account_that_set_neither_exports_neither(tmp_path: Path) -> None:
    items, alice = _source(tmp_path, language="", zone=None)
    assert "account" not in _manifest(_export(tmp_path, items, alice))


@pytest.mark.parametrize("scopes", [None, ["memo:read"]])
def test_an_import_into_an_account_that_set_neither_takes_the_archives(
    tmp_path: Path, scopes: list[str] | None
) -> None:
    source, alice = _source(tmp_path)
    archive = _export(tmp_path, source, alice, scopes)
    items, blobs, bob = _target(tmp_path)
    report = import_account(items, blobs, bob, archive)
    assert _language(items, bob) == "zh" and configured_zone(items, bob) == "Asia/Shanghai"
    assert report.preferences == {"language": "zh", "timeZone": "Asia/Shanghai"}
    again = import_account(items, blobs, bob, archive)  # the same archive again: nothing to take
    assert again.preferences == {}


@pytest.mark.parametrize("source_zone", ["Asia/Shanghai", None])
def test_an_import_keeps_the_language_and_time_zone_the_account_set(tmp_path: Path, source_zone: str | None) -> None:
    """With `source_zone=None` the archive has no todo settings: the account's own settings item
    (holding its zone) was the untouched board's, removed to make way, and the zone went with it."""
    source, alice = _source(tmp_path, zone=source_zone)
    archive = _export(tmp_path, source, alice)
    items, blobs, bob = _target(tmp_path)
    set_setting(items, bob, "language", "en")
    set_zone(items, bob, "Europe/Berlin")
    report = import_account(items, blobs, bob, archive)
    assert _language(items, bob) == "en" and configured_zone(items, bob) == "Europe/Berlin"
    assert report.preferences == {}
    assert caller(items, blobs, bob)("list_memos")["timelineItems"][0]["content"] == "hello #home"


def test_an_import_takes_only_what_the_account_has_not_set(tmp_path: Path) -> None:
    source, alice = _source(tmp_path)
    archive = _export(tmp_path, source, alice, ["memo:read"])
    items, blobs, bob = _target(tmp_path)
    set_zone(items, bob, "Europe/Berlin")
    report = import_account(items, blobs, bob, archive)
    assert _language(items, bob) == "zh" and configured_zone(items, bob) == "Europe/Berlin"
    assert report.preferences == {"language": "zh"}


def _with_manifest_account(tmp_path: Path, account: object) -> Path:
    """alice's archive with its manifest's `account` replaced by `account`."""
    source, alice = _source(tmp_path)
    archive = _export(tmp_path, source, alice)
    manifest = {**_manifest(archive), "account": account}
    edited = tmp_path / "edited.zip"
    with zipfile.ZipFile(archive) as original, zipfile.ZipFile(edited, "w") as copy:
        for member in original.namelist():
            copy.writestr(member, json.dumps(manifest).encode() if member == MANIFEST else original.read(member))
    return edited


@pytest.mark.parametrize(
    ("account", "said"),
    [
        ({"language": "fr"}, "account.language"),
        ({"language": 7}, "account.language"),
        ({"timeZone": "Mars/Olympus"}, "account.timeZone"),
        ({"timeZone": "x" * 500}, "account.timeZone"),
    ],
)
def test_a_manifest_with_a_bad_language_or_zone_is_refused_before_anything_is_written(
    tmp_path: Path, account: dict[str, object], said: str
) -> None:
    edited = _with_manifest_account(tmp_path, account)
    items, blobs, bob = _target(tmp_path)
    before = records(items, bob)
    with pytest.raises(ArchiveError, match=said):
        import_account(items, blobs, bob, edited)
    assert records(items, bob) == before and _language(items, bob) == ""


@pytest.mark.parametrize("account", [["zh"], "zh", {"language": ["zh"]}, {"timeZone": {"name": "Asia/Shanghai"}}])
def test_a_manifest_account_of_the_wrong_shape_is_refused(tmp_path: Path, account: object) -> None:
    edited = _with_manifest_account(tmp_path, account)
    items, blobs, bob = _target(tmp_path)
    with pytest.raises(ArchiveError, match="account"):
        import_account(items, blobs, bob, edited)
    assert _language(items, bob) == "" and configured_zone(items, bob) is None


def test_a_rerun_of_an_import_cut_short_keeps_the_zone_the_account_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run removed the untouched board (and the settings item holding the zone) before
    it was cut short: the rerun still knows the zone, from the journal."""
    from mesq.archive import importer
    from mesq.todos.writes import ensure_default_space

    source, alice = _source(tmp_path, zone=None)
    archive = _export(tmp_path, source, alice)
    items, blobs, bob = _target(tmp_path)
    set_zone(items, bob, "Europe/Berlin")
    ensure_default_space(items, bob, partial=True)

    def cut_short(*_: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(importer, "_write_records", cut_short)
        with pytest.raises(KeyboardInterrupt):
            import_account(items, blobs, bob, archive)
    assert configured_zone(items, bob) is None  # gone with the board, for now
    report = import_account(items, blobs, bob, archive)
    assert report.resumed and configured_zone(items, bob) == "Europe/Berlin"
    assert report.preferences == {"language": "zh"}
