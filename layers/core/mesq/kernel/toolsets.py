"""The tool groups an MCP connection can select (docs/contract.md §7): one list for the MCP
catalog, the `/mcp/x/{toolsets}` routes and the OAuth resource indicators of those routes."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote

from .messages import LIST_ITEMS, quoted, quoted_list

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
#: The read scopes the tools of each group use: what a connection narrowed to the group can ever
#: show, so what an OAuth request for it without `scope` asks for (auth/oauth/resources.py; the
#: OAuth function does not load the catalog, and tests/mcp/test_http.py checks this against it).
#: `code` reaches the other groups: alone it is all of them.
TOOLSET_READ_SCOPES: dict[str, tuple[str, ...]] = {
    "memo": ("memo:read",),
    "memo_attachments": ("memo:read",),
    "todo": ("todo:read",),
    "todo_inbox": ("todo:read",),
    "todo_attachments": ("todo:read",),
    "reading": ("reading:read",),
    "search": ("memo:read", "todo:read", "reading:read"),
    "history": ("memo:read", "todo:read"),
    CODE_TOOLSET: (),
}


#: The write scopes the tools of each group use (tests/mcp/test_http.py checks it against the
#: catalog too): with the reads, what a protected-resource document of a narrowed URL lists.
TOOLSET_WRITE_SCOPES: dict[str, tuple[str, ...]] = {
    "memo": ("memo:write",),
    "memo_attachments": ("memo:write",),
    "todo": ("todo:write",),
    "todo_inbox": ("todo:write",),
    "todo_attachments": ("todo:write",),
    "reading": (),
    "search": (),
    "history": ("memo:write", "todo:write"),
    CODE_TOOLSET: (),
}


def toolsets_scopes(names: Iterable[str], *, readonly: bool) -> frozenset[str] | None:
    """The scopes the tools of a selection of groups use (valid names, as a `/mcp/x/{toolsets}`
    URL lists them), only their reads when `readonly`; None when it reaches every group (an
    alias, or `code` alone)."""
    selected = set(names) - {CODE_TOOLSET}
    if not selected or selected & set(TOOLSET_ALIASES):
        return None
    tables = (TOOLSET_READ_SCOPES,) if readonly else (TOOLSET_READ_SCOPES, TOOLSET_WRITE_SCOPES)
    return frozenset(scope for table in tables for name in selected for scope in table.get(name, ()))


def toolsets_read_scopes(names: Iterable[str]) -> frozenset[str] | None:
    """The read scopes of a selection of groups; None when it reaches every group."""
    return toolsets_scopes(names, readonly=True)


def unknown_toolsets(names: Iterable[str]) -> list[str]:
    """The names (already stripped and lower-cased) that are neither a toolset nor an alias, sorted."""
    return sorted({name for name in names if name not in TOOLSETS and name not in TOOLSET_ALIASES})


#: The longest `{toolsets}` part of a `/mcp/x/{toolsets}` URL (every name once is 82 characters).
MAX_URL_TOOLSETS_CHARS = 200


def url_toolsets_problem(raw: str, *, percent_encoded: bool = False) -> str | None:
    """What is wrong with `raw`, the `{toolsets}` of `/mcp/x/{toolsets}`, or None.

    The URL is a route and an OAuth resource (auth/oauth/resources.py) at once; both ask this one
    question, so every URL the route lets ask for a credential has a protected-resource metadata
    document whose `resource` is that very URL, and a grant is never approved for more than it.
    The names are spelled exactly, lower-case without spaces (decisions.md "toolset URL
    spelling"): RFC 9728 has a client compare the URL byte for byte, so `/mcp/x/Memo` cannot be the
    resource `/mcp/x/memo`. Empty names (`memo,`) are left out, as the headers leave them out.

    `raw` as sent may hold `%XX` escapes (an OAuth resource), or the route read it decoded from a
    path that held them (`percent_encoded`): `/mcp/x/me%6Do` is no more `/mcp/x/memo` than
    `/mcp/x/Memo` is. What the decoded names get wrong is said first."""
    if percent_encoded or "%" in raw:
        decoded = unquote(raw)
        problem = url_toolsets_problem(decoded) if "%" not in decoded else None
        return problem or f"has percent-encoded characters; write the toolset names as they are: {decoded}"
    if len(raw) > MAX_URL_TOOLSETS_CHARS:
        return f"has more than {MAX_URL_TOOLSETS_CHARS} characters of toolset names"
    names = [name for name in raw.split(",") if name]
    if not names:
        return "names no toolset"
    misspelled = sorted(
        {name for name in names if name != _spelled_right(name) and not unknown_toolsets([_spelled_right(name)])}
    )
    if misspelled:
        fixes = ", ".join(f"{quoted(name)} as {_spelled_right(name)}" for name in misspelled[:LIST_ITEMS])
        return f"writes a toolset name in capitals or with spaces; the names are lower-case: write {fixes}"
    unknown = unknown_toolsets(names)
    if unknown:
        return f"names unknown toolset(s) {quoted_list(unknown)}"
    return None


def _spelled_right(name: str) -> str:
    return name.strip().lower()
