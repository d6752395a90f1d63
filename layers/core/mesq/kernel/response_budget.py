"""The 25,000-character response budget of the read tools (docs/contract.md §5 and §6, seed 常用读工具).

What is measured: the `data` object of a tool result, serialized exactly as the MCP adapter
writes it into `content[0].text` (`json.dumps(data, ensure_ascii=False, separators=(",", ":"))`),
counted in Unicode code points (Python `len`): a CJK character counts as one character, an escaped
quote as two. The envelope around it (about 60 characters) does not depend on the user's data and
is not counted: the budget is about what the data costs a model's context.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

RESPONSE_BUDGET_CHARACTERS = 25_000
#: Kept beside a list's records for the rest of its answer (the `page` object: ~150 characters).
PAGE_ALLOWANCE = 400


def json_size(value: Any) -> int:
    """Characters `value` takes in the tool result's JSON text."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def item_cost(value: Any) -> int:
    """What one more element adds to a JSON array: itself plus the separating comma (the first
    element has no comma, so sums of item costs over-estimate by one: on the safe side)."""
    return json_size(value) + 1


def whole_records_within(records: Sequence[Any], budget: int = RESPONSE_BUDGET_CHARACTERS - PAGE_ALLOWANCE) -> int:
    """How many of `records`, from the first, fit `budget` whole; at least one (a record longer
    than the budget alone comes alone: the page still moves on)."""
    used = 0
    for count, record in enumerate(records):
        used += item_cost(record)
        if used > budget:
            return max(count, 1)
    return len(records)
