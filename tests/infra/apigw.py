"""API Gateway HTTP API (payload v2.0) events, shaped like `sam local generate-event apigateway
http-api-proxy`, and a loader for the function entry points."""

from __future__ import annotations

import base64
import importlib.util
import json
import logging
import os
import secrets
import sys
import time
from types import ModuleType
from typing import Any
from urllib.parse import urlencode

from tests.infra.template_tools import REPO


def http_api_event(
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    body: Any = None,
    base64_body: bool = False,
) -> dict[str, Any]:
    raw_body = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    all_headers = {"host": "abc123.execute-api.us-east-1.amazonaws.com", "user-agent": "pytest"}
    if raw_body is not None:
        all_headers["content-type"] = "application/json"
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": urlencode(query or {}),
        "headers": all_headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": all_headers["host"],
            "domainPrefix": "abc123",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "192.0.2.1",
                "userAgent": "pytest",
            },
            "requestId": secrets.token_hex(8),
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
            "timeEpoch": int(time.time() * 1000),
        },
        "isBase64Encoded": base64_body,
    }
    if query:
        event["queryStringParameters"] = query
    if raw_body is not None:
        event["body"] = base64.b64encode(raw_body).decode() if base64_body else raw_body.decode()
    return event


class LambdaContext:
    function_name = "test-function"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test-function"
    memory_limit_in_mb = 1024
    aws_request_id = "req-1"
    log_group_name = "/aws/lambda/test-function"
    log_stream_name = "stream"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def load_function(name: str) -> ModuleType:
    """Import functions/<name>/app.py as Lambda would (a fresh module per call)."""
    path = REPO / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"function_{name}_app_{secrets.token_hex(4)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # A fresh Lambda logs to the stdout it starts with; in this process the service's Powertools
    # logger may exist from a function an earlier test loaded, its handler on that test's stdout.
    for handler in logging.getLogger(os.environ.get("POWERTOOLS_SERVICE_NAME", "service_undefined")).handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sys.stdout)
    return module


def decode_body(response: dict[str, Any]) -> Any:
    body = response.get("body", "")
    if response.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    return json.loads(body)
