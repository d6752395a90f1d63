"""The OpenAPI document as an operation registry.

`mesq/openapi.yaml` is the single source of truth. This module loads it once and turns each
operation into an `Operation`: its HTTP binding, the parameters, and one self-contained JSON
Schema for its arguments (`input_schema`: path, query and header parameters and the request
body's fields, all top-level, `additionalProperties: false`) and one for its result
(`data_schema`). REST validates requests with exactly the schema MCP advertises as a tool's
input, so the two can never disagree.

Schema resolution follows memos' MCP package: the outermost `$ref` is inlined, nested `$ref`s
become local `#/$defs/<Name>` pointers with the component collected once (cycle-safe).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Literal

HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
_METHODS = ("get", "post", "put", "patch", "delete")
#: Raw operations (`x-mesq-raw: true`) carry bytes, not JSON: documented in the spec, served by a
#: hand-written route, never generated as a JSON route or an MCP tool. They may also use HEAD.
RAW_KEY = "x-mesq-raw"
_RAW_METHODS = (*_METHODS, "head")
#: Rules across an operation's arguments (parameters and body fields alike), e.g. "memoIds
#: excludes the scope fields": JSON Schema keywords added to the flat input schema, so MCP tools
#: advertise them and both adapters enforce them. (OpenAPI cannot tie query parameters together,
#: so the REST document keeps them in prose.)
INPUT_RULES_KEY = "x-mesq-input-rules"
_INPUT_RULE_KEYWORDS = frozenset({"dependentRequired", "dependentSchemas", "not", "anyOf", "allOf", "oneOf"})
_SCHEMA_PREFIX = "#/components/schemas/"
_PARAMETER_PREFIX = "#/components/parameters/"


class SpecError(Exception):
    """The OpenAPI document is inconsistent: raised at load time, never at request time."""


@dataclass(frozen=True)
class Parameter:
    name: str  # the HTTP name (query key, path segment, header)
    location: Literal["path", "query", "header"]
    argument: str  # the argument name operations and MCP tools see
    required: bool
    schema: dict[str, Any]  # resolved, for coercing query strings


@dataclass(frozen=True)
class McpBinding:
    title: str
    scopes: tuple[str, ...]
    toolset: str
    exposed: bool
    annotation_overrides: Mapping[str, bool]
    #: x-mcp `anyScope: true`: one of `scopes` is enough (search_everything reads what it may).
    any_scope: bool = False
    #: x-mcp `titleZh`: the title in Chinese. Not listed (the catalog speaks English); search_tools
    #: matches a Chinese query against it, where the small model and the dictionary gloss fall short.
    title_zh: str = ""


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: HttpMethod
    path: str
    summary: str
    description: str
    parameters: tuple[Parameter, ...]
    body_fields: frozenset[str]
    has_body: bool
    success_status: int
    input_schema: dict[str, Any]
    data_schema: dict[str, Any]
    mcp: McpBinding
    extras: Mapping[str, Any] = field(default_factory=dict)
    #: The read whose answer carries the `revision` this operation's `expectedRevision` wants
    #: (the GET at its path or the nearest one above it): named in the "is required" message.
    revision_read: str | None = None

    @property
    def scopes(self) -> tuple[str, ...]:
        return self.mcp.scopes

    @property
    def is_write(self) -> bool:
        return any(scope.endswith(":write") for scope in self.mcp.scopes)


class _Resolver:
    def __init__(self, document: Mapping[str, Any]) -> None:
        self._schemas: Mapping[str, Any] = document.get("components", {}).get("schemas", {})
        self._parameters: Mapping[str, Any] = document.get("components", {}).get("parameters", {})

    def parameter(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = raw.get("$ref")
        if ref is None:
            return raw
        if not isinstance(ref, str) or not ref.startswith(_PARAMETER_PREFIX):
            raise SpecError(f"unsupported parameter reference {ref!r}")
        name = ref.removeprefix(_PARAMETER_PREFIX)
        if name not in self._parameters:
            raise SpecError(f"unknown parameter component {name!r}")
        return self._parameters[name]  # type: ignore[no-any-return]

    def inline(self, schema: Any, defs: dict[str, Any]) -> Any:
        """Resolve the outermost `$ref` in place; nested ones become `$defs` pointers."""
        if isinstance(schema, dict) and "$ref" in schema:
            name = self._component_name(schema["$ref"])
            return self._rewrite(copy.deepcopy(self._schemas[name]), defs)
        return self._rewrite(copy.deepcopy(schema), defs)

    def coercion_schema(self, schema: Any) -> dict[str, Any]:
        """A parameter's schema with its array items inlined too: what turning query text into
        typed values needs (`type`, `items.type`)."""
        defs: dict[str, Any] = {}
        resolved: dict[str, Any] = self.inline(schema, defs)
        items = resolved.get("items")
        if isinstance(items, dict) and "$ref" in items:
            resolved["items"] = defs[items["$ref"].removeprefix("#/$defs/")]
        return resolved

    def _component_name(self, ref: Any) -> str:
        if not isinstance(ref, str) or not ref.startswith(_SCHEMA_PREFIX):
            raise SpecError(f"unsupported schema reference {ref!r}")
        name = ref.removeprefix(_SCHEMA_PREFIX)
        if name not in self._schemas:
            raise SpecError(f"unknown schema component {name!r}")
        return name

    def _rewrite(self, node: Any, defs: dict[str, Any]) -> Any:
        if isinstance(node, list):
            return [self._rewrite(item, defs) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and set(node) == {"$ref", "description"}:
            # A pointer with its own description (a field rule where the model reads it): the
            # target written in place with it, as `lean` would inline it anyway.
            target = self._schemas[self._component_name(node["$ref"])]
            return {**self._rewrite(copy.deepcopy(target), defs), "description": node["description"]}
        if "$ref" in node:
            name = self._component_name(node["$ref"])
            if name not in defs:
                defs[name] = {}  # placeholder first: a self-referencing schema terminates
                defs[name] = self._rewrite(copy.deepcopy(self._schemas[name]), defs)
            return {"$ref": f"#/$defs/{name}"}
        return {key: self._rewrite(value, defs) for key, value in node.items()}


def _with_defs(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    result = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    if defs:
        result["$defs"] = defs
    return result


def _build_operation(resolver: _Resolver, path: str, method: str, raw: Mapping[str, Any]) -> Operation:
    operation_id = raw.get("operationId")
    if not isinstance(operation_id, str) or not operation_id:
        raise SpecError(f"{method.upper()} {path} has no operationId")
    where = f"operation {operation_id!r}"
    x_mcp = raw.get("x-mcp")
    if not isinstance(x_mcp, Mapping) or not x_mcp.get("scopes") or not x_mcp.get("toolset"):
        raise SpecError(f"{where} needs x-mcp with scopes and toolset")

    defs: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    parameters: list[Parameter] = []
    for raw_param in raw.get("parameters", []):
        param = resolver.parameter(raw_param)
        location = param.get("in")
        if location not in ("path", "query", "header"):
            raise SpecError(f"{where}: unsupported parameter location {location!r}")
        argument = param.get("x-argument", param["name"])
        if argument in properties:
            raise SpecError(f"{where}: duplicate argument {argument!r}")
        prop = resolver.inline(param.get("schema", {}), defs)
        if param.get("description") and "description" not in prop:
            prop["description"] = param["description"]
        properties[argument] = prop
        is_required = bool(param.get("required")) or location == "path"
        if is_required:
            required.append(argument)
        parameters.append(
            Parameter(
                name=param["name"],
                location=location,
                argument=argument,
                required=is_required,
                schema=resolver.coercion_schema(param.get("schema", {})),
            )
        )

    body_fields: set[str] = set()
    body_spec = raw.get("requestBody")
    body_schema: dict[str, Any] = {}
    if body_spec is not None:
        body_schema = resolver.inline(body_spec["content"]["application/json"]["schema"], defs)
        if body_schema.get("type") != "object" or body_schema.get("additionalProperties") is not False:
            raise SpecError(f"{where}: a request body must be a closed object schema")
        for name, prop in body_schema.get("properties", {}).items():
            if name in properties:
                raise SpecError(f"{where}: body field {name!r} collides with a parameter")
            properties[name] = prop
            body_fields.add(name)
        required += body_schema.get("required", [])

    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        input_schema["required"] = required
    unsupported = set(body_schema) - {"type", "properties", "required", "additionalProperties", "description"}
    if unsupported:
        # They would be lost when the body's fields are merged with the parameters.
        raise SpecError(f"{where}: request body keywords {sorted(unsupported)} are not supported")
    rules = raw.get(INPUT_RULES_KEY, {})
    if not isinstance(rules, Mapping) or set(rules) - _INPUT_RULE_KEYWORDS:
        raise SpecError(f"{where}: {INPUT_RULES_KEY} takes only {sorted(_INPUT_RULE_KEYWORDS)}")
    input_schema.update(resolver.inline(dict(rules), defs))

    responses = raw.get("responses", {})
    success = [code for code in responses if str(code).startswith("2")]
    if len(success) != 1:
        raise SpecError(f"{where} needs exactly one 2xx response")
    status = int(success[0])
    data_defs: dict[str, Any] = {}
    data_schema = resolver.inline(responses[success[0]]["content"]["application/json"]["schema"], data_defs)

    annotations = x_mcp.get("annotations", {})
    return Operation(
        operation_id=operation_id,
        method=method.upper(),  # type: ignore[arg-type]
        path=path,
        summary=str(raw.get("summary", "")),
        description=str(raw.get("description", "")).strip(),
        parameters=tuple(parameters),
        body_fields=frozenset(body_fields),
        has_body=body_spec is not None,
        success_status=status,
        input_schema=_with_defs(input_schema, defs),
        data_schema=_with_defs(data_schema, data_defs),
        mcp=McpBinding(
            title=str(x_mcp.get("title", raw.get("summary", operation_id))),
            scopes=tuple(x_mcp["scopes"]),
            toolset=str(x_mcp["toolset"]),
            exposed=bool(x_mcp.get("expose", True)),
            annotation_overrides=dict(annotations),
            any_scope=bool(x_mcp.get("anyScope", False)),
            title_zh=str(x_mcp.get("titleZh", "")),
        ),
        revision_read=str(x_mcp["revisionRead"]) if "revisionRead" in x_mcp else None,
    )


@dataclass(frozen=True)
class RawOperation:
    operation_id: str
    method: str  # upper case, HEAD included
    path: str


@dataclass(frozen=True)
class Spec:
    document: dict[str, Any]
    operations: Mapping[str, Operation]
    #: The `error` object of every failure envelope (REST and MCP alike), resolved.
    error_schema: dict[str, Any]
    #: operationId -> the raw (non-JSON) operations, served by their own routes.
    raw_operations: Mapping[str, RawOperation] = field(default_factory=dict)
    #: operationId -> the file that defines it (`memos/openapi.yaml`, or `openapi.yaml` for the
    #: root's own): the operation registry loads a fragment's implementations on the first call
    #: of one of its operations (application/registries.py). Empty for a spec built from one
    #: document (`build_spec`).
    sources: Mapping[str, str] = field(default_factory=dict)
    #: What a write's success envelope carries beside `data` (`changeIds`, `runId`, `sessionId`):
    #: the properties of components.schemas.WriteRecord, resolved.
    write_record: Mapping[str, Any] = field(default_factory=dict)

    def operation(self, operation_id: str) -> Operation:
        return self.operations[operation_id]

    @cached_property
    def rest_document(self) -> dict[str, Any]:
        """The document as REST serves it at /api/openapi.json: each 2xx schema wrapped in the
        `{data, traceId}` envelope, and the error envelope as every operation's default response
        (made on the first request for it, not at every cold start)."""
        return _rest_document(self.document, self.write_record)


def build_spec(document: dict[str, Any]) -> Spec:
    resolver = _Resolver(document)
    operations: dict[str, Operation] = {}
    raw: dict[str, RawOperation] = {}
    for path, item in document.get("paths", {}).items():
        for method in _RAW_METHODS:
            if method not in item:
                continue
            if item[method].get(RAW_KEY) is True:
                operation_id = item[method].get("operationId")
                if not isinstance(operation_id, str) or not operation_id:
                    raise SpecError(f"{method.upper()} {path} has no operationId")
                if operation_id in raw or operation_id in operations:
                    raise SpecError(f"duplicate operationId {operation_id!r}")
                raw[operation_id] = RawOperation(operation_id, method.upper(), path)
                continue
            if method == "head":
                raise SpecError(f"HEAD {path}: only raw operations declare HEAD (GET routes answer it)")
            op = _build_operation(resolver, path, method, item[method])
            if op.operation_id in operations or op.operation_id in raw:
                raise SpecError(f"duplicate operationId {op.operation_id!r}")
            operations[op.operation_id] = op
    if "Error" not in document.get("components", {}).get("schemas", {}):
        raise SpecError("components.schemas.Error (the error object of every envelope) is missing")
    return Spec(
        document=document,
        operations=_with_revision_reads(operations),
        error_schema=resolver.inline({"$ref": f"{_SCHEMA_PREFIX}Error"}, {}),
        raw_operations=raw,
        write_record=_write_record(resolver, document),
    )


def _write_record(resolver: _Resolver, document: Mapping[str, Any]) -> dict[str, Any]:
    """The envelope properties a write's success carries beside `data` (WriteRecord's)."""
    if "WriteRecord" not in document.get("components", {}).get("schemas", {}):
        return {}
    schema = resolver.inline({"$ref": f"{_SCHEMA_PREFIX}WriteRecord"}, {})
    return dict(schema.get("properties", {}))


def _writes(operation: Mapping[str, Any]) -> bool:
    """Whether a raw operation object changes data (a `:write` scope), as `Operation.is_write`."""
    scopes = (operation.get("x-mcp") or {}).get("scopes") or ()
    return any(str(scope).endswith(":write") for scope in scopes)


def _with_revision_reads(operations: dict[str, Operation]) -> dict[str, Operation]:
    """Each operation that takes `expectedRevision`, with the read that returns it: its
    `x-mcp.revisionRead`, else the exposed GET at its own path, else at the longest path above
    it (`/tasks/{id}/complete` -> `/tasks/{id}`)."""
    reads = {op.path: op.operation_id for op in operations.values() if op.method == "GET" and op.mcp.exposed}

    def read_for(path: str) -> str | None:
        parts = path.split("/")
        for end in range(len(parts), 1, -1):
            found = reads.get("/".join(parts[:end]))
            if found is not None:
                return found
        return None

    found = {
        name: replace(op, revision_read=read_for(op.path))
        if "expectedRevision" in op.input_schema.get("properties", {}) and op.revision_read is None
        else op
        for name, op in operations.items()
    }
    return {name: _revision_described(op) for name, op in found.items()}


def _revision_described(op: Operation) -> Operation:
    """`expectedRevision` described with the read that returns it, where the model reads it (a
    rule said only in the server instructions is missed): `From get_todo_task`. The pointer is
    written in place, so its def may fall out of the listed schema."""
    properties = op.input_schema.get("properties", {})
    field_schema = properties.get("expectedRevision")
    if op.revision_read is None or not isinstance(field_schema, dict) or "description" in field_schema:
        return op
    target = field_schema
    ref = field_schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = op.input_schema["$defs"][ref.removeprefix("#/$defs/")]
    described = {**copy.deepcopy(target), "description": f"From {op.revision_read}"}
    schema = {**op.input_schema, "properties": {**properties, "expectedRevision": described}}
    return replace(op, input_schema=schema)


def _rest_document(document: dict[str, Any], write_record: Mapping[str, Any]) -> dict[str, Any]:
    served = copy.deepcopy(document)
    record_refs = {name: {"$ref": f"{_SCHEMA_PREFIX}WriteRecord/properties/{name}"} for name in write_record}
    for item in served.get("paths", {}).values():
        for method in _RAW_METHODS:
            if method not in item:
                continue
            responses = item[method]["responses"]
            extra = record_refs if _writes(item[method]) and item[method].get(RAW_KEY) is not True else {}
            for code, response in responses.items():
                if str(code).startswith("2") and "application/json" in response.get("content", {}):
                    media = response["content"]["application/json"]
                    media["schema"] = {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["data", "traceId"],
                        "properties": {"data": media["schema"], "traceId": {"type": "string"}, **extra},
                    }
            responses["default"] = {"$ref": "#/components/responses/Error"}
    return served


FRAGMENTS_KEY = "x-mesq-fragments"
_FRAGMENT_KEYS = frozenset({"paths", "components"})


def merge_fragments(root: dict[str, Any], fragments: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One document from the root and its domain fragments (each domain package owns the paths
    and schemas of its operations). A fragment holds only `paths` and `components`; a path or a
    component defined twice is an error, so nothing can be written twice or silently shadowed."""
    merged = copy.deepcopy(root)
    merged.pop(FRAGMENTS_KEY, None)
    paths = merged.setdefault("paths", {})
    components = merged.setdefault("components", {})
    for name, fragment in fragments.items():
        extra = set(fragment) - _FRAGMENT_KEYS
        if extra:
            raise SpecError(f"fragment {name}: only paths and components are allowed, not {sorted(extra)}")
        for path, item in (fragment.get("paths") or {}).items():
            # One path may be shared by domains (GET /tasks/{id} in views, PATCH in tasks), but
            # each method (and any other path-item key) is defined once.
            if path not in paths:
                paths[path] = copy.deepcopy(item)
                continue
            target_item = paths[path]
            clash = sorted(set(target_item) & set(item or {}))
            if not item or not target_item or clash:
                raise SpecError(f"fragment {name}: path {path!r} is already defined ({', '.join(clash)})")
            target_item.update(copy.deepcopy(item))
        for section, entries in (fragment.get("components") or {}).items():
            target = components.setdefault(section, {})
            for key, value in (entries or {}).items():
                if key in target:
                    raise SpecError(f"fragment {name}: components.{section}.{key} is already defined")
                target[key] = copy.deepcopy(value)
    return merged


