"""The HTTP side of /mcp: credential challenges (docs/contract.md §1), the Origin check, the body cap
(checked after credential and scope, before JSON), and private/no-store everywhere."""

from __future__ import annotations

import base64
import json
import threading

import anyio
import pydantic_core
import pytest

from mesq.auth.tokens import create_token, revoke_token
from mesq.mcp.bodies import MESSAGE_BODY_CAP, UPLOAD_TOOLS
from mesq.mcp.endpoint import MCP_BODY_CAP
from mesq.mcp.service import default_catalog
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from .conftest import ERAS, Mcp

RESOURCE_METADATA = 'resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
CONNECT = "memo:read todo:read reading:read"


def test_body_cap_is_base64_of_100_mib_plus_1_mib():
    assert MCP_BODY_CAP == 140_858_712
    base64_of_100_mib = len(base64.b64encode(bytes(100 * 1024 * 1024)))
    assert base64_of_100_mib + 1024 * 1024 == MCP_BODY_CAP


@pytest.mark.parametrize("era", ERAS)
def test_no_credential(mcp_http, era):
    response = Mcp(client=mcp_http, token=None, era=era).post("tools/list")
    assert response.status_code == 401
    # `scope`: what connecting needs (the read scopes); writes are stepped up when called.
    assert response.headers["www-authenticate"] == f'Bearer scope="{CONNECT}", {RESOURCE_METADATA}'
    assert response.json()["error"]["code"] == "UNAUTHORIZED" and response.json()["traceId"]
    assert response.headers["cache-control"] == "private, no-store"


@pytest.mark.parametrize("token", ["mesq_pat_wrong", "not-even-a-pat"])
def test_invalid_credential(mcp_http, token):
    response = Mcp(client=mcp_http, token=token).post("tools/list")
    assert response.status_code == 401
    assert (
        response.headers["www-authenticate"] == f'Bearer error="invalid_token", scope="{CONNECT}", {RESOURCE_METADATA}'
    )
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


def test_malformed_authorization_header(mcp_http):
    client = Mcp(client=mcp_http, token=None, headers={"Authorization": "Basic dXNlcjpwYXNz"})
    response = client.post("tools/list")
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


def test_revoked_credential(mcp_http, mcp_services, shared_user):
    token, record = create_token(mcp_services.items, shared_user["id"], name="soon revoked", scopes="memo:read")
    client = Mcp(client=mcp_http, token=token)
    assert client.post("tools/list").status_code == 200
    revoke_token(mcp_services.items, shared_user["id"], record["id"])
    response = client.post("tools/list")
    assert response.status_code == 401 and 'error="invalid_token"' in response.headers["www-authenticate"]


@pytest.mark.parametrize("era", ERAS)
def test_no_read_scope(mcp, era):
    response = mcp(scopes="memo:write", era=era).post("tools/list")
    assert response.status_code == 403
    assert response.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", scope="memo:read todo:read reading:read", {RESOURCE_METADATA}'
    )
    assert response.json()["error"]["code"] == "FORBIDDEN"


def test_challenge_points_at_served_resource_metadata(mcp_http):
    challenge = Mcp(client=mcp_http, token=None).post("tools/list").headers["www-authenticate"]
    url = challenge.split('resource_metadata="', 1)[1].rstrip('"')
    metadata = mcp_http.get(url.removeprefix("http://testserver"))
    assert metadata.status_code == 200
    assert metadata.json() == {
        "resource": "http://testserver/mcp",
        "authorization_servers": ["http://testserver"],
        "resource_name": "MeSQ",
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["memo:read", "memo:write", "todo:read", "todo:write", "reading:read"],
    }


def test_challenge_uses_the_configured_instance(mcp_services, tmp_path):
    configured = Services(
        settings=inprocess_settings(data_dir=tmp_path, public_url="https://mesq.example.com"),
        items=mcp_services.items,
        blobs=mcp_services.blobs,
    )
    from starlette.testclient import TestClient

    with TestClient(create_local_app(configured)) as http:
        response = Mcp(client=http, token=None).post("tools/list")
    assert (
        'resource_metadata="https://mesq.example.com/.well-known/oauth-protected-resource/mcp"'
        in (response.headers["www-authenticate"])
    )


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://testserver", True),
        ("https://testserver", True),  # host comparison only: TLS may end at a proxy
        ("http://mesq.example.com", True),  # the configured instance
        ("https://mesq.example.com", False),  # ...but only with its own scheme and port
        ("http://evil.example", False),
        ("http://testserver.evil.example", False),
        ("null", False),
    ],
)
def test_origin_check(mcp_services, shared_user, tmp_path, origin, allowed):
    from starlette.testclient import TestClient

    configured = Services(
        settings=inprocess_settings(data_dir=tmp_path, public_url="http://mesq.example.com"),
        items=mcp_services.items,
        blobs=mcp_services.blobs,
    )
    token, _ = create_token(mcp_services.items, shared_user["id"], name="origin", scopes="memo:read")
    headers = {"Origin": origin} if origin is not None else {}
    with TestClient(create_local_app(configured)) as http:
        response = Mcp(client=http, token=token, headers=headers).post("tools/list")
    if allowed:
        assert response.status_code == 200, response.text
    else:
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "FORBIDDEN"
        assert "origin" in response.json()["error"]["message"]


