"""The tool catalog: one MCP tool per exposed operation of `openapi.yaml`, built once per process.

Every tool is derived from its `Operation` (mesq/kernel/spec.py): the input schema is the operation's
flat argument schema (path, query and header parameters and the body's fields, all top-level,
`additionalProperties: false`), the output schema is the unified result envelope around the
operation's `data` schema, the annotations come from the HTTP method with the `x-mcp`
overrides on top, and the description is the operation's own (written for an agent; the rules
every tool shares are in the server instructions). Both schemas are listed lean (lean.py).
Construction fails fast: an operation without an implementation, a duplicate or malformed
name, an unknown toolset, an invalid schema or annotations that contradict the scopes all
raise `CatalogError` before a single request is served. (Checking every schema
against the 2020-12 metaschema costs ~20 ms per schema on a small machine, so that check lives
in the catalog test, which walks every tool, instead of in every cold start.)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.tool_name_validation import TOOL_NAME_REGEX

from ..application.invocation import REGISTRY, AsyncOperationFn, OperationFn
from ..application.registries import lazy_function
from ..application.validation import prepare_validators
from ..kernel.messages import quoted
from ..kernel.spec import Operation, Spec
from ..kernel.toolsets import TOOLSETS
from .lean import (
    component_names,
    group_same_fields,
    lean_input_schema,
    lean_output_schema,
    share_repeats,
    to_listed_depth,
    without_nested_required,
)
from .mcp_apps import tool_meta

if TYPE_CHECKING:
    from .request_state import RequestState

#: A tool that works on the connection itself (Code Mode): its operation for one request.
ConnectionFunction = Callable[["Catalog", "RequestState"], OperationFn]
#: The same for a tool that waits on the event loop instead of a worker thread (run_code).
AsyncConnectionFunction = Callable[["Catalog", "RequestState"], AsyncOperationFn]

#: Annotation keys as written in `x-mcp.annotations` -> the SDK's field names.
_ANNOTATION_FIELDS = {
    "readOnlyHint": "read_only_hint",
    "destructiveHint": "destructive_hint",
    "idempotentHint": "idempotent_hint",
    "openWorldHint": "open_world_hint",
}


#: What MCP assumes of a hint a tool does not list (the 2025-06-18 schema's `ToolAnnotations`).
MCP_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
#: Hints MCP reads only when `readOnlyHint` is false.
_WRITE_ONLY_HINTS = ("destructiveHint", "idempotentHint")


class CatalogError(Exception):
    """The catalog cannot be built from the spec: raised at start-up, never per request."""


def method_annotations(method: str) -> dict[str, bool]:
    """The annotation defaults of a method (memos' rule): reads are safe, DELETE is destructive."""
    if method == "GET":
        return {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    if method == "DELETE":
        return {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}


@dataclass(frozen=True)
class Envelope:
    """A tool's result envelope in two strengths: `listed` is the `outputSchema` clients receive
    (every tool pays for it in every `tools/list`), `checked` is what the server proves of each
    result before sending it. Anything `checked` accepts, `listed` accepts."""

    listed: dict[str, Any]
    checked: dict[str, Any]


def envelope_schema(
    data_schema: Mapping[str, Any],
    error_schema: Mapping[str, Any],
    *,
    recover_data: bool = True,
    write_record: Mapping[str, Any] | None = None,
) -> Envelope:
    """The output schema of a tool: `{data, traceId, correlationId?}` on success,
    `{error, traceId, recoverData?}` on failure. The data schema's `$defs` move to the top level
    so its `#/$defs/...` pointers keep resolving; `recoverData` has the shape of `data` and is
    declared only where it can occur (`recover_data`: tools that change data can hit
    REVISION_CONFLICT; a read has nothing to conflict with). `write_record`: what a write's
    success carries beside `data` (`changeIds`, `runId`, `sessionId`; spec.write_record), on the
    tools that change data.

    Listed, the envelope is as small as the contract allows (docs/contract.md §10): `data` with
    its fields and their types down to the fields of its records (`lean.to_listed_depth`: a list
    or object inside a record is listed by its type), the `traceId` every result carries and
    `recoverData`. Which fields below the envelope are required is not listed (a fifth of the
    catalog's wire tokens; the server checks it), nor is the error object: every tool's is the
    same (the server instructions describe it, and an error result has `isError` set). It is
    open like the objects below it (the instructions describe `correlationId`, `isError` says
    which branch a result is, and a field added later must not fail a client that cached the
    list). Fields of one object that share a schema are declared once (`lean.group_same_fields`:
    a pattern naming them), and a record that occurs twice is one def (`share_repeats`): the
    official client checks the schema against the 2020-12 metaschema in every session, at a
    cost per subschema. No `$schema` either (MCP: a schema without one is JSON Schema 2020-12,
    which is also what the official client picks).

    Checked, it is the full envelope: closed, exactly one of `data` / `error`, every required
    field, the whole error object, `correlationId` a string."""
    data = copy.deepcopy(dict(data_schema))
    defs = data.pop("$defs", {})
    data.pop("$schema", None)
    properties: dict[str, Any] = {"data": data, "traceId": {"type": "string"}}
    properties.update(copy.deepcopy(dict(write_record or {})))
    if recover_data:
        properties["recoverData"] = {"$ref": "#/properties/data"}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": ["traceId"]}
    if defs:
        schema["$defs"] = defs
    lean = lean_output_schema(schema)
    listed = share_repeats(group_same_fields(to_listed_depth(without_nested_required(lean))))
    checked = {
        **lean,
        "properties": {
            **lean["properties"],
            "error": copy.deepcopy(dict(error_schema)),
            "correlationId": {"type": "string"},
        },
        "oneOf": [{"required": ["data"]}, {"required": ["error"]}],
        "additionalProperties": False,
    }
    return Envelope(listed=listed, checked=checked)


def describe(operation: Operation) -> str:
    """What the model reads about a tool: the operation's own description, nothing more. The
    scopes it needs are not repeated: a connection lists only the tools its scopes allow (the
    instructions say how scopes work), and whether it changes data is in the annotations."""
    return operation.description


@dataclass(frozen=True)
class Listing:
    """What `tools/list` shows of a tool and what its results are checked against: pure
    functions of the spec, but the lean forms (lean.py) are the dearest part of building the
    catalog (most of it), so each tool's is built on first use, once per process."""

    tool: types.Tool
    input_schema: dict[str, Any]  # as listed; arguments are validated against operation's own
    output_schema: dict[str, Any]  # as listed
    result_schema: dict[str, Any]  # what each result is checked against before it is sent
    #: Listed instead of `tool` where the tool cannot change data (run_code reaching no write tool).
    read_only_tool: types.Tool | None = None


@dataclass(frozen=True)
class CatalogTool:
    """One tool: what a call needs, and (built on first use) the SDK `Tool` sent in `tools/list`."""

    name: str
    operation: Operation
    function: OperationFn
    #: Builds the tool's `Listing`; called once, on first use (`listing`).
    build_listing: Callable[[], Listing]
    #: Set for tools that need the connection (catalog + request state), not only a `Call`.
    connection_function: ConnectionFunction | None = None
    #: Set instead for a connection tool that awaits (adapter.call_tool runs it on the loop).
    connection_coroutine: AsyncConnectionFunction | None = None

    @cached_property
    def listing(self) -> Listing:
        return self.build_listing()

    @property
    def tool(self) -> types.Tool:
        return self.listing.tool

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.listing.input_schema

    @property
    def output_schema(self) -> dict[str, Any]:
        return self.listing.output_schema

    @property
    def result_schema(self) -> dict[str, Any]:
        return self.listing.result_schema

    @property
    def read_only_tool(self) -> types.Tool | None:
        return self.listing.read_only_tool

    @property
    def scopes(self) -> tuple[str, ...]:
        return self.operation.scopes

    @property
    def any_scope(self) -> bool:
        return self.operation.mcp.any_scope

    @property
    def toolset(self) -> str:
        return self.operation.mcp.toolset

    @property
    def is_write(self) -> bool:
        return self.operation.is_write


@dataclass(frozen=True)
class Catalog:
    tools: Mapping[str, CatalogTool]  # in listing order: toolset, then name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.tools)

    def get(self, name: str) -> CatalogTool | None:
        return self.tools.get(name)

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """For the SDK's `get_tool_input_schema=` (Mcp-Param header checks): caller-independent."""
        tool = self.tools.get(name)
        return tool.input_schema if tool is not None else None

    def prepare(self) -> None:
        """Build every tool's listing and compile its validators now (where init is off the
        request path, e.g. a SnapStart snapshot), instead of on each tool's first use."""
        tools = self.tools.values()
        prepare_validators(
            (tool.operation.input_schema for tool in tools), verdict_only=(tool.result_schema for tool in tools)
        )


def _annotations(operation: Operation) -> dict[str, bool]:
    where = f"operation {operation.operation_id!r}"
    result = method_annotations(operation.method)
    for key, value in operation.mcp.annotation_overrides.items():
        if key not in _ANNOTATION_FIELDS:
            raise CatalogError(f"{where}: unknown x-mcp annotation {quoted(key)}")
        if not isinstance(value, bool):
            raise CatalogError(f"{where}: x-mcp annotation {key} must be true or false")
        result[key] = value
    if result["readOnlyHint"] == operation.is_write:
        # Read-only connections hide write tools by their scopes; the hint must tell the same story.
        raise CatalogError(
            f"{where}: readOnlyHint={result['readOnlyHint']} contradicts its scopes {list(operation.scopes)}"
        )
    return result


def listed_hints(hints: Mapping[str, bool]) -> dict[str, bool]:
    """The hints a tool lists: those that differ from what MCP assumes when a hint is absent, so
    a client reads exactly `hints` (a read-only tool's destructive and idempotent hints are
    meaningless to MCP and left out)."""
    return {
        key: value
        for key, value in hints.items()
        if value != MCP_HINT_DEFAULTS[key] and not (hints["readOnlyHint"] and key in _WRITE_ONLY_HINTS)
    }


def tool_annotations(listed: Mapping[str, bool]) -> types.ToolAnnotations:
    """The SDK annotations of `listed_hints(...)` (an absent hint stays absent)."""
    return types.ToolAnnotations(
        read_only_hint=listed.get("readOnlyHint"),
        destructive_hint=listed.get("destructiveHint"),
        idempotent_hint=listed.get("idempotentHint"),
        open_world_hint=listed.get("openWorldHint"),
    )


def build_tool(
    operation: Operation,
    function: OperationFn,
    error_schema: Mapping[str, Any],
    shape_names: Callable[[], Mapping[str, str]] | None = None,
    write_record: Mapping[str, Any] | None = None,
) -> CatalogTool:
    """The tool of `operation`, checked now (a malformed one raises `CatalogError` at start-up);
    its listing is built on first use (`shape_names` gives the spec's named shapes, lean.py)."""
    name = operation.operation_id
    where = f"operation {name!r}"
    if not TOOL_NAME_REGEX.fullmatch(name):
        raise CatalogError(f"{where}: {quoted(name)} is not a valid MCP tool name")
    if operation.mcp.toolset not in TOOLSETS:
        raise CatalogError(f"{where}: unknown toolset {quoted(operation.mcp.toolset)}; valid: {', '.join(TOOLSETS)}")
    if not operation.description:
        raise CatalogError(f"{where}: an MCP tool needs a description")
    input_schema = operation.input_schema
    if input_schema.get("type") != "object" or input_schema.get("additionalProperties") is not False:
        raise CatalogError(f"{where}: the input schema must be a closed object schema")
    hints = listed_hints(_annotations(operation))

    def build_listing() -> Listing:
        envelope = envelope_schema(
            operation.data_schema,
            error_schema,
            recover_data=operation.is_write,
            write_record=write_record if operation.is_write else None,
        )
        listed_input = lean_input_schema(input_schema, shape_names() if shape_names is not None else None)
        tool = types.Tool(
            name=name,
            title=operation.mcp.title,
            description=describe(operation),
            input_schema=listed_input,
            output_schema=envelope.listed,
            # The title is said once, on the tool (clients since 2025-06-18 read it there first).
            annotations=tool_annotations(hints),
            # MCP Apps: the view this tool's result renders in (mcp_apps.py); absent for the rest.
            _meta=tool_meta(name),
        )
        return Listing(tool, listed_input, envelope.listed, envelope.checked)

    return CatalogTool(name=name, operation=operation, function=function, build_listing=build_listing)


def build_catalog(
    spec: Spec,
    registry: Mapping[str, OperationFn] = REGISTRY,
    names: Sequence[str] | None = None,
) -> Catalog:
    """The catalog for `names` (default: every operation whose `x-mcp` exposes it), in listing order."""
    selected: Iterable[str]
    if names is None:
        selected = [op_id for op_id, op in spec.operations.items() if op.mcp.exposed]
    else:
        missing = [name for name in names if name not in spec.operations]
        if missing:
            raise CatalogError(f"no operation in openapi.yaml for tool(s) {', '.join(missing)}")
        selected = names
    tools: dict[str, CatalogTool] = {}
    components = spec.document.get("components", {}).get("schemas", {})
    shape_names = cache(lambda: component_names(components))  # one pass, on the first listing
    for name in selected:
        if name in tools:
            raise CatalogError(f"duplicate tool name {quoted(name)}")
        function = lazy_function(registry, name)  # its domain is imported on the tool's first call
        if function is None:
            raise CatalogError(f"tool {quoted(name)} has no implementation in the operation registry")
        tools[name] = build_tool(spec.operations[name], function, spec.error_schema, shape_names, spec.write_record)
    return Catalog(tools={tool.name: tool for tool in sorted(tools.values(), key=listing_order)})


def listing_order(tool: CatalogTool) -> tuple[int, str]:
    """`tools/list` order: toolset (in the order of mesq/kernel/toolsets.py), then name. Fixed by the
    catalog, so the same connection lists byte-identical tools every time and a client can cache
    its prompt."""
    return TOOLSETS.index(tool.toolset), tool.name
