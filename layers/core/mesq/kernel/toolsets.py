"""The tool groups an MCP connection can select (docs/contract.md §7): one list for the MCP
catalog, the `/mcp/x/{toolsets}` routes and the OAuth resource indicators of those routes."""

from __future__ import annotations

from collections.abc import Iterable

#: The tool groups. `all` and `default` are aliases for "every group".
TOOLSETS: tuple[str, ...] = (
    "memo",
    "memo_attachments",
    "todo",
    "todo_inbox",
    "todo_attachments",
    "reading",
    "search",
    # The change history of memos and todos: list_changes, undo_changes.
    "history",
    # Code Mode (docs/MCP/code-mode.md): search_tools + run_code, which reach the tools of the
    # other groups. Selected alone (/mcp/x/code) it reaches every group.
    "code",
)
#: The group of the two Code Mode tools.
CODE_TOOLSET = "code"
TOOLSET_ALIASES: tuple[str, ...] = ("all", "default")
VALID_TOOLSET_NAMES = ", ".join((*TOOLSETS, *TOOLSET_ALIASES))


def unknown_toolsets(names: Iterable[str]) -> list[str]:
    """The names (already stripped and lower-cased) that are neither a toolset nor an alias, sorted."""
    return sorted({name for name in names if name not in TOOLSETS and name not in TOOLSET_ALIASES})
