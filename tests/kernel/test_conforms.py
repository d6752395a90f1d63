"""`validation.conforms`: the verdict-only check every MCP result goes through. jsonschema-rs
answers a match; a "no" from it is confirmed by jsonschema (the reference), so where their
dialects differ the call is never failed by the faster one."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.application.validation import conforms, prepare_validators, validator_for
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
