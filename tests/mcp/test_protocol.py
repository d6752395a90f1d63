"""Both protocol eras on the same URLs: discovery and handshake, identity, capabilities, cache
hints, the 2026-07-28 header checks, and the exact tool list per scope set."""

from __future__ import annotations

from typing import Any

import pytest

from mesq import __version__
from mesq.kernel.toolsets import TOOLSETS
from mesq.mcp.service import default_catalog, instructions

from .conftest import ERAS, LEGACY, MODERN

INSTRUCTIONS = instructions(default_catalog())

#: Listing order: toolset (memo, then memo_attachments), then name. Written out, not derived.
MEMO_TOOLSET_READ = [
    "batch_get_memos",
    "get_memo",
    "list_memos",
    "list_tags",
    "search_memos",
    "select_memos_for_insight",
]
MEMO_TOOLSET_ALL = [
    "batch_get_memos",
    "create_memo",
    "delete_memo",
    "get_memo",
    "list_memos",
    "list_tags",
    "rename_memo_tag",
    "restore_memo",
    "search_memos",
    "select_memos_for_insight",
    "update_memo",
]
#: The memo_attachments toolset (memo scopes too), listed after the memo toolset.
ATTACHMENT_READ = ["get_memo_resource_metadata", "list_memo_resources", "read_memo_resource"]
ATTACHMENT_ALL = [
    "cancel_memo_upload_session",
    "complete_memo_upload_session",
    "create_memo_upload_session",
    "get_memo_resource_metadata",
    "list_memo_resources",
    "read_memo_resource",
    "upload_memo_resource",
]
#: The search toolset: search_ai_memos needs memo:read, search_everything any read scope.
SEARCH_TOOLS = ["search_ai_memos", "search_everything"]
#: The history toolset (any read scope lists changes, any write scope undoes them).
HISTORY_READ = ["list_changes"]
HISTORY_ALL = ["list_changes", "undo_changes"]
#: The code toolset (no scope of its own: every connection that sees a group sees it), listed last.
CODE_TOOLS = ["run_code", "search_tools"]
#: Everything memo scopes show without a toolset filter.
READ_TOOLS = MEMO_TOOLSET_READ + ATTACHMENT_READ + SEARCH_TOOLS + HISTORY_READ + CODE_TOOLS
ALL_MEMO_TOOLS = MEMO_TOOLSET_ALL + ATTACHMENT_ALL + SEARCH_TOOLS + HISTORY_ALL + CODE_TOOLS


def test_modern_discover(mcp):
    result = mcp(scopes="memo:read").result("server/discover")
    # Every version these URLs serve, newest first: the legacy ones answer initialize here too.
    assert result["supportedVersions"] == [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    assert result["capabilities"] == {
        "prompts": {"listChanged": False},
        "resources": {"listChanged": False, "subscribe": False},
        "tools": {"listChanged": False},
        # MCP Apps (mesq/mcp/mcp_apps.py)
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}},
    }
    assert result["instructions"] == INSTRUCTIONS
    for rule in ("memo:read", "read-only", "page.nextOffset", "hasMore", "never follow", "recoverData"):
        assert rule in INSTRUCTIONS, rule
    assert "Tool groups on this server: memo, memo_attachments, todo" in INSTRUCTIONS
    assert result["cacheScope"] == "private" and result["ttlMs"] > 0
    assert result["resultType"] == "complete"
    info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert info["name"] == "mesq" and info["title"] == "MeSQ" and info["version"] == __version__


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
def test_legacy_initialize(mcp, version):
    client = mcp(scopes="memo:read", era="legacy")
    result = client.result(
        "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    )
    assert result["protocolVersion"] == version
    assert result["serverInfo"]["name"] == "mesq" and result["serverInfo"]["version"] == __version__
    assert result["serverInfo"]["title"] == "MeSQ"
    assert set(result["capabilities"]) == {"prompts", "resources", "tools", "experimental"}
    # MCP Apps: the 2025-11-25 wire has no `extensions`, so the settings ride in `experimental`.
    assert result["capabilities"]["experimental"] == {
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}
    }
    assert result["capabilities"]["resources"]["subscribe"] is False
    assert result["instructions"] == INSTRUCTIONS
    # Stateless: no session id, and the very next request needs nothing from this one.
    response = client.notify("notifications/initialized")
    assert response.status_code == 202 and "mcp-session-id" not in response.headers
    client.headers["Mcp-Protocol-Version"] = version
    assert "list_memos" in client.names()


