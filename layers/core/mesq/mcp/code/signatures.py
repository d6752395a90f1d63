"""Compact TypeScript-style signatures of a tool, from the schemas it lists:
`(args: {memoId: string; limit?: number}) => {memo: Memo}` plus the named shapes it uses
(`Memo: {id: string; ...}`), so a script author sees what `mesq.<tool>(args)` takes and what
`.data` holds without reading JSON Schema. The one-line form (`brief_signature`) stops at the
first level: `(args: {id: string; due?: {type:"date",date} | {type:"datetime",at} | null}) =>
{task: object}`, no named shapes (a union's objects are written in short, an object below the
first level is `object`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_MAX_DEPTH = 4


class _Writer:
    def __init__(self, defs: Mapping[str, Any], max_depth: int = _MAX_DEPTH, *, named: bool = True) -> None:
        self.defs = defs
        self.max_depth = max_depth
        self.named = named  # False: a shared shape is written in place (to max_depth), not named
        self.used: dict[str, str] = {}
        self._inlining: set[str] = set()

    def type_of(self, schema: Any, depth: int = 0) -> str:
        if not isinstance(schema, Mapping):
            return "any"
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._named(ref) if self.named else self._inline(ref, depth)
        if "const" in schema:
            return json.dumps(schema["const"], ensure_ascii=False)
        if "enum" in schema:
            return " | ".join(json.dumps(value, ensure_ascii=False) for value in schema["enum"])
        for key in ("oneOf", "anyOf"):
            if isinstance(schema.get(key), list) and "properties" not in schema:
                return " | ".join(dict.fromkeys(self._member(part, depth) for part in schema[key]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.type_of({**schema, "type": one}, depth) for one in kind)
        if kind == "array":
            item = self.type_of(schema.get("items"), depth + 1)
            return f"({item})[]" if " | " in item else f"{item}[]"
        if kind == "object" or "properties" in schema or "allOf" in schema:
            return self._object(schema, depth)
        return {"integer": "number", "number": "number", "string": "string", "boolean": "boolean",
                "null": "null"}.get(str(kind), "any")  # fmt: skip

    def _object(self, schema: Mapping[str, Any], depth: int) -> str:
        properties: dict[str, Any] = {}
        required: set[str] = set(schema.get("required", []))
        for part in schema.get("allOf", []):
            if isinstance(part, Mapping) and isinstance(part.get("$ref"), str):
                part = self.defs.get(part["$ref"].rsplit("/", 1)[-1], {})
            if isinstance(part, Mapping):
                properties.update(part.get("properties", {}))
                required |= set(part.get("required", []))
        properties.update(schema.get("properties", {}))
        if not properties:
            extra = schema.get("additionalProperties")
            return f"{{[key: string]: {self.type_of(extra, depth + 1)}}}" if isinstance(extra, Mapping) else "object"
        if depth >= self.max_depth:
            return "object"
        fields = "; ".join(
            f"{name}{'' if name in required else '?'}: {self.type_of(prop, depth + 1)}"
            for name, prop in properties.items()
        )
        return f"{{{fields}}}"

    def _member(self, schema: Any, depth: int) -> str:
        """A union's member; past the depth limit an object is written as its shape in short
        (`{type:"date",date}`: constants with their value, other fields by name, `?` when
        optional), so the one-line signature still says which forms a field takes."""
        if depth < self.max_depth or not isinstance(schema, Mapping):
            return self.type_of(schema, depth)
        if isinstance(schema.get("$ref"), str):
            schema = self.defs.get(schema["$ref"].rsplit("/", 1)[-1], schema)
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(properties, Mapping) or not properties:
            return self.type_of(schema, depth)
        required = set(schema.get("required", []))
        fields = []
        for name, prop in properties.items():
            mark = "" if name in required else "?"
            if isinstance(prop, Mapping) and ("const" in prop or "enum" in prop):
                fields.append(f"{name}{mark}:{self.type_of(prop, depth)}")
            else:
                fields.append(f"{name}{mark}")
        return "{" + ",".join(fields) + "}"

    def _named(self, ref: str) -> str:
        name = ref.rsplit("/", 1)[-1]
        if name not in self.used and name in self.defs:
            self.used[name] = ""  # placeholder first: a self-referencing shape terminates
            self.used[name] = self.type_of(self.defs[name], 1)
        return name

    def _inline(self, ref: str, depth: int) -> str:
        name = ref.rsplit("/", 1)[-1]
        if name in self._inlining or name not in self.defs:
            return "object"
        self._inlining.add(name)
        try:
            return self.type_of(self.defs[name], depth)
        finally:
            self._inlining.discard(name)


def signature(input_schema: Mapping[str, Any], output_schema: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """`(args: {...}) => <data>` and the named shapes it mentions, from the listed schemas (the
    output schema is the envelope; its `data` is what a successful call returns)."""
    writer = _Writer({**input_schema.get("$defs", {}), **output_schema.get("$defs", {})})
    args = writer.type_of(input_schema)
    data = writer.type_of(output_schema.get("properties", {}).get("data"))
    return f"(args: {args}) => {data}", dict(writer.used)


def brief_signature(input_schema: Mapping[str, Any], output_schema: Mapping[str, Any]) -> str:
    """`signature` on one line: the arguments and the fields of `data` with their types to the
    first level (an object below is `object`, enums stay spelled out), no named shapes."""
    writer = _Writer({**input_schema.get("$defs", {}), **output_schema.get("$defs", {})}, 1, named=False)
    args = writer.type_of(input_schema)
    data = writer.type_of(output_schema.get("properties", {}).get("data"))
    return f"(args: {args}) => {data}"
