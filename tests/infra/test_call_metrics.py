"""One EMF metric per tool call from the deployed MCP function: ToolCallDuration with the tool
(the catalog's operation id) and an outcome from a fixed set as its only dimensions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mesq.adapters.call_metrics_emf import METRIC_NAME, EmfCallMetrics
from mesq.kernel.errors import Internal, NotFound, RateLimited, ValidationError
from mesq.kernel.ports.call_metrics import OUTCOMES, outcome_of
from tests.infra.apigw import LambdaContext, decode_body, http_api_event, load_function
from tests.infra.test_mcp_lambda import modern


def _tool_metrics(output: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]
    return [line for line in lines if METRIC_NAME in line]


def test_each_mcp_tool_call_emits_one_metric(aws_auth, monkeypatch, capsys):
    monkeypatch.setenv("MESQ_CALL_METRICS", "emf")
    module = load_function("mcp")

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        headers, body = modern("tools/call", {"name": name, "arguments": arguments}, name)
        event = http_api_event("POST", "/mcp", headers={**aws_auth, **headers}, body=body)
        return decode_body(module.handler(event, LambdaContext()))["result"]

    capsys.readouterr()
    assert call("create_memo", {"content": "metered"})["isError"] is False
    assert call("get_memo", {"id": "0" * 26})["isError"] is True  # not found: a client error
    emitted = _tool_metrics(capsys.readouterr().out)
    assert [(m["tool"], m["outcome"]) for m in emitted] == [("create_memo", "ok"), ("get_memo", "client_error")]
    for metric in emitted:
        directive = metric["_aws"]["CloudWatchMetrics"][0]
        assert directive["Namespace"] == "MeSQ"
        assert directive["Metrics"] == [{"Name": METRIC_NAME, "Unit": "Milliseconds"}]
        assert set(directive["Dimensions"][0]) <= {"tool", "outcome", "service"}
        assert len(metric[METRIC_NAME]) == 1 and metric[METRIC_NAME][0] >= 0


def test_an_unknown_operation_is_folded_into_one_value(capsys):
    EmfCallMetrics({"create_memo"}).record("made_up_by_a_client", "ok", 1.0)
    assert [m["tool"] for m in _tool_metrics(capsys.readouterr().out)] == ["other"]


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (None, "ok"),
        (ValidationError("x"), "client_error"),
        (NotFound("x"), "client_error"),
        (RateLimited("x"), "rate_limited"),
        (Internal("x"), "server_error"),
        (RuntimeError("x"), "server_error"),
    ],
)
def test_outcomes_are_a_fixed_set(error, outcome):
    assert outcome_of(error) == outcome and outcome in OUTCOMES
