"""An account archive is a stranger's file too: the file names it carries (a memo's resources,
the attachment records) are taken as an upload would take them, without the invisible
text-direction characters that make a name read as another one ("invoice\\u202egpj.exe" shows as
"invoiceexe.jpg"), which an upload refuses (attachments/uploads.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.archive.exporter import export_account
from mesq.archive.importer import import_account
from mesq.attachments.uploads import BIDI_CONTROLS
from mesq.auth.users import create_user
from tests.support.archives import with_member_replaced

from .test_round_trip import populate, records

SPOOF = "\u202egpj.exe"


def _spoofed(value: Any) -> Any:
    """`value` with every `displayName` in it given a right-to-left override."""
    if isinstance(value, dict):
        return {k: (v + SPOOF if k == "displayName" else _spoofed(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_spoofed(v) for v in value]
    return value


def _spoofed_lines(data: bytes) -> bytes:
    spoofed = (json.dumps(_spoofed(json.loads(line)), ensure_ascii=False) for line in data.splitlines() if line)
    return "".join(line + "\n" for line in spoofed).encode()


def test_file_names_in_an_archive_lose_their_direction_controls(tmp_path: Path) -> None:
    source, source_blobs = SQLiteItemStore(tmp_path / "source.db"), LocalBlobStore(tmp_path / "source-blobs")
    alice = populate(source, source_blobs, "alice")
    exported = tmp_path / "alice.zip"
    export_account(source, source_blobs, alice, exported, "2026-12-03T00:00:00Z")
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(with_member_replaced(exported.read_bytes(), "records.jsonl", _spoofed_lines))

    items, blobs = SQLiteItemStore(tmp_path / "target.db"), LocalBlobStore(tmp_path / "target-blobs")
    bob = create_user(items, "bob", "correct horse battery")["id"]
    import_account(items, blobs, bob, hostile)
    # The records a person's pages read names from; change records keep the archive's words as
    # history (the activity page isolates each name it shows, web/history).
    kept = {sk: record for sk, record in records(items, bob).items() if not sk.startswith("CHANGE#")}
    names = [name for record in kept.values() for name in _names(record)]
    bad = {sk: _names(r) for sk, r in kept.items() if any(set(n) & set(BIDI_CONTROLS) for n in _names(r))}
    assert len(names) == 4 and not bad, bad
    assert any(name.endswith("gpj.exe") for name in names)  # the rest of each name is kept


def _names(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [str(v) for k, v in value.items() if k == "displayName"] + [n for v in value.values() for n in _names(v)]
    if isinstance(value, list):
        return [n for v in value for n in _names(v)]
    return []
