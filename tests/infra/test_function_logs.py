"""Every Lambda function logs an INTERNAL error as one JSON line carrying its service name (the
template's POWERTOOLS_SERVICE_NAME) and the request's correlation id: the `traceId` its answer
carries (the EventBridge event id for the scheduler, which answers nobody; the SQS message id for
reading sync, which fails the message so the queue redelivers it; the first stream record's event
id for the indexer, which reports the record as a batch item failure).

Each function runs in its own process with the template's environment (see log_probe.py): child
loggers bind to their service when their module is imported, so only a fresh process shows what
Lambda does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.infra.apigw import decode_body
from tests.infra.log_probe import FAULT
from tests.infra.template_tools import REPO, load_template

FUNCTIONS = {
    "api": "ApiFunction", "mcp": "McpFunction", "oauth": "OAuthFunction", "dav": "DavFunction",
    "scheduler": "SchedulerFunction",
    "reading_sync": "ReadingSyncFunction", "indexer": "IndexerFunction",
}  # fmt: skip


def _template_environment(logical_id: str) -> dict[str, str]:
    """The literal environment variables a deployed function gets (references are left out)."""
    template = load_template()
    variables = {
        **template["Globals"]["Function"]["Environment"]["Variables"],
        **template["Resources"][logical_id]["Properties"].get("Environment", {}).get("Variables", {}),
    }
    return {name: value for name, value in variables.items() if isinstance(value, str)}


def _run(function: str) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("POWERTOOLS_", "MESQ_"))}
    env.update(_template_environment(FUNCTIONS[function]))
    env.update({
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1", "MESQ_TABLE": "mesq-test", "MESQ_BUCKET": "mesq-test-attachments",
        "POWERTOOLS_TRACE_DISABLED": "true",
    })  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "tests.infra.log_probe", function],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=180,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    *lines, last = result.stdout.strip().splitlines()
    logs = [json.loads(line) for line in lines if line.startswith("{")]
    return [log for log in logs if "level" in log], json.loads(last), result.stdout + result.stderr


def _correlation_id(function: str, outcome: dict[str, Any]) -> str:
    if function == "scheduler":
        assert outcome["raised"] == FAULT  # the invocation fails, so the scheduler retries it
        return str(outcome["event"]["id"])
    if function == "reading_sync":
        assert outcome["raised"] == FAULT  # the message is not consumed: SQS redelivers it
        return str(outcome["event"]["Records"][0]["messageId"])
    if function == "indexer":
        record = outcome["event"]["Records"][0]
        failure = {"itemIdentifier": record["dynamodb"]["SequenceNumber"]}
        assert outcome["response"] == {"batchItemFailures": [failure]}
        return str(record["eventID"])
    response = outcome["response"]
    if function == "dav":  # CalDAV clients read a one-line text answer, with the trace id in it
        trace_id = response["headers"]["x-trace-id"]
        assert response["statusCode"] == 500 and f"quote traceId {trace_id}" in response["body"]
        return str(trace_id)
    body = decode_body(response)
    if function == "mcp":
        result = body["result"]
        assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "INTERNAL"
        return str(result["structuredContent"]["traceId"])
    assert response["statusCode"] == 500 and body["error"]["code"] == "INTERNAL"
    return str(body["traceId"])


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_internal_error_is_one_json_line_with_service_and_correlation_id(function):
    logs, outcome, output = _run(function)
    correlation_id = _correlation_id(function, outcome)
    service = _template_environment(FUNCTIONS[function])["POWERTOOLS_SERVICE_NAME"]
    errors = [log for log in logs if log["level"] == "ERROR"]
    assert errors and logs, output  # the checks below would hold vacuously over nothing
    assert all(log["service"] == service for log in logs), logs
    assert [log["correlation_id"] for log in errors] == [correlation_id] * len(errors), errors
    assert all(FAULT in log["exception"] for log in errors), errors  # the traceback is in the log only
    # Nothing the code logs falls back to plain text (an orphan child logger would).
    assert not [line for line in output.splitlines() if "forced fault" in line and not line.startswith("{")], output