def parse_yaml(text: str) -> Any:
    """YAML through libyaml's safe loader when PyYAML was built with it (the wheels are): about
    10x faster than the pure-Python loader. PyYAML is imported here, not at a cold start that
    reads the built form (spec_form.py)."""
    import yaml

    loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # noqa: S506  # a safe loader (C or Python)


@cache
def load_spec() -> Spec:
    """The packaged spec (the root `openapi.yaml` plus the fragments it lists), once per process."""
    return read_spec(resources.files("mesq"))


def read_spec(package: Traversable) -> Spec:
    """The spec whose root `openapi.yaml` (and the fragments it lists, relative to it) are in
    `package`: the packaged one, or a copy in a directory (tests that change a spec file). Read
    from its built form (`openapi.built.json`, spec_form.py) when that is of these very sources,
    else parsed."""
    from .spec_form import read_form

    return read_form(package) or read_spec_parsed(package)


def read_spec_parsed(package: Traversable) -> Spec:
    """The spec in `package` parsed from its YAML sources and built."""
    root = parse_yaml(package.joinpath("openapi.yaml").read_text(encoding="utf-8"))
    fragments = {
        name: parse_yaml(package.joinpath(name).read_text(encoding="utf-8")) or {}
        for name in root.get(FRAGMENTS_KEY, [])
    }
    built = build_spec(merge_fragments(root, fragments))
    sources = {**_defined_in("openapi.yaml", root)}
    for name, fragment in fragments.items():
        sources.update(_defined_in(name, fragment))
    return replace(built, sources={op: sources[op] for op in (*built.operations, *built.raw_operations)})


def _defined_in(name: str, document: Mapping[str, Any]) -> dict[str, str]:
    """operationId -> `name`, for every operation `document` defines."""
    return {
        item[method]["operationId"]: name
        for item in (document.get("paths") or {}).values()
        for method in _RAW_METHODS
        if isinstance(item, dict) and isinstance(item.get(method), dict) and "operationId" in item[method]
    }
