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
from ..kernel.i18n import ForPrograms, Text
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


#: JSON Schema's type names as a message says them (the English is the name, quoted; a page
#: says the kind of value in its reader's words).
_TYPE_WORDS = {
    "string": Text("'string'"),
    "integer": Text("'integer'"),
    "number": Text("'number'"),
    "boolean": Text("'boolean'"),
    "array": Text("'array'"),
    "object": Text("'object'"),
    "null": Text("'null'"),
}


def _types(expected: Any) -> Text | str:
    names = expected if isinstance(expected, list) else [expected]
    words: list[Text | str] = [_TYPE_WORDS.get(str(name)) or repr(name) for name in names]
    said = words[0]
    for word in words[1:]:
        said = Text("%(first)s or %(second)s", first=said, second=word)
    return said


def _union_text(error: SchemaError, root: dict[str, Any]) -> Text:
    members = error.validator_value if isinstance(error.validator_value, list) else []
    return Text(
        "%(value)s is none of the accepted forms; write it as %(forms)s",
        value=quoted(error.instance),
        forms=forms(members, root),
    )


def _enum_text(value: Any, expected: Any) -> Text:
    values = list(expected) if isinstance(expected, list) else [expected]
    listed = ", ".join(quoted(item) for item in values[:ENUM_SHOWN])
    if len(values) > ENUM_SHOWN:
        return Text(
            "%(value)s is not one of the allowed values; use one of %(listed)s and %(more)s more",
            value=quoted(value),
            listed=listed,
            more=len(values) - ENUM_SHOWN,
        )
    return Text("%(value)s is not one of the allowed values; use one of %(listed)s", value=quoted(value), listed=listed)


#: How many values of an enum a message lists (they come from the schema, not the caller).
ENUM_SHOWN = 30


def _count(number: Any) -> str:
    return f"{number:,}" if isinstance(number, int) else str(number)


def _length_text(keyword: str, value: Any, expected: Any) -> Text:
    """minLength / maxLength: a required text left empty is "must not be empty" (never "at least
    1 characters")."""
    if keyword == "minLength":
        if expected == 1:
            return Text("must not be empty")
        return Text("%(value)s is too short (at least %(minimum)s characters)", value=quoted(value),
                    minimum=_count(expected))  # fmt: skip
    return Text("%(value)s is too long (%(count)s characters, at most %(maximum)s)", value=quoted(value),
                count=_count(len(value) if isinstance(value, str) else 0), maximum=_count(expected))  # fmt: skip


def _keyword_text(error: SchemaError, root: dict[str, Any]) -> Text:
    """The keyword's message, with the bad value quoted briefly (jsonschema's own messages embed
    the whole value: a 1 MB string would make a 2 MB answer); a template of the catalog, so a
    page says it in its reader's language."""
    keyword, expected, value = error.validator, error.validator_value, error.instance
    sized = value if isinstance(value, (str, list, dict)) else ()
    shown = quoted(value)
    texts: dict[str, Any] = {
        "type": lambda: Text("%(value)s is not of type %(types)s", value=shown, types=_types(expected)),
        "enum": lambda: _enum_text(value, expected),
        "const": lambda: Text("%(value)s is not %(expected)s", value=shown, expected=quoted(expected)),
        # Never the regular expression itself: a person cannot read it, an agent should not need
        # to. A schema says what is allowed in its `x-error-message.pattern`; this is the fallback.
        "pattern": lambda: Text("%(value)s has characters or a form this field does not allow", value=shown),
        "format": lambda: Text("%(value)s is not a valid %(format)s", value=shown, format=str(expected)),
        "minLength": lambda: _length_text("minLength", value, expected),
        "maxLength": lambda: _length_text("maxLength", value, expected),
        "minItems": lambda: Text(
            "has %(count)s items, at least %(minimum)s needed", count=_count(len(sized)), minimum=_count(expected)
        ),
        "maxItems": lambda: Text(
            "has %(count)s items, at most %(maximum)s allowed", count=_count(len(sized)), maximum=_count(expected)
        ),
        "minimum": lambda: Text("%(value)s is less than the minimum of %(minimum)s", value=shown, minimum=expected),
        "maximum": lambda: Text("%(value)s is greater than the maximum of %(maximum)s", value=shown, maximum=expected),
        "exclusiveMinimum": lambda: Text("%(value)s must be greater than %(minimum)s", value=shown, minimum=expected),
        "exclusiveMaximum": lambda: Text("%(value)s must be less than %(maximum)s", value=shown, maximum=expected),
        "uniqueItems": lambda: Text("has repeated items; each must be distinct"),
        "anyOf": lambda: _union_text(error, root),
        "oneOf": lambda: _union_text(error, root),
        "not": lambda: Text("%(value)s is not allowed here", value=shown),
        "additionalProperties": lambda: _unknown_fields(error),
        # These name only what the schema says (property names), never the value.
        "required": lambda: _required_text(error),
        "dependentRequired": lambda: _dependent_text(error),
    }
    text = texts.get(str(keyword))
    if text is not None:
        said: Text = text()
        return said
    return Text("%(value)s is not valid (%(keyword)s)", value=shown, keyword=str(keyword))


