"""The catalog walk: every tool derived from openapi.yaml, checked the way a strict client and an
agent would see it; and construction failing fast on an inconsistent spec."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mesq.auth.scopes import ALL_SCOPES
from mesq.mcp.catalog import (
    TOOLSETS,
    CatalogError,
    build_catalog,
    envelope_schema,
    method_annotations,
)
from mesq.mcp.service import default_catalog
from mesq.mcp.visibility import resolve
from mesq.operations import REGISTRY
from mesq.spec import build_spec, load_spec

CATALOG = default_catalog()
SPEC = load_spec()
ALL = frozenset(ALL_SCOPES)


def test_every_exposed_operation_is_a_tool_in_spec_order():
    exposed = [op_id for op_id, op in SPEC.operations.items() if op.mcp.exposed]
    assert list(CATALOG.names) == exposed
    memo_ops = [op_id for op_id, op in SPEC.operations.items() if op.mcp.toolset == "memo"]
    assert set(memo_ops) <= set(CATALOG.names) and len(memo_ops) >= 11


@pytest.mark.parametrize("name", list(CATALOG.names))
def test_tool_contract(name: str):
    entry = CATALOG.tools[name]
    operation = SPEC.operations[name]
    tool = entry.tool.model_dump(by_alias=True, mode="json", exclude_none=True)

    # Input: valid 2020-12, flat (parameters and body fields top-level), closed.
    schema = tool["inputSchema"]
    Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert "body" not in schema["properties"] or "body" in operation.body_fields
    for parameter in operation.parameters:
        assert parameter.argument in schema["properties"]
    for field_name in operation.body_fields:
        assert field_name in schema["properties"]
    assert set(schema.get("required", [])) <= set(schema["properties"])

    # Output: the unified envelope around the operation's data schema.
    output = tool["outputSchema"]
    Draft202012Validator.check_schema(output)
    assert output["type"] == "object" and output["required"] == ["traceId"]
    assert set(output["properties"]) == {"data", "error", "traceId", "correlationId", "recoverData"}
    validator = Draft202012Validator(output)
    assert validator.is_valid({"data": {}, "traceId": "t"}) is False or not operation.data_schema.get("required")
    assert validator.is_valid({"error": {"code": "NOT_FOUND", "message": "m"}, "traceId": "t"})
    assert not validator.is_valid({"error": {"code": "X", "message": "m"}})  # traceId required
    assert not validator.is_valid({"error": {"code": "X", "message": "m"}, "traceId": "t", "extra": 1})
    assert not validator.is_valid({"traceId": "t"})  # neither data nor error

    # Annotations: the method rule, then x-mcp overrides; never contradicting the scopes.
    expected = {**method_annotations(operation.method), **operation.mcp.annotation_overrides}
    annotations = tool["annotations"]
    for key, value in expected.items():
        assert annotations[key] is value, (key, annotations)
    assert annotations["openWorldHint"] is False
    assert annotations["readOnlyHint"] is (not entry.is_write)
    if operation.method == "GET":
        assert annotations["readOnlyHint"] and annotations["idempotentHint"] and not annotations["destructiveHint"]
    if operation.method == "DELETE":
        assert annotations["destructiveHint"] and annotations["idempotentHint"]

    # Description: the operation's own text plus the scopes line; title from x-mcp.
    assert tool["description"].startswith(operation.description)
    assert " + ".join(operation.scopes) in tool["description"]
    assert tool["title"] == operation.mcp.title
    assert entry.toolset in TOOLSETS
    assert REGISTRY[name] is entry.function


def test_a_success_for_each_tool_needs_its_data_shape():
    # list_memos data needs pinnedItems, timelineItems, page: a bare {} is not a valid success.
    validator = Draft202012Validator(CATALOG.tools["list_memos"].output_schema)
    assert not validator.is_valid({"data": {}, "traceId": "t"})
    assert not validator.is_valid({"data": [], "traceId": "t"})


def test_recover_data_has_the_data_shape():
    output = CATALOG.tools["update_memo"].output_schema
    validator = Draft202012Validator(output)
    error = {"code": "REVISION_CONFLICT", "message": "m"}
    assert not validator.is_valid({"error": error, "traceId": "t", "recoverData": {"memo": {}}})
    assert validator.is_valid({"error": error, "traceId": "t"})


def test_read_only_connections_expose_no_write_tool():
    visibility = resolve(CATALOG, ALL, readonly_path=True, url_toolsets=None, headers={})
    assert visibility.visible
    for name in visibility.visible:
        entry = CATALOG.tools[name]
        assert not entry.is_write
        assert entry.tool.annotations is not None and entry.tool.annotations.read_only_hint is True
    writes = [name for name, entry in CATALOG.tools.items() if entry.is_write]
    assert writes and not set(writes) & set(visibility.visible)


# -- fail fast -------------------------------------------------------------------------------------


def spec_with(change: Any) -> Any:
    document = copy.deepcopy(SPEC.document)
    change(document)
    return build_spec(document)


def test_missing_operation_fails():
    with pytest.raises(CatalogError, match=r"no operation in openapi\.yaml for tool"):
        build_catalog(SPEC, names=["list_memos", "list_memos_typo"])


def test_duplicate_name_fails():
    with pytest.raises(CatalogError, match="duplicate tool name 'get_memo'"):
        build_catalog(SPEC, names=["get_memo", "list_memos", "get_memo"])


def test_missing_implementation_fails():
    registry = {name: fn for name, fn in REGISTRY.items() if name != "list_tags"}
    with pytest.raises(CatalogError, match="'list_tags' has no implementation"):
        build_catalog(SPEC, registry)


def test_unknown_toolset_fails():
    def change(document: dict[str, Any]) -> None:
        document["paths"]["/api/toolkit/memo/tags"]["get"]["x-mcp"]["toolset"] = "memos"

    with pytest.raises(CatalogError, match="unknown toolset 'memos'"):
        build_catalog(spec_with(change))


def test_annotations_contradicting_scopes_fail():
    def change(document: dict[str, Any]) -> None:
        document["paths"]["/api/toolkit/memo/{id}"]["patch"]["x-mcp"]["annotations"] = {"readOnlyHint": True}

    with pytest.raises(CatalogError, match="readOnlyHint=True contradicts its scopes"):
        build_catalog(spec_with(change))


def test_unknown_annotation_fails():
    def change(document: dict[str, Any]) -> None:
        document["paths"]["/api/toolkit/memo/tags"]["get"]["x-mcp"]["annotations"] = {"readonly": True}

    with pytest.raises(CatalogError, match="unknown x-mcp annotation 'readonly'"):
        build_catalog(spec_with(change))


def test_hidden_operations_are_not_tools():
    def change(document: dict[str, Any]) -> None:
        document["paths"]["/api/toolkit/memo/tags"]["get"]["x-mcp"]["expose"] = False

    assert "list_tags" not in build_catalog(spec_with(change)).names


def test_envelope_lifts_defs():
    data = {"$schema": "x", "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {}}}
    schema = envelope_schema(data, load_spec().error_schema)
    assert schema["$defs"] == {"A": {}}
    assert "$defs" not in schema["properties"]["data"] and "$schema" not in schema["properties"]["data"]
    assert data["$defs"] == {"A": {}}  # the operation's schema is left untouched
