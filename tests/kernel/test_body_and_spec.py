from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from mesq.application.invocation import REGISTRY, check_registry, prepare_registry
from mesq.application.registries import IMPLEMENTATIONS, OperationRegistry
from mesq.asgi.body import is_json_media_type, parse_json_object
from mesq.kernel.errors import ValidationError
from mesq.kernel.spec import SpecError, build_spec, load_spec


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("application/json", True),
        ("application/json; charset=utf-8", True),
        ("Application/JSON;charset=UTF-8", True),
        ("application/merge-patch+json", True),
        ("application/vnd.api+json", True),
        ("application/json; charset=utf-16", False),
        ("text/json", False),
        ("text/plain", False),
        ("application/jsonx", False),
        ("", False),
        (None, False),
    ],
)
def test_media_types(value, ok):
    assert is_json_media_type(value) is ok


@pytest.mark.parametrize(
    "raw", [b"", b"[]", b"1", b'"x"', b"{", b'{"a":1,"a":2}', b'{"a":Infinity}', b"\xef\xbb\xbf{}", b'{"a":"\xc3"}']
)
def test_bad_json_objects(raw):
    with pytest.raises(ValidationError):
        parse_json_object(raw)


def test_spec_input_schemas_are_valid_2020_12():
    for operation in load_spec().operations.values():
        Draft202012Validator.check_schema(operation.input_schema)
        Draft202012Validator.check_schema(operation.data_schema)
        assert operation.input_schema["additionalProperties"] is False


def test_registry_matches_spec():
    check_registry(load_spec())
    assert set(REGISTRY) == set(load_spec().operations)
    prepare_registry()  # imports every named module: each operation is where IMPLEMENTATIONS says
    assert all(callable(REGISTRY[name]) for name in load_spec().operations)


def test_registry_fails_an_operation_its_modules_lack():
    # memos/openapi.yaml's operations named to a module that implements none of them
    misnamed = OperationRegistry(load_spec, {**IMPLEMENTATIONS, "memos/openapi.yaml": ("mesq.todos.inbox.operations",)})
    with pytest.raises(SpecError, match="get_memo"):
        misnamed["get_memo"]
    with pytest.raises(SpecError, match="is in none of"):
        misnamed.verify()
    unnamed = OperationRegistry(load_spec, {k: v for k, v in IMPLEMENTATIONS.items() if k != "memos/openapi.yaml"})
    with pytest.raises(SpecError, match="without an implementation"):
        check_registry(load_spec(), unnamed)


def _document(**operation):
    base = {
        "operationId": "x",
        "x-mcp": {"scopes": ["memo:read"], "toolset": "memo"},
        "responses": {"200": {"description": "", "content": {"application/json": {"schema": {"type": "object"}}}}},
    }
    base.update(operation)
    error = {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}
    return {"paths": {"/x": {"get": base}}, "components": {"schemas": {"Error": error}}}


def test_spec_fails_fast():
    without_error = _document()
    del without_error["components"]["schemas"]["Error"]
    with pytest.raises(SpecError, match="Error"):
        build_spec(without_error)
    with pytest.raises(SpecError, match="x-mcp"):
        build_spec(_document(**{"x-mcp": {}}))
    with pytest.raises(SpecError, match="unknown schema"):
        build_spec(
            _document(
                responses={"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}
            )
        )
    doc = _document()
    doc["paths"]["/y"] = {"get": dict(doc["paths"]["/x"]["get"])}
    with pytest.raises(SpecError, match="duplicate operationId"):
        build_spec(doc)
    with pytest.raises(SpecError, match="without an implementation"):
        check_registry(build_spec(_document()))


def test_recursive_schemas_terminate():
    doc = _document(
        responses={"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}
    )
    doc["components"]["schemas"]["Node"] = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}},
    }
    schema = build_spec(doc).operation("x").data_schema
    assert schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    Draft202012Validator(schema).validate({"children": [{"children": []}]})


def test_array_parameters_know_their_item_type():
    array = {"type": "array", "items": {"$ref": "#/components/schemas/N"}}
    doc = _document(parameters=[{"name": "n", "in": "query", "schema": array}])
    doc["components"]["schemas"]["N"] = {"type": "integer"}
    (parameter,) = build_spec(doc).operation("x").parameters
    assert parameter.schema["items"] == {"type": "integer"}


def test_fragments_merge_into_one_document_and_duplicates_fail_fast():
    from mesq.kernel.spec import SpecError, merge_fragments

    root = {"x-mesq-fragments": ["a.yaml"], "paths": {"/x": {}}, "components": {"schemas": {"A": {}}}}
    merged = merge_fragments(root, {"a.yaml": {"paths": {"/y": {}}, "components": {"schemas": {"B": {}}}}})
    assert set(merged["paths"]) == {"/x", "/y"}
    assert set(merged["components"]["schemas"]) == {"A", "B"}
    assert "x-mesq-fragments" not in merged
    with pytest.raises(SpecError, match="path '/x'"):
        merge_fragments(root, {"a.yaml": {"paths": {"/x": {}}}})
    with pytest.raises(SpecError, match=r"components\.schemas\.A"):
        merge_fragments(root, {"a.yaml": {"components": {"schemas": {"A": {}}}}})
    with pytest.raises(SpecError, match="only paths and components"):
        merge_fragments(root, {"a.yaml": {"info": {}}})
