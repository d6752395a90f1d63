"""Hostile-input cases generated from the spec, never written per operation.

For each operation: a minimal valid call (its required arguments, each made from its schema by
`example`) and, per argument (at most MAX_FIELDS of them), the catalogue of hostile values for
that argument's JSON type. Values are raw JSON text, so they can hold what Python's `json`
cannot write (10,000-digit integers, 1,000 levels of nesting, lone surrogates).

Each value knows whether it can ever be valid: `never_valid` values (deep nesting, lone
surrogates, numbers out of range) must fail everywhere and name the field; the others (NUL and
control characters, float-valued integers, 2 MB strings, wrong types) fail exactly when the
operation's input schema says so, checked with the schema itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from mesq.kernel.spec import Operation

#: A bounded number of fields per operation keeps the suite linear in the spec's size.
MAX_FIELDS = 12
TWO_MB = 2 * 1024 * 1024


@dataclass(frozen=True)
class Hostile:
    name: str
    json: str  # raw JSON text of the value
    never_valid: bool = False

    @property
    def text(self) -> str:
        """The value as a path segment or query string carries it: a string's own text (lone
        surrogates kept, for percent-encoding as the bytes a careless client sends), else the
        JSON text."""
        if self.json.startswith('"'):
            decoded: str = json.loads(self.json)
            return decoded
        return self.json


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


UNIVERSAL = (
    Hostile("deep-40", _deep(40), never_valid=True),
    Hostile("deep-1000", _deep(1000), never_valid=True),
    Hostile("deep-objects", '{"a":' * 40 + "1" + "}" * 40, never_valid=True),
    Hostile("lone-surrogate", '"a\\ud800b"', never_valid=True),
    Hostile("lone-low-surrogate", '"\\udfff"', never_valid=True),
    Hostile("surrogate-key", '{"\\udc00x": 1}', never_valid=True),
    Hostile("digits-10000", "9" * 10_000, never_valid=True),
    Hostile("negative-digits-10000", "-" + "9" * 10_000, never_valid=True),
    Hostile("float-overflow", "1e400", never_valid=True),
    Hostile("integral-float-out-of-range", "1e300", never_valid=True),
    Hostile("nul", '"a\\u0000b"'),
    Hostile("control-characters", '"\\u0001\\u001b[31m\\u007f\\r\\n\\t\\u2028"'),
    Hostile("string-2mb", '"' + "x" * TWO_MB + '"'),
)

WRONG_TYPES = {
    "string": (Hostile("number-for-string", "12345"), Hostile("object-for-string", '{"a": "b"}')),
    "integer": (Hostile("string-for-integer", '"1"'), Hostile("fraction-for-integer", "0.5")),
    "boolean": (Hostile("string-for-boolean", '"true"'), Hostile("number-for-boolean", "1")),
    "array": (Hostile("string-for-array", '"a,b"'), Hostile("object-for-array", '{"0": "a"}')),
    "object": (Hostile("array-for-object", "[]"), Hostile("string-for-object", '"{}"')),
}


def _resolve(schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs[schema["$ref"].removeprefix("#/$defs/")]
    return schema if isinstance(schema, dict) else {}


def json_type(schema: dict[str, Any], defs: dict[str, Any]) -> str | None:
    """The field's main JSON type (the first non-null one), None when it accepts anything."""
    schema = _resolve(schema, defs)
    for branch in schema.get("anyOf", schema.get("oneOf", [])):
        kind = json_type(branch, defs)
        if kind is not None:
            return kind
    kinds = schema.get("type")
    if isinstance(kinds, list):
        kinds = next((kind for kind in kinds if kind != "null"), None)
    if kinds is None and "enum" in schema:
        kinds = "string" if all(isinstance(v, str) for v in schema["enum"]) else None
    return kinds if isinstance(kinds, str) and kinds != "null" else None


def catalogue(schema: dict[str, Any], defs: dict[str, Any], baseline: Any) -> Iterator[Hostile]:
    kind = json_type(schema, defs)
    yield from UNIVERSAL
    yield from WRONG_TYPES.get(kind or "", ())
    if kind == "integer":
        start = baseline if isinstance(baseline, int) else _resolve(schema, defs).get("minimum", 0)
        yield Hostile("float-valued-integer", f"{start}.0")
        yield Hostile("exponent-valued-integer", f"{start}e0")
    if kind == "array":
        for inner in (UNIVERSAL[3], UNIVERSAL[6], UNIVERSAL[10]):  # lone surrogate, 10,000 digits, NUL
            yield Hostile(f"{inner.name}-in-array", f"[{inner.json}]", inner.never_valid)


# -- minimal valid calls -----------------------------------------------------------------------

#: Strings tried, in order, against a field's pattern and length limits.
_CANDIDATES = ("abc", "a", "2026-01-02", "2026-01-02T03:04:05Z", "#336699", "Asia/Shanghai", "a-b")
_FORMATS = {"date-time": "2026-01-02T03:04:05Z", "date": "2026-01-02"}


def _string(schema: dict[str, Any]) -> str:
    if schema.get("format") in _FORMATS:
        return _FORMATS[schema["format"]]
    low, high = schema.get("minLength", 0), schema.get("maxLength", 10**9)
    for candidate in _CANDIDATES:
        pattern = schema.get("pattern")
        if low <= len(candidate) <= high and (pattern is None or re.search(pattern, candidate)):
            return candidate
    return "a" * max(low, 1)


def example(schema: Any, defs: dict[str, Any]) -> Any:
    """A small value the schema accepts (checked by the caller against the whole input schema)."""
    schema = _resolve(schema, defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for branch in schema.get("anyOf", schema.get("oneOf", [])):
        return example(branch, defs)
    kind = json_type(schema, defs)
    if kind == "string":
        return _string(schema)
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "array":
        return [example(schema.get("items", {}), defs) for _ in range(schema.get("minItems", 0))]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: example(properties.get(name, {}), defs) for name in schema.get("required", [])}
    return None


def baseline(operation: Operation) -> dict[str, Any]:
    schema = operation.input_schema
    arguments: dict[str, Any] = example(schema, schema.get("$defs", {}))
    problems = list(Draft202012Validator(schema).iter_errors(arguments))
    assert not problems, f"{operation.operation_id}: the generated call is invalid: {problems[0].message}"
    return arguments


@dataclass(frozen=True)
class Case:
    field: str
    value: Hostile
    must_fail: bool


def cases(operation: Operation) -> list[Case]:
    """One hostile value in one field per case, the other arguments those of `baseline`."""
    schema = operation.input_schema
    defs = schema.get("$defs", {})
    base = baseline(operation)
    validator = Draft202012Validator(schema)
    required = set(schema.get("required", []))
    fields = sorted(schema["properties"], key=lambda name: (name not in required, name))[:MAX_FIELDS]
    found: list[Case] = []
    for field in fields:
        for value in catalogue(schema["properties"][field], defs, base.get(field)):
            must_fail = value.never_valid or not validator.is_valid({**base, field: json.loads(value.json)})
            found.append(Case(field, value, must_fail))
    return found
