"""Visibility: scopes, read-only (path and header), X-MCP-Tools, X-MCP-Exclude-Tools,
X-MCP-Toolsets and URL toolsets — alone and combined; tools/call applies the identical filter;
headers never widen past the credential's scopes."""

from __future__ import annotations

import pytest

from .conftest import ERAS
from .test_protocol import ALL_MEMO_TOOLS, MEMO_TOOLSET_ALL, MEMO_TOOLSET_READ, READ_TOOLS

RW = "memo:read,memo:write"
WRITE_TOOLS = [name for name in ALL_MEMO_TOOLS if name not in READ_TOOLS]


def visible(mcp, scopes=RW, path="/mcp", era="modern", **headers: str) -> list[str]:
    return mcp(scopes=scopes, path=path, era=era, headers=headers).names()


@pytest.mark.parametrize("era", ERAS)
def test_readonly_path_and_header(mcp, era):
    assert visible(mcp, path="/mcp/readonly", era=era) == READ_TOOLS
    assert visible(mcp, era=era, **{"X-MCP-Readonly": "true"}) == READ_TOOLS
    assert visible(mcp, era=era, **{"X-MCP-Readonly": "1"}) == READ_TOOLS
    assert visible(mcp, era=era, **{"X-MCP-Readonly": "false"}) == ALL_MEMO_TOOLS
    # A header cannot undo the read-only path.
    assert visible(mcp, path="/mcp/readonly", era=era, **{"X-MCP-Readonly": "false"}) == READ_TOOLS


def test_readonly_header_must_be_a_boolean(mcp):
    response = mcp(headers={"X-MCP-Readonly": "maybe"}).post("tools/list")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "X-MCP-Readonly" in response.json()["error"]["message"]


def test_tools_allow_list(mcp):
    assert visible(mcp, **{"X-MCP-Tools": "get_memo, list_memos"}) == ["get_memo", "list_memos"]
    assert visible(mcp, **{"X-MCP-Tools": ""}) == ALL_MEMO_TOOLS  # blank = no filter


def test_repeated_header_lines_form_one_list(mcp):
    client = mcp()
    headers = [(k, v) for k, v in client.http_headers("tools/list", None).items()]
    headers += [("X-MCP-Tools", "list_memos"), ("X-MCP-Tools", "get_memo")]
    response = client.client.post("/mcp", headers=headers, json=client.body("tools/list", None))
    assert [tool["name"] for tool in response.json()["result"]["tools"]] == ["get_memo", "list_memos"]


def test_exclude_list(mcp):
    assert visible(mcp, **{"X-MCP-Exclude-Tools": "delete_memo,restore_memo"}) == [
        name for name in ALL_MEMO_TOOLS if name not in ("delete_memo", "restore_memo")
    ]


def test_toolsets_header(mcp):
    assert visible(mcp, **{"X-MCP-Toolsets": "memo"}) == MEMO_TOOLSET_ALL
    assert visible(mcp, **{"X-MCP-Toolsets": "todo,reading"}) == []
    assert visible(mcp, **{"X-MCP-Toolsets": "default"}) == ALL_MEMO_TOOLS
    assert visible(mcp, **{"X-MCP-Toolsets": "all"}) == ALL_MEMO_TOOLS
    assert visible(mcp, **{"X-MCP-Toolsets": "MEMO"}) == MEMO_TOOLSET_ALL


def test_url_toolsets(mcp):
    assert visible(mcp, path="/mcp/x/memo") == MEMO_TOOLSET_ALL
    # a memo-only token has none of /mcp/x/todo's read scopes: asked for them, not shown an empty server
    refused = mcp(path="/mcp/x/todo,todo_inbox").post("tools/list")
    assert refused.status_code == 403 and 'scope="todo:read"' in refused.headers["www-authenticate"], refused.text
    assert visible(mcp, path="/mcp/x/all") == ALL_MEMO_TOOLS
    assert visible(mcp, path="/mcp/x/memo/readonly") == MEMO_TOOLSET_READ
    assert visible(mcp, path="/mcp/x/default/readonly", era="legacy") == READ_TOOLS