# -- the body cap: raw ASGI, so a client can claim or stream more than the cap cheaply ----------


def _asgi_post(app, headers: dict[str, str], chunks: list[bytes]) -> tuple[int, dict[str, str], bytes]:
    """POST /mcp with the body streamed in `chunks`; returns status, headers, body."""
    sent: list[dict] = []
    pending = list(chunks)

    async def receive() -> dict:
        if pending:
            chunk = pending.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(pending)}
        await anyio.sleep_forever()
        return {"type": "http.disconnect"}  # pragma: no cover

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": b"",
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 1234),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }

    async def run() -> None:
        with anyio.fail_after(30):
            await app(scope, receive, send)

    anyio.run(run)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


@pytest.fixture
def app(mcp_services):
    return create_local_app(mcp_services)


def _headers(token: str | None, **extra: str) -> dict[str, str]:
    headers = {"host": "testserver", "content-type": "application/json", "accept": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return {**headers, **extra}


def test_declared_oversize_body_is_413(app, mcp):
    token = mcp(scopes="memo:read").token
    status, headers, body = _asgi_post(app, _headers(token, **{"content-length": str(MCP_BODY_CAP + 1)}), [b"{}"])
    assert status == 413
    assert b'"PAYLOAD_TOO_LARGE"' in body and b"upload" in body
    assert headers["cache-control"] == "private, no-store"


def test_streamed_oversize_body_is_413(app, mcp):
    token = mcp(scopes="memo:read").token
    megabyte = b" " * (1024 * 1024)
    chunks = [megabyte] * (MCP_BODY_CAP // len(megabyte) + 1)  # no content-length: counted while reading
    status, _, body = _asgi_post(app, _headers(token), chunks)
    assert status == 413 and b'"PAYLOAD_TOO_LARGE"' in body


def test_body_cap_is_checked_after_credential_and_scope(app, mcp):
    oversize = {"content-length": str(MCP_BODY_CAP + 1)}
    status, headers, _ = _asgi_post(app, _headers(None, **oversize), [b"{}"])
    assert status == 401 and "resource_metadata" in headers["www-authenticate"]
    status, _, _ = _asgi_post(app, _headers(mcp(scopes="memo:write").token, **oversize), [b"{}"])
    assert status == 403
    status, _, _ = _asgi_post(app, _headers(mcp().token, **oversize, **{"x-mcp-toolsets": "nope"}), [b"{}"])
    assert status == 400


def _upload(content: bytes) -> dict:
    arguments = {"displayName": "note.txt", "mimeType": "text/plain", "content": base64.b64encode(content).decode()}
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "upload_memo_resource", "arguments": arguments},
    }


def _modern(message: dict, name: str) -> tuple[dict, dict[str, str]]:
    params = {
        **message["params"],
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name}
    return {**message, "params": params}, headers


def _structured(body: bytes) -> dict:
    return json.loads(body)["result"]["structuredContent"]


def test_the_upload_tools_are_the_only_ones_whose_arguments_outgrow_a_message(mcp_services):
    """UPLOAD_TOOLS, which alone get the large cap, is every tool that declares a string longer
    than MESSAGE_BODY_CAP."""
    catalog = default_catalog()

    def longest(schema: object) -> int:
        if isinstance(schema, dict):
            own = schema.get("maxLength")
            own = own if isinstance(own, int) else 0  # x-error-message has a "maxLength" text
            return max([own, *(longest(value) for value in schema.values())])
        if isinstance(schema, list):
            return max([0, *(longest(value) for value in schema)])
        return 0

    large = {name for name in catalog.names if longest(catalog.tools[name].operation.input_schema) > MESSAGE_BODY_CAP}
    assert large == UPLOAD_TOOLS


