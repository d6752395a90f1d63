"""Which tools one request may see and call (docs/contract.md §2, §7).

visible = tools whose scopes the credential holds
          - write tools when the connection is read-only (/readonly path or X-MCP-Readonly)
          ∩ the selected toolsets (URL /mcp/x/{...} and X-MCP-Toolsets; both narrow)
          ∩ X-MCP-Tools (allow-list)
          - X-MCP-Exclude-Tools (deny-list, wins)

Code Mode (`run_code`, `search_tools`) reaches `code_reach()`: the same rules, except that the
`code` group selected alone stands for every group (/mcp/x/code is two tools that reach all the
others) and the code tools never reach themselves. Headers can only narrow. The same
`Visibility` answers `tools/list` and gates `tools/call`, so a
tool that is not listed cannot be called, and `hidden_reason` says why in words an agent can act
on. Computed once per HTTP request, before the SDK sees the message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..auth.scopes import needed_scopes
from ..kernel.errors import ValidationError
from ..kernel.messages import quoted
from ..kernel.toolsets import (
    CODE_TOOLSET,
    TOOLSET_ALIASES,
    VALID_TOOLSET_NAMES,
    toolsets_read_scopes,
    unknown_toolsets,
    url_toolsets_problem,
)
from .catalog import Catalog, CatalogTool

READONLY_HEADER = "x-mcp-readonly"
TOOLS_HEADER = "x-mcp-tools"
EXCLUDE_HEADER = "x-mcp-exclude-tools"
TOOLSETS_HEADER = "x-mcp-toolsets"
FILTER_HEADERS = (READONLY_HEADER, TOOLS_HEADER, EXCLUDE_HEADER, TOOLSETS_HEADER)

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off", "")


def split_names(raw: str | None) -> list[str]:
    """`a, b,,c` -> [a, b, c]; blank or absent -> []."""
    if not raw:
        return []
    return [part.strip() for part in raw.split(",") if part.strip()]


def parse_readonly_header(raw: str | None) -> bool:
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValidationError(f"X-MCP-Readonly must be true or false, not {quoted(raw)}")


def parse_toolsets(names: Iterable[str], source: str) -> frozenset[str] | None:
    """Selected toolsets, or None for "all" (no narrowing). Unknown names -> VALIDATION_ERROR."""
    selected = [name.strip().lower() for name in names if name.strip()]
    if not selected:
        return None
    unknown = unknown_toolsets(selected)
    if unknown:
        raise ValidationError(
            f"unknown toolset{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} in {source}; "
            f"valid toolsets: {VALID_TOOLSET_NAMES}"
        )
    if any(name in TOOLSET_ALIASES for name in selected):
        return None
    return frozenset(selected)


def parse_url_toolsets(raw: str, *, sent_path: str | None = None) -> frozenset[str] | None:
    """The toolsets of `/mcp/x/{toolsets}` (None: all); VALIDATION_ERROR when the URL names none,
    an unknown one or one spelled otherwise (capitals, spaces): the OAuth resource check asks the
    same question, so a URL that passes has its metadata document. Needs no credential: the
    endpoint checks it before asking for one. `sent_path`: the path as sent, when the server keeps
    it; `%XX` escapes in it are refused, as capitals are, and the message quotes it."""
    escaped = sent_path is not None and "%" in sent_path
    problem = url_toolsets_problem(raw, percent_encoded=escaped)
    if problem is not None:
        shown = sent_path if escaped and sent_path is not None else "/mcp/x/" + raw
        raise ValidationError(f"the URL {quoted(shown)} {problem}; valid toolsets: {VALID_TOOLSET_NAMES}")
    return parse_toolsets(split_names(raw), "the URL")


def _known_tools(catalog: Catalog, names: list[str], header: str) -> frozenset[str]:
    unknown = [name for name in names if catalog.get(name) is None]
    if unknown:
        raise ValidationError(
            f"{header} names unknown tool{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            "tool names are listed by tools/list on a connection without filters"
        )
    return frozenset(names)


@dataclass(frozen=True)
class Visibility:
    scopes: frozenset[str]
    readonly: bool
    url_toolsets: frozenset[str] | None  # None = no narrowing
    header_toolsets: frozenset[str] | None
    allow: frozenset[str] | None  # X-MCP-Tools; None = no allow-list
    exclude: frozenset[str]
    visible: tuple[str, ...]  # catalog order

    def scope_reason(self, subject: str, scopes: Sequence[str], any_scope: bool = False) -> str | None:
        """Why the credential cannot see a tool or prompt (`subject`, e.g. "tool 'get_memo'")."""
        missing = needed_scopes(self.scopes, scopes, any_scope)
        if missing:
            return (
                f"{subject} needs scope {(' or ' if any_scope else ' + ').join(scopes)}; this credential lacks "
                f"{', '.join(missing)} (create a token with that scope, or re-authorize)"
            )
        return None

    def toolset_reason(self, subject: str, toolset: str) -> str | None:
        """Why the URL or X-MCP-Toolsets selection hides a tool or prompt of `toolset`."""
        if self.url_toolsets is not None and toolset not in self.url_toolsets:
            return (
                f"{subject} belongs to toolset {toolset!r}, which the URL "
                f"/mcp/x/{','.join(sorted(self.url_toolsets))} does not select"
            )
        if self.header_toolsets is not None and toolset not in self.header_toolsets:
            return (
                f"{subject} belongs to toolset {toolset!r}, which X-MCP-Toolsets "
                f"({','.join(sorted(self.header_toolsets))}) does not select"
            )
        return None

    def attachment_reason(self, subject: str, read_scope: str) -> str | None:
        """Why the URL's or X-MCP-Toolsets' groups keep attachments read with `read_scope` out of
        this connection (`memo://` on /mcp/x/todo): no tool of those groups reads them, so a read,
        or a step-up asking for their scope, would reach past the connection the person approved
        (its protected-resource document does not list that scope either). None when they reach."""
        for selected, where in ((self.url_toolsets, "the URL /mcp/x/"), (self.header_toolsets, "X-MCP-Toolsets: ")):
            reads = None if selected is None else toolsets_read_scopes(selected)
            if selected is not None and reads is not None and read_scope not in reads:
                return (
                    f"{subject} is outside this connection: {where}{','.join(sorted(selected))} selects no "
                    f"tool group that reads them (they need {read_scope})"
                )
        return None

    def filter_reason(self, tool: CatalogTool) -> str | None:
        """Why the connection's filters (read-only, toolsets, X-MCP-Tools, X-MCP-Exclude-Tools)
        hide `tool`, whatever the credential's scopes: more scopes would not help."""
        subject = f"tool {tool.name!r}"
        if self.readonly and tool.is_write:
            return f"{subject} changes data and this is a read-only connection (/mcp/readonly or X-MCP-Readonly: true)"
        reason = self.toolset_reason(subject, tool.toolset)
        if reason is not None:
            return reason
        if self.allow is not None and tool.name not in self.allow:
            return f"{subject} is not in this connection's X-MCP-Tools allow-list"
        if tool.name in self.exclude:
            return f"{subject} is excluded by this connection's X-MCP-Exclude-Tools"
        return None

    def step_up_scopes(self, tool: CatalogTool) -> tuple[str, ...] | None:
        """The scopes to ask for when only missing scopes hide `tool` (a token with them would
        see it on this connection); None when it is visible or a filter hides it."""
        if self.filter_reason(tool) is None and needed_scopes(self.scopes, tool.scopes, tool.any_scope):
            return tool.scopes
        return None

    def hidden_reason(self, tool: CatalogTool) -> str | None:
        """Why `tool` is not visible on this connection, or None if it is (a filter first:
        stepping up the scopes would not make it visible)."""
        return self.filter_reason(tool) or self.scope_reason(f"tool {tool.name!r}", tool.scopes, tool.any_scope)

    def code_reach(self, catalog: Catalog) -> tuple[str, ...]:
        """The tools a Code Mode script may call (`mesq.<name>`), in catalog order: the visible
        ones, plus the other groups when `code` is the only group the URL or header selects."""
        widened = replace(
            self,
            url_toolsets=_beyond_code(self.url_toolsets),
            header_toolsets=_beyond_code(self.header_toolsets),
        )
        return tuple(
            name
            for name, tool in catalog.tools.items()
            if tool.toolset != CODE_TOOLSET and widened.hidden_reason(tool) is None
        )


