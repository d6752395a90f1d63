"""MCP Apps (mesq/mcp/mcp_apps.py) through the official `mcp` client against a real `mesq serve`, on
both eras: the extension is declared, the four views' tools carry `_meta.ui.resourceUri` (and no
other tool does), every `ui://` view is listed and reads as `text/html;profile=mcp-app` with its
CSP metadata, and a client that does not declare the extension gets exactly the tool results of
one that does (the views change the listing only, never a result)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from importlib import resources as package_files
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client

from mesq.mcp.mcp_apps import VIEWS
from tests.conftest import LiveServer, start_server, stop_server

MODES = ("auto", "legacy")
#: The official MCP Apps SDK bundle every view inlines (tests/e2e/test_apps_bundle.py rebuilds it).
SDK_BUNDLE = package_files.files("mesq.mcp").joinpath("views", "ext-apps.js").read_text("utf-8")
UI = "io.modelcontextprotocol/ui"
APP_MIME = "text/html;profile=mcp-app"
SCOPES = "memo:read,memo:write,todo:read,todo:write"
EXPECTED_VIEWS = {
    "list_todos": "ui://mesq/board",
    "get_memo": "ui://mesq/memo",
    "create_memo": "ui://mesq/memo",
    "search_ai_memos": "ui://mesq/results",
    "search_everything": "ui://mesq/results",
    "list_changes": "ui://mesq/changes",
}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("mcp-apps") / "data")
    yield server
    stop_server(server)


@asynccontextmanager
async def connect(base_url: str, token: str, mode: str, *, apps: bool) -> AsyncIterator[Client]:
    extensions = [advertise(UI, {"mimeTypes": [APP_MIME]})] if apps else None
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
        async with Client(transport, mode=mode, extensions=extensions) as client:
            yield client


def _declared(client: Client) -> dict[str, Any] | None:
    capabilities = client.server_capabilities
    found = (capabilities.extensions or {}).get(UI) or (capabilities.experimental or {}).get(UI)
    return found


def _stable(result: Any) -> Any:
    """A tool result without its per-call trace id."""
    dumped = result.model_dump(by_alias=True, exclude_none=True)
    for part in [dumped.get("structuredContent") or {}]:
        part.pop("traceId", None)
    for item in dumped.get("content", []):
        if item.get("type") == "text":
            body = json.loads(item["text"])
            body.pop("traceId", None)
            item["text"] = body
    return dumped


@pytest.mark.parametrize("mode", MODES)
def test_views_listed_read_and_linked(live_server, mode):
    account = live_server.account(f"apps{mode}", scopes=SCOPES)

    async def scenario() -> None:
        async with connect(live_server.base_url, account.token, mode, apps=True) as client:
            assert _declared(client) == {"mimeTypes": [APP_MIME]}
            if mode == "auto":
                assert client.server_capabilities.extensions == {UI: {"mimeTypes": [APP_MIME]}}
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            linked = {name: tool.meta["ui"]["resourceUri"] for name, tool in tools.items() if tool.meta}
            assert linked == EXPECTED_VIEWS == {name: f"ui://mesq/{view}" for name, view in VIEWS.items()}
            assert all(tools[name].meta == {"ui": {"resourceUri": uri}} for name, uri in linked.items())
            listed = (await client.list_resources()).resources
            assert sorted(str(r.uri) for r in listed) == sorted(set(EXPECTED_VIEWS.values()))
            for resource in listed:
                assert resource.mime_type == APP_MIME
                read = await client.read_resource(str(resource.uri))
                (content,) = read.contents
                assert content.mime_type == APP_MIME and str(content.uri) == str(resource.uri)
                assert content.meta == {
                    "ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}
                }
                html = content.text  # type: ignore[union-attr]
                assert html.startswith("<!doctype html>")
                assert "Content-Security-Policy" in html and "default-src 'none'" in html
                assert " on" not in html.split("<script>")[0].split("<body")[1], "no inline handler in the markup"
                assert SDK_BUNDLE in html  # the SDK's App (its URLs are JSON Schema ids and docs links)
                ours = html.replace(SDK_BUNDLE, "")
                assert "eval(" not in html and "http://" not in ours and "https://" not in ours

    anyio.run(scenario)


@pytest.mark.parametrize("mode", MODES)
def test_a_client_without_the_extension_sees_the_same_results(live_server, mode):
    account = live_server.account(f"plain{mode}", scopes=SCOPES)

    async def scenario() -> None:
        async with connect(live_server.base_url, account.token, mode, apps=False) as plain:
            created = await plain.call_tool("create_memo", {"content": "apps check #apps"})
            memo_id = created.structured_content["data"]["memo"]["id"]  # type: ignore[index]
            plain_tools = (await plain.list_tools()).tools
            plain_results = [_stable(await plain.call_tool(name, args)) for name, args in _calls(memo_id)]
        async with connect(live_server.base_url, account.token, mode, apps=True) as apps:
            apps_tools = (await apps.list_tools()).tools
            apps_results = [_stable(await apps.call_tool(name, args)) for name, args in _calls(memo_id)]
        assert [t.model_dump() for t in plain_tools] == [t.model_dump() for t in apps_tools]
        assert plain_results == apps_results
        for result in plain_results:
            assert [item["type"] for item in result["content"]] == ["text"], "no embedded UI resource"
            assert "ui" not in result.get("_meta", {}) and UI not in result.get("_meta", {})

    anyio.run(scenario)


def _calls(memo_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [("get_memo", {"id": memo_id}), ("list_todos", {}), ("list_changes", {"recordId": memo_id})]


@pytest.mark.parametrize("mode", MODES)
def test_the_accounts_zone_reaches_the_client_in_meta_on_success_only(live_server, mode):
    """list_todos and list_changes carry the account's zone in the result's `_meta` (docs/MCP/apps.md)
    through the official client's result validation (its output schema checks `structuredContent`),
    for a client with the extension or without; not before the account has set one, not on an
    error, and no other tool carries it."""
    account = live_server.account(f"zone{mode}", scopes=SCOPES)

    async def scenario() -> None:
        for apps in (True, False):
            async with connect(live_server.base_url, account.token, mode, apps=apps) as client:
                created = await client.call_tool("create_memo", {"content": f"zone {apps} #apps"})
                memo_id = created.structured_content["data"]["memo"]["id"]  # type: ignore[index]
                if apps:
                    unset = [await client.call_tool(name, args) for name, args in _calls(memo_id)]
                    assert [(r.is_error, _zone(r)) for r in unset] == [(False, None)] * 3
                    zone = await client.call_tool("set_time_zone", {"timeZone": "Asia/Shanghai"})
                    assert not zone.is_error, zone
                results = {name: await client.call_tool(name, args) for name, args in _calls(memo_id)}
                assert {name: (r.is_error, _zone(r)) for name, r in results.items()} == {
                    "get_memo": (False, None),
                    "list_todos": (False, "Asia/Shanghai"),
                    "list_changes": (False, "Asia/Shanghai"),
                }
                if mode == "auto":  # the SDK's own `_meta` of the era is kept beside it
                    assert "io.modelcontextprotocol/serverInfo" in (results["list_todos"].meta or {})
                for name, args in (("list_todos", {"spaceId": "no-such-space"}), ("list_changes", {"limit": 0})):
                    failed = await client.call_tool(name, args)
                    assert failed.is_error and _zone(failed) is None, (name, failed)

    anyio.run(scenario)


def _account_in(live_server: LiveServer, username: str, language: str) -> str:
    """A new account whose Settings → Language is `language` (the CLI's `--language`); its PAT."""
    created = live_server.cli_here("user", "create", username, "--password-stdin", "--language", language,
                              stdin="correct horse battery\n")  # fmt: skip
    assert created.returncode == 0, created.stderr
    return live_server.token(username, SCOPES)


@pytest.mark.parametrize("mode", MODES)
def test_the_accounts_language_reaches_the_client_in_meta(live_server, mode):
    """The language the account chose (zh-CN: `zh-Hans`, en-US: `en`) rides in list_todos' and
    list_changes' `_meta` beside the zone, through the official client's result validation, with
    and without the extension; never in `structuredContent` or on another tool, not on an error,
    and not for an account that follows its browser (the view keeps the host's language)."""
    tokens = {language: _account_in(live_server, f"lang{language}{mode}", language) for language in ("zh", "en")}
    follows_browser = live_server.account(f"langnone{mode}", scopes=SCOPES).token

    async def scenario() -> None:
        for language, token in tokens.items():
            for apps in (True, False):
                async with connect(live_server.base_url, token, mode, apps=apps) as client:
                    created = await client.call_tool("create_memo", {"content": f"language {apps} #apps"})
                    memo_id = created.structured_content["data"]["memo"]["id"]  # type: ignore[index]
                    results = {name: await client.call_tool(name, args) for name, args in _calls(memo_id)}
                    tag = {"zh": "zh-Hans", "en": "en"}[language]
                    assert {name: (r.is_error, _language(r)) for name, r in results.items()} == {
                        "get_memo": (False, None),
                        "list_todos": (False, tag),
                        "list_changes": (False, tag),
                    }
                    assert all("mesq/language" not in json.dumps(r.structured_content) for r in results.values())
                    failed = await client.call_tool("list_changes", {"limit": 0})
                    assert failed.is_error and _language(failed) is None
        async with connect(live_server.base_url, follows_browser, mode, apps=True) as client:
            assert _language(await client.call_tool("list_todos", {})) is None

    anyio.run(scenario)


def _language(result: Any) -> Any:
    return (result.meta or {}).get("mesq/language")


def _zone(result: Any) -> Any:
    """The account's zone a tool result's `_meta` names (the SDK adds its own keys in the 2026 era)."""
    return (result.meta or {}).get("mesq/timeZone")