def _unknown_fields(error: SchemaError) -> Text:
    known = list(error.schema.get("properties", {}))
    extra = sorted(set(error.instance) - set(known))
    names = quoted_list(extra)
    nearest = {name: near for name in extra[:5] if (near := closest(str(name), known))}
    if len(extra) == 1 and nearest:
        return Text("unknown field %(names)s; did you mean %(near)s?", names=names, near=quoted(nearest[extra[0]]))
    unknown = Text("unknown field %(names)s", names=names) if len(extra) == 1 else Text("unknown fields %(names)s",
                                                                                      names=names)  # fmt: skip
    if nearest:
        pairs = ", ".join(f"{quoted(n)} for {quoted(e)}" for e, n in nearest.items())
        return Text("%(unknown)s; did you mean %(pairs)s?", unknown=unknown, pairs=pairs)
    if known and len(known) <= 25:
        return Text("%(unknown)s; the fields are %(fields)s", unknown=unknown, fields=", ".join(known))
    return unknown


def _required_text(error: SchemaError) -> Text:
    """`'x' is required`, followed by the property's own `x-error-message.required` (what to
    send, where to read it) when its schema has one."""
    missing = error.message.split(" is a required property")[0].strip("'")
    required = Text("%(name)s is required", name=quoted(missing))
    schema = error.schema.get("properties", {}).get(missing) if isinstance(error.schema, dict) else None
    hint = schema.get("x-error-message", {}).get("required") if isinstance(schema, dict) else None
    return Text("%(required)s: %(hint)s", required=required, hint=Text(hint)) if isinstance(hint, str) else required


def _dependent_text(error: SchemaError) -> Text:
    """dependentRequired: `'b' is a dependency of 'a'` (the only such message jsonschema writes)."""
    needed, _, given = error.message.partition(" is a dependency of ")
    return Text("%(needed)s is a dependency of %(given)s", needed=needed, given=given)


def describe(error: SchemaError, root: dict[str, Any] | None = None) -> Text:
    """The error as a message: the field's path, then what is wrong with it (the schema's own
    `x-error-message` for the keyword when it has one: a catalog string too, infra/messages.py
    extracts them from the OpenAPI documents)."""
    custom = error.schema.get("x-error-message", {}) if isinstance(error.schema, dict) else {}
    where = field_path(error.absolute_path)
    if isinstance(custom, dict) and error.validator in custom:
        text = Text(str(custom[error.validator]))
    else:
        text = _keyword_text(error, root if root is not None else {})
    return Text("%(field)s: %(problem)s", field=where, problem=text) if where else text


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
            message = Text("%(message)s%(where)s", message=message, where=ForPrograms(
                f": the record's current `revision`, which {operation.revision_read} returns"))  # fmt: skip
        raise ValidationError(message)
    return checked