def test_an_upload_at_the_cap_is_read(app, mcp):
    token = mcp(scopes="memo:read,memo:write").token
    message = json.dumps(_upload(b"hello")).encode()
    padded = message + b" " * (MCP_BODY_CAP - len(message))  # JSON allows trailing whitespace
    status, _, body = _asgi_post(
        app, _headers(token, **{"mcp-protocol-version": "2025-11-25"}), [padded[:70_000_000], padded[70_000_000:]]
    )
    assert status == 200, body[:300]
    assert _structured(body)["data"]["path"]


@pytest.mark.parametrize("era", ERAS)
def test_a_large_body_that_is_no_upload_is_refused_unparsed(app, mcp, monkeypatch, era):
    """Only an upload's arguments may outgrow MESSAGE_BODY_CAP: a 2 MB search query (memo:read
    suffices) is refused before anyone parses it, as parsing megabytes stalls every other user."""
    parsed: list[int] = []
    real_from_json, real_loads = pydantic_core.from_json, json.loads
    monkeypatch.setattr(
        pydantic_core, "from_json", lambda data, *a, **k: parsed.append(len(data)) or real_from_json(data, *a, **k)
    )
    monkeypatch.setattr(json, "loads", lambda data, *a, **k: parsed.append(len(data)) or real_loads(data, *a, **k))
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_memos", "arguments": {"query": "a" * 2_000_000}},
    }
    headers = {"mcp-protocol-version": "2025-11-25"}
    if era == "modern":
        message, headers = _modern(message, "search_memos")
    raw = json.dumps(message).encode()
    status, _, body = _asgi_post(
        app, _headers(mcp(scopes="memo:read").token, **headers), [raw[:1_000_000], raw[1_000_000:]]
    )
    assert status == 413, body[:300]
    assert b"upload_memo_resource" in body
    assert not [size for size in parsed if size > MESSAGE_BODY_CAP]


def test_a_modern_call_that_is_no_upload_gets_the_small_cap_before_reading(app, mcp):
    _, headers = _modern(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_memos", "arguments": {}}},
        "search_memos",
    )
    declared = {**headers, "content-length": str(MESSAGE_BODY_CAP + 1)}
    status, _, body = _asgi_post(app, _headers(mcp(scopes="memo:read").token, **declared), [b"{}"])
    assert status == 413 and b"PAYLOAD_TOO_LARGE" in body


@pytest.mark.parametrize("era", ERAS)
def test_a_large_upload_is_parsed_off_the_event_loop_once(app, mcp, monkeypatch, era):
    """The endpoint parses a large upload in a worker thread and hands the SDK the message
    without its arguments: no parse of the large body runs on the event loop's thread."""
    on_loop: list[int] = []

    def spy(real):
        def parse(data, *args, **kwargs):
            if len(data) > MESSAGE_BODY_CAP and threading.current_thread() is threading.main_thread():
                on_loop.append(len(data))
            return real(data, *args, **kwargs)

        return parse

    monkeypatch.setattr(pydantic_core, "from_json", spy(pydantic_core.from_json))
    monkeypatch.setattr(json, "loads", spy(json.loads))
    content = bytes(range(256)) * 8192  # 2 MiB
    message, headers = _upload(content), {"mcp-protocol-version": "2025-11-25"}
    if era == "modern":
        message, headers = _modern(message, "upload_memo_resource")
    raw = json.dumps(message).encode()
    client = mcp(scopes="memo:read,memo:write")
    status, _, body = _asgi_post(app, _headers(client.token, **headers), [raw[:1_500_000], raw[1_500_000:]])
    assert status == 200, body[:300]
    uploaded = _structured(body)["data"]
    assert uploaded["fileSize"] == len(content), uploaded
    assert not on_loop


def test_a_large_batch_is_refused(app, mcp):
    batch = json.dumps([_upload(bytes(1_000_000)), _upload(b"x")]).encode()
    status, _, body = _asgi_post(app, _headers(mcp(scopes="memo:read,memo:write").token), [batch])
    assert status == 413, body[:300]


def test_sdk_transport_checks_still_apply(mcp):
    client = mcp(era="legacy")
    response = client.post("tools/list", **{"Content-Type": "text/plain"})
    assert response.status_code == 400
    response = client.post("tools/list", Accept="text/html")
    assert response.status_code == 406
    assert response.headers["cache-control"] == "private, no-store"


