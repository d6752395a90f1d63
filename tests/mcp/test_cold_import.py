"""The MCP function's cold start imports only what a tools/call needs: a fresh interpreter loads
functions/mcp/app.py (DynamoDB settings, moto keeping boto3 off the network, tracing off) and no
module on the deny list may appear in sys.modules. Each entry is code the MCP function never
runs on its request path; importing one "just in case" is what made cold starts slow.

The MCP SDK itself imports cryptography, httpx2, uvicorn and click (the bare SDK server does too),
so those are not MeSQ's to remove and are not listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: module prefixes the MCP function must not import at cold start, with the reason.
DENY = {
    "mesq.http": "the REST adapter, the relay upload/download routes and the OAuth endpoints",
    "mesq.web": "the browser pages",
    "mesq.auth.oauth.authorization": "the OAuth authorization endpoint logic",
    "mesq.auth.oauth.clients": "OAuth client registration",
    "jinja2": "page templates",
    "authlib": "OAuth protocol helpers (token exchange and AS metadata only)",
    "argon2": "password hashing (MCP authenticates tokens, never passwords)",
    "mesq.reading.provider": "the reading provider's HTTP client",
    "mesq.adapters.reading.wechat": "the reading provider's HTTP client",
    "mesq.reading.importer": "the reading import pipeline",
    "httpx": "the reading provider's HTTP client (the SDK uses httpx2)",
    "mesq.adapters.sealing.kms": "secret sealing (reading credentials), used only when a secret is read",
    "mesq.adapters.sealing.local_key": "secret sealing for mesq serve",
    "aws_xray_sdk": "the X-Ray SDK behind Powertools Tracer, only when tracing is on",
    "mesq.runtime.server": "mesq serve (uvicorn)",
    "numpy": "search/embedding packages",
    "sentence_transformers": "search/embedding packages",
    "torch": "search/embedding packages",
    "jsonschema": "argument and result validation: imported with the first validation (validation.py)",
    # The domains load behind the operation registry (application/registries.py), each with the
    # first call of one of its operations: a get_memo never imports the rest.
    "mesq.memos": "the memo operations: imported with the first memo call",
    "mesq.todos": "the todo board, its views, inbox, sync and reminders: imported with the first todo call",
    "mesq.history": "the change history and the undo engine: imported with list_changes / undo_changes or a write",
    "mesq.search": "the search pipeline: imported with the first search or index update",
    "mesq.archive": "account export and import",
    "mesq.reminders": "the reminder senders",
    "mesq.imports": "imports from other services",
    "mesq.application.history_operations": "list_changes / undo_changes and every reverter",
}

PROBE = """
import importlib.util, json, sys
import moto
mock = moto.mock_aws(); mock.start()
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
assert callable(module.handler)
print(json.dumps(sorted(sys.modules)))
"""

ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "MESQ_STORAGE": "dynamodb",
    "MESQ_TABLE": "mesq-cold",
    "MESQ_BUCKET": "mesq-cold",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "MESQ_SEARCH_INDEX_UPDATES": "stream",  # as template.yaml sets it: the stream function indexes
}


def denied(modules: list[str]) -> dict[str, str]:
    return {
        name: reason
        for name in modules
        for prefix, reason in DENY.items()
        if name == prefix or name.startswith(prefix + ".")
    }


def cold_modules(function: str) -> list[str]:
    env = {**os.environ, **ENV}
    env.pop("AWS_LAMBDA_FUNCTION_NAME", None)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(REPO / "functions" / function / "app.py")],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    modules: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return modules


def test_mcp_cold_import_loads_nothing_on_the_deny_list() -> None:
    modules = cold_modules("mcp")
    assert "mesq.mcp.service" in modules  # the probe really loaded the function
    assert denied(modules) == {}


def test_api_cold_import_leaves_validation_to_the_first_request() -> None:
    # The REST function shares the registry, the spec and validation.py with the MCP function.
    modules = cold_modules("api")
    assert "mesq.http.app" in modules  # the probe really loaded the function
    assert [name for name in modules if name == "jsonschema" or name.startswith("jsonschema.")] == []


def test_the_guard_sees_a_denied_module() -> None:
    # The matcher is prefix-exact: mesq.http.attachments is caught, mesq.httpish would not be.
    assert denied(["mesq.http.attachments", "mesq.httpish", "authlib.oauth2", "jinja2"]) == {
        "mesq.http.attachments": DENY["mesq.http"],
        "authlib.oauth2": DENY["authlib"],
        "jinja2": DENY["jinja2"],
    }


def test_a_first_get_memo_imports_the_memo_reads_only() -> None:
    # The registry stops at the module that implements the operation: the memo writes, and the
    # history they record, wait for the first write.
    probe = (
        "import json, sys; from mesq.application.registries import OPERATIONS; OPERATIONS['get_memo']; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "mesq.memos.reads" in modules
    assert not {"mesq.memos.writes", "mesq.history", "mesq.todos", "mesq.application.history_operations"} & modules