def test_combined_filters(mcp):
    assert visible(
        mcp,
        **{
            "X-MCP-Toolsets": "memo",
            "X-MCP-Tools": "list_memos,get_memo,create_memo,update_memo",
            "X-MCP-Exclude-Tools": "get_memo",
            "X-MCP-Readonly": "true",
        },
    ) == ["list_memos"]
    # The exclude-list wins over the allow-list.
    assert visible(mcp, **{"X-MCP-Tools": "list_tags", "X-MCP-Exclude-Tools": "list_tags"}) == []
    # URL toolsets and the header both narrow.
    assert visible(mcp, path="/mcp/x/memo", **{"X-MCP-Toolsets": "reading"}) == []
    assert visible(mcp, path="/mcp/x/memo/readonly", **{"X-MCP-Tools": "create_memo,list_tags"}) == ["list_tags"]


def test_headers_never_widen_past_scopes(mcp):
    read_only = "memo:read"
    assert visible(mcp, scopes=read_only, **{"X-MCP-Tools": "create_memo,update_memo,list_memos"}) == ["list_memos"]
    assert visible(mcp, scopes=read_only, **{"X-MCP-Toolsets": "all", "X-MCP-Readonly": "false"}) == READ_TOOLS
    assert visible(mcp, scopes="todo:read", **{"X-MCP-Toolsets": "memo"}) == []
    assert (
        visible(mcp, scopes="todo:read,reading:read", path="/mcp/x/memo,reading", **{"X-MCP-Tools": "list_memos"}) == []
    )


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/mcp/x/memos", {}),
        ("/mcp/x/memo,bogus/readonly", {}),
        ("/mcp", {"X-MCP-Toolsets": "memo,bogus"}),
    ],
)
def test_unknown_toolset_is_a_clear_400(mcp, path, headers):
    response = mcp(path=path, headers=headers).post("tools/list")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "unknown toolset" in error["message"]
    for name in ("memo", "memo_attachments", "todo", "todo_inbox", "todo_attachments", "reading", "all", "default"):
        assert name in error["message"]
    assert response.headers["cache-control"] == "private, no-store"


