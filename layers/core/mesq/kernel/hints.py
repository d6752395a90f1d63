"""What a validation message says to fix a call, from the schema itself (issue 29, point 4).

A model guesses at exactly the places a generic validator message leaves it guessing: which
forms a union takes, which names exist, what a pattern allows. These helpers turn the schema
into that answer, so the schema stays the one source of truth:

- `closest(name, names)`: the valid name nearest to a misspelled or invented one (`dueDate` ->
  `due`), for unknown fields and unknown tools;
- `forms(schema, root)`: each accepted form of a union with an example, built from `const`,
  `enum`, `type`, `format`, required properties and the server-only `x-example` keyword (never
  listed to clients: mcp/lean.py strips it with `x-error-message`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any

#: Examples for string formats a union member may use (RFC 3339 as the contract writes it).
FORMAT_EXAMPLES = {"date-time": "2026-12-03T09:00:00+08:00", "date": "2026-12-03"}
_MAX_DEPTH = 3


def closest(name: str, names: Iterable[str]) -> str | None:
    """The valid name nearest to `name`, case-insensitively: the longest one that begins or ends
    it or that it begins (`dueDate` -> `due`, `tag` -> `tags`), else a close spelling (difflib
    ratio >= 0.6, `priorty` -> `priority`); None if none is near."""
    candidates = [str(candidate) for candidate in names]
    key = name.lower()
    affixed = [
        c
        for c in candidates
        if len(c) >= 3 and (key.startswith(c.lower()) or key.endswith(c.lower()) or c.lower().startswith(key))
    ]
    if affixed:
        return max(
            affixed, key=lambda c: (key.startswith(c.lower()) or key.endswith(c.lower()), -abs(len(c) - len(key)))
        )
    lowered = {candidate.lower(): candidate for candidate in candidates}
    near = difflib.get_close_matches(key, list(lowered), n=1, cutoff=0.6)
    return lowered[near[0]] if near else None


def _resolved(schema: Any, root: Mapping[str, Any]) -> Any:
    seen = 0
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < 10:
        pointer = str(schema["$ref"])
        if not pointer.startswith("#/"):
            return schema
        target: Any = root
        for part in pointer[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        schema, seen = target, seen + 1
    return schema


def example(schema: Any, root: Mapping[str, Any], depth: int = 0) -> Any:
    """A value `schema` accepts, as a model would write it; `...` where the schema says too little."""
    schema = _resolved(schema, root)
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return ...
    if "x-example" in schema:
        return schema["x-example"]
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return example(schema[key][0], root, depth + 1)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "null":
        return None
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: example(properties.get(name), root, depth + 1) for name in schema.get("required", [])}
    if kind == "array":
        return [example(schema.get("items"), root, depth + 1)]
    if kind == "string":
        return FORMAT_EXAMPLES.get(str(schema.get("format")), "...")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return ...


def _text(value: Any) -> str:
    if value is ...:
        return "..."
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=lambda _: "...")
    return text.replace('"..."', "...")


def forms(members: Iterable[Any], root: Mapping[str, Any]) -> str:
    """`{"type": "date", "date": "2026-12-03"}, {...} or null`: each member of a union by example."""
    shown = list(dict.fromkeys(_text(example(member, root)) for member in members))
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " or " + shown[-1]
