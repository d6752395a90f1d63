"""The two Code Mode tools as catalog entries: their schemas, descriptions and annotations.

They are not operations of openapi.yaml: they have no REST route and work on the MCP
connection itself (what it can see), so they are declared here, once, and added to the catalog
built from the spec (`with_code_tools`). Their arguments are validated like every tool's
(`invocation.invoke_sync` against `Operation.input_schema`); their functions are bound to the
connection per request (`CatalogTool.connection_function`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import mcp_types as types

from ...kernel.spec import McpBinding, Operation
from ...kernel.toolsets import CODE_TOOLSET
from ..catalog import (
    AsyncConnectionFunction,
    Catalog,
    CatalogTool,
    ConnectionFunction,
    Listing,
    envelope_schema,
    listed_hints,
    listing_order,
    tool_annotations,
)
from ..lean import lean_input_schema
from ..visibility import Visibility
from .budgets import LIMITS
from .handlers import run_code_function, search_tools_function

_SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _limit(name: str) -> dict[str, Any]:
    low, default, high = LIMITS[name]
    return {"type": "integer", "minimum": low, "maximum": high, "default": default}


def _annotations(read_only: bool, destructive: bool, idempotent: bool) -> types.ToolAnnotations:
    """Listed like every tool's: only the hints that differ from MCP's defaults (`listed_hints`)."""
    hints = listed_hints(
        {"readOnlyHint": read_only, "destructiveHint": destructive, "idempotentHint": idempotent,
         "openWorldHint": False}
    )  # fmt: skip
    return tool_annotations(hints)


_READ_ONLY = _annotations(read_only=True, destructive=False, idempotent=True)

SEARCH_DESCRIPTION = (
    "Find the tools run_code can call (by meaning and words, Chinese or English): each with its "
    "summary and a one-line TypeScript signature `(args) => data`. `detail: full` writes the top 3 "
    "in full, with the named shapes in `types`. `notInMcp`: the REST route or page for what no tool does."
)
SEARCH_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 200},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
        "detail": {"enum": ["compact", "full"], "default": "compact"},
    },
    "required": ["query"],
    "additionalProperties": False,
}
SEARCH_DATA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "summary": {"type": "string"},
                    "signature": {"type": "string"},
                    "write": {"type": "boolean"},
                },
                "required": ["name", "summary", "signature", "write"],
            },
        },
        "types": {"type": "object", "additionalProperties": {"type": "string"}},
        "notInMcp": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"need": {"type": "string"}, "rest": {"type": "string"}, "page": {"type": "string"}},
                "required": ["need"],
            },
        },
    },
    "required": ["tools"],
}

RUN_DESCRIPTION = (
    "Run JavaScript (an async function body) in a sandbox; only what it returns comes back. "
    "`await mesq.<tool>(args)` answers {data, traceId} (data: as search_tools' signature says), or "
    "throws an Error with the fix and its `code` ({results: true} as a second argument: {error} "
    "instead; Object.keys(mesq) lists tools); `mesq.context` = the user's {timeZone, timeZoneSet, today, now} "
    "(ask the user when timeZoneSet is false). "
    "`checkpoint(v)` keeps a partial result: if a budget stops the "
    "run, result is the last one, so continue in a new run (e.g. from its nextOffset). No network, "
    "files or timers. A reached budget is in `budget`; a long result is cut (`truncated`); `log`: "
    "one line per call (xn: alike in a row)."
)
RUN_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "minLength": 1, "maxLength": 50_000},
        **{name: _limit(name) for name in LIMITS},
    },
    "required": ["code"],
    "additionalProperties": False,
}
RUN_DATA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "result": {},
        "truncated": {"type": "boolean"},
        "thrown": {"type": "string"},
        "budget": {
            "type": "object",
            "properties": {
                "kind": {"enum": ["calls", "time", "memory", "output"]},
                "used": {"type": "integer"},
                "limit": {"type": "integer"},
            },
            "required": ["kind", "used", "limit"],
        },
        "log": {"type": "array", "items": {"type": "string"}},
        "logDropped": {"type": "integer"},
        "ms": {"type": "integer"},
        "runId": {"type": "string"},
        "sessionId": {"type": "string"},
    },
    "required": ["log", "ms"],
}


def _tool(
    name: str,
    title: str,
    description: str,
    input_schema: dict[str, Any],
    data_schema: dict[str, Any],
    hints: types.ToolAnnotations,
    bind: ConnectionFunction | AsyncConnectionFunction,
    error_schema: Mapping[str, Any],
    read_only_hints: types.ToolAnnotations | None = None,
    *,
    awaits: bool = False,
) -> CatalogTool:
    operation = Operation(
        operation_id=name,
        method="POST",
        path="",  # no REST route
        summary=title,
        description=description,
        parameters=(),
        body_fields=frozenset(input_schema["properties"]),
        has_body=True,
        success_status=200,
        input_schema={"$schema": _SCHEMA, **input_schema},
        data_schema={"$schema": _SCHEMA, **data_schema},
        mcp=McpBinding(title=title, scopes=(), toolset=CODE_TOOLSET, exposed=True, annotation_overrides={}),
    )

    def build_listing() -> Listing:
        envelope = envelope_schema(data_schema, error_schema, recover_data=False)
        listed_input = lean_input_schema(operation.input_schema)
        tool = types.Tool(
            name=name,
            title=title,
            description=description,
            input_schema=listed_input,
            output_schema=envelope.listed,
            annotations=hints,
        )
        read_only = tool.model_copy(update={"annotations": read_only_hints}) if read_only_hints else None
        return Listing(tool, listed_input, envelope.listed, envelope.checked, read_only_tool=read_only)

    def unbound(call: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError(f"{name} needs the connection: call it through mcp.adapter.run_tool")

    # run_code waits on its sandbox process on the event loop (adapter.run_tool_async).
    coroutine = cast(AsyncConnectionFunction, bind) if awaits else None
    return CatalogTool(
        name=name,
        operation=operation,
        function=unbound,
        build_listing=build_listing,
        connection_function=None if awaits else cast(ConnectionFunction, bind),
        connection_coroutine=coroutine,
    )


def code_tools(error_schema: Mapping[str, Any]) -> list[CatalogTool]:
    return [
        _tool(
            "search_tools",
            "Search tools for run_code",
            SEARCH_DESCRIPTION,
            SEARCH_INPUT,
            SEARCH_DATA,
            _READ_ONLY,
            search_tools_function,
            error_schema,
        ),
        _tool(
            "run_code",
            "Run a script over the tools",
            RUN_DESCRIPTION,
            RUN_INPUT,
            RUN_DATA,
            # It can call every write tool the connection sees (none on a read-only connection).
            _annotations(read_only=False, destructive=True, idempotent=False),
            run_code_function,
            error_schema,
            read_only_hints=_READ_ONLY,  # where its scripts reach no write tool (a read-only connection)
            awaits=True,
        ),
    ]


def listed_tools(catalog: Catalog, visibility: Visibility) -> list[types.Tool]:
    """What tools/list shows this connection: run_code is read-only where it reaches no write tool."""
    entries = [catalog.tools[name] for name in visibility.visible]
    variants = any(entry.read_only_tool is not None for entry in entries)
    if variants and not any(catalog.tools[name].is_write for name in visibility.code_reach(catalog)):
        return [entry.read_only_tool or entry.tool for entry in entries]
    return [entry.tool for entry in entries]


def with_code_tools(catalog: Catalog, error_schema: Mapping[str, Any]) -> Catalog:
    """`catalog` plus the Code Mode tools, in listing order."""
    tools = [*catalog.tools.values(), *code_tools(error_schema)]
    return Catalog(tools={tool.name: tool for tool in sorted(tools, key=listing_order)})