@pytest.mark.parametrize("path", ["/mcp/x/memos", "/mcp/x/memo,bogus/readonly", "/mcp/x/,"])
def test_a_url_naming_no_valid_toolset_is_a_400_before_any_credential(mcp_http, path):
    """The toolset names are public, and a URL naming an unknown one can never be connected to:
    a client without a token learns that at once. With a 401 it went through OAuth first: the
    challenge's metadata document for such a URL is a 404, so the client fell back to the root
    document (`/mcp`), the person approved a grant for the whole endpoint, and only then did the
    connection fail (sweep "connect")."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    response = mcp_http.post(path, json=body, headers=headers)
    assert response.status_code == 400, response.text
    assert "www-authenticate" not in response.headers
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "valid toolsets: memo" in error["message"]


def test_url_must_name_a_toolset(mcp):
    response = mcp(path="/mcp/x/,").post("tools/list")
    assert response.status_code == 400 and "names no toolset" in response.json()["error"]["message"]


def test_unknown_tool_names_in_headers_are_a_clear_400(mcp):
    for header in ("X-MCP-Tools", "X-MCP-Exclude-Tools"):
        response = mcp(headers={header: "list_memos,list_memoz"}).post("tools/list")
        assert response.status_code == 400
        assert "list_memoz" in response.json()["error"]["message"]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("scopes", "path", "headers", "tool", "arguments", "why"),
    [
        (RW, "/mcp/readonly", {}, "create_memo", {"content": "x"}, "read-only connection"),
        (RW, "/mcp", {"X-MCP-Readonly": "true"}, "update_memo", {"id": "a", "expectedRevision": 1}, "read-only"),
        (RW, "/mcp", {"X-MCP-Tools": "list_memos"}, "list_tags", {}, "X-MCP-Tools"),
        (RW, "/mcp", {"X-MCP-Exclude-Tools": "list_tags"}, "list_tags", {}, "X-MCP-Exclude-Tools"),
        (RW, "/mcp", {"X-MCP-Toolsets": "reading"}, "list_tags", {}, "X-MCP-Toolsets"),
        (f"{RW},todo:read", "/mcp/x/todo", {}, "list_tags", {}, "/mcp/x/todo"),
        # hidden by a filter and by scopes: more scopes would not help, so no step-up
        ("memo:read", "/mcp/readonly", {}, "create_memo", {"content": "x"}, "read-only connection"),
    ],
)
def test_tools_hidden_by_filters_are_invalid_params(mcp, era, scopes, path, headers, tool, arguments, why):
    client = mcp(scopes=scopes, path=path, era=era, headers=headers)
    assert tool not in client.names()
    response = client.post("tools/call", {"name": tool, "arguments": arguments})
    assert response.status_code == (400 if era == "modern" else 200)  # the SDK's status per era
    error = response.json()["error"]
    assert error["code"] == -32602 and error["data"] == {"code": "FORBIDDEN"}
    assert why in error["message"] and tool in error["message"]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("scopes", "headers", "tool", "arguments", "needed"),
    [
        ("memo:read", {}, "create_memo", {"content": "x"}, "memo:write"),
        ("memo:read", {}, "update_memo", {"id": "a", "expectedRevision": 1}, "memo:read memo:write"),
        ("todo:read", {"X-MCP-Tools": "list_tags"}, "list_tags", {}, "memo:read"),
    ],
)
def test_tools_hidden_only_by_scopes_answer_the_step_up_challenge(mcp, era, scopes, headers, tool, arguments, needed):
    client = mcp(scopes=scopes, era=era, headers=headers)
    assert tool not in client.names()
    response = client.post("tools/call", {"name": tool, "arguments": arguments})
    assert response.status_code == 403
    assert response.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", scope="{needed}", '
        'resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
    )
    body = response.json()
    assert body["error"]["code"] == "FORBIDDEN" and tool in body["error"]["message"]
    assert response.headers["cache-control"] == "private, no-store"


def test_a_step_up_runs_nothing(mcp, fresh_user):
    user = fresh_user()
    assert (
        mcp(scopes="memo:read", user=user)
        .post("tools/call", {"name": "create_memo", "arguments": {"content": "no"}})
        .status_code
        == 403
    )
    assert mcp(scopes="memo:read", user=user).ok("list_memos")["page"]["totalCount"] == 0


def test_hidden_write_tool_changes_nothing(mcp, fresh_user):
    user = fresh_user()
    reader = mcp(path="/mcp/readonly", user=user)
    assert reader.error("tools/call", {"name": "create_memo", "arguments": {"content": "no"}})["code"] == -32602
    assert reader.ok("list_memos")["page"]["totalCount"] == 0


# -- prompts follow the same filters as the tools whose data they read ---------------------------

BOTH = "memo:read,todo:read"
NOTES, TODOS = "organize_recent_notes", "organize_today_todos"


def prompts_visible(mcp, scopes=BOTH, path="/mcp", era="modern", **headers: str) -> list[str]:
    client = mcp(scopes=scopes, path=path, era=era, headers=headers)
    return [prompt["name"] for prompt in client.result("prompts/list")["prompts"]]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("path", "headers", "expected"),
    [
        ("/mcp", {}, [NOTES, TODOS]),
        # URL toolsets
        ("/mcp/x/memo", {}, [NOTES]),
        ("/mcp/x/todo", {}, [TODOS]),
        ("/mcp/x/memo,todo", {}, [NOTES, TODOS]),
        ("/mcp/x/all", {}, [NOTES, TODOS]),
        ("/mcp/x/memo,reading", {"X-MCP-Toolsets": "reading"}, []),
        # X-MCP-Toolsets
        ("/mcp", {"X-MCP-Toolsets": "memo"}, [NOTES]),
        ("/mcp", {"X-MCP-Toolsets": "todo"}, [TODOS]),
        ("/mcp", {"X-MCP-Toolsets": "reading"}, []),
        ("/mcp/x/memo", {"X-MCP-Toolsets": "todo"}, []),  # both narrow
        # X-MCP-Tools: the memo prompt reads list_memos and list_tags; the todo prompt reads query_todos
        ("/mcp", {"X-MCP-Tools": "list_memos,list_tags"}, [NOTES]),
        ("/mcp", {"X-MCP-Tools": "list_memos,list_tags,query_todos"}, [NOTES, TODOS]),
        ("/mcp", {"X-MCP-Tools": "list_memos"}, []),
        ("/mcp", {"X-MCP-Tools": "get_memo,list_tags"}, []),
        # X-MCP-Exclude-Tools
        ("/mcp", {"X-MCP-Exclude-Tools": "list_memos"}, [TODOS]),
        ("/mcp", {"X-MCP-Exclude-Tools": "list_tags"}, [TODOS]),
        ("/mcp", {"X-MCP-Exclude-Tools": "create_memo,get_memo"}, [NOTES, TODOS]),
        ("/mcp", {"X-MCP-Exclude-Tools": "query_todos"}, [NOTES]),
        ("/mcp", {"X-MCP-Tools": "list_memos", "X-MCP-Exclude-Tools": "list_memos"}, []),
        # A read-only connection still gets the read prompts.
        ("/mcp/readonly", {}, [NOTES, TODOS]),
        ("/mcp", {"X-MCP-Readonly": "true"}, [NOTES, TODOS]),
        ("/mcp/x/memo/readonly", {}, [NOTES]),
    ],
)
def test_prompt_list_follows_the_filters(mcp, era, path, headers, expected):
    assert prompts_visible(mcp, path=path, era=era, **headers) == expected


def test_prompt_list_never_widens_past_scopes(mcp):
    assert prompts_visible(mcp, scopes="memo:read", **{"X-MCP-Toolsets": "all"}) == [NOTES]
    assert prompts_visible(mcp, scopes="todo:read", path="/mcp/x/memo,todo") == [TODOS]
    assert prompts_visible(mcp, scopes="todo:read", **{"X-MCP-Tools": "list_memos"}) == []
    assert prompts_visible(mcp, scopes="todo:read", **{"X-MCP-Tools": "list_memos,query_todos"}) == [TODOS]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("scopes", "path", "headers", "prompt", "why"),
    [
        (BOTH, "/mcp/x/todo", {}, NOTES, "/mcp/x/todo"),
        (BOTH, "/mcp/x/memo", {}, TODOS, "/mcp/x/memo"),
        (BOTH, "/mcp", {"X-MCP-Toolsets": "todo"}, NOTES, "X-MCP-Toolsets"),
        (BOTH, "/mcp", {"X-MCP-Toolsets": "memo"}, TODOS, "X-MCP-Toolsets"),
        (BOTH, "/mcp", {"X-MCP-Tools": "get_memo"}, NOTES, "X-MCP-Tools"),
        (BOTH, "/mcp", {"X-MCP-Exclude-Tools": "list_memos"}, NOTES, "X-MCP-Exclude-Tools"),
        (BOTH, "/mcp", {"X-MCP-Exclude-Tools": "query_todos"}, TODOS, "query_todos"),
        ("todo:read", "/mcp", {}, NOTES, "lacks memo:read"),
        ("memo:read", "/mcp", {}, TODOS, "lacks todo:read"),
    ],
)
def test_hidden_prompts_cannot_be_got(mcp, era, scopes, path, headers, prompt, why):
    client = mcp(scopes=scopes, path=path, era=era, headers=headers)
    assert prompt not in [p["name"] for p in client.result("prompts/list")["prompts"]]
    error = client.error("prompts/get", {"name": prompt})
    assert error["code"] == -32602
    assert why in error["message"] and prompt in error["message"], error["message"]


@pytest.mark.parametrize("era", ERAS)
def test_read_only_connections_can_get_read_prompts(mcp, era):
    for path, headers in (("/mcp/readonly", {}), ("/mcp", {"X-MCP-Readonly": "true"})):
        client = mcp(scopes=BOTH, path=path, era=era, headers=headers)
        assert client.result("prompts/get", {"name": NOTES})["messages"]
        assert client.result("prompts/get", {"name": TODOS})["messages"]


def _refused_before_any_credential(mcp_http, path: str) -> str:
    """The message of the 400 VALIDATION_ERROR a `tools/list` on `path` gets with no credential
    asked for (no WWW-Authenticate)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = mcp_http.post(path, json=body, headers={"Accept": "application/json, text/event-stream"})
    assert response.status_code == 400, response.text
    assert "www-authenticate" not in response.headers
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    return str(error["message"])


