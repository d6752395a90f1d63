"""Argument validation against an operation's input schema (JSON Schema 2020-12), shared by the
REST and MCP adapters. Messages name the offending field so a person or an agent can fix the
call; a schema may carry `x-error-message: {<keyword>: <text>}` to replace a generic message (the
text without the field name: the path is put in front of every message). A message quotes at
most a short prefix of a bad value (`messages.quoted`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..kernel.errors import ValidationError
from ..kernel.hints import closest, forms
from ..kernel.messages import field_path, quoted, quoted_list
from ..kernel.spec import Operation
from ..kernel.values import checked_values

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema import ValidationError as SchemaError
    from jsonschema_rs import Validator as CompiledValidator

# Schemas come from the process-wide Spec, so identity is a sound cache key; the schema is kept
# beside its validator so an id can never be reused by another object while cached.
_validators: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}


def validator_for(schema: dict[str, Any]) -> Draft202012Validator:
    """The schema's validator, compiled on first use. jsonschema itself is imported then too:
    some 40 ms of a cold start that nothing needs before the first validation."""
    cached = _validators.get(id(schema))
    if cached is None or cached[0] is not schema:
        from jsonschema import Draft202012Validator

        cached = (schema, Draft202012Validator(schema))
        _validators[id(schema)] = cached
    return cached[1]


def load_engine() -> None:
    """Import jsonschema ahead of the first validation: `mesq serve`'s warm-up, so the first
    request after a start does not pay its ~60 ms (a Lambda's cold start leaves it to that call)."""
    from jsonschema import Draft202012Validator  # noqa: F401
    from jsonschema.exceptions import best_match  # noqa: F401


_compiled: dict[int, tuple[dict[str, Any], CompiledValidator]] = {}


def conforms(schema: dict[str, Any], instance: Any) -> bool:
    """Whether `instance` matches `schema`, for checks that need only the verdict (an MCP result
    against its tool's output schema, on every call). jsonschema-rs (compiled, also 2020-12)
    says yes in about a microsecond where jsonschema takes a fifth of a millisecond; its "no" is
    confirmed by jsonschema, the reference that argument validation and every message use, so
    a difference between the two (regex dialects, say) can never fail a call."""
    return _compiled_for(schema).is_valid(instance) or validator_for(schema).is_valid(instance)


def _compiled_for(schema: dict[str, Any]) -> CompiledValidator:
    cached = _compiled.get(id(schema))
    if cached is None or cached[0] is not schema:
        import jsonschema_rs

        cached = (schema, jsonschema_rs.Draft202012Validator(schema))
        _compiled[id(schema)] = cached
    return cached[1]


def prepare_validators(schemas: Iterable[dict[str, Any]], *, verdict_only: Iterable[dict[str, Any]] = ()) -> None:
    """Compile now, not on first use, the validators of `schemas` (argument validation) and of
    `verdict_only` (`conforms`): for an init that runs ahead of requests (Settings.prepare_at_init)."""
    for schema in schemas:
        validator_for(schema)
        _compiled_for(schema)
    for schema in verdict_only:
        validator_for(schema)
        _compiled_for(schema)


def _types(expected: Any) -> str:
    names = expected if isinstance(expected, list) else [expected]
    return " or ".join(repr(name) for name in names)


def _union_text(error: SchemaError, root: dict[str, Any]) -> str:
    members = error.validator_value if isinstance(error.validator_value, list) else []
    return f"{quoted(error.instance)} is none of the accepted forms; write it as {forms(members, root)}"


def _enum_text(value: Any, expected: Any) -> str:
    values = list(expected) if isinstance(expected, list) else [expected]
    listed = ", ".join(quoted(item) for item in values[:ENUM_SHOWN])
    more = f" and {len(values) - ENUM_SHOWN} more" if len(values) > ENUM_SHOWN else ""
    return f"{quoted(value)} is not one of the allowed values; use one of {listed}{more}"


#: How many values of an enum a message lists (they come from the schema, not the caller).
ENUM_SHOWN = 30


def _keyword_text(error: SchemaError, root: dict[str, Any]) -> str:
    """jsonschema's message for the keyword, with the bad value quoted briefly (its own messages
    embed the whole value: a 1 MB string would make a 2 MB answer)."""
    keyword, expected, value = error.validator, error.validator_value, error.instance
    sized = value if isinstance(value, (str, list, dict)) else ()
    texts: dict[str, Any] = {
        "type": lambda: f"{quoted(value)} is not of type {_types(expected)}",
        "enum": lambda: _enum_text(value, expected),
        "const": lambda: f"{quoted(value)} is not {quoted(expected)}",
        # Never the regular expression itself: a person cannot read it, an agent should not need
        # to. A schema says what is allowed in its `x-error-message.pattern`; this is the fallback.
        "pattern": lambda: f"{quoted(value)} has characters or a form this field does not allow",
        "format": lambda: f"{quoted(value)} is not a valid {expected}",
        "minLength": lambda: f"{quoted(value)} is too short (at least {expected:,} characters)",
        "maxLength": lambda: f"{quoted(value)} is too long ({len(sized):,} characters, at most {expected:,})",
        "minItems": lambda: f"has {len(sized):,} items, at least {expected:,} needed",
        "maxItems": lambda: f"has {len(sized):,} items, at most {expected:,} allowed",
        "minimum": lambda: f"{quoted(value)} is less than the minimum of {expected}",
        "maximum": lambda: f"{quoted(value)} is greater than the maximum of {expected}",
        "exclusiveMinimum": lambda: f"{quoted(value)} must be greater than {expected}",
        "exclusiveMaximum": lambda: f"{quoted(value)} must be less than {expected}",
        "uniqueItems": lambda: "has repeated items; each must be distinct",
        "anyOf": lambda: _union_text(error, root),
        "oneOf": lambda: _union_text(error, root),
        "not": lambda: f"{quoted(value)} is not allowed here",
        "additionalProperties": lambda: _unknown_fields(error),
        # These name only what the schema says (property names), never the value.
        "required": lambda: _required_text(error),
        "dependentRequired": lambda: error.message,
    }
    text = texts.get(str(keyword))
    return str(text()) if text is not None else f"{quoted(value)} is not valid ({keyword})"


def _unknown_fields(error: SchemaError) -> str:
    known = list(error.schema.get("properties", {}))
    extra = sorted(set(error.instance) - set(known))
    text = f"unknown field{'s' if len(extra) > 1 else ''} {quoted_list(extra)}"
    nearest = {name: near for name in extra[:5] if (near := closest(str(name), known))}
    if len(extra) == 1 and nearest:
        return f"{text}; did you mean {quoted(nearest[extra[0]])}?"
    if nearest:
        return f"{text}; did you mean {', '.join(f'{quoted(n)} for {quoted(e)}' for e, n in nearest.items())}?"
    return f"{text}; the fields are {', '.join(known)}" if known and len(known) <= 25 else text


def _required_text(error: SchemaError) -> str:
    """`'x' is required`, followed by the property's own `x-error-message.required` (what to
    send, where to read it) when its schema has one."""
    text = error.message.replace("is a required property", "is required")
    missing = error.message.split(" is a required property")[0].strip("'")
    schema = error.schema.get("properties", {}).get(missing) if isinstance(error.schema, dict) else None
    hint = schema.get("x-error-message", {}).get("required") if isinstance(schema, dict) else None
    return f"{text}: {hint}" if isinstance(hint, str) else text


def describe(error: SchemaError, root: dict[str, Any] | None = None) -> str:
    custom = error.schema.get("x-error-message", {}) if isinstance(error.schema, dict) else {}
    where = field_path(error.absolute_path)
    if isinstance(custom, dict) and error.validator in custom:
        text = str(custom[error.validator])
    else:
        text = _keyword_text(error, root if root is not None else {})
    return f"{where}: {text}" if where else text


def validate_arguments(operation: Operation, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments to run the operation with (`values.checked_values`: integral floats as
    ints), or ValidationError naming the first problem (the most relevant one)."""
    checked = checked_values(arguments)
    if _compiled_for(operation.input_schema).is_valid(checked):
        # The compiled verdict is at most as lenient as jsonschema's (its regexes are ECMA's,
        # stricter than Python's `re` on `$`, `\d` and `\w`), so its yes stands; a no is
        # decided, and worded, by jsonschema below. A yes costs ~1 us instead of ~14 us.
        return checked
    from jsonschema.exceptions import best_match

    error = best_match(validator_for(operation.input_schema).iter_errors(checked))
    if error is not None:
        message = describe(error, operation.input_schema)
        if error.validator == "required" and "'expectedRevision'" in error.message and operation.revision_read:
            message += f": the record's current `revision`, which {operation.revision_read} returns"
        raise ValidationError(message)
    return checked
