"""The budgets of one `run_code` run and how a too-long result is cut (docs/MCP/code-mode.md).

Each budget has a default and a maximum, both in run_code's input schema (tools.py reads them
from here). The wall time is also kept under what the Lambda invocation has left.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

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


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def truncate(value: Any, limit: int) -> tuple[Any, bool]:
    """`value` cut to at most `limit` characters of compact JSON, at a whole element: an array
    keeps its first elements whole (a record in a list is never cut), an object its first
    members, and the member that does not fit is cut the same way if it is an array or object
    (`{"memos": [...], "page": ...}` keeps its first memos), else left out. Strings and numbers
    are never cut; a lone scalar over the budget becomes null."""
    if _size(value) <= limit:
        return value, False
    return _cut(value, limit), True


def _cut(value: Any, limit: int) -> Any:
    if isinstance(value, list):
        kept: list[Any] = []
        used = 2  # []
        for item in value:
            comma = 1 if kept else 0
            size = _size(item)
            if used + comma + size <= limit:
                kept.append(item)
                used += comma + size
                continue
            break  # an element is kept whole or not at all
        return kept
    if isinstance(value, dict):
        members: dict[str, Any] = {}
        used = 2  # {}
        for key, item in value.items():
            head = (1 if members else 0) + _size(key) + 1  # comma, "key", colon
            size = _size(item)
            if used + head + size <= limit:
                members[key] = item
                used += head + size
                continue
            if isinstance(item, (list, dict)) and limit - used - head > 2:
                members[key] = _cut(item, limit - used - head)
            break
        return members
    return None
