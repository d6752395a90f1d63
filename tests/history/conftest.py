"""The history tests' stores: SQLite, and the official DynamoDB Local (a fresh table per test)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.ports.storage import ItemStore

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

BACKENDS = ["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)]


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[SQLiteItemStore]:
    store = SQLiteItemStore(tmp_path / "items.db")
    yield store
    store.close()


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest) -> ItemStore:
    found: ItemStore = request.getfixturevalue(request.param)
    return found
