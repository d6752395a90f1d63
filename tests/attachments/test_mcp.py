"""The memo_attachments tools and `resources/read` over the real MCP endpoint (both eras): every
tool gets real calls whose results (successes and failures) validate against its outputSchema;
read caps (stored size first, then while reading), the attachment-read rate bucket, and the same
path rules as REST."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest

from mesq.application import ratelimit
from mesq.application.ratelimit import WINDOW_SECONDS
from mesq.auth.tokens import create_token
from mesq.mcp.service import default_catalog
from tests.mcp.conftest import (  # noqa: F401
    ERAS,
    Mcp,
    check_text_copy,
    fresh_user,
    mcp,
    mcp_http,
    mcp_services,
    shared_user,
    validate_output,
)

from .conftest import app_client, b64

ATTACHMENT_TOOLS = [t.name for t in default_catalog().tools.values() if t.toolset == "memo_attachments"]
PNG = b"\x89PNG\r\n\x1a\n fake image"


def test_the_attachment_toolset():
    assert sorted(ATTACHMENT_TOOLS) == sorted([
        "create_memo_upload_session", "complete_memo_upload_session", "cancel_memo_upload_session",
        "upload_memo_resource", "read_memo_resource", "get_memo_resource_metadata", "list_memo_resources",
    ])  # fmt: skip


def _checked(client: Mcp, tools: dict[str, Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.call(name, arguments)
    envelope = check_text_copy(result)
    validate_output(tools[name], envelope)
    return result


def _calls(client: Mcp) -> dict[str, list[tuple[dict[str, Any], bool]]]:
    """Real calls for every attachment tool: (arguments, expect success)."""
    uploaded = client.ok("upload_memo_resource", {"displayName": "p.png", "mimeType": "image/png", "content": b64(PNG)})
    path = uploaded["path"]
    bogus = {"uploadId": "nope", "path": path}
    other = path.rsplit("/", 1)[0] + "/" + "f" * 28
    video = {"displayName": "v.mp4", "mimeType": "video/mp4"}
    return {
        "upload_memo_resource": [({"displayName": "a.txt", "mimeType": "text/plain", "content": b64(b"hi")}, True),
                                 ({"displayName": "a.txt", "mimeType": "text/plain", "content": "@@@@"}, False)],
        "read_memo_resource": [({"path": path}, True), ({"path": "users/x/../y"}, False)],
        "get_memo_resource_metadata": [({"path": path}, True), ({"path": other}, False)],
        "list_memo_resources": [({}, True), ({"memoId": "missing"}, False)],
        "create_memo_upload_session": [({**video, "size": 10}, True), ({**video, "size": 200 * 1024 * 1024}, False)],
        "complete_memo_upload_session": [(bogus, False)],
        "cancel_memo_upload_session": [(bogus, False)],
    }  # fmt: skip


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("name", ATTACHMENT_TOOLS)
def test_every_attachment_tool_result_matches_its_output_schema(mcp, era, name):  # noqa: F811
    client = mcp(era=era)
    tools = {tool["name"]: tool for tool in client.tools()}
    assert name in tools
    for arguments, succeeds in _calls(client)[name]:
        result = _checked(client, tools, name, arguments)
        assert (result.get("isError") is not True) is succeeds, (name, arguments, result)


def test_upload_read_and_memo_through_mcp(mcp):  # noqa: F811
    client = mcp()
    resource = client.ok("upload_memo_resource", {"displayName": "p.png", "mimeType": "image/png", "content": b64(PNG)})
    assert resource["type"] == "image" and resource["fileSize"] == len(PNG)
    memo = client.ok("create_memo", {"content": "pic", "resources": [resource]})["memo"]
    assert memo["resources"] == [resource] and memo["contentSource"] == "mcp"
    read = client.ok("read_memo_resource", {"path": resource["path"]})
    assert base64.b64decode(read["content"]) == PNG and read["mimeType"] == "image/png"
    contents = client.result("resources/read", {"uri": resource["mcp_uri"]})["contents"]
    assert contents == [{"uri": resource["mcp_uri"], "mimeType": "image/png", "blob": b64(PNG)}]
    listed = client.ok("list_memo_resources", {"memoId": memo["id"]})
    assert listed["resources"] == [resource]
    session = client.ok("create_memo_upload_session", {"displayName": "x", "mimeType": "text/plain", "size": 3})
    assert session["transport"] == "relay"  # local storage


def test_an_attachments_mcp_uri_or_url_given_as_its_path_is_answered_with_the_path(mcp):  # noqa: F811
    # Every answer puts `mcp_uri` and `url` beside `path`; an agent passed the mcp_uri to
    # read_memo_resource and read only "not a memo attachment path (users/<you>/memo/<id>)".
    client = mcp()
    upload = {"displayName": "笔记.txt", "mimeType": "text/plain", "content": b64(b"hi")}
    resource = client.ok("upload_memo_resource", upload)
    for form in ("mcp_uri", "url"):
        for tool in ("read_memo_resource", "get_memo_resource_metadata"):
            error = client.fails(tool, {"path": resource[form]})["error"]
            assert error["code"] == "VALIDATION_ERROR", error
            assert error["message"] == (
                f"path: that is an attachment's {form}; pass its path instead: '{resource['path']}'"
            ), error
    refused = client.fails("read_memo_resource", {"path": "memo://resource/users%2F..%2Fetc"})["error"]
    assert "not a memo attachment path" in refused["message"]  # no attachment inside: the usual words
    assert client.ok("read_memo_resource", {"path": resource["path"]})["content"] == b64(b"hi")


def test_resource_read_errors(mcp, fresh_user, mcp_services):  # noqa: F811
    client = mcp()
    resource = client.ok("upload_memo_resource", {"displayName": "p.png", "mimeType": "image/png", "content": b64(PNG)})
    other = mcp(user=fresh_user())
    denied = other.error("resources/read", {"uri": resource["mcp_uri"]})
    assert denied["code"] == -32602 and "another account" in denied["message"]
    missing_uri = resource["mcp_uri"].rsplit("%2F", 1)[0] + "%2F" + "f" * 28
    missing = client.error("resources/read", {"uri": missing_uri})
    assert missing["code"] == -32602 and missing["data"] == {"code": "NOT_FOUND", "uri": missing_uri}
    traversal = client.error("resources/read", {"uri": "memo://resource/users%2F..%2F..%2Fetc%2Fpasswd"})
    assert traversal["code"] == -32602 and "not a memo attachment path" in traversal["message"]
    todo = client.post("resources/read", {"uri": "todo://attachment/u1%2Fa.txt"})  # needs todo:read
    assert todo.status_code == 403 and 'scope="todo:read"' in todo.headers["www-authenticate"]
    no_scope = mcp(scopes="todo:read")
    refused = no_scope.post("resources/read", {"uri": resource["mcp_uri"]})  # the step-up challenge
    assert refused.status_code == 403 and 'scope="memo:read"' in refused.headers["www-authenticate"]
    mcp_services.blobs.delete(resource["path"])
    assert client.error("resources/read", {"uri": resource["mcp_uri"]})["data"]["code"] == "NOT_FOUND"
    gone = client.fails("read_memo_resource", {"path": resource["path"]})
    assert gone["error"]["code"] == "NOT_FOUND"


@pytest.fixture
def small_cap(make_services, make_account_for):
    services = make_services(mcp_read_cap_bytes=16)
    account = make_account_for(services)
    with app_client(services) as http:
        yield services, Mcp(client=http, token=account.token), account


def test_mcp_read_cap(small_cap):
    services, client, _account = small_cap
    fits = client.ok("upload_memo_resource", {"displayName": "a", "mimeType": "text/plain", "content": b64(b"x" * 16)})
    big = client.ok("upload_memo_resource", {"displayName": "b", "mimeType": "text/plain", "content": b64(b"x" * 17)})
    assert client.ok("read_memo_resource", {"path": fits["path"]})["fileSize"] == 16
    over = client.fails("read_memo_resource", {"path": big["path"]})
    assert over["error"]["code"] == "RESPONSE_TOO_LARGE" and "resources/read?path=" in over["error"]["message"]
    over_resource = client.error("resources/read", {"uri": big["mcp_uri"]})
    assert "/api/toolkit/memo/resources/read?path=" in over_resource["message"]
    # Stored size first, then the read itself: an object that grew past the cap is refused too.
    services.blobs.put(fits["path"], b"y" * 10_000, "text/plain")
    assert client.fails("read_memo_resource", {"path": fits["path"]})["error"]["code"] == "RESPONSE_TOO_LARGE"
    assert "cap" in client.error("resources/read", {"uri": fits["mcp_uri"]})["message"]


def test_resources_read_counts_in_the_attachment_read_bucket(small_cap, monkeypatch):
    services, client, account = small_cap
    # The clock held inside one window: 31 reads that straddled a minute's end started a new count.
    frozen = float(int(time.time()) // WINDOW_SECONDS * WINDOW_SECONDS + 1)
    monkeypatch.setattr(ratelimit, "wall_clock", lambda: frozen)
    resource = client.ok("upload_memo_resource", {"displayName": "a", "mimeType": "text/plain", "content": b64(b"x")})
    for _ in range(15):
        client.result("resources/read", {"uri": resource["mcp_uri"]})
        client.ok("read_memo_resource", {"path": resource["path"]})
    limited = client.post("resources/read", {"uri": resource["mcp_uri"]})  # a JSON-RPC error an agent can read
    error = limited.json()["error"]
    assert error["data"]["code"] == "RATE_LIMITED" and error["data"]["retryAfterSeconds"] > 0
    assert client.post("tools/call", {"name": "list_memo_resources", "arguments": {}}).status_code == 200
    # Another credential of the same user has its own bucket.
    token, _ = create_token(services.items, account.user_id, name="second", scopes="memo:read")
    assert Mcp(client=client.client, token=token).result("resources/read", {"uri": resource["mcp_uri"]})["contents"]


def test_reading_an_mcp_apps_view_counts_as_connecting_not_as_an_attachment(small_cap, monkeypatch):
    """A host reads a `ui://` view for each result it draws: 31 views within a minute (a page of
    results) were refused with the attachment bucket's RATE_LIMITED, and left the bucket spent
    for the person's files. They count in `connection`, 60 a minute, like the lists."""
    _services, client, _account = small_cap
    frozen = float(int(time.time()) // WINDOW_SECONDS * WINDOW_SECONDS + 1)
    monkeypatch.setattr(ratelimit, "wall_clock", lambda: frozen)
    for _ in range(40):
        assert client.result("resources/read", {"uri": "ui://mesq/memo"})["contents"][0]["text"]
    resource = client.ok("upload_memo_resource", {"displayName": "a", "mimeType": "text/plain", "content": b64(b"x")})
    assert client.result("resources/read", {"uri": resource["mcp_uri"]})["contents"]  # the files' bucket untouched
    # The connection bucket still holds them: within the window, refused past its 60.
    answers = [client.post("resources/read", {"uri": "ui://mesq/memo"}).json() for _ in range(25)]
    refused = [answer for answer in answers if "error" in answer]
    assert refused and all(answer["error"]["data"]["code"] == "RATE_LIMITED" for answer in refused)
    assert 40 + len(answers) - len(refused) <= 60
