"""The MCP function's handler (functions/mcp/app.py), invoked with API Gateway HTTP API v2 events
against moto: discover, list and call in a row on one warm instance, both eras, base64 bodies;
and its template wiring (routes, alias, SnapStart)."""

from __future__ import annotations

import json
from typing import Any

from mesq.mcp.versions import SERVED_VERSIONS
from tests.infra.apigw import LambdaContext, decode_body, http_api_event, load_function
from tests.infra.template_tools import http_routes, load_template

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "lambda-test", "version": "1"},
}
HOST = "abc123.execute-api.us-east-1.amazonaws.com"


def modern(method: str, params: dict[str, Any] | None = None, name: str | None = None) -> tuple[dict, dict]:
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        "x-forwarded-proto": "https",
    }
    if name is not None:
        headers["mcp-name"] = name
    return headers, {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**(params or {}), "_meta": META}}


def test_mcp_handler_warm_invocations(aws_auth):
    auth = aws_auth
    module = load_function("mcp")
    context = LambdaContext()

    def invoke(path: str, headers: dict[str, str], body: Any, *, base64_body: bool = False, method: str = "POST"):
        event = http_api_event(method, path, headers={**auth, **headers}, body=body, base64_body=base64_body)
        response = module.handler(event, context)
        assert response["headers"]["cache-control"] == "private, no-store"
        return response

    headers, body = modern("server/discover")
    discovered = invoke("/mcp", headers, body, base64_body=True)
    assert discovered["statusCode"] == 200, discovered
    result = decode_body(discovered)["result"]
    assert result["supportedVersions"] == list(SERVED_VERSIONS) and result["supportedVersions"][0] == MODERN
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mesq"

    headers, body = modern("tools/list")
    listed = decode_body(invoke("/mcp", headers, body))["result"]["tools"]
    assert "create_memo" in [tool["name"] for tool in listed] and listed[0]["outputSchema"]

    arguments = {"content": "via lambda #aws"}
    headers, body = modern("tools/call", {"name": "create_memo", "arguments": arguments}, "create_memo")
    created = decode_body(invoke("/mcp", headers, body, base64_body=True))["result"]
    assert created["isError"] is False, created
    memo = created["structuredContent"]["data"]["memo"]
    assert memo["contentSource"] == "mcp" and memo["tags"] == ["aws"]
    # API Gateway's request id becomes the correlation id.
    assert created["structuredContent"]["correlationId"]
    assert json.loads(created["content"][0]["text"]) == created["structuredContent"]

    # The same warm instance, legacy era, read-only URL: the memo is there, writes are not.
    legacy = {"accept": "application/json", "mcp-protocol-version": "2025-11-25"}
    initialized = invoke(
        "/mcp/readonly",
        {"accept": "application/json"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    assert decode_body(initialized)["result"]["serverInfo"]["name"] == "mesq"
    read = decode_body(
        invoke(
            "/mcp/x/memo/readonly",
            legacy,
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_memos", "arguments": {}}},
            base64_body=True,
        )
    )["result"]
    assert [m["id"] for m in read["structuredContent"]["data"]["timelineItems"]] == [memo["id"]]
    denied = decode_body(
        invoke(
            "/mcp/readonly",
            legacy,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "create_memo", "arguments": {"content": "x"}},
            },
        )
    )["error"]
    # a write tool on a read-only connection: a call this connection cannot make (-32602)
    assert denied["code"] == -32602 and denied["data"]["code"] == "FORBIDDEN"

    # HTTP-level answers from the same instance.
    assert invoke("/mcp", {}, None, method="GET")["statusCode"] == 405
    challenge = module.handler(http_api_event("POST", "/mcp", headers={"x-forwarded-proto": "https"}, body={}), context)
    assert challenge["statusCode"] == 401
    assert challenge["headers"]["www-authenticate"] == (
        f'Bearer scope="memo:read todo:read reading:read", '
        f'resource_metadata="https://{HOST}/.well-known/oauth-protected-resource/mcp"'
    )
    unknown = invoke("/mcp/x/nope", {}, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert unknown["statusCode"] == 400 and decode_body(unknown)["error"]["code"] == "VALIDATION_ERROR"


def test_template_routes_every_mcp_path_to_the_mcp_function():
    template = load_template()
    routes = http_routes(template)
    for path in ("/mcp", "/mcp/readonly", "/mcp/x/{toolsets}", "/mcp/x/{toolsets}/readonly"):
        assert routes[("ANY", path)] == "McpFunction"
    props = template["Resources"]["McpFunction"]["Properties"]
    assert props["CodeUri"] == "functions/mcp/" and props["Handler"] == "app.handler"
    assert props["AutoPublishAlias"] == "live"
    assert props["SnapStart"] == {"ApplyOn": "PublishedVersions"}
