"""Scopes in plain words, in the page's language, for the consent page, the token form and the
connected apps (docs/contract.md §1 scopes), the connection a grant is for (its resource:
`/mcp`, `/mcp/readonly`, `/mcp/x/<groups>`, `/api/toolkit`), and the app's name when MeSQ had to
give it one. The scope itself (`memo:read`) and the URL are protocol names, shown as code beside
them."""

from __future__ import annotations

from urllib.parse import urlsplit

from ...auth.oauth.names import UNNAMED_CLIENT
from ...auth.oauth.resources import connection_of
from ...kernel.formats import listing
from .i18n import DEFAULT_LANGUAGE, N_, Translator

SCOPE_WORDS: dict[str, str] = {
    "memo:read": N_("Read your memos and their attachments"),
    "memo:write": N_("Create and change memos, move them to the trash"),
    "todo:read": N_("Read your todos"),
    "todo:write": N_("Create and change todos, move them to the trash"),
    "reading:read": N_("Read your reading shelf: books and highlights"),
}


ENGLISH = Translator(DEFAULT_LANGUAGE)


def describe(scope: str, say: Translator = ENGLISH) -> str:
    words = SCOPE_WORDS.get(scope)
    return say.gettext(words) if words else scope


def app_name(client_name: str, say: Translator = ENGLISH) -> str:
    """An OAuth client's name as a page shows it: its own, or MeSQ's name for a client that gave
    none, in the page's language."""
    return say.gettext(UNNAMED_CLIENT) if client_name == UNNAMED_CLIENT else client_name


#: The MCP tool groups (mesq/kernel/toolsets.py) in plain words, for a connection narrowed to them.
TOOLSET_WORDS: dict[str, str] = {
    "memo": N_("memos"),
    "memo_attachments": N_("memo attachments"),
    "todo": N_("todos"),
    "todo_inbox": N_("the todo inbox"),
    "todo_attachments": N_("todo attachments"),
    "reading": N_("the reading shelf"),
    "search": N_("search"),
    "history": N_("the change history"),
    "code": N_("Code Mode"),
}


def connection_words(resource: str, say: Translator = ENGLISH) -> str:
    """Which connection a grant's token works on (its RFC 8707 resource), in plain words: the whole
    MCP endpoint, a read-only or narrowed one (`/mcp/x/memo,todo/readonly`), or the REST API. The
    URL itself is shown beside it as code."""
    connection = connection_of(urlsplit(resource).path)
    if connection is None:
        return resource
    if connection.rest:
        return say.gettext("The REST API, for scripts and Shortcuts")
    groups = [say.gettext(TOOLSET_WORDS.get(name, name)) for name in connection.toolsets]
    shown = listing(groups, say.language)
    if groups and connection.readonly:
        return say.gettext("MCP, only %(groups)s, read-only", groups=shown)
    if groups:
        return say.gettext("MCP, only %(groups)s", groups=shown)
    if connection.readonly:
        return say.gettext("MCP, every tool that only reads")
    return say.gettext("MCP, every tool its access allows")
