"""`x-mesq-raw` operations in the spec: kept out of the JSON routes and the MCP catalog, still in
the served document (with JSON success bodies wrapped in the envelope like every other)."""

from __future__ import annotations

import copy

import pytest

from mesq.kernel.spec import SpecError, build_spec, load_spec
from mesq.mcp.service import default_catalog

RAW = {
    "relay_memo_resource_upload", "download_memo_resource", "head_memo_resource",
    "relay_todo_attachment_upload", "download_todo_attachment", "head_todo_attachment",
    "export_account", "import_from_app",
}  # fmt: skip


def test_raw_operations_are_documented_not_generated():
    spec = load_spec()
    assert set(spec.raw_operations) == RAW
    assert not RAW & set(spec.operations) and not RAW & set(default_catalog().names)
    read = spec.raw_operations["head_memo_resource"]
    assert (read.method, read.path) == ("HEAD", "/api/toolkit/memo/resources/read")
    served = spec.rest_document["paths"]["/api/toolkit/memo/resources/upload"]["post"]["responses"]["201"]
    assert served["content"]["application/json"]["schema"]["required"] == ["data", "traceId"]
    binary = spec.rest_document["paths"]["/api/toolkit/memo/resources/read"]["get"]["responses"]["200"]
    # The attachment's own type is streamed, so the document promises any type, not octet-stream.
    assert binary["content"]["*/*"]["schema"]["format"] == "binary"


def _document() -> dict:
    return copy.deepcopy(load_spec().document)


def test_head_only_on_raw_operations():
    document = _document()
    get = copy.deepcopy(document["paths"]["/api/toolkit/memo"]["get"])
    document["paths"]["/api/toolkit/memo"]["head"] = {**get, "operationId": "head_memos"}
    with pytest.raises(SpecError, match="only raw operations declare HEAD"):
        build_spec(document)


def test_raw_operation_needs_a_unique_operation_id():
    document = _document()
    document["paths"]["/api/toolkit/memo/resources/read"]["head"]["operationId"] = "download_memo_resource"
    with pytest.raises(SpecError, match="duplicate operationId"):
        build_spec(document)
    del document["paths"]["/api/toolkit/memo/resources/read"]["head"]["operationId"]
    with pytest.raises(SpecError, match="has no operationId"):
        build_spec(document)


def test_attachment_settings_from_env():
    from mesq.wiring.config import ConfigError, Settings

    default = Settings.from_env({})
    assert (default.attachment_quota_bytes, default.mcp_read_cap_bytes) == (1024**3, 10 * 1024 * 1024)
    assert default.attachment_redirect_bytes is None
    assert Settings.from_env({"AWS_LAMBDA_FUNCTION_NAME": "f"}).attachment_redirect_bytes == 4 * 1024 * 1024
    assert (
        Settings.from_env(
            {"AWS_LAMBDA_FUNCTION_NAME": "f", "MESQ_ATTACHMENT_REDIRECT_BYTES": "off"}
        ).attachment_redirect_bytes
        is None
    )
    custom = Settings.from_env({"MESQ_ATTACHMENT_QUOTA_BYTES": "5", "MESQ_MCP_READ_CAP_BYTES": "7"})
    assert (custom.attachment_quota_bytes, custom.mcp_read_cap_bytes) == (5, 7)
    with pytest.raises(ConfigError, match="MESQ_ATTACHMENT_QUOTA_BYTES"):
        Settings.from_env({"MESQ_ATTACHMENT_QUOTA_BYTES": "lots"})
    with pytest.raises(ConfigError, match="MESQ_UPLOAD_SESSION_SECONDS"):
        Settings.from_env({"MESQ_UPLOAD_SESSION_SECONDS": "5"})
