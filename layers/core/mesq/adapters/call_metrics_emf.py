"""The Lambda sink of `call_metrics`: one CloudWatch EMF document per call, written to stdout
(Lambda ships it to CloudWatch Logs, which turns it into the metric; no PutMetricData call).

Metric `ToolCallDuration` (Milliseconds) in namespace MeSQ with dimensions `tool` and `outcome`
(plus the `service` Powertools adds): its SampleCount is the number of calls, its percentiles
the latency. `single_metric`, not the handler's Metrics, because the dimensions differ per call
and one MCP request may carry several calls."""

from __future__ import annotations

from collections.abc import Collection

from aws_lambda_powertools.metrics import MetricUnit, single_metric

from ..kernel.ports.call_metrics import Outcome

METRIC_NAME = "ToolCallDuration"
NAMESPACE = "MeSQ"
#: Recorded for an operation id the catalog does not know (never expected; keeps the bound).
UNKNOWN_TOOL = "other"


class EmfCallMetrics:
    def __init__(self, operation_ids: Collection[str], namespace: str = NAMESPACE) -> None:
        self._known = frozenset(operation_ids)
        self._namespace = namespace

    def record(self, operation_id: str, outcome: Outcome, milliseconds: float) -> None:
        tool = operation_id if operation_id in self._known else UNKNOWN_TOOL
        with single_metric(
            name=METRIC_NAME,
            unit=MetricUnit.Milliseconds,
            value=round(milliseconds, 3),
            namespace=self._namespace,
            default_dimensions={"tool": tool, "outcome": outcome},
        ):
            pass
