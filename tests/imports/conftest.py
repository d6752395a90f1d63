"""The import tests' stores: SQLite with local files, and the official DynamoDB Local with S3 over
HTTP (a moto server on loopback)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.blobs_s3 import S3BlobStore, make_s3_client
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from ..contract.blob_fixtures import REGION, fake_session, moto_server, use_fake_aws  # noqa: F401
from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

STORES = ["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)]


@pytest.fixture(params=STORES)
def both_stores(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    if request.param == "sqlite":
        services = build_services(inprocess_settings(data_dir=tmp_path / "data"))
        yield services
        services.items.close()
        return
    items = request.getfixturevalue("dynamodb_local")
    server = request.getfixturevalue("moto_server")
    use_fake_aws(monkeypatch)
    bucket = f"mesq-imports-{uuid.uuid4().hex[:12]}"
    blobs = S3BlobStore(bucket, client=make_s3_client(server.url, REGION, fake_session()))
    blobs._client.create_bucket(Bucket=bucket)
    yield Services(settings=inprocess_settings(), items=items, blobs=blobs)  # type: ignore[call-arg]


def blob_names(services: Services) -> set[str]:
    blobs: Any = services.blobs
    if isinstance(blobs, LocalBlobStore):
        root: Path = blobs._root
        return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}
    listed = blobs._client.list_objects_v2(Bucket=blobs._bucket)
    return {entry["Key"] for entry in listed.get("Contents", [])}
