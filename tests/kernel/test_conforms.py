"""`validation.conforms`: the verdict-only check every MCP result goes through, and the same
pairing in `validate_arguments`. jsonschema-rs
answers a match; a "no" from it is confirmed by jsonschema (the reference), so where their
dialects differ the call is never failed by the faster one."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mesq.application.validation import conforms, prepare_validators, validate_arguments, validator_for
from mesq.kernel.errors import ValidationError
from mesq.mcp.result import checked_envelope

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}, "n": {"type": "integer"}},
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "instance",
    [{"id": "abc"}, {"id": "abc", "n": 2}, {"id": "abc", "n": 2.0}, {}, {"id": "ABC"}, {"id": "a", "x": 1}, []],
)
def test_conforms_gives_jsonschemas_verdict(instance: Any) -> None:
    assert conforms(SCHEMA, instance) is validator_for(SCHEMA).is_valid(instance)


def test_where_the_dialects_differ_jsonschema_decides() -> None:
    # Python's `$` also matches before a final newline; the Rust validator's does not.
    schema = {"type": "string", "pattern": "^a$"}
    assert validator_for(schema).is_valid("a\n")
    assert conforms(schema, "a\n")


def test_a_matching_result_is_not_walked_by_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {**SCHEMA}  # a schema of its own: nothing cached for it yet
    prepare_validators((), verdict_only=[schema])

    def walked(schema: dict[str, Any]) -> Any:
        raise AssertionError("jsonschema ran on a result the compiled validator accepted")

    monkeypatch.setattr("mesq.application.validation.validator_for", walked)
    monkeypatch.setattr("mesq.mcp.result.validator_for", walked)
    envelope = {"id": "abc"}
    assert checked_envelope(envelope, schema, "t", "tool") is envelope


def test_a_result_that_does_not_match_is_answered_as_internal() -> None:
    answered = checked_envelope({"id": "ABC"}, {**SCHEMA}, "t", "tool")
    assert answered["error"]["code"] == "INTERNAL" and answered["traceId"] == "t"


# -- arguments: the same pairing, with jsonschema wording every refusal --------------------------


def _operation(schema: dict[str, Any]) -> Any:
    from mesq.kernel.spec import load_spec

    operation = load_spec().operations["get_memo"]
    return dataclasses.replace(operation, input_schema=schema)


def test_arguments_the_compiled_validator_accepts_are_not_walked_by_jsonschema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    operation = _operation({**SCHEMA})

    def walked(schema: dict[str, Any]) -> Any:
        raise AssertionError("jsonschema ran on arguments the compiled validator accepted")

    monkeypatch.setattr("mesq.application.validation.validator_for", walked)
    assert validate_arguments(operation, {"id": "abc", "n": 2.0}) == {"id": "abc", "n": 2}


def test_arguments_where_the_dialects_differ_are_decided_by_jsonschema() -> None:
    operation = _operation({"type": "object", "properties": {"id": {"type": "string", "pattern": "^a$"}}})
    assert validate_arguments(operation, {"id": "a\n"}) == {"id": "a\n"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({}, "'id' is required"), ({"id": "ABC"}, "id: 'ABC' has characters"), ({"id": "a", "x": 1}, "unknown field 'x'")],
)
def test_refused_arguments_keep_jsonschemas_message(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as refused:
        validate_arguments(_operation({**SCHEMA}), arguments)
    assert message in refused.value.message