@pytest.mark.parametrize("path", ["/mcp/x/Memo", "/mcp/x/MEMO/readonly", "/mcp/x/ALL", "/mcp/x/memo,%20todo"])
def test_a_toolset_spelled_otherwise_than_its_name_is_a_400_before_any_credential(mcp_http, path):
    """Toolset names are lower-case (decisions.md "toolset URL spelling"). `/mcp/x/Memo` used to be
    read as `memo` and answered with a 401 whose metadata document was a 404 (the OAuth resource
    check never took capitals), so a client fell back to the root document and had the person
    approve a grant for the whole of /mcp."""
    message = _refused_before_any_credential(mcp_http, path)
    assert "lower-case" in message and "valid toolsets: memo" in message


@pytest.mark.parametrize("path", ["/mcp/x/me%6Do", "/mcp/x/%6D%65%6D%6F/readonly", "/mcp/x/memo%2Ctodo"])
def test_a_percent_encoded_toolset_is_a_400_before_any_credential(mcp_http, path):
    """`/mcp/x/me%6Do` was served as `/mcp/x/memo` (the route reads the decoded path), though
    the URL is an OAuth resource a client compares byte for byte (RFC 9728 §3.3), as with capitals:
    refused with the other misspellings, saying what to write, before any credential."""
    message = _refused_before_any_credential(mcp_http, path)
    assert "percent-encoded" in message and "valid toolsets: memo" in message, message


