"""The 25,000-character response budget of todo reads (docs/contract.md §5, seed 常用读工具),
measured as kernel/response_budget.py says.

Lists shrink the page to whole records that fit; when even one record (or the context a detail
call must carry) is over budget the call fails with RESPONSE_TOO_LARGE whose `details.hints` are
argument values worth retrying with. The error never means "no tasks". Detail reads page their
record's own notes instead (`with_notes_page`: notes may be 50,000 characters, twice the budget).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ...kernel.errors import ResponseTooLarge

# The budget and its measure are the kernel's (reading lists keep it too); named here for the todo reads.
from ...kernel.response_budget import RESPONSE_BUDGET_CHARACTERS as RESPONSE_BUDGET_CHARACTERS
from ...kernel.response_budget import item_cost as item_cost
from ...kernel.response_budget import json_size as json_size

#: Every hint a todo read can give, in the order they are worth trying.
#: `projection: graph` helps a list whose single parent is too big with its subtasks (graph
#: pages subtasks apart from their parent).
HINTS: Mapping[str, Any] = {"limit": 1, "includeNotes": False, "includeContext": False, "projection": "graph"}


def fits(value: Any, budget: int = RESPONSE_BUDGET_CHARACTERS) -> bool:
    return json_size(value) <= budget


def response_too_large(
    what: str,
    size: int,
    *,
    hints: Iterable[str] = ("limit", "includeNotes", "includeContext"),
    budget: int = RESPONSE_BUDGET_CHARACTERS,
    record_id: str | None = None,
    remedy: str = "query_todos with includeNotes=true gives a 2,000-character preview of its notes",
) -> ResponseTooLarge:
    """The RESPONSE_TOO_LARGE error for `what` (e.g. "task abc with its subtasks").

    `hints` names the arguments (keys of HINTS) the caller may retry with; details carry them as
    `{argument: value}` so a client can merge them into its arguments. Without hints, `remedy`
    says where the record can be read instead."""
    suggested = {name: HINTS[name] for name in hints}
    advice = ", ".join(f"{name}={json.dumps(value)}" for name, value in suggested.items())
    details: dict[str, Any] = {
        "budgetCharacters": budget,
        "sizeCharacters": size,
        "hints": suggested,
    }
    if record_id is not None:
        details["recordId"] = record_id
    message = (
        f"{what} needs {size} characters, over the {budget}-character response budget"
        + (f"; retry with {advice}" if advice else f"; nothing smaller can be returned for this record: {remedy}")
        + ". This does not mean there are no tasks: do not skip it when summarizing."
    )
    return ResponseTooLarge(message, details=details)


def ensure_fits(
    data: dict[str, Any],
    what: str,
    *,
    hints: Iterable[str] = ("includeNotes", "includeContext"),
    budget: int = RESPONSE_BUDGET_CHARACTERS,
    record_id: str | None = None,
) -> dict[str, Any]:
    """`data` unchanged when it fits the budget, else RESPONSE_TOO_LARGE (for detail reads,
    which cannot drop part of a record)."""
    size = json_size(data)
    if size > budget:
        raise response_too_large(what, size, hints=hints, budget=budget, record_id=record_id)
    return data


def with_notes_page(
    data: dict[str, Any],
    key: str,
    offset: int,
    limit: int | None,
    *,
    what: str,
    hints: Iterable[str],
    budget: int = RESPONSE_BUDGET_CHARACTERS,
    record_id: str,
    remedy: str,
) -> dict[str, Any]:
    """A detail read's `data` with its record's (`data[key]`) notes cut to a page: from `offset`,
    at most `limit` characters, the longest prefix whose JSON fits the budget beside the rest.
    A cut page adds `notesTruncated: true` and `notesNextOffset` (offsets in code points, the
    budget's unit). RESPONSE_TOO_LARGE only when not one character of notes fits."""
    notes = str(data[key].get("notes") or "")
    wanted = notes[offset : None if limit is None else offset + limit]
    whole = {**data, key: {**data[key], "notes": wanted}}
    if offset + len(wanted) >= len(notes) and json_size(whole) <= budget:
        return whole
    # Cut: the answer also carries the two paging fields; a larger next offset only costs digits,
    # so the room is measured with the largest one this note can have.
    room = budget - json_size({**whole, key: {**data[key], "notes": ""}, **_cut(len(notes))})
    kept = _longest_prefix(wanted, room)
    if kept == 0:
        raise response_too_large(what, json_size(whole), hints=hints, budget=budget, record_id=record_id, remedy=remedy)
    page = {**data, key: {**data[key], "notes": wanted[:kept]}}
    return page if offset + kept >= len(notes) else {**page, **_cut(offset + kept)}


def _cut(next_offset: int) -> dict[str, Any]:
    return {"notesTruncated": True, "notesNextOffset": next_offset}


def _longest_prefix(text: str, room: int) -> int:
    """The most leading characters of `text` whose JSON string body takes at most `room`
    characters (escapes count: a quote or a newline takes two)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if json_size(text[:middle]) - 2 <= room:
            low = middle
        else:
            high = middle - 1
    return low
