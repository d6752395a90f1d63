"""The schema slimming of mesq/mcp/lean.py: keyword-aware stripping, def folding that terminates
on cycles, sharing that keeps what a schema accepts."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from mesq.mcp.lean import (
    fold_defs,
    group_same_fields,
    lean_output_schema,
    share_common_fields,
    share_repeats,
    strip_input_only,
)


def accepts(schema: dict[str, Any], instance: Any) -> bool:
    return Draft202012Validator(schema).is_valid(instance)


def test_stripping_is_keyword_aware():
    schema = {
        "type": "object",
        "description": "gone",
        "properties": {
            "description": {"type": "string", "maxLength": 3, "pattern": "^a"},
            "title": {"type": "integer"},
        },
        "required": ["description"],
    }
    assert strip_input_only(schema) == {
        "type": "object",
        "properties": {"description": {"type": "string"}, "title": {"type": "integer"}},
        "required": ["description"],
    }


def test_fold_inlines_small_aliases_and_once_used_but_keeps_shared_and_recursive_defs():
    big = {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    schema = {
        "type": "object",
        "properties": {
            "x": {"$ref": "#/$defs/Small"},
            "y": {"$ref": "#/$defs/Alias"},
            "z": {"$ref": "#/$defs/Big"},
            "once": {"$ref": "#/$defs/Once"},
            "tree": {"$ref": "#/$defs/Node"},
        },
        "$defs": {
            "Small": {"type": "string"},
            "Alias": {"$ref": "#/$defs/Big"},
            "Big": big,
            "Once": {"type": "object", "properties": {"k": {"type": "array", "items": {"type": "boolean"}}}},
            "Node": node,
            "Unused": big,
        },
    }
    folded = fold_defs(schema)
    assert folded["properties"]["x"] == {"type": "string"}
    assert folded["properties"]["y"] == folded["properties"]["z"] == {"$ref": "#/$defs/Big"}
    assert folded["properties"]["once"]["properties"]["k"]["items"] == {"type": "boolean"}
    assert set(folded["$defs"]) == {"Big", "Node"}
    Draft202012Validator.check_schema(folded)
    tree = {"tree": {"children": [{"children": []}]}, "z": {"a": "s", "b": 1}}
    assert accepts(folded, tree) and not accepts(folded, {"z": {"a": "s"}})


def test_alias_cycles_terminate():
    schema = {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}
    folded = fold_defs(schema)  # returns: a cycle is never unrolled
    Draft202012Validator.check_schema(folded)
    assert folded["$ref"] == "#/$defs/A" and "A" in folded["$defs"]


def test_repeated_shapes_become_one_def_named_after_their_component():
    stamp = {"type": "string", "format": "date-time", "minLength": 1, "maxLength": 64}
    schema = {"type": "object", "properties": {"from": dict(stamp), "to": dict(stamp), "at": dict(stamp)}}
    shared = share_repeats(schema, {'{"format":"date-time","maxLength":64,"minLength":1,"type":"string"}': "Timestamp"})
    assert shared["properties"] == {name: {"$ref": "#/$defs/Timestamp"} for name in ("from", "to", "at")}
    assert shared["$defs"] == {"Timestamp": stamp}


def test_common_record_fields_are_shared_without_changing_what_validates():
    fields = {name: {"type": "string"} for name in ("id", "title", "createdAt", "updatedAt", "deletedAt", "position")}
    fields |= {f"extra{i}": {"type": ["string", "null"]} for i in range(8)}
    task = {
        "type": "object",
        "required": ["id", "title", "columnId"],
        "properties": {**fields, "columnId": {"type": "string"}},
    }
    item = {"type": "object", "required": ["id", "title"], "properties": {**fields, "subtasks": {"type": "array"}}}
    schema = {"type": "object", "properties": {"task": task, "item": item}, "additionalProperties": False}
    shared = share_common_fields(schema)
    assert "SharedFields" in shared["$defs"] and "allOf" in shared["properties"]["task"]
    Draft202012Validator.check_schema(shared)
    good = {"task": {"id": "1", "title": "t", "columnId": "c"}, "item": {"id": "2", "title": "i", "subtasks": []}}
    for instance, expected in (
        (good, True),
        ({"task": {"id": "1", "title": "t"}}, False),  # columnId still required
        ({"item": {"id": "2"}}, False),  # title still required
        ({"item": {"id": 2, "title": "i"}}, False),  # id keeps its type
        ({"task": {"id": "1", "title": "t", "columnId": "c", "later": 1}}, True),  # open below the envelope
    ):
        assert accepts(shared, instance) is accepts(schema, instance) is expected, instance


def test_the_envelope_stays_closed_and_data_opens():
    envelope = {
        "type": "object",
        "properties": {"data": {"type": "object", "additionalProperties": False, "properties": {"a": {}}}},
        "additionalProperties": False,
    }
    lean = lean_output_schema(envelope)
    assert lean["additionalProperties"] is False and "additionalProperties" not in lean["properties"]["data"]


def test_fields_sharing_a_schema_are_declared_once_and_validate_the_same():
    record = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "content": {"type": "string"},
            "revision": {"type": "integer"},
            "pinned": {"type": "boolean"},
            "mcp_uri": {"type": "string"},
            "a.b": {"type": "string"},
            "sizes": {"type": "object", "properties": {"all": {"type": "integer"}, "day-1": {"type": "integer"}}},
        },
        "required": ["id"],
    }
    grouped = group_same_fields(record)
    sizes = {"type": "object", "patternProperties": {"^(?:all|day-1)$": {"type": "integer"}}}
    assert grouped["properties"] == {"revision": {"type": "integer"}, "pinned": {"type": "boolean"}, "sizes": sizes}
    assert grouped["patternProperties"] == {"^(?:id|content|mcp_uri|a\\.b)$": {"type": "string"}}
    Draft202012Validator.check_schema(grouped)
    instances = [
        {"id": "a", "content": "b", "revision": 1, "pinned": True, "mcp_uri": "m", "sizes": {"all": 1, "day-1": 2}},
        {"id": "a", "content": 3}, {"id": 1}, {"content": "no id"}, {"id": "a", "mcp_uri": 5},
        {"id": "a", "sizes": {"day-1": "x"}}, {"id": "a", "sizes": {"day_1": "x"}}, {"id": "a", "other": [1]},
        {"id": "a", "idx": 1}, {"id": "a", "xcontent": 1}, {"id": "a", "a.b": 1}, {"id": "a", "axb": 1},
    ]  # fmt: skip
    for instance in instances:
        assert accepts(grouped, instance) == accepts(record, instance), instance
    lone = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    assert group_same_fields(lone) == lone