def test_a_capitals_url_is_refused_with_a_credential_too(mcp):
    response = mcp(path="/mcp/x/Memo").post("tools/list")
    assert response.status_code == 400 and "lower-case" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/mcp/x/memo",
        "/mcp/x/memo,",
        "/mcp/x/memo,todo/readonly",
        "/mcp/x/Memo",
        "/mcp/x/MEMO/readonly",
        "/mcp/x/Todo,memo",
        "/mcp/x/memo,%20todo",
        "/mcp/x/me%6Do",
        "/mcp/x/" + "memo," * 41,
    ],
)
def test_every_toolset_url_asking_for_a_credential_has_its_own_metadata_document(mcp_http, path):
    """The route and the OAuth resource check agree on every spelling: a URL either is refused
    before any credential, or its challenge names a metadata document that exists and whose
    `resource` is that URL, so no grant is ever approved for more than the URL (RFC 9728 §3.3)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = mcp_http.post(path, json=body, headers={"Accept": "application/json, text/event-stream"})
    if response.status_code == 400:
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
        return
    assert response.status_code == 401, response.text
    metadata_url = response.headers["www-authenticate"].split('resource_metadata="')[1].rstrip('"')
    document = mcp_http.get(metadata_url)
    assert document.status_code == 200, document.text
    assert document.json()["resource"] == "http://testserver" + path


@pytest.mark.parametrize(
    "path", ["/mcp/x/me%6Do", "/mcp/x/todo%2Cmemo", "/mcp/x/%74odo/readonly", "/mc%70/x/todo", "/mcp/x/Todo"]
)
def test_a_metadata_document_is_never_served_for_a_toolset_url_the_route_refuses(mcp_http, path):
    """`/.well-known/oauth-protected-resource/mcp/x/me%6Do` answered the document of `/mcp/x/memo`
    (the route read the decoded path) while `/mcp/x/me%6Do` itself is a 400 and an authorization
    for it `invalid_target`: a document whose `resource` is not the URL it describes. It is a 404
    now, as the capitals' is."""
    document = mcp_http.get(f"/.well-known/oauth-protected-resource{path}")
    assert document.status_code == 404, document.text
    assert document.json()["error"]["code"] == "NOT_FOUND"
