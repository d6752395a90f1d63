"""The budgets of one `run_code` run (docs/MCP/code-mode.md); a too-long result is cut by
`cutting.truncate`.

Each budget has a default and a maximum, both in run_code's input schema (tools.py reads them
from here). The wall time is also kept under what the Lambda invocation has left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .cutting import truncate

__all__ = ["LAMBDA_RESERVE_MS", "LIMITS", "BudgetKind", "Budgets", "truncate"]

BudgetKind = Literal["calls", "time", "memory", "output"]

#: argument -> (minimum, default, maximum)
LIMITS: dict[str, tuple[int, int, int]] = {
    "maxCalls": (1, 50, 200),
    "timeoutMs": (100, 10_000, 30_000),
    "memoryMb": (16, 64, 128),
    "maxOutputChars": (100, 25_000, 100_000),
}
#: Left for answering after the program stops, under Lambda's remaining time.
LAMBDA_RESERVE_MS = 1_500


@dataclass(frozen=True)
class Budgets:
    max_calls: int
    timeout_ms: int
    memory_mb: int
    max_output_chars: int

    @classmethod
    def from_arguments(cls, arguments: dict[str, Any], remaining_ms: Callable[[], int] | None) -> Budgets:
        def pick(name: str) -> int:
            return int(arguments.get(name, LIMITS[name][1]))

        timeout_ms = pick("timeoutMs")
        if remaining_ms is not None:
            timeout_ms = max(0, min(timeout_ms, remaining_ms() - LAMBDA_RESERVE_MS))
        return cls(pick("maxCalls"), timeout_ms, pick("memoryMb"), pick("maxOutputChars"))
