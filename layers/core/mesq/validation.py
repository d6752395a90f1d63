"""Argument validation against an operation's input schema (JSON Schema 2020-12), shared by the
REST and MCP adapters. Messages name the offending field so a person or an agent can fix the
call; a schema may carry `x-error-message: {<keyword>: <text>}` to replace a generic message."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema import ValidationError as SchemaError
from jsonschema.exceptions import best_match

from .errors import ValidationError
from .spec import Operation

# Schemas come from the process-wide Spec, so identity is a sound cache key; the schema is kept
# beside its validator so an id can never be reused by another object while cached.
_validators: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}


def validator_for(schema: dict[str, Any]) -> Draft202012Validator:
    cached = _validators.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = (schema, Draft202012Validator(schema))
        _validators[id(schema)] = cached
    return cached[1]


def _location(error: SchemaError) -> str:
    path = ""
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def describe(error: SchemaError) -> str:
    custom = error.schema.get("x-error-message", {}) if isinstance(error.schema, dict) else {}
    where = _location(error)
    if isinstance(custom, dict) and error.validator in custom:
        text = str(custom[error.validator])
    elif error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        text = f"unknown field{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}"
    elif error.validator == "required":
        text = error.message.replace("is a required property", "is required")
    else:
        text = error.message
    return f"{where}: {text}" if where else text


def validate_arguments(operation: Operation, arguments: dict[str, Any]) -> None:
    """Raise ValidationError naming the first problem (the most relevant one) in `arguments`."""
    error = best_match(validator_for(operation.input_schema).iter_errors(arguments))
    if error is not None:
        raise ValidationError(describe(error))
