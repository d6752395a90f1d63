"""`get_context` over MCP: the operation's answer plus what only the connection knows.

The operation (todos/views/operations.py) answers the same over REST: the user's zone, today's
date there, the instant and the credential's scopes. An MCP connection is also narrowed to
toolsets (URL, `X-MCP-*` headers, read-only mode), which a model needs to know what it can
reach, so over MCP the answer also lists the toolsets of the tools it sees.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..application.invocation import OperationFn
from ..kernel.context import Call
from ..kernel.toolsets import TOOLSETS

if TYPE_CHECKING:
    from .catalog import Catalog
    from .request_state import RequestState

CONTEXT_TOOL = "get_context"


def _bind(catalog: Catalog, state: RequestState) -> OperationFn:
    operation = catalog.tools[CONTEXT_TOOL].function
    present = {catalog.tools[name].toolset for name in state.visibility.visible if name in catalog.tools}
    toolsets = [name for name in TOOLSETS if name in present]

    def with_toolsets(call: Call, args: dict[str, Any]) -> dict[str, Any]:
        return {**operation(call, args), "toolsets": toolsets}

    return with_toolsets


def with_connection_context(catalog: Catalog) -> Catalog:
    """`catalog` with `get_context` bound to the connection (when the catalog has it)."""
    from .catalog import Catalog

    tool = catalog.tools.get(CONTEXT_TOOL)
    if tool is None:
        return catalog
    tools = dict(catalog.tools)
    tools[CONTEXT_TOOL] = replace(tool, connection_function=_bind)
    return Catalog(tools=tools)
