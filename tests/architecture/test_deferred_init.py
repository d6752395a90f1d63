"""What a Lambda cold start leaves to first use, and `prepare_at_init` (SnapStart, provisioned
concurrency) builds at init instead: the S3 client and each MCP tool's listing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

import mesq.adapters.store.blobs_s3 as blobs_s3
import mesq.mcp.catalog as catalog_module
from mesq.adapters.store.deferred_blobs import DeferredBlobStore
from mesq.kernel.spec import load_spec
from mesq.mcp.catalog import build_catalog
from mesq.mcp.service import mcp_routes
from mesq.wiring.config import Settings
from mesq.wiring.services import build_blob_store, build_services


@pytest.fixture
def s3_clients_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    made: list[str] = []
    make = blobs_s3.make_s3_client

    def counting(*args: Any, **kwargs: Any) -> Any:
        made.append("s3")
        return make(*args, **kwargs)

    monkeypatch.setattr(blobs_s3, "make_s3_client", counting)
    return made


def test_the_s3_client_is_made_on_the_first_blob_call(s3_clients_made: list[str]) -> None:
    settings = Settings(storage="dynamodb", bucket="mesq-deferred")
    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="mesq-deferred")
        blobs = build_blob_store(settings)
        assert isinstance(blobs, DeferredBlobStore) and blobs.transport == "direct"
        assert s3_clients_made == []
        assert blobs.head("u/x/none") is None
        blobs.put("u/x/one", b"1", "text/plain")
        assert blobs.get("u/x/one") == b"1"
    assert s3_clients_made == ["s3"]  # once, on first use


def test_prepare_at_init_makes_the_s3_store_at_once(s3_clients_made: list[str]) -> None:
    with mock_aws():
        blobs = build_blob_store(Settings(storage="dynamodb", bucket="mesq-deferred", prepare_at_init=True))
    assert isinstance(blobs, blobs_s3.S3BlobStore) and s3_clients_made == ["s3"]


def test_a_missing_bucket_still_fails_at_start_up() -> None:
    with pytest.raises(ValueError, match="bucket is required"):
        build_blob_store(Settings(storage="dynamodb", bucket=""))


@pytest.mark.parametrize(
    ("env", "prepared"),
    [
        ({}, False),
        ({"AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand"}, False),
        ({"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"}, True),
        ({"AWS_LAMBDA_INITIALIZATION_TYPE": "provisioned-concurrency"}, True),
        ({"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start", "MESQ_PREPARE_AT_INIT": "false"}, False),
        ({"MESQ_PREPARE_AT_INIT": "true"}, True),
    ],
)
def test_prepare_at_init_follows_how_lambda_initializes(env: dict[str, str], prepared: bool) -> None:
    assert Settings.from_env(env).prepare_at_init is prepared


def test_tool_listings_are_built_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    lean = catalog_module.lean_output_schema
    monkeypatch.setattr(catalog_module, "lean_output_schema", lambda schema: built.append("x") or lean(schema))
    catalog = build_catalog(load_spec())
    assert built == []
    tool = catalog.get("get_memo")
    assert tool is not None and tool.tool.name == "get_memo" and tool.result_schema["oneOf"]
    assert tool.output_schema == tool.tool.output_schema and len(built) == 1
    catalog.prepare()
    assert len(built) == len(catalog.tools)  # every other tool once; get_memo not again


def test_mcp_routes_prepare_every_listing_when_init_is_ahead_of_requests(tmp_path: Path) -> None:
    services = build_services(Settings(data_dir=tmp_path, prepare_at_init=True))
    catalog = build_catalog(load_spec())
    mcp_routes(services, catalog)
    assert all("listing" in vars(tool) for tool in catalog.tools.values())
    lazy = build_catalog(load_spec())
    mcp_routes(build_services(Settings(data_dir=tmp_path / "lazy")), lazy)
    assert not any("listing" in vars(tool) for tool in lazy.tools.values())
