"""Output schemas as lean as the contract allows (docs/contract.md §10).

An output schema is read by the client that validates a result, and most hosts also hand it to
the model; every tool pays for it in every `tools/list`. What it must keep is the shape of
`data`: each field, its type, enums and constants, and the `recoverData` pointer. As listed,
that shape goes down to the fields of the records in `data` (`to_listed_depth`); a list or
object inside a record is listed by its type, and the server checks every result against the
whole shape. What it drops only matters for input, or is prose an agent reads once in the tool's
description: descriptions, titles, examples, defaults, length and range limits, patterns and
formats.

Objects below the envelope are left open (see `open_objects`). After stripping, many `$defs`
collapse to a scalar (`TodoPosition` -> `{"type": "string"}`) or to a pointer at another def
(`TodoSubtask` -> `TodoTask`); a pointer to them, or to a def used once, costs more than the
schema itself, so they are inlined and the defs nobody points at any more are dropped. Shapes
that still repeat stay shared through `$defs`, and two records sharing most of their fields
extend one shared def (`share_common_fields`).

Input schemas go through the same folding and sharing (`lean_input_schema`) and keep what a
model needs to write a call: every field, its type, description, default, enum, const, format
and which fields are required. The limits (lengths, ranges, counts, patterns) are left out of
the listing (docs/decisions.md, "Listed input schemas"): they cost a third of the catalog's
model-facing tokens, and every call is still validated against the operation's full schema,
whose error names the allowed form (mesq/application/validation.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

#: The limits on a value: the server enforces them on every call, with an error naming the allowed form.
LIMIT_KEYWORDS = frozenset(
    {
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    }
)

#: Keywords that only annotate or constrain input; the shape of a result does not depend on them.
INPUT_ONLY_KEYWORDS = frozenset(
    {
        "description",
        "title",
        "examples",
        "example",
        "x-example",
        "x-error-message",
        "default",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "uniqueItems",
    }
    | LIMIT_KEYWORDS
)
#: Keywords whose value is one subschema / a list of them / a name -> subschema map.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
#: A def whose lean form serializes to at most this many characters is cheaper inline than as a
#: `{"$ref": "#/$defs/Name"}` pointer (which is itself ~25 characters plus the def's entry).
INLINE_UP_TO = 40
_DEF_PREFIX = "#/$defs/"


def map_subschemas(schema: Any, fn: Callable[[Any], Any]) -> Any:
    """`schema` with `fn` applied to each of its direct subschemas (keyword-aware: a property
    named `description` is a field, not the keyword)."""
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ONE and isinstance(value, dict):
            result[key] = fn(value)
        elif key in _MANY and isinstance(value, list):
            result[key] = [fn(item) for item in value]
        elif key in _MAP and isinstance(value, dict):
            result[key] = {name: fn(item) for name, item in value.items()}
        else:
            result[key] = value
    return result


def strip_input_only(schema: Any) -> Any:
    """`schema` without the keywords of INPUT_ONLY_KEYWORDS, at every depth."""
    if not isinstance(schema, dict):
        return schema
    kept = {key: value for key, value in schema.items() if key not in INPUT_ONLY_KEYWORDS}
    return map_subschemas(kept, strip_input_only)


_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}


def drop_implied_types(schema: Any) -> Any:
    """`schema` without a `type` that its `enum` or `const` already implies (every listed value
    is of that type), at every depth: the same set of values, fewer tokens."""
    if not isinstance(schema, dict):
        return schema
    values = (
        schema["enum"] if isinstance(schema.get("enum"), list) else [schema["const"]] if "const" in schema else None
    )
    is_type = _JSON_TYPES.get(schema["type"]) if isinstance(schema.get("type"), str) else None
    kept = schema
    if values and is_type is not None and all(is_type(value) for value in values):
        kept = {key: value for key, value in schema.items() if key != "type"}
    return map_subschemas(kept, drop_implied_types)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _def_name(schema: Any) -> str | None:
    if isinstance(schema, dict) and set(schema) == {"$ref"} and schema["$ref"].startswith(_DEF_PREFIX):
        return str(schema["$ref"]).removeprefix(_DEF_PREFIX)
    return None


def _inlinable(defs: Mapping[str, Any], uses: Mapping[str, int]) -> dict[str, Any]:
    """The defs to inline this round: the small ones that point at nothing, else the aliases of
    a def that is not itself an alias (chains resolve one link per round; a cycle is left alone),
    else one def that is pointed at exactly once (`uses`) and not by itself."""
    small: dict[str, Any] = {}
    for name, schema in defs.items():
        inner: set[str] = set()
        _referenced(schema, inner)
        if not inner and len(_compact(schema)) <= INLINE_UP_TO:
            small[name] = schema
    if small:
        return small
    aliases = {
        name: schema
        for name, schema in defs.items()
        if (target := _def_name(schema)) is not None and target != name and _def_name(defs.get(target)) is None
    }
    if aliases:
        return aliases
    for name, schema in defs.items():
        own: dict[str, int] = {}
        _count_refs(schema, own)
        if name not in own and uses.get(name) == 1:
            return {name: schema}  # one pointer to it: the copy is cheaper than pointer + entry
    return {}


def _replace_refs(schema: Any, replacements: Mapping[str, Any]) -> Any:
    name = _def_name(schema)
    if name is not None and name in replacements:
        return replacements[name]
    return map_subschemas(schema, lambda sub: _replace_refs(sub, replacements))


def _count_refs(schema: Any, counts: dict[str, int]) -> None:
    """Add the `#/$defs/<name>` pointers below `schema` (not inside a nested `$defs`) to `counts`."""
    name = _def_name(schema)
    if name is not None:
        counts[name] = counts.get(name, 0) + 1
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in _ONE and isinstance(value, dict):
                _count_refs(value, counts)
            elif key in _MANY and isinstance(value, list):
                for item in value:
                    _count_refs(item, counts)
            elif key in _MAP and isinstance(value, dict) and key != "$defs":
                for item in value.values():
                    _count_refs(item, counts)


def _referenced(schema: Any, found: set[str]) -> None:
    counts: dict[str, int] = {}
    _count_refs(schema, counts)
    found.update(counts)


def _reachable_defs(body: Any, defs: Mapping[str, Any]) -> dict[str, Any]:
    """The defs `body` reaches, directly or through other defs, in their original order."""
    found: set[str] = set()
    _referenced(body, found)
    pending = list(found)
    while pending:
        inner: set[str] = set()
        _referenced(defs.get(pending.pop(), {}), inner)
        for name in inner - found:
            found.add(name)
            pending.append(name)
    return {name: schema for name, schema in defs.items() if name in found}


def _uses(body: Any, defs: Mapping[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    _count_refs(body, counts)
    for sub in defs.values():
        _count_refs(sub, counts)
    return counts


def fold_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline the aliases, the small defs and the defs used once of a top-level `$defs`; drop
    the unused ones."""
    defs: dict[str, Any] = dict(schema.get("$defs", {}))
    body = {key: value for key, value in schema.items() if key != "$defs"}
    while replacements := _inlinable(defs, _uses(body, defs)):
        defs = {name: _replace_refs(sub, replacements) for name, sub in defs.items() if name not in replacements}
        body = _replace_refs(body, replacements)
    kept = _reachable_defs(body, defs)
    return {**body, "$defs": kept} if kept else body


