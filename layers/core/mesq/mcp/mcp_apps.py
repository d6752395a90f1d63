"""MCP Apps (extension `io.modelcontextprotocol/ui`, SEP-1865): the four `ui://mesq/...` views.

A view is one self-contained HTML document (views/: a shared stylesheet, the official MCP Apps
SDK's `App` bundled as views/ext-apps.js by infra/apps_bundle.py, MeSQ's thin layer over it and
the view's own script, inlined here) that a host renders in a sandboxed iframe beside a tool's
result. The tool points at it with `_meta.ui.resourceUri` (catalog.py stamps it where each tool
is built, from `VIEWS`); `resources/list` lists the views and `resources/read` returns them as
`text/html;profile=mcp-app` with `_meta.ui.csp` (no domain: nothing is fetched) and
`prefersBorder`. Each document carries its own CSP (`default-src 'none'`,
its one script and one stylesheet by sha256 hash), so it holds under the strictest host CSP: no
inline handler, no eval, no network. A view holds no credential: it reaches MeSQ only through the
host's `tools/call`, where the host's approval and the caller's scopes apply.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from functools import cache
from importlib import resources as package_files
from typing import Any

import mcp_types as types
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

from ..auth.user_zone import settings_key, zone_in
from ..auth.users import profile_key
from ..kernel.context import ACCOUNT_ZONE
from ..kernel.i18n import LANGUAGE_TAGS
from ..kernel.ports.storage import ItemStore

#: The extension settings MeSQ declares (server capabilities, both eras).
EXTENSION_SETTINGS: dict[str, dict[str, Any]] = {EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}

#: tool name -> view: the issue's four families, no more (every connection pays each `_meta`).
VIEWS: dict[str, str] = {
    "list_todos": "board",
    "get_memo": "memo",
    "create_memo": "memo",
    "search_ai_memos": "results",
    "search_everything": "results",
    "list_changes": "changes",
}

#: The views that show moments (a due, a change's time): their tools' results carry the account's
#: own zone in `_meta` (`ZONE_META`), which the views read before the host's `timeZone` and the
#: browser's, as every web page shows moments in it. Only these: reading the zone is one more
#: settings read, which the memo and results views would not use.
ZONED_VIEWS = frozenset({"board", "changes"})
ZONE_META = "mesq/timeZone"
#: The language the account chose (Settings → Language), as a language tag (`zh-Hans`, `en`), in
#: the same results' `_meta`: the views speak it before the host's language, as every web page
#: speaks it before the browser's. Absent while the account follows the browser.
LANGUAGE_META = "mesq/language"

TITLES = {"board": "MeSQ board", "memo": "MeSQ memo", "results": "MeSQ search results", "changes": "MeSQ changes"}
URI_PREFIX = "ui://mesq/"


def view_uri(view: str) -> str:
    return f"{URI_PREFIX}{view}"


def tool_meta(tool_name: str) -> dict[str, Any] | None:
    """The `_meta` a tool lists: only `ui.resourceUri` (kept tiny: every connection pays it)."""
    view = VIEWS.get(tool_name)
    return {"ui": {"resourceUri": view_uri(view)}} if view is not None else None


def shows_moments(tool_name: str) -> bool:
    """Whether the tool's view shows moments, so its result carries the account's zone."""
    return VIEWS.get(tool_name) in ZONED_VIEWS


def account_meta(items: ItemStore, user_id: str, noted: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """A result's `_meta` naming the account's zone (`ZONE_META`) and the language it chose
    (`LANGUAGE_META`), each absent when the account has set none (the view then uses the host's,
    else the browser's, as a page uses the browser's); None when both are absent. Not shown to
    the model, and the same with or without the extension. The zone lives in the settings item,
    the language in the profile: one batch read of both, or of the profile alone when the
    operation noted the zone (`Call.noted`: list_todos read the settings item with its board)."""
    profile_at, settings_at = profile_key(user_id), settings_key(user_id)
    if noted and ACCOUNT_ZONE in noted:
        zone, profile = noted[ACCOUNT_ZONE], items.get(profile_at)
    else:
        found = {(item["pk"], item["sk"]): item for item in items.batch_get([profile_at, settings_at])}
        zone, profile = zone_in(found.get(settings_at)), found.get(profile_at)
    chosen = ((profile or {}).get("settings") or {}).get("language")
    meta: dict[str, Any] = {}
    if zone is not None:
        meta[ZONE_META] = zone
    if isinstance(chosen, str) and chosen in LANGUAGE_TAGS:
        meta[LANGUAGE_META] = LANGUAGE_TAGS[chosen]
    return meta or None


def _asset(name: str) -> str:
    return package_files.files(__package__).joinpath("views", name).read_text("utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@cache
def view_html(view: str) -> str:
    """The view's document: shared CSS and one script (the SDK bundle, then the bridge and the view's
    script in one strict-mode function), each allowed by its hash only."""
    style = _asset("views.css")
    script = (
        _asset("ext-apps.js")
        + '(function () {\n"use strict";\n'
        + _asset("bridge.js")
        + "\n"
        + _asset(f"{view}.js")
        + "\n})();\n"
    )
    csp = (
        f"default-src 'none'; script-src '{_sha256(script)}'; style-src '{_sha256(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        '<!doctype html>\n<html lang="en" data-theme="light">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{TITLES[view]}</title>\n<style>{style}</style>\n</head>\n"
        f'<body data-view="{view}">\n<main id="app" aria-live="polite"><p class="muted" id="status">…</p></main>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


UI_META: dict[str, Any] = {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}}


def listed_resources() -> list[types.Resource]:
    return [
        types.Resource(uri=view_uri(view), name=f"{view}_view", title=title, mime_type=APP_MIME_TYPE, _meta=UI_META)
        for view, title in TITLES.items()
    ]


def view_of(uri: str) -> str | None:
    name = uri.removeprefix(URI_PREFIX)
    return name if uri.startswith(URI_PREFIX) and uri == view_uri(name) and name in TITLES else None


def read_view(uri: str, view: str) -> types.ReadResourceResult:
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=APP_MIME_TYPE, text=view_html(view), _meta=UI_META)]
    )
