"""One Lambda function's handler, run in a fresh process the way Lambda runs it (moto behind
boto3), with the work of one request forced to fail. Prints the function's log output as it
goes and, as the last line, {"response": ...} or {"raised": ...}.

Usage: `python -m tests.infra.log_probe <api|mcp|oauth|dav|scheduler|reading_sync|indexer>`, with the function's
environment from template.yaml (POWERTOOLS_SERVICE_NAME among it) set by the caller: child
loggers take their service from it when their modules are imported, as on Lambda."""

from __future__ import annotations

import base64
import json
import secrets
import sys
from typing import Any

import boto3
from moto import mock_aws

FAULT = "forced fault for the log probe"
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "log-probe", "version": "1"},
}


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(FAULT)


def _token() -> str:
    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    services = build_services(Settings.from_env())
    services.items.create_table_if_missing()  # type: ignore[attr-defined]
    boto3.client("s3").create_bucket(Bucket=services.settings.bucket)
    user = create_user(services.items, "log-probe", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="probe", scopes="memo:read,todo:read")
    return token


def _event(function: str, token: str) -> dict[str, Any]:
    from tests.infra.apigw import http_api_event

    auth = {"authorization": f"Bearer {token}"}
    if function == "api":
        return http_api_event("GET", "/api/toolkit/memo", headers=auth)
    if function == "mcp":
        headers = {**auth, "accept": "application/json, text/event-stream", "mcp-protocol-version": MODERN,
                   "mcp-method": "tools/call", "mcp-name": "list_memos"}  # fmt: skip
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "list_memos", "arguments": {}, "_meta": META}}  # fmt: skip
        return http_api_event("POST", "/mcp", headers=headers, body=body)
    if function == "oauth":
        return http_api_event("GET", "/.well-known/oauth-authorization-server")
    if function == "dav":
        basic = base64.b64encode(f"log-probe:{token}".encode()).decode()
        return http_api_event("PROPFIND", "/dav/log-probe/", headers={"authorization": f"Basic {basic}", "depth": "1"})
    if function == "reading_sync":
        from tests.infra.events import sqs_event

        return sqs_event("mesq-reading-sync", [{"userId": "log-probe"}])
    if function == "indexer":
        from tests.infra.events import stream_record

        return {"Records": [stream_record("INSERT", {"pk": "U#log-probe", "sk": "MEMO#m1", "content": "x"}, None)]}
    return {"version": "0", "id": secrets.token_hex(8), "detail-type": "Scheduled Event", "source": "aws.scheduler",
            "account": "123456789012", "region": "us-east-1", "resources": [], "detail": {}}  # fmt: skip


def _force_fault(function: str) -> None:
    """Before the function module is loaded, so every binding it makes sees the failing one."""
    if function in ("api", "mcp"):
        from mesq.application import invocation as operations

        operations.REGISTRY["list_memos"] = _boom  # type: ignore[index]
    elif function == "oauth":
        import mesq.http.oauth

        mesq.http.oauth.authorization_server_metadata = _boom  # type: ignore[assignment]
    elif function == "dav":
        import mesq.dav.app

        mesq.dav.app.propfind = _boom  # type: ignore[assignment]
    elif function == "reading_sync":
        import mesq.reading.sync

        mesq.reading.sync.load_credential = _boom  # type: ignore[assignment]
    elif function == "indexer":
        import mesq.search.stream

        mesq.search.stream.refresh = _boom  # type: ignore[assignment]
    else:
        import mesq.attachments.uploads

        mesq.attachments.uploads.sweep_expired_sessions = _boom  # type: ignore[assignment]


def main(function: str) -> None:
    from tests.infra.apigw import LambdaContext, load_function

    with mock_aws():
        event = _event(function, _token())
        _force_fault(function)
        module = load_function(function)
        try:
            outcome: dict[str, Any] = {"response": module.handler(event, LambdaContext()), "event": event}
        except RuntimeError as error:
            outcome = {"raised": str(error), "event": event}
    sys.stdout.flush()
    print(json.dumps(outcome), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
