"""The catalog walk: every tool derived from openapi.yaml, checked the way a strict client and an
agent would see it; and construction failing fast on an inconsistent spec."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mesq.application.invocation import REGISTRY
from mesq.auth.scopes import ALL_SCOPES
from mesq.kernel.spec import build_spec, load_spec
from mesq.mcp.catalog import (
    TOOLSETS,
    CatalogError,
    build_catalog,
    envelope_schema,
    method_annotations,
)
from mesq.mcp.code.tools import listed_tools
from mesq.mcp.lean import LISTED_DEPTH, SERVER_ONLY_KEYWORDS, drop_implied_types, open_objects, strip_input_only
from mesq.mcp.service import default_catalog
from mesq.mcp.visibility import resolve

CATALOG = default_catalog()
SPEC = load_spec()
ALL = frozenset(ALL_SCOPES)


_FIELDS = re.compile(r"\^\(\?:(.+)\)\$")


def _ungrouped(node: dict[str, Any]) -> dict[str, Any]:
    """Fields declared once for several names (`lean.group_same_fields`: `^(?:a|b)$`) listed one
    by one again, as `properties`."""
    patterns = node.get("patternProperties")
    if not isinstance(patterns, dict):
        return node
    fields = dict(node.get("properties", {}))
    kept = {}
    for pattern, sub in patterns.items():
        names = _FIELDS.fullmatch(pattern)
        if names is None:
            kept[pattern] = sub
            continue
        for name in names[1].split("|"):
            fields[re.sub(r"\\(.)", r"\1", name)] = sub
    result = {key: value for key, value in node.items() if key != "patternProperties"}
    result["properties"] = fields
    if kept:
        result["patternProperties"] = kept
    return result


def dereference(schema: dict[str, Any]) -> Any:
    """`schema` with every `#/$defs/...` pointer replaced by its target (a pointer back into its
    own path becomes a marker), `allOf` parts merged into their record, fields declared once for
    several names listed one by one, `required` sorted, and without `$defs`/`$schema`: two
    schemas that differ only in how they share their parts come out equal."""
    defs = schema.get("$defs", {})

    def walk(node: Any, path: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, path) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = ref.removeprefix("#/$defs/")
            return {"$cycle": True} if target in path else walk(defs[target], (*path, target))
        result = {key: walk(value, path) for key, value in node.items() if key not in ("$defs", "$schema", "allOf")}
        for part in walk(node.get("allOf", []), path):  # shared fields: merged back into the record
            result["properties"] = {**part.get("properties", {}), **result.get("properties", {})}
            if required := [*part.get("required", []), *result.get("required", [])]:
                result["required"] = required
        if "required" in result and isinstance(result["required"], list):
            result["required"] = sorted(result["required"])
        return _ungrouped(result)

    return walk(schema, ())


def without_server_keywords(schema: Any) -> Any:
    """`schema` without SERVER_ONLY_KEYWORDS (a property named like one, e.g. `maxItems`, stays)."""
    if isinstance(schema, list):
        return [without_server_keywords(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: (
            {name: without_server_keywords(sub) for name, sub in value.items()}
            if key in ("properties", "$defs")
            else without_server_keywords(value)
        )
        for key, value in schema.items()
        if key not in SERVER_ONLY_KEYWORDS
    }


def without_required(schema: Any) -> Any:
    """`schema` without `required` at any depth (a property named `required` stays)."""
    if isinstance(schema, list):
        return [without_required(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: (
            {name: without_required(sub) for name, sub in value.items()}
            if key in ("properties", "$defs")
            else without_required(value)
        )
        for key, value in schema.items()
        if key != "required"
    }


def shape_only(schema: dict[str, Any]) -> Any:
    """What an output schema keeps of a data schema: no input-only keywords, open objects."""
    return open_objects(drop_implied_types(strip_input_only(schema)))


def json_types(node: Any) -> list[str] | None:
    """The JSON types a dereferenced subschema allows (`type`, or its `anyOf` / `oneOf` branches'), null last."""
    if not isinstance(node, dict):
        return None
    if "type" in node:
        found = {node["type"]} if isinstance(node["type"], str) else set(node["type"])
    elif isinstance(branches := node.get("anyOf", node.get("oneOf")), list):
        parts = [json_types(branch) for branch in branches]
        if any(part is None for part in parts):
            return None
        found = {kind for part in parts for kind in part or []}
    else:
        return None
    return sorted(found - {"null"}) + sorted(found & {"null"})


def as_listed_data(data: Any, depth: int = 1) -> Any:
    """A dereferenced `data` schema as the listing describes it (lean.LISTED_DEPTH, counted in
    property hops from the envelope, which `data` is one below): a record's own field keeps its
    enum or const, else only its JSON type."""
    if not isinstance(data, dict):
        return data
    if depth == LISTED_DEPTH:
        if "enum" in data or "const" in data:
            return data
        types = json_types(data)
        return {} if types is None else {"type": types[0] if len(types) == 1 else types}
    result: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("properties", "patternProperties"):
            result[key] = {name: as_listed_data(sub, depth + 1) for name, sub in value.items()}
        elif key == "additionalProperties" and isinstance(value, dict):
            result[key] = as_listed_data(value, depth + 1)
        elif key == "items":
            result[key] = as_listed_data(value, depth)
        elif key in ("anyOf", "oneOf"):
            result[key] = [as_listed_data(sub, depth) for sub in value]
        else:
            result[key] = value
    return result


def hints(read_only: bool, destructive: bool, idempotent: bool) -> dict[str, bool]:
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


#: What MCP assumes of an absent hint (ToolAnnotations in the 2025-06-18 schema), written out.
MCP_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


#: The method rule, written out (not derived from `method_annotations`, which is under test).
METHOD_ANNOTATIONS = {
    "GET": hints(read_only=True, destructive=False, idempotent=True),
    "DELETE": hints(read_only=False, destructive=True, idempotent=True),
    "POST": hints(read_only=False, destructive=False, idempotent=False),
    "PATCH": hints(read_only=False, destructive=False, idempotent=False),
    "PUT": hints(read_only=False, destructive=False, idempotent=False),
}
#: The tools whose `x-mcp.annotations` in openapi.yaml override the method rule, with the result.
EXPECTED_ANNOTATIONS = {
    "batch_get_memos": hints(read_only=True, destructive=False, idempotent=True),  # POST that only reads
    "rename_memo_tag": hints(read_only=False, destructive=False, idempotent=True),  # POST
    "update_memo": hints(read_only=False, destructive=True, idempotent=False),  # PATCH
    "restore_memo": hints(read_only=False, destructive=False, idempotent=True),  # POST
    "complete_memo_upload_session": hints(read_only=False, destructive=False, idempotent=True),  # PUT
    "update_todo_inbox_item": hints(read_only=False, destructive=True, idempotent=False),  # PATCH
    "complete_todo_inbox_item": hints(read_only=False, destructive=False, idempotent=True),  # POST
    "update_todo_inbox_subtask": hints(read_only=False, destructive=True, idempotent=False),  # PATCH
    "set_todo_inbox_subtask_done": hints(read_only=False, destructive=False, idempotent=True),  # POST
    "search_ai_memos": hints(read_only=True, destructive=False, idempotent=True),  # POST that only reads
    "search_everything": hints(read_only=True, destructive=False, idempotent=True),  # POST that only reads
}


#: The tools built from openapi.yaml (the code toolset's two are declared in mesq/mcp/code/tools.py).
SPEC_TOOLS = [name for name in CATALOG.names if CATALOG.tools[name].toolset != "code"]


def test_every_exposed_operation_is_a_tool_in_listing_order():
    exposed = [op_id for op_id, op in SPEC.operations.items() if op.mcp.exposed]
    assert set(SPEC_TOOLS) == set(exposed) and len(SPEC_TOOLS) == len(exposed)
    assert CATALOG.names[-2:] == ("run_code", "search_tools")
    # toolset (in the order of mesq/kernel/toolsets.py), then name
    keys = [(TOOLSETS.index(CATALOG.tools[name].toolset), name) for name in CATALOG.names]
    assert keys == sorted(keys)
    assert CATALOG.names[:2] == ("batch_get_memos", "create_memo")
    # the order does not depend on the order the names are asked for
    assert build_catalog(SPEC, names=list(reversed(exposed))).names == tuple(SPEC_TOOLS)
    memo_ops = [op_id for op_id, op in SPEC.operations.items() if op.mcp.toolset == "memo"]
    assert set(memo_ops) <= set(CATALOG.names) and len(memo_ops) >= 11


@pytest.mark.parametrize("name", SPEC_TOOLS)
def test_tool_contract(name: str):
    entry = CATALOG.tools[name]
    operation = SPEC.operations[name]
    tool = entry.tool.model_dump(by_alias=True, mode="json", exclude_none=True)

    # Input: valid 2020-12, flat (parameters and body fields top-level), closed; the operation's
    # own schema, listed without `$schema` (2020-12 is MCP's default dialect).
    schema = tool["inputSchema"]
    Draft202012Validator.check_schema(schema)
    assert "$schema" not in schema
    # The listed schema is the operation's own (which arguments are validated with) without its
    # limits, with its defs folded and shared differently: fully dereferenced, the same schema.
    # Listed without the limits the server checks (docs/decisions.md, "Listed input schemas").
    assert dereference(schema) == dereference(drop_implied_types(without_server_keywords(operation.input_schema)))
    assert CATALOG.input_schema(name) == schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert "body" not in schema["properties"] or "body" in operation.body_fields
    for parameter in operation.parameters:
        assert parameter.argument in schema["properties"]
    for field_name in operation.body_fields:
        assert field_name in schema["properties"]
    assert set(schema.get("required", [])) <= set(schema["properties"])

    # Output: the unified envelope around the operation's data schema.
    # recoverData only where a REVISION_CONFLICT can happen: tools that change data.
    output = tool["outputSchema"]
    Draft202012Validator.check_schema(output)
    assert "$schema" not in output
    # `data` keeps every field, type, enum and const of the operation's schema down to the fields
    # of its records (a deeper list or object is listed by its type); which fields are required,
    # and what is deeper, is checked by the server (below), not listed.
    listed_data = as_listed_data(dereference(without_required(shape_only(operation.data_schema))))
    assert dereference(output)["properties"]["data"] == listed_data
    # The envelope as listed is minimal: data, the traceId every result carries and, on write
    # tools, recoverData and what the write recorded (changeIds, runId, sessionId); the error
    # object is the same for every tool: the instructions say it.
    assert output["type"] == "object" and output["required"] == ["traceId"]
    written = {"recoverData", "changeIds", "runId", "sessionId"}
    envelope_keys = {"data", "traceId"} | (written if entry.is_write else set())
    assert set(_ungrouped(output)["properties"]) == envelope_keys
    assert "required" not in json.dumps({k: v for k, v in output.items() if k != "required"})
    validator = Draft202012Validator(output)
    assert validator.is_valid({"error": {"code": "NOT_FOUND", "message": "m"}, "traceId": "t"})
    assert not validator.is_valid({"error": {"code": "X", "message": "m"}})  # traceId required
    # The server checks every result against the full envelope before sending it, which is the
    # listed one with more constraints: whatever it sends, a client validating the list accepts.
    checked = entry.result_schema
    Draft202012Validator.check_schema(checked)
    assert dereference(checked)["properties"]["data"] == dereference(shape_only(operation.data_schema))
    assert set(checked["properties"]) == envelope_keys | {"error", "correlationId"}
    assert checked["required"] == ["traceId"] and checked["additionalProperties"] is False
    strict = Draft202012Validator(checked)
    assert strict.is_valid({"data": {}, "traceId": "t"}) is False or not operation.data_schema.get("required")
    assert strict.is_valid({"error": {"code": "NOT_FOUND", "message": "m"}, "traceId": "t"})
    assert not strict.is_valid({"error": {"code": "X"}, "traceId": "t"})  # message required
    assert not strict.is_valid({"error": {"code": 1, "message": "m"}, "traceId": "t"})
    assert not strict.is_valid({"error": {"code": "X", "message": "m"}, "traceId": "t", "extra": 1})
    assert not strict.is_valid({"traceId": "t"})  # neither data nor error
    assert not strict.is_valid({"error": {"code": "X", "message": "m", "retryAfterSeconds": "1"}, "traceId": "t"})

    # Annotations: literal expectations (the method rule, or the tool's own x-mcp overrides);
    # never contradicting the scopes. Listed are only the hints MCP would not assume when absent
    # (a read-only tool's destructive and idempotent hints mean nothing to MCP).
    # The title is said once, on the tool.
    annotations = tool["annotations"]
    expected = EXPECTED_ANNOTATIONS.get(name, METHOD_ANNOTATIONS[operation.method])
    assert {**MCP_HINT_DEFAULTS, **annotations} == expected or (
        expected["readOnlyHint"] and annotations == {"readOnlyHint": True, "openWorldHint": False}
    )
    assert all(MCP_HINT_DEFAULTS[key] != value for key, value in annotations.items())
    assert annotations.get("readOnlyHint", False) is (not entry.is_write)

    # Description: the operation's own text and nothing else (no scope line, no shared rules);
    # title from x-mcp.
    assert tool["description"] == operation.description
    assert tool["title"] == operation.mcp.title
    assert entry.toolset in TOOLSETS
    assert entry.function.resolve() is REGISTRY[name]  # type: ignore[attr-defined]  # imported on first call


@pytest.mark.parametrize("method", sorted(METHOD_ANNOTATIONS))
def test_method_annotations_literal(method: str):
    assert method_annotations(method) == METHOD_ANNOTATIONS[method]


def test_every_x_mcp_annotation_override_has_a_literal_expectation():
    overridden = {name for name, op in SPEC.operations.items() if op.mcp.exposed and op.mcp.annotation_overrides}
    assert overridden == set(EXPECTED_ANNOTATIONS)


def test_a_success_for_each_tool_needs_its_data_shape():
    # list_memos data needs pinnedItems, timelineItems, page: the server never sends a bare {}
    # (the listed schema says only the types, so a bare object passes it).
    validator = Draft202012Validator(CATALOG.tools["list_memos"].result_schema)
    assert not validator.is_valid({"data": {}, "traceId": "t"})
    assert not validator.is_valid({"data": [], "traceId": "t"})
    listed = Draft202012Validator(CATALOG.tools["list_memos"].output_schema)
    assert listed.is_valid({"data": {}, "traceId": "t"}) and not listed.is_valid({"data": [], "traceId": "t"})


MEMO = {
    "id": "m1",
    "content": "c",
    "tags": [],
    "status": "NORMAL",
    "pinned": False,
    "resources": [],
    "contentSource": "mcp",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:00Z",
    "revision": 2,
}


def test_recover_data_has_the_data_shape():
    entry = CATALOG.tools["update_memo"]
    validator = Draft202012Validator(entry.result_schema)
    error = {"code": "REVISION_CONFLICT", "message": "m"}
    assert not validator.is_valid({"error": error, "traceId": "t", "recoverData": {"memo": {}}})
    assert not Draft202012Validator(entry.output_schema).is_valid({"error": error, "traceId": "t", "recoverData": []})
    assert validator.is_valid({"error": error, "traceId": "t"})
    assert validator.is_valid({"error": error, "traceId": "t", "recoverData": {"memo": MEMO}})


def test_read_tools_declare_no_recover_data():
    entry = CATALOG.tools["get_memo"]
    assert "recoverData" not in entry.output_schema["properties"]
    validator = Draft202012Validator(entry.output_schema)
    error = {"code": "NOT_FOUND", "message": "m"}
    assert validator.is_valid({"error": error, "traceId": "t"})
    assert validator.is_valid({"data": {"memo": MEMO}, "traceId": "t"})
    # the server never sends one: its own check of a read's result refuses it
    checked = Draft202012Validator(entry.result_schema)
    assert checked.is_valid({"error": error, "traceId": "t"})
    assert not checked.is_valid({"error": error, "traceId": "t", "recoverData": {"memo": MEMO}})


def test_every_output_schema_validates_as_2020_12_without_dollar_schema():
    # What the official client does: `validator_for` picks the dialect; without `$schema` that is
    # 2020-12, so `$defs` pointers and `oneOf` keep their meaning.
    from jsonschema.validators import validator_for

    for entry in CATALOG.tools.values():
        assert validator_for(entry.output_schema) is Draft202012Validator
        assert validator_for(entry.input_schema) is Draft202012Validator


def test_read_only_connections_expose_no_write_tool():
    visibility = resolve(CATALOG, ALL, readonly_path=True, url_toolsets=None, headers={})
    assert visibility.visible
    listed = listed_tools(CATALOG, visibility)
    assert [tool.name for tool in listed] == list(visibility.visible)
    for tool in listed:  # run_code too: on a read-only connection its scripts reach no write tool
        assert not CATALOG.tools[tool.name].is_write
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
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
    shape = {"type": "object", "required": ["id", "name"], "properties": {"id": {"type": "string"}, "name": {}}}
    data = {
        "$schema": "x",
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"type": "array", "items": {"$ref": "#/$defs/A"}}},
        "$defs": {"A": shape},
    }
    original = copy.deepcopy(data)
    envelope = envelope_schema(data, load_spec().error_schema)
    schema = envelope.listed
    assert envelope.checked["$defs"] == {"A": shape} and "$schema" not in schema
    # Listed without the required fields, the def is still shared.
    assert schema["$defs"] == {"A": {"type": "object", "properties": {"id": {"type": "string"}, "name": {}}}}
    assert schema["properties"]["recoverData"] == {"$ref": "#/properties/data"}
    assert "recoverData" not in envelope_schema(data, load_spec().error_schema, recover_data=False).listed["properties"]
    assert "$defs" not in schema["properties"]["data"] and "$schema" not in schema["properties"]["data"]
    assert data == original  # the operation's schema is left untouched


