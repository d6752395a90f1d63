"""Protocol edges over the real SDK transport: step-up challenges, -32602 for what a connection
cannot call or page, resource errors with `data.uri`, JSON-RPC batches on 2025-03-26, fixed
messages for unparsable or invalid messages, and the served versions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import ERAS, MODERN

METADATA = 'resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
SERVED = [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def raw(client, token: str, body: bytes | str, **headers: str):
    """POST a body as is (no envelope, no version header: a 2025-03-26 client)."""
    content = body.encode() if isinstance(body, str) else body
    all_headers = {**JSON_HEADERS, "Authorization": f"Bearer {token}", **headers}
    return client.client.post("/mcp", headers=all_headers, content=content)


def rpc(method: str, params: dict[str, Any] | None = None, request_id: int | None = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return message


# -- resources/read: a memo attachment needs memo:read -------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_resource_read_without_its_scope_is_a_step_up(mcp, era):
    client = mcp(scopes="todo:read", era=era)
    response = client.post("resources/read", {"uri": "memo://resource/users%2Fx%2Fmemo%2Fa%2Fb.png"})
    assert response.status_code == 403
    assert response.headers["www-authenticate"] == f'Bearer error="insufficient_scope", scope="memo:read", {METADATA}'


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")  # a PNG's first bytes


@pytest.mark.parametrize("era", ERAS)
def test_a_narrowed_url_never_reads_nor_steps_up_to_attachments_its_groups_do_not_read(mcp, fresh_user, era):
    """/mcp/x/todo lists `todo:read todo:write` as its scopes and shows no memo tool, yet a
    `resources/read` of a memo:// URI there answered the step-up `scope="memo:read"` (the SDK then
    has the person approve reading memos for "MCP, only todos") and, with memo:read, returned the
    memo attachment: the todos-only connection reached memo data. Now it is -32602 FORBIDDEN like
    a tool the URL hides, with no challenge; todo attachments and unnarrowed URLs read as before."""
    user = fresh_user()
    writer = mcp(scopes="memo:read,memo:write", user=user)
    made = writer.client.post(
        "/api/toolkit/memo/resources/upload",
        headers={"Authorization": f"Bearer {writer.token}"},
        files={"file": ("photo.png", PNG, "image/png")},
    )
    assert made.status_code == 201, made.text
    uri = made.json()["data"]["mcp_uri"]
    for path in ("/mcp", "/mcp/x/memo_attachments", "/mcp/x/search/readonly"):
        read = mcp(scopes="memo:read", path=path, user=user, era=era).post("resources/read", {"uri": uri})
        assert read.status_code == 200 and "result" in read.json(), (path, read.text)
    for scopes, path in (("todo:read", "/mcp/x/todo"), ("memo:read,todo:read", "/mcp/x/todo"),
                         ("memo:read,todo:read", "/mcp/x/code,todo_inbox")):  # fmt: skip
        response = mcp(scopes=scopes, path=path, user=user, era=era).post("resources/read", {"uri": uri})
        assert "www-authenticate" not in response.headers, (scopes, path, response.headers)
        error = response.json()["error"]
        assert error["code"] == -32602 and error["data"]["code"] == "FORBIDDEN", (scopes, path, error)
        assert path in error["message"] and "result" not in response.json()
    templates = mcp(scopes="memo:read,todo:read", path="/mcp/x/todo", era=era).result("resources/templates/list")
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["todo://attachment/{encodedPath}"]


@pytest.mark.parametrize("era", ERAS)
def test_missing_resource_is_invalid_params_with_its_uri(mcp, fresh_user, era):
    user = fresh_user()
    uri = f"memo://resource/users%2F{user['id']}%2Fmemo%2F{'0' * 28}"  # well-formed, never uploaded
    response = mcp(scopes="memo:read", era=era, user=user).post("resources/read", {"uri": uri})
    # every client-side resource error has the same status: 400 on 2026-07-28, 200 on the legacy wire
    assert response.status_code == (400 if era == "modern" else 200)
    error = response.json()["error"]
    assert error["code"] == -32602 and error["data"] == {"code": "NOT_FOUND", "uri": uri}


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("uri", ["memo://resource/u1%2Fphoto.jpg", "todo://attachment/x", "file:///etc/passwd"])
def test_every_resource_error_carries_the_uri_and_one_status(mcp, era, uri):
    response = mcp(scopes="memo:read,todo:read", era=era).post("resources/read", {"uri": uri})
    assert response.status_code == (400 if era == "modern" else 200)
    error = response.json()["error"]
    assert error["code"] == -32602 and error["data"]["uri"] == uri


# -- list cursors -----------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("method", ["tools/list", "prompts/list", "resources/list", "resources/templates/list"])
def test_any_cursor_is_invalid_params(mcp, era, method):
    response = mcp(era=era).post(method, {"cursor": "bm90LWEtY3Vyc29y"})
    assert response.status_code == (400 if era == "modern" else 200)
    error = response.json()["error"]
    assert error["code"] == -32602 and "cursor" in error["message"]


# -- versions and routing headers ---------------------------------------------------------------


def test_unsupported_version_lists_every_served_version(mcp):
    client = mcp()
    body = client.body("tools/list", None)
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    headers = {**client.http_headers("tools/list", None), "Mcp-Protocol-Version": "2099-01-01"}
    response = client.client.post("/mcp", headers=headers, json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022 and error["data"] == {"supported": SERVED, "requested": "2099-01-01"}
    assert int(response.headers["content-length"]) == len(response.content)


def test_a_missing_method_header_is_called_missing(mcp):
    client = mcp()
    headers = {k: v for k, v in client.http_headers("tools/list", None).items() if k != "Mcp-Method"}
    response = client.client.post("/mcp", headers=headers, json=client.body("tools/list", None))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32020 and error["message"].startswith("mcp-method header is missing")


def test_a_missing_name_header_is_called_missing(mcp):
    client = mcp()
    params = {"name": "list_tags", "arguments": {}}
    headers = {k: v for k, v in client.http_headers("tools/call", params).items() if k != "Mcp-Name"}
    response = client.client.post("/mcp", headers=headers, json=client.body("tools/call", params))
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("mcp-name header is missing")


def test_a_mismatched_method_header_still_says_so(mcp):
    client = mcp()
    response = client.post("tools/list", **{"Mcp-Method": "prompts/list"})
    assert response.json()["error"]["message"].startswith("mcp-method header does not match")


# -- the handshake era: batches and fixed messages ------------------------------------------------


def test_2025_03_26_batches_are_served(mcp, fresh_user):
    user = fresh_user()
    client = mcp(era="legacy", user=user)
    batch = [
        rpc("ping", request_id=1),
        rpc("tools/call", {"name": "create_memo", "arguments": {"content": "from a batch #b"}}, request_id=2),
        rpc("notifications/initialized", request_id=None),
        rpc("tools/call", {"name": "list_memos", "arguments": {}}, request_id=3),
        {"jsonrpc": "2.0", "id": 4},  # invalid: no method
    ]
    response = raw(client, client.token, json.dumps(batch))
    assert response.status_code == 200 and response.headers["cache-control"] == "private, no-store"
    answers = {answer["id"]: answer for answer in response.json()}
    assert set(answers) == {1, 2, 3, None}  # the notification has no answer
    assert answers[1]["result"] == {}
    created = answers[2]["result"]["structuredContent"]["data"]["memo"]
    assert created["content"] == "from a batch #b"
    listed = answers[3]["result"]["structuredContent"]["data"]
    assert [memo["id"] for memo in listed["timelineItems"]] == [created["id"]]
    assert answers[None]["error"]["code"] == -32600


def test_batches_of_notifications_only_are_accepted(mcp):
    client = mcp(era="legacy")
    response = raw(client, client.token, json.dumps([rpc("notifications/initialized", request_id=None)]))
    assert response.status_code == 202 and response.content == b""


def test_a_batch_needing_a_scope_runs_nothing(mcp, fresh_user):
    user = fresh_user()
    client = mcp(scopes="memo:read", era="legacy", user=user)
    batch = [
        rpc("tools/call", {"name": "list_memos", "arguments": {}}, request_id=1),
        rpc("tools/call", {"name": "create_memo", "arguments": {"content": "x"}}, request_id=2),
    ]
    response = raw(client, client.token, json.dumps(batch))
    assert response.status_code == 403 and 'scope="memo:write"' in response.headers["www-authenticate"]


@pytest.mark.parametrize(
    ("body", "version", "code", "message"),
    [
        ("[]", None, -32600, "an empty batch"),
        (json.dumps([rpc("ping")] * 51), None, -32600, "at most 50 messages"),
        (json.dumps([rpc("ping")]), "2025-06-18", -32600, "has no JSON-RPC batches"),
        (json.dumps([rpc("ping")]), "2025-11-25", -32600, "has no JSON-RPC batches"),
        ('{"jsonrpc": "2.0", "id": 1}', None, -32600, "not a JSON-RPC 2.0 request"),
        ('"just a string"', None, -32600, "not a JSON-RPC 2.0 request"),
        ('{"jsonrpc": ', None, -32700, "not valid JSON"),
        (b"\xff\xfe", None, -32700, "not valid JSON"),
    ],
)
def test_unservable_bodies_get_a_short_fixed_message(mcp, body, version, code, message):
    client = mcp(era="legacy")
    headers = {"Mcp-Protocol-Version": version} if version else {}
    response = raw(client, client.token, body, **headers)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] is None and answer["error"]["code"] == code and message in answer["error"]["message"]
    assert len(response.content) < 300  # no validation dump, no library names
    assert "pydantic" not in response.text and "validation error" not in response.text.lower()


def test_initialize_is_refused_inside_a_batch(mcp):
    client = mcp(era="legacy")
    init = rpc(
        "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    )
    response = raw(client, client.token, json.dumps([init, rpc("ping", request_id=2)]))
    answers = {answer["id"]: answer for answer in response.json()}
    assert answers[1]["error"]["code"] == -32600 and "initialize" in answers[1]["error"]["message"]
    assert answers[2]["result"] == {}


def test_2025_03_26_is_still_negotiated(mcp):
    client = mcp(era="legacy")
    init = rpc(
        "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    )
    response = raw(client, client.token, json.dumps(init))
    assert response.json()["result"]["protocolVersion"] == "2025-03-26"


# -- requests whose problem must be named, not dropped or misnamed --------------------------------


@pytest.mark.parametrize("request_id", ['{"a": 1}', "1.5", "true", "[1]", "NaN", "null"])
def test_a_request_with_an_invalid_id_is_refused_naming_it(mcp, request_id):
    """Before: the SDK's notification model (which ignores unknown keys) took it: 202, never run."""
    client = mcp(scopes="memo:read,memo:write", era="legacy")
    marker = f"invalid-id-{request_id}"
    content = marker.replace('"', "")
    params = f'{{"name": "create_memo", "arguments": {{"content": "{content}"}}}}'
    body = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {params}}}'
    response = raw(client, client.token, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == -32600 and "id must be a string or an integer" in error["message"]
    assert json.dumps(json.loads(request_id)) in error["message"] or request_id in error["message"]
    found = client.ok("search_memos", {"query": content})
    assert found["page"]["totalCount"] == 0


@pytest.mark.parametrize("version", ["2025-99-99", "garbage"])
def test_an_unserved_version_is_named_for_a_handshake_body(mcp, version):
    """The SDK routes an unknown version to its 2026-07-28 entry, which checked `_meta` first."""
    client = mcp(era="legacy")
    response = raw(client, client.token, json.dumps(rpc("ping")), **{"MCP-Protocol-Version": version})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022 and error["message"] == "Unsupported protocol version", error
    assert error["data"]["requested"] == version and error["data"]["supported"][0] == MODERN


def test_a_lone_surrogate_escape_is_named(mcp):
    client = mcp(era="legacy")
    params = '{"name": "search_memos", "arguments": {"query": "\\ud800"}}'
    body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' + params + "}"
    response = raw(client, client.token, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600 and "lone surrogate" in error["message"], error


def test_nesting_past_the_parser_depth_is_named(mcp):
    client = mcp(era="legacy")
    tags = "[" * 1000 + "]" * 1000
    params = '{"name": "list_memos", "arguments": {"tags": ' + tags + "}}"
    response = raw(
        client, client.token, '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' + params + "}"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600 and "deeper than 200 levels" in error["message"], error


def test_a_parse_error_says_where(mcp):
    client = mcp(era="legacy")
    error = raw(client, client.token, '{"jsonrpc": "2.0", "id": 1').json()["error"]
    assert error["code"] == -32700 and "line 1 column" in error["message"], error


BAD_TOOL_CALLS = [
    ({}, "params.name", "params.name: a string is required (the name of a tool from tools/list)"),
    ({"arguments": {}}, "params.name", "params.name: a string is required (the name of a tool from tools/list)"),
    ({"name": 5, "arguments": {}}, "params.name", "(the name of a tool from tools/list), not a number"),
    ({"name": None}, "params.name", "(the name of a tool from tools/list), not null"),
    ({"name": "list_memos", "arguments": [1]}, "params.arguments", "must be an object of the tool's named arguments, not an array"),  # noqa: E501
    ({"name": "list_memos", "arguments": "x"}, "params.arguments", "must be an object of the tool's named arguments, not a string"),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize("version", [None, "2025-03-26", "2025-06-18", "2025-11-25"])
@pytest.mark.parametrize(("params", "field", "said"), BAD_TOOL_CALLS)
def test_a_tools_call_without_a_string_name_or_with_non_object_arguments_is_named_at_200(
    mcp, version, params, field, said
):
    """Before: "Invalid request parameters" with data "" (a missing or non-string name), and a
    non-object `arguments` at HTTP 400 where every other handshake-era -32602 is 200
    (docs/decisions.md "resource errors": one status per era)."""
    client = mcp(era="legacy")
    headers = {"Mcp-Protocol-Version": version} if version else {}
    response = raw(client, client.token, json.dumps(rpc("tools/call", params, request_id=7)), **headers)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["id"] == 7 and answer["error"]["code"] == -32602, answer
    assert answer["error"]["message"].startswith("Invalid params: ") and said in answer["error"]["message"], answer
    assert answer["error"]["data"] == {"code": "VALIDATION_ERROR", "field": field}, answer


def test_refused_params_are_named_in_a_batch_and_for_every_method(mcp):
    client = mcp(era="legacy")
    batch = [rpc("tools/call", {"arguments": {}}, 1), rpc("tools/list", None, 2), rpc("resources/read", {}, 3)]
    first, listed, read = raw(client, client.token, json.dumps(batch)).json()
    assert first["error"]["data"] == {"code": "VALIDATION_ERROR", "field": "params.name"}
    assert "tools" in listed["result"]
    assert read["error"]["message"] == "Invalid params: params.uri is required", read
    cursor = raw(client, client.token, json.dumps(rpc("tools/list", {"cursor": 5}))).json()["error"]
    assert cursor["message"] == "Invalid params: params.cursor: Input should be a valid string", cursor
    long_key = raw(client, client.token, json.dumps(rpc("prompts/get", {"name": "x", "arguments": {"k" * 5000: 1}})))
    assert long_key.status_code == 200 and len(long_key.text) < 600, long_key.text  # the made-up key is quoted short


@pytest.mark.parametrize("era", ERAS)
def test_a_wrong_content_type_gets_the_error_envelope(mcp, era):
    """The SDK's answer was a plain-text "Invalid Content-Type header"."""
    response = mcp(era=era).post("tools/list", **{"Content-Type": "text/plain"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "Content-Type must be application/json" in error["message"]
    assert response.json()["traceId"]


def test_a_modern_bad_id_and_non_object_arguments_are_named(mcp):
    """The SDK's 2026-07-28 answers said "Body must be a single JSON-RPC request..." and
    "Invalid request parameters" with empty data."""
    client = mcp(era="modern")
    message = client.body("tools/call", {"name": "list_memos", "arguments": [1]})
    headers = client.http_headers("tools/call", {"name": "list_memos"})
    response = client.client.post("/mcp", headers=headers, content=json.dumps(message))
    assert response.status_code == 400
    assert "arguments must be an object" in response.json()["error"]["message"], response.text
    assert response.json()["error"]["data"] == {"code": "VALIDATION_ERROR", "field": "params.arguments"}
    for params in ({}, {"arguments": {}}):  # no name, no Mcp-Name header to repeat it
        message = client.body("tools/call", params)
        unnamed = client.http_headers("tools/call", None)
        response = client.client.post("/mcp", headers=unnamed, content=json.dumps(message))
        error = response.json()["error"]
        assert response.status_code == 400 and error["code"] == -32602, response.text
        assert error["message"].startswith("Invalid params: params.name: a string is required"), error
        assert error["data"] == {"code": "VALIDATION_ERROR", "field": "params.name"}
    bare = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = client.client.post("/mcp", headers=client.http_headers("tools/list", None), json=bare)
    assert "envelope keys" in response.json()["error"]["message"], response.text  # the SDK's own words stay
    message = {**client.body("tools/call", {"name": "list_memos", "arguments": {}}), "id": 1.5}
    response = client.client.post("/mcp", headers=headers, content=json.dumps(message))
    error = response.json()["error"]
    assert response.status_code == 400 and error["code"] == -32600, response.text
    assert "id must be a string or an integer, not 1.5" in error["message"]
