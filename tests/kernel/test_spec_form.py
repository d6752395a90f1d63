"""The spec's built form (mesq/kernel/spec_form.py, `openapi.built.json`): the checked-in form is
of today's sources, it loads to exactly the spec a fresh parse of the YAML builds (every
operation, schema, raw route and the REST document), a cold start reads it without importing
PyYAML, and a spec whose sources changed is parsed, never served from a stale form."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from mesq.kernel import spec_form
from mesq.kernel.spec import load_spec, read_spec, read_spec_parsed

PACKAGE = resources.files("mesq")
REGENERATE = "the spec's sources changed: run `python -m mesq.kernel.spec_form` and commit openapi.built.json"


def test_the_checked_in_form_is_of_todays_sources_and_equals_a_fresh_parse() -> None:
    built = spec_form.read_form(PACKAGE)
    assert built is not None, REGENERATE
    parsed = read_spec_parsed(PACKAGE)
    assert built == parsed
    assert list(built.operations) == list(parsed.operations)  # the order too (tools/list, routes)
    assert built.rest_document == parsed.rest_document
    assert load_spec() == parsed


def test_a_cold_start_reads_the_form_without_yaml() -> None:
    probe = "import sys; from mesq.kernel.spec import load_spec; load_spec(); print('yaml' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"


def test_a_changed_source_is_parsed_not_served_stale(tmp_path: Path) -> None:
    copy = tmp_path / "mesq"
    shutil.copytree(Path(str(PACKAGE)), copy, ignore=shutil.ignore_patterns("*.py", "*.pyc", "__pycache__"))
    memos = copy / "memos" / "openapi.yaml"
    memos.write_text(memos.read_text(encoding="utf-8").replace("operationId: get_memo", "operationId: fetch_memo"))
    assert spec_form.read_form(copy) is None
    assert "fetch_memo" in read_spec(copy).operations and "get_memo" not in read_spec(copy).operations
    spec_form.write(copy)  # written again, the form is of the new sources
    again = spec_form.read_form(copy)
    assert again is not None and "fetch_memo" in again.operations