def _beyond_code(selected: frozenset[str] | None) -> frozenset[str] | None:
    """The groups a script reaches under a toolset selection: `code` alone means all of them."""
    if selected is None or CODE_TOOLSET not in selected:
        return selected
    return (selected - {CODE_TOOLSET}) or None


def resolve(
    catalog: Catalog,
    scopes: frozenset[str],
    *,
    readonly_path: bool,
    url_toolsets: str | None,
    headers: Mapping[str, str],
) -> Visibility:
    """The visibility of one request; raises ValidationError (HTTP 400) for unusable filters."""
    readonly = readonly_path or parse_readonly_header(headers.get(READONLY_HEADER))
    from_url = None if url_toolsets is None else parse_url_toolsets(url_toolsets)
    from_header = parse_toolsets(split_names(headers.get(TOOLSETS_HEADER)), "X-MCP-Toolsets")
    allow_names = split_names(headers.get(TOOLS_HEADER))
    allow = _known_tools(catalog, allow_names, "X-MCP-Tools") if allow_names else None
    exclude = _known_tools(catalog, split_names(headers.get(EXCLUDE_HEADER)), "X-MCP-Exclude-Tools")
    draft = Visibility(
        scopes=scopes,
        readonly=readonly,
        url_toolsets=from_url,
        header_toolsets=from_header,
        allow=allow,
        exclude=exclude,
        visible=(),
    )
    visible = tuple(name for name, tool in catalog.tools.items() if draft.hidden_reason(tool) is None)
    return replace(draft, visible=visible)
