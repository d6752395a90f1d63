"""The spec as it is built, checked in beside its sources (`openapi.built.json`), so a cold start
reads JSON instead of parsing YAML and resolving every schema.

Parsing the root `openapi.yaml` and its fragments (libyaml) and building every operation's flat
input and data schemas was most of the spec's cost at a cold start (docs/performance.md, "Cold
start"): ~110 ms of it on an idle machine, with PyYAML's own import. The built form loads with
the C JSON parser in a few milliseconds.

The form names the fragments the root lists and carries the SHA-256 of the sources (the root's
text and each fragment's, in the root's order: a changed list changes the root's text);
`spec.read_spec` uses it only when those files have that digest now, and parses them otherwise,
so an edited spec is never served stale (a test fails until the form is written again:
`python -m mesq.kernel.spec_form`). `tests/kernel/test_spec_form.py` checks that
the checked-in form is current and that it loads to exactly the spec a fresh parse builds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from .spec import McpBinding, Operation, Parameter, RawOperation, Spec

FORM_NAME = "openapi.built.json"
#: The form's own layout; a form of another layout is not read (a fresh parse instead).
LAYOUT = 3


def texts(package: Traversable, fragments: list[str]) -> tuple[str, dict[str, str]]:
    """The root document's text and each named fragment's, in that order."""
    root = package.joinpath("openapi.yaml").read_text(encoding="utf-8")
    return root, {name: package.joinpath(name).read_text(encoding="utf-8") for name in fragments}


def digest(root: str, fragments: Mapping[str, str]) -> str:
    hashed = hashlib.sha256(root.encode("utf-8"))
    for name, text in fragments.items():
        hashed.update(b"\0" + name.encode("utf-8") + b"\0" + text.encode("utf-8"))
    return hashed.hexdigest()


def _parameter(parameter: Parameter) -> dict[str, Any]:
    return {"name": parameter.name, "location": parameter.location, "argument": parameter.argument,
            "required": parameter.required, "schema": parameter.schema}  # fmt: skip


def _operation(op: Operation) -> dict[str, Any]:
    mcp = op.mcp
    return {
        "operation_id": op.operation_id, "method": op.method, "path": op.path, "summary": op.summary,
        "description": op.description, "parameters": [_parameter(p) for p in op.parameters],
        "body_fields": sorted(op.body_fields), "has_body": op.has_body, "success_status": op.success_status,
        "input_schema": op.input_schema, "data_schema": op.data_schema,
        "mcp": {"title": mcp.title, "scopes": list(mcp.scopes), "toolset": mcp.toolset, "exposed": mcp.exposed,
                "annotation_overrides": dict(mcp.annotation_overrides), "any_scope": mcp.any_scope,
                "title_zh": mcp.title_zh},
        "extras": dict(op.extras), "revision_read": op.revision_read,
    }  # fmt: skip


def to_form(spec: Spec, fragments: list[str], source_digest: str) -> dict[str, Any]:
    return {
        "layout": LAYOUT,
        "fragments": fragments,
        "digest": source_digest,
        "document": spec.document,
        "operations": [_operation(op) for op in spec.operations.values()],
        "error_schema": spec.error_schema,
        "raw_operations": [[raw.operation_id, raw.method, raw.path] for raw in spec.raw_operations.values()],
        "sources": dict(spec.sources),
        "write_record": dict(spec.write_record),
    }


def from_form(form: Mapping[str, Any]) -> Spec:
    operations = {}
    for entry in form["operations"]:
        mcp = entry["mcp"]
        operations[entry["operation_id"]] = Operation(
            operation_id=entry["operation_id"], method=entry["method"], path=entry["path"], summary=entry["summary"],
            description=entry["description"], parameters=tuple(Parameter(**p) for p in entry["parameters"]),
            body_fields=frozenset(entry["body_fields"]), has_body=entry["has_body"],
            success_status=entry["success_status"], input_schema=entry["input_schema"],
            data_schema=entry["data_schema"],
            mcp=McpBinding(mcp["title"], tuple(mcp["scopes"]), mcp["toolset"], mcp["exposed"],
                           mcp["annotation_overrides"], mcp["any_scope"], mcp["title_zh"]),
            extras=entry["extras"], revision_read=entry["revision_read"],
        )  # fmt: skip
    raw = {name: RawOperation(name, method, path) for name, method, path in form["raw_operations"]}
    return Spec(form["document"], operations, form["error_schema"], raw, form["sources"], form["write_record"])


def read_form(package: Traversable) -> Spec | None:
    """The checked-in form of the spec in `package`; None when there is none, or it is of other
    sources (one of them changed since it was written) or of another layout."""
    built = package.joinpath(FORM_NAME)
    if not built.is_file():
        return None
    form = json.loads(built.read_text(encoding="utf-8"))
    if form.get("layout") != LAYOUT:
        return None
    try:
        root, fragments = texts(package, list(form["fragments"]))
    except FileNotFoundError:
        return None
    if form.get("digest") != digest(root, fragments):
        return None
    return from_form(form)


def write(directory: Path) -> Path:
    """Write the form of the spec whose sources are in `directory`, from a fresh parse."""
    from .spec import FRAGMENTS_KEY, parse_yaml, read_spec_parsed

    names = list(parse_yaml((directory / "openapi.yaml").read_text(encoding="utf-8")).get(FRAGMENTS_KEY, []))
    root, fragments = texts(directory, names)
    form = to_form(read_spec_parsed(directory), names, digest(root, fragments))
    target = directory / FORM_NAME
    # One value a line: a generated file, but its diff still shows which operation changed.
    target.write_text(json.dumps(form, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return target


if __name__ == "__main__":
    print(write(Path(str(resources.files("mesq")))))
