"""One composition root (mesq/wiring/services.py): every adapter is picked and built there, once per
process. Outside it only the adapters themselves make a boto3 client or a sealer, and the
kernel's `kernel/context.py` knows neither the configuration nor the search package."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from mesq.wiring.services import Services, build_services
from tests.architecture.test_import_direction import PACKAGE, imported_modules
from tests.settings import inprocess_settings

#: The adapter modules that wrap an AWS client (each makes its own, lazily or at init).
CLIENT_ADAPTERS = {
    "adapters/sealing/kms.py",
    "adapters/models/bedrock.py",
    "adapters/store/blobs_s3.py",
    "adapters/store/dynamodb.py",
    "adapters/reading/queue_sqs.py",
    "adapters/search/queue_sqs.py",
}
PATTERN = r"build_sealer\|boto3.client"


def test_build_sealer_and_boto3_clients_only_in_the_composition_root_and_the_adapters():
    """The Done-when grep, verbatim: `grep -rn "build_sealer\\|boto3.client" layers/core/mesq`."""
    found = subprocess.run(
        ["grep", "-rln", "--include=*.py", PATTERN, str(PACKAGE)], capture_output=True, text=True, check=False
    ).stdout.split()
    files = {Path(name).relative_to(PACKAGE).as_posix() for name in found}
    assert "wiring/services.py" in files  # the grep sees what it is meant to see
    others = files - {"wiring/services.py"}
    assert others <= CLIENT_ADAPTERS, sorted(others - CLIENT_ADAPTERS)


def test_the_grep_catches_a_sealer_built_outside_the_root(tmp_path):
    """The check can fail: a module that builds its own sealer is named."""
    (tmp_path / "rogue.py").write_text("from .services import build_sealer\nsealer = build_sealer(s)\n")
    found = subprocess.run(["grep", "-rln", PATTERN, str(tmp_path)], capture_output=True, text=True, check=False)
    assert found.stdout.strip().endswith("rogue.py")


def test_context_imports_neither_config_nor_search():
    imported = set(imported_modules(PACKAGE / "kernel" / "context.py"))
    assert imported, "the checker read nothing"
    assert not {name for name in imported if re.match(r"mesq\.(wiring|search)(\.|$)", name)}


def test_each_adapter_is_built_once_per_process(tmp_path):
    services = build_services(inprocess_settings(data_dir=tmp_path))
    assert isinstance(services, Services)
    assert services.sealer is services.sealer  # one sealer, not one per request or job run
    assert services.reading_queue is None  # `mesq serve`: a sync runs in place
    queued = Services(services.settings.with_overrides(reading_sync_queue_url="https://sqs.example/q"),
                      services.items, services.blobs)  # fmt: skip
    assert queued.reading_queue is not None and queued.reading_queue is queued.reading_queue
