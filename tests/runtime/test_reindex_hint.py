"""The reindex hint after `mesq import` (issue 41): only when the import left an AI index behind
(one existed before it, and nothing else keeps it in step), with a command that runs as printed."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from mesq.auth.users import create_user
from mesq.kernel.keys import user_partition
from mesq.runtime.cli.reindex_hint import reindex_hint
from mesq.search.persist import POINTER_SK
from mesq.wiring.services import build_services
from tests.conftest import run_cli
from tests.settings import inprocess_settings


def test_no_hint_without_an_index_or_without_new_records_or_with_the_stream(tmp_path: Path) -> None:
    settings = inprocess_settings(data_dir=tmp_path)
    services = build_services(settings)
    try:
        user = create_user(services.items, "bob", "correct horse battery")["id"]
        assert reindex_hint(services.items, settings, user, "bob", created=3) is None  # first search builds it
        services.items.put({"pk": user_partition(user), "sk": POINTER_SK, "generation": 1})
        assert reindex_hint(services.items, settings, user, "bob", created=0) is None  # nothing new
        hint = reindex_hint(services.items, settings, user, "bob", created=3)
        assert hint is not None and f"search reindex bob --data-dir {tmp_path}`" in hint
        on_aws = settings.with_overrides(storage="dynamodb")  # the table's stream feeds the indexer
        assert reindex_hint(services.items, on_aws, user, "bob", created=3) is None
        local = settings.with_overrides(storage="dynamodb", dynamodb_endpoint="http://127.0.0.1:8000")
        assert "--storage dynamodb`" in (reindex_hint(services.items, local, user, "bob", created=3) or "")
    finally:
        services.items.close()


def test_the_printed_command_runs(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("刚读完《三体》#读书\n", encoding="utf-8")
    made = run_cli("user", "create", "bob", "--password-stdin", "--data-dir", str(tmp_path / "data"),
                   stdin="correct horse battery\n")  # fmt: skip
    assert made.returncode == 0, made.stderr
    indexed = run_cli("search", "reindex", "bob", "--data-dir", str(tmp_path / "data"))  # bob has an index now
    assert indexed.returncode == 0, indexed.stderr
    imported = run_cli("import", "bob", "--markdown", str(notes), "--data-dir", str(tmp_path / "data"))
    assert imported.returncode == 0, imported.stderr
    hint = imported.stdout.splitlines()[-1]
    command = hint.split("`")[1]
    assert command.split()[1:4] == ["search", "reindex", "bob"], hint
    argv = shlex.split(command)
    argv[0] = str(Path(sys.executable).with_name("mesq"))  # the printed path is relative to where it ran
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.startswith("indexed 1 documents"), done.stdout + done.stderr