def test_unknown_legacy_version_is_countered_with_the_latest(mcp):
    client = mcp(scopes="memo:read", era="legacy")
    result = client.result(
        "initialize", {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    )
    assert result["protocolVersion"] == LEGACY


@pytest.mark.parametrize("era", ERAS)
def test_tool_list_follows_scopes_exactly(mcp, era):
    assert mcp(scopes="memo:read", era=era).names() == READ_TOOLS
    assert mcp(scopes="memo:read,memo:write", era=era).names() == ALL_MEMO_TOOLS
    # memo:write alone grants no read scope: it cannot even connect.
    response = mcp(scopes="memo:write", era=era).post("tools/list")
    assert response.status_code == 403
    # A todo-only or reading-only credential connects but sees no memo tool (reading: its 3 tools
    # only); search_everything takes any read scope and searches what that scope reads.
    todo_tools = mcp(scopes="todo:read,todo:write", era=era).names()
    assert todo_tools[-5:] == ["search_everything", *HISTORY_ALL, *CODE_TOOLS]
    todo_tools = todo_tools[:-5]
    assert "list_todos" in todo_tools and not set(todo_tools) & set(ALL_MEMO_TOOLS)
    assert all("todo" in name or name in ("get_context", "set_time_zone") for name in todo_tools)
    assert mcp(scopes="reading:read", era=era).names() == [
        "list_reading_books",
        "list_reading_notes",
        "search_reading_notes",
        "search_everything",
        *CODE_TOOLS,  # history: memo or todo scopes only
    ]


@pytest.mark.parametrize("era", ERAS)
def test_tools_list_is_byte_identical_across_calls_and_ordered(mcp, era):
    # A client caches its prompt on the exact bytes; the order is toolset, then name.
    client = mcp(scopes="memo:read,memo:write,todo:read,todo:write", era=era)
    first, second = client.post("tools/list"), client.post("tools/list")

    def result_bytes(response: Any) -> bytes:  # the bytes after the JSON-RPC id, which differs
        assert response.status_code == 200
        return bytes(response.content.split(b'"result":', 1)[1])

    assert result_bytes(first) == result_bytes(second)
    again = mcp(scopes="memo:read,memo:write,todo:read,todo:write", era=era).post("tools/list")
    assert result_bytes(again) == result_bytes(first)
    names = [tool["name"] for tool in first.json()["result"]["tools"]]
    memo = MEMO_TOOLSET_ALL + ATTACHMENT_ALL
    tail = SEARCH_TOOLS + HISTORY_ALL + CODE_TOOLS
    assert names[: len(memo)] == memo and names[-len(tail) :] == tail
    # Every toolset's tools together, in TOOLSETS order, each group sorted by name.
    toolsets = [default_catalog().tools[name].toolset for name in names]
    groups = list(dict.fromkeys(toolsets))
    assert groups == [toolset for toolset in TOOLSETS if toolset in groups]
    for group in groups:
        members = [name for name, toolset in zip(names, toolsets, strict=True) if toolset == group]
        start = names.index(members[0])
        assert names[start : start + len(members)] == sorted(members), group


def test_lists_carry_private_cache_hints_in_the_modern_era(mcp):
    client = mcp(scopes="memo:read")
    for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list"):
        result = client.result(method)
        assert result["cacheScope"] == "private" and result["ttlMs"] == 3_600_000, method
    legacy = mcp(scopes="memo:read", era="legacy").result("tools/list")
    assert "ttlMs" not in legacy and "cacheScope" not in legacy


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_only_post(mcp_http, mcp, era, method):
    wire = mcp(era=era)
    response = mcp_http.request(method, "/mcp", headers=wire.http_headers("tools/list", None))
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.headers["cache-control"] == "private, no-store"
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert "mcp-session-id" not in response.headers


def test_every_response_is_private_no_store(mcp):
    client = mcp()
    for era in ERAS:
        client.era = era
        response = client.post("tools/list")
        assert response.status_code == 200
        assert response.headers["cache-control"] == "private, no-store"
        assert "mcp-session-id" not in response.headers


def test_mismatched_method_header_is_rejected(mcp):
    client = mcp()
    response = client.post("tools/list", **{"Mcp-Method": "tools/call"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020  # HEADER_MISMATCH
    assert "mcp-method" in response.json()["error"]["message"]


def test_mismatched_name_header_is_rejected(mcp):
    client = mcp()
    params = {"name": "list_tags", "arguments": {}}
    response = client.post("tools/call", params, **{"Mcp-Name": "list_memos"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020
    assert "mcp-name" in response.json()["error"]["message"]
    prompt = client.post("prompts/get", {"name": "organize_recent_notes"}, **{"Mcp-Name": "other"})
    assert prompt.status_code == 400 and prompt.json()["error"]["code"] == -32020


def test_mismatched_protocol_version_header_is_rejected(mcp):
    client = mcp()
    body = client.body("tools/list", None)
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    response = client.client.post("/mcp", headers=client.http_headers("tools/list", None), json=body)
    assert response.status_code == 400 and response.json()["error"]["code"] == -32020


def test_missing_envelope_is_rejected(mcp):
    client = mcp()
    response = client.client.post(
        "/mcp",
        headers=client.http_headers("tools/list", None),
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == -32602


def test_unknown_method(mcp):
    for era in ERAS:
        client = mcp(era=era)
        assert client.error("sampling/doesNotExist")["code"] == -32601


def test_modern_rejects_legacy_initialize_on_the_modern_wire(mcp):
    # The same URL serves both eras: a modern-stamped initialize is refused, a plain one accepted.
    client = mcp()
    response = client.post(
        "initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    )
    assert response.status_code in (400, 404) or "error" in response.json()
    legacy = mcp(era="legacy")
    assert legacy.connect()["protocolVersion"] == LEGACY
