"""A file the server cannot read through (an OSError: a folder where a CSV should be, a memos
attachment it may not open) is refused with one line in MeSQ's words, nothing written; the
OSError's own text and the server's paths are only in `SourceError.detail`, for the log."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mesq.auth.users import create_user
from mesq.imports.plan import SourceError
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .checks import records
from .exports import memos_database


def test_a_folder_named_like_a_csv_is_refused_in_mesqs_words(services: Services, tmp_path: Path) -> None:
    export = tmp_path / "todoist"
    (export / "Home [1].csv").mkdir(parents=True)  # read as a file: IsADirectoryError, once a 500
    user = create_user(services.items, "reader", "correct horse battery")
    before = records(services, user["id"])
    with pytest.raises(SourceError) as refused:
        import_file(services, user["id"], "todoist", export)
    assert refused.value.message == (
        "todoist could not be read to its end; check that it is the app's export, whole, and import it again"
    )
    assert "IsADirectoryError" in refused.value.detail and str(tmp_path) not in refused.value.message
    assert records(services, user["id"]) == before


def test_an_attachment_the_server_may_not_open_is_named_by_its_reference(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memos_database(tmp_path / "memos", "latest", count=20)  # memo 5 has the local file assets/5_scan.jpg
    real_open = os.open

    def refusing_open(path: Any, flags: int, *args: Any) -> int:
        if str(path).endswith("5_scan.jpg"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing_open)  # the adapter opens local files with os.open
    user = create_user(services.items, "reader", "correct horse battery")
    with pytest.raises(SourceError) as refused:
        import_file(services, user["id"], "memos", tmp_path / "memos", options=ImportOptions(memos_user="alice"))
    message = refused.value.message
    assert message.startswith("attachment file '") and "5_scan.jpg' cannot be read; check that MeSQ may read" in message
    assert "Permission denied" not in message and str(tmp_path) not in message
    assert "Permission denied" in refused.value.detail
