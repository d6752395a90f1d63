"""Fixtures for the ItemStore contract suite: one `store` per backend.

* `sqlite`: a SQLiteItemStore on a fresh file.
* `moto`: DynamoDBItemStore against moto's in-process `mock_aws` (fresh state per test).
* `dynamodb_local`: DynamoDBItemStore against the official DynamoDB Local (one process per
  session, started by infra/dynamodb_local.py; a fresh table per test). Without Java 17+ or
  npm these tests skip, except under CI=true where they fail. Set
  MESQ_DYNAMODB_LOCAL_ENDPOINT to use an already running DynamoDB Local instead.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.ports.storage import ItemStore

# The blob-store fixtures, registered for this folder (pytest finds fixtures by name here).
from .blob_fixtures import blob_store, fake_aws, moto_server, s3_store, served_blob_store, served_s3_store  # noqa: F401

REPO_ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["sqlite", "moto", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)]


def load_runner() -> ModuleType:
    name = "mesq_infra_dynamodb_local"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "infra" / "dynamodb_local.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _table_name() -> str:
    return f"mesq-contract-{uuid.uuid4().hex[:12]}"


def _isolate_aws_env(monkeypatch: pytest.MonkeyPatch, access_key: str, secret: str) -> None:
    """Fake credentials and region; no profile or config file of the machine leaks in."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[ItemStore]:
    store = SQLiteItemStore(tmp_path / "items.db")
    yield store
    store.close()


@pytest.fixture
def moto_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto's in-process AWS (fresh state) with fake credentials in us-east-1."""
    from moto import mock_aws

    _isolate_aws_env(monkeypatch, "testing", "testing")
    with mock_aws():
        yield


_sessions: dict[str, Any] = {}


def _shared_session(name: str, **kwargs: str) -> Any:
    """One boto3 Session per backend for the whole run: a new one costs ~0.2 s of model
    loading, which would dominate these tests. (test_store_builds_its_own_client covers the
    adapter's own client construction.)"""
    import boto3

    if name not in _sessions:
        _sessions[name] = boto3.session.Session(**kwargs)
    return _sessions[name]


def _client(session: Any, endpoint_url: str | None = None) -> Any:
    from mesq.adapters.store.dynamodb import _default_config

    return session.client("dynamodb", endpoint_url=endpoint_url, config=_default_config())


@pytest.fixture
def moto(moto_env: None) -> Iterator[ItemStore]:
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    session = _shared_session(
        "moto", aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    store = DynamoDBItemStore(_table_name(), client=_client(session))
    store.create_table_if_missing()
    yield store
    store.close()


@pytest.fixture(scope="session")
def dynamodb_local_endpoint() -> Iterator[str]:
    existing = os.environ.get("MESQ_DYNAMODB_LOCAL_ENDPOINT")
    if existing:
        yield existing
        return
    runner = load_runner()
    try:
        server = runner.start_dynamodb_local()
    except runner.DynamoDBLocalUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"DynamoDB Local is required in CI: {exc}")
        pytest.skip(f"DynamoDB Local unavailable: {exc}")
    with server:
        yield server.endpoint


@pytest.fixture
def dynamodb_local_env(dynamodb_local_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The endpoint of DynamoDB Local, with credentials it accepts in the environment."""
    runner = load_runner()
    _isolate_aws_env(monkeypatch, runner.ACCESS_KEY_ID, runner.SECRET_ACCESS_KEY)
    return dynamodb_local_endpoint


@pytest.fixture
def dynamodb_local(dynamodb_local_endpoint: str) -> Iterator[ItemStore]:
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    runner = load_runner()
    session = _shared_session(
        "dynamodb_local",
        aws_access_key_id=runner.ACCESS_KEY_ID,
        aws_secret_access_key=runner.SECRET_ACCESS_KEY,
        region_name=runner.REGION,
    )
    store = DynamoDBItemStore(_table_name(), client=_client(session, dynamodb_local_endpoint))
    store.create_table_if_missing()
    yield store
    store.close()
    store._client.delete_table(TableName=store.table_name)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest) -> Any:
    """The ItemStore under test, once per backend."""
    return request.getfixturevalue(request.param)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Name of the backend of the current `store` parametrization."""
    return str(request.node.callspec.params["store"])