def _count_shapes(schema: Any, counts: dict[str, int], first_seen: dict[str, tuple[str, Any]], where: str) -> None:
    """Count every object-valued subschema below `schema` by its compact JSON (`where` is the
    property name or def name it was first found under, the hoisted def's name)."""

    def visit(sub: Any, name: str) -> None:
        if not isinstance(sub, dict):
            return
        key = _compact(sub)
        counts[key] = counts.get(key, 0) + 1
        first_seen.setdefault(key, (name, sub))
        _count_shapes(sub, counts, first_seen, name)

    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in _ONE and isinstance(value, dict):
            visit(value, where)
        elif key in _MANY and isinstance(value, list):
            for item in value:
                visit(item, where)
        elif key in _MAP and isinstance(value, dict):
            for name, item in value.items():
                visit(item, name)


def _fresh_name(base: str, taken: set[str]) -> str:
    stem = (base[:1].upper() + base[1:]) or "Shape"
    name, suffix = stem, 2
    while name in taken:
        name, suffix = f"{stem}{suffix}", suffix + 1
    return name


#: A repeated subschema is hoisted only from this size on: below it, a pointer plus the def's
#: entry costs about as many tokens as the copies (JSON punctuation is a token per character).
SHARE_FROM = 60


def share_repeats(schema: dict[str, Any], names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Hoist a subschema that occurs more than once into `$defs` when pointing at it is cheaper
    than repeating it (the largest saving first, one per round, so nested repeats resolve too).
    A repeat that equals an existing def points at that def; `names` (compact JSON -> name)
    names the others after the spec component they came from, else after the first property."""
    result = schema
    while True:
        defs: dict[str, Any] = dict(result.get("$defs", {}))
        counts: dict[str, int] = {}
        first_seen: dict[str, tuple[str, Any]] = {}
        _count_shapes(result, counts, first_seen, "shape")
        by_def = {_compact(sub): name for name, sub in defs.items()}
        best: tuple[int, str] | None = None
        for key, count in counts.items():
            if len(key) < SHARE_FROM or _def_name(first_seen[key][1]) is not None:
                continue  # too small to pay off, or already a pointer
            existing = by_def.get(key)
            uses = count - 1 if existing is not None else count  # the def itself is counted once
            pointer_size = len(_compact({"$ref": f"{_DEF_PREFIX}{existing or first_seen[key][0]}"}))
            entry = 0 if existing is not None else len(key) + len(first_seen[key][0]) + 4
            saving = uses * (len(key) - pointer_size) - entry
            if uses >= (1 if existing is not None else 2) and saving > 0 and (best is None or saving > best[0]):
                best = (saving, key)
        if best is None:
            return result
        key = best[1]
        name = by_def.get(key) or _fresh_name((names or {}).get(key, first_seen[key][0]), set(defs))
        shape = first_seen[key][1]
        pointer = {"$ref": f"{_DEF_PREFIX}{name}"}

        def swap(sub: Any, _key: str = key, _pointer: dict[str, str] = pointer) -> Any:
            if isinstance(sub, dict) and _compact(sub) == _key:
                return _pointer
            return map_subschemas(sub, swap)

        body = swap({k: v for k, v in result.items() if k != "$defs"})
        defs = {def_name: (sub if def_name == name else swap(sub)) for def_name, sub in defs.items()}
        if name not in defs:
            defs[name] = map_subschemas(shape, swap)
        result = {**body, "$defs": defs}


def open_objects(schema: Any) -> Any:
    """`schema` without `additionalProperties: false` at any depth. A result may gain a field in
    a later release; a client that cached the list (an hour, see the cache hint) must not then
    reject it. Declared fields, their types and `required` are kept as they are."""
    if not isinstance(schema, dict):
        return schema
    kept = {key: value for key, value in schema.items() if not (key == "additionalProperties" and value is False)}
    return map_subschemas(kept, open_objects)


#: Two record shapes that share at least this much (compact JSON of the shared properties) get
#: the shared part as one def (todo tasks and inbox items share 17 fields).
COMMON_FIELDS_FROM = 300


def _records(schema: Any, found: dict[str, dict[str, Any]]) -> None:
    """Every open object subschema with properties (compact JSON -> schema)."""
    if not isinstance(schema, dict):
        return
    if isinstance(schema.get("properties"), dict) and "allOf" not in schema and schema.get("type") == "object":
        found.setdefault(_compact(schema), schema)

    def visit(sub: Any) -> Any:
        _records(sub, found)
        return sub

    map_subschemas(schema, visit)


def share_common_fields(schema: dict[str, Any]) -> dict[str, Any]:
    """Where two open record shapes share many identical properties, move those into one def
    both extend with `allOf` (equivalent for open objects: each property keeps its schema, each
    required name stays required). Only below the envelope, whose objects are open."""
    result = schema
    while True:
        found: dict[str, dict[str, Any]] = {}
        for key, value in result.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    _records(sub, found)
        records = list(found.values())
        best: tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]] | None = None
        for i, first in enumerate(records):
            for second in records[i + 1 :]:
                common = {k: v for k, v in first["properties"].items() if second["properties"].get(k) == v}
                size = len(_compact(common))
                proper = len(common) < min(len(first["properties"]), len(second["properties"]))
                if size >= COMMON_FIELDS_FROM and proper and (best is None or size > best[0]):
                    best = (size, first, second, common)
        if best is None:
            return result
        _, first, second, common = best
        both = set(first.get("required", [])) & set(second.get("required", []))
        shared: dict[str, Any] = {"type": "object", "properties": common}
        shared_required = [name for name in first.get("required", []) if name in common and name in both]
        if shared_required:
            shared["required"] = shared_required
        defs = dict(result.get("$defs", {}))
        name = _fresh_name("SharedFields", set(defs))
        defs[name] = shared
        replacements: dict[str, Any] = {}
        for record in (first, second):
            rest: dict[str, Any] = {"allOf": [{"$ref": f"{_DEF_PREFIX}{name}"}]}
            rest.update({k: v for k, v in record.items() if k not in ("properties", "required")})
            rest["properties"] = {k: v for k, v in record["properties"].items() if k not in common}
            required = [n for n in record.get("required", []) if n not in shared_required]
            if required:
                rest["required"] = required
            replacements[_compact(record)] = rest

        def swap(sub: Any, _replacements: dict[str, Any] = replacements) -> Any:
            if isinstance(sub, dict) and _compact(sub) in _replacements:
                return _replacements[_compact(sub)]
            return map_subschemas(sub, swap)

        body = map_subschemas({k: v for k, v in result.items() if k != "$defs"}, swap)
        result = {**body, "$defs": {k: (v if k == name else swap(v)) for k, v in defs.items()}}


def lean_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The output schema as listed: input-only keywords stripped, types an enum or const implies
    dropped, the objects below the top level opened, trivial defs folded in, repeated shapes
    shared. The top level is left as given (catalog.py lists the envelope open)."""
    stripped: dict[str, Any] = drop_implied_types(strip_input_only(schema))
    opened: dict[str, Any] = map_subschemas(stripped, open_objects)
    return share_repeats(share_common_fields(fold_defs(opened)))


def _without_required(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    kept = {key: value for key, value in schema.items() if key != "required"}
    return map_subschemas(kept, _without_required)


def without_nested_required(schema: dict[str, Any]) -> dict[str, Any]:
    """A lean output schema as listed: no `required` below the top level (the envelope keeps
    its `traceId`), the defs that became trivial folded in. The server checks every result
    against the schema with them (catalog.py `Envelope.checked`), so a listed schema accepts
    whatever is sent."""
    opened: dict[str, Any] = map_subschemas(schema, _without_required)
    return fold_defs(opened)


#: Characters a regex reads as syntax (ECMA-262's SyntaxCharacter and `/`): the only ones escaped,
#: since a client compiling the pattern in Unicode mode (ajv) refuses any other escape (`\-`).
_SYNTAX = re.compile(r"[\\^$.*+?()\[\]{}|/]")


def _field_pattern(names: list[str]) -> str:
    """A regex (ECMA-262 in Unicode mode, and Python) matching exactly these property names."""
    return "^(?:" + "|".join(_SYNTAX.sub(lambda found: "\\" + found[0], name) for name in names) + ")$"


def group_same_fields(schema: Any) -> Any:
    """`schema` with the properties of an object that share one schema declared once: a
    `patternProperties` entry whose pattern names exactly those fields (`^(?:id|content)$`).
    What validates is unchanged: a field is checked against its schema either way, and a name
    matched by a pattern is as declared as one under `properties`. What it saves is the client's
    work: the official client checks a tool's output schema against the 2020-12 metaschema in
    every session, at a cost per subschema (a `{"type": "string"}` per text field of a record
    was most of them; docs/performance.md, "A fresh agent session"). Listed output schemas only:
    an input schema is read by the model, which reads a field list better than a pattern."""
    if not isinstance(schema, dict):
        return schema
    grouped: dict[str, Any] = map_subschemas(schema, group_same_fields)
    properties = grouped.get("properties")
    if not isinstance(properties, dict) or len(properties) < 2:
        return grouped
    by_schema: dict[str, list[str]] = {}
    for name, sub in properties.items():
        by_schema.setdefault(_compact(sub), []).append(name)
    if all(len(names) == 1 for names in by_schema.values()):
        return grouped
    kept = {names[0]: properties[names[0]] for names in by_schema.values() if len(names) == 1}
    patterns = dict(grouped.get("patternProperties", {}))
    for names in by_schema.values():
        if len(names) > 1:
            patterns[_field_pattern(names)] = properties[names[0]]
    result = {key: value for key, value in grouped.items() if key != "properties"}
    if kept:
        result["properties"] = kept
    result["patternProperties"] = patterns
    return result


#: Extension keywords only the server reads (its own validation messages), and the limits it
#: enforces on every call with an error that names the allowed form: never listed.
SERVER_ONLY_KEYWORDS = frozenset({"x-error-message", "x-example"}) | LIMIT_KEYWORDS


def _strip_server_only(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    kept = {key: value for key, value in schema.items() if key not in SERVER_ONLY_KEYWORDS}
    return map_subschemas(kept, _strip_server_only)


def component_names(components: Mapping[str, Any]) -> dict[str, str]:
    """Compact JSON -> name for the spec's schema components that point at nothing else: how an
    inlined copy of one is recognized (and its shared def named) in an input schema."""
    named: dict[str, str] = {}
    for name, component in components.items():
        inner: set[str] = set()
        _referenced(component, inner)
        if not inner and "$ref" not in _compact(component):
            named.setdefault(_compact(component), name)
    return named


def lean_input_schema(schema: Mapping[str, Any], names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The input schema as listed: the operation's own (which REST and MCP validate with),
    without `$schema` (2020-12 is MCP's default) and server-only keywords (the limits among
    them), with its defs folded and its repeated shapes shared. It accepts everything the
    operation's schema accepts; the server checks the limits."""
    listed: dict[str, Any] = drop_implied_types(
        _strip_server_only({key: value for key, value in schema.items() if key != "$schema"})
    )
    return share_repeats(fold_defs(listed), names)


#: How deep a listed output schema describes a result, in property hops from the envelope: the
#: envelope's fields (1: `data`, `traceId`), data's fields (2: a record, a list of records, a
#: count), and each record's own fields (3: their types). A field at that depth which is itself a
#: list or an object is listed by its type; its shape below is the contract's, and the server
#: checks it in every result against the full envelope (catalog.py `Envelope.checked`).
LISTED_DEPTH = 3

#: Keywords that give a subschema's structure below it: dropped at LISTED_DEPTH.
_STRUCTURE = frozenset(_ONE) | frozenset(_MANY) | frozenset(_MAP) | {"required", "$ref", "dependentRequired"}


def _types_of(schema: Any, defs: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> set[str] | None:
    """The JSON types `schema` allows, from its `type`, the defs it points at or the branches of
    its `anyOf` / `oneOf` (`allOf`: the first branch that says); None where they are not all said."""
    if schema is True or schema == {}:
        return None
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("type"), str):
        return {schema["type"]}
    if isinstance(schema.get("type"), list):
        return set(schema["type"])
    name = _def_name(schema)
    if name is not None and name not in seen and name in defs:
        return _types_of(defs[name], defs, seen | {name})
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        found: set[str] = set()
        for branch in branches:
            types = _types_of(branch, defs, seen)
            if types is None:
                return None
            found |= types
        return found
    for branch in schema.get("allOf") or []:
        types = _types_of(branch, defs, seen)
        if types is not None:
            return types
    return None


def _by_type(schema: dict[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A field at LISTED_DEPTH: its enum or const as it is, else its JSON type alone."""
    if "enum" in schema or "const" in schema:
        return {key: value for key, value in schema.items() if key not in _STRUCTURE}
    types = _types_of(schema, defs)
    if types is None:
        return {}
    ordered = sorted(types - {"null"}) + sorted(types & {"null"})  # ["string", "null"], as the spec writes it
    return {"type": ordered[0] if len(ordered) == 1 else ordered}


def to_listed_depth(schema: dict[str, Any]) -> dict[str, Any]:
    """A listed output schema described down to LISTED_DEPTH: the defs it points at inlined on
    the way (a def shared by two depths is cut at each), what is deeper listed by its type only.
    It accepts everything the schema did (only constraints are dropped)."""
    defs: Mapping[str, Any] = schema.get("$defs", {})

    def walk(sub: Any, depth: int, seen: frozenset[str]) -> Any:
        if not isinstance(sub, dict):
            return sub
        name = _def_name(sub)
        if name is not None and name in defs and name not in seen:
            return walk(defs[name], depth, seen | {name})
        if depth >= LISTED_DEPTH:
            return _by_type(sub, defs)
        result: dict[str, Any] = {}
        for key, value in sub.items():
            if key == "$defs":
                continue
            if key in ("properties", "patternProperties") and isinstance(value, dict):
                result[key] = {field: walk(item, depth + 1, seen) for field, item in value.items()}
            elif key == "additionalProperties" and isinstance(value, dict):
                result[key] = walk(value, depth + 1, seen)
            elif key in _ONE and isinstance(value, dict):
                result[key] = walk(value, depth, seen)
            elif key in _MANY and isinstance(value, list):
                result[key] = [walk(item, depth, seen) for item in value]
            else:
                result[key] = value
        return result

    listed: dict[str, Any] = walk(schema, 0, frozenset())
    return listed