@pytest.mark.parametrize(
    ("path", "scope"),
    [
        ("/mcp/readonly", CONNECT),
        ("/mcp/x/todo", "todo:read"),
        ("/mcp/x/todo,todo_inbox/readonly", "todo:read"),
        ("/mcp/x/memo,reading", "memo:read reading:read"),
        ("/mcp/x/history", "memo:read todo:read"),
        ("/mcp/x/code", CONNECT),
        ("/mcp/x/all", CONNECT),
    ],
)
def test_a_narrowed_url_asks_only_for_the_read_scopes_its_tools_use(mcp_http, path, scope):
    """The 401's `scope` is what MCP clients ask the person to approve (the SDK, Claude Code, VS Code
    take it first): connecting /mcp/x/todo must not ask to read memos and the reading shelf, which
    that connection can never show. /mcp keeps every read scope."""
    challenge = Mcp(client=mcp_http, token=None, path=path).post("tools/list").headers["www-authenticate"]
    assert challenge.startswith(f'Bearer scope="{scope}", resource_metadata="'), challenge


def test_the_read_scopes_of_each_toolset_are_the_catalogs():
    """OAuth narrows a default request by kernel/toolsets.TOOLSET_READ_SCOPES (the OAuth function
    does not load the catalog): it must say what the tools of each group use."""
    from mesq.auth.scopes import READ_SCOPES
    from mesq.kernel.toolsets import CODE_TOOLSET, TOOLSET_READ_SCOPES, TOOLSETS

    catalog = default_catalog()
    for toolset in TOOLSETS:
        tools = [tool for tool in catalog.tools.values() if tool.toolset == toolset]
        used = {scope for tool in tools for scope in tool.scopes if scope in READ_SCOPES}
        assert set(TOOLSET_READ_SCOPES[toolset]) == (used if toolset != CODE_TOOLSET else set()), toolset


def test_the_write_scopes_of_each_toolset_are_the_catalogs():
    """A narrowed URL's protected-resource document lists kernel/toolsets.TOOLSET_WRITE_SCOPES
    beside the reads (the OAuth function does not load the catalog either)."""
    from mesq.auth.scopes import READ_SCOPES
    from mesq.kernel.toolsets import CODE_TOOLSET, TOOLSET_WRITE_SCOPES, TOOLSETS

    catalog = default_catalog()
    for toolset in TOOLSETS:
        tools = [tool for tool in catalog.tools.values() if tool.toolset == toolset]
        used = {scope for tool in tools for scope in tool.scopes if scope not in READ_SCOPES}
        assert set(TOOLSET_WRITE_SCOPES[toolset]) == (used if toolset != CODE_TOOLSET else set()), toolset


@pytest.mark.parametrize(
    ("path", "scope"), [("/mcp", CONNECT), ("/mcp/x/todo", "todo:read"), ("/mcp/x/history", "memo:read todo:read")]
)
def test_the_no_read_scope_refusal_says_what_its_challenge_asks(mcp, path, scope):
    """A token without a read scope on /mcp/x/todo: the challenge asks for `todo:read`, and the
    message said 'needs at least one read scope (memo:read, todo:read, reading:read)', sending a
    person who reads it to approve memos and the reading shelf that connection never shows."""
    response = mcp(scopes="memo:write", path=path).post("tools/list")
    assert response.status_code == 403
    assert response.headers["www-authenticate"].startswith(f'Bearer error="insufficient_scope", scope="{scope}", ')
    message = response.json()["error"]["message"]
    assert message.endswith(f"({scope.replace(' ', ', ')})"), message
    assert path in message, message


@pytest.mark.parametrize(
    ("path", "scopes", "asked"),
    [("/mcp/x/todo", "memo:read,memo:write", "todo:read"), ("/mcp/x/reading", "todo:read", "reading:read")],
)
def test_a_token_with_none_of_a_narrowed_urls_read_scopes_is_asked_for_them(mcp, path, scopes, asked):
    """A memo-only token on /mcp/x/todo was admitted and listed no tool at all (a client shows a
    server with nothing in it, and nothing says why): it is refused with the challenge that names
    the URL's own read scope, as a token with no read scope is. A token with one of them connects."""
    response = mcp(scopes=scopes, path=path).post("tools/list")
    assert response.status_code == 403, response.text
    assert response.headers["www-authenticate"].startswith(f'Bearer error="insufficient_scope", scope="{asked}", ')
    listed = mcp(scopes=f"{scopes},{asked}", path=path).post("tools/list")
    assert listed.status_code == 200 and listed.json()["result"]["tools"], listed.text