def test_subtask_changes_offer_no_recurrence():
    # Only root tasks recur: a `recurrence` on update_todo_subtask could only ever fail, so the
    # tool does not list it. Its schema is the task's minus that field, from one source.
    task = CATALOG.input_schema("update_todo_task")["properties"]
    subtask = CATALOG.input_schema("update_todo_subtask")["properties"]
    assert "recurrence" in task and "recurrence" not in subtask
    assert set(task) - set(subtask) == {"recurrence"}
    assert {name: task[name] for name in subtask} == subtask


def _described(schema: dict[str, Any]) -> str:
    """The descriptions of a field and of its items, as the model reads them."""
    items = schema.get("items", {})
    return " ".join(part.get("description", "") for part in (schema, items) if isinstance(part, dict))


def test_field_rules_are_in_the_field_descriptions():
    # Rules a model gets wrong when they are only in the server instructions: which read gives
    # the revision, what an idempotency key is for, that tags are written without '#'.
    revised = keyed = tagged = 0
    for name in SPEC_TOOLS:
        schema = dereference(CATALOG.input_schema(name))
        properties = schema["properties"]
        if "expectedRevision" in properties:
            read = SPEC.operations[name].revision_read
            assert properties["expectedRevision"]["description"] == f"From {read}", name
            assert read in CATALOG.names
            revised += 1
        if "idempotencyKey" in properties:
            assert "retry with the same key returns the first result" in properties["idempotencyKey"]["description"]
            keyed += 1
        tag_fields = ("from", "to") if name == "rename_memo_tag" else ("tags",)
        for field_name in (field_name for field_name in tag_fields if field_name in properties):
            assert "without '#'" in _described(properties[field_name]).lower(), (name, field_name)
            tagged += 1
    assert revised >= 25 and keyed >= 9 and tagged >= 10
    # inside a batch's entries too
    for name, key in (("batch_update_todo_tasks", "updates"), ("batch_complete_todo_tasks", "items")):
        entry = dereference(CATALOG.input_schema(name))["properties"][key]["items"]["properties"]
        assert entry["expectedRevision"]["description"] == "From get_todo_task or query_todos"


def test_query_todos_says_kind_is_on_each_record_not_a_filter():
    # "Search tasks, subtasks and inbox records (`kind`)" read as a filter: an agent called
    # query_todos {kind: "inbox"} and met an unknown field. `kind` is what each record carries.
    query = CATALOG.tools["query_todos"]
    assert "kind" not in query.input_schema["properties"]
    assert "kind" in json.dumps(query.listing.output_schema)
    assert "(`kind`)" not in query.tool.description
    assert "records, each with its `kind`." in query.tool.description
