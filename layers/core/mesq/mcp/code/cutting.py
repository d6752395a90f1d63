"""How a too-long run_code result is cut: at a whole element, in time linear in its size.

Standard library only: the sandbox worker process (worker.py, run by path) imports it too, so a
result is cut where it was made and only the cut text crosses the pipe.
"""

from __future__ import annotations

import json
from typing import Any

#: Deeper results are refused: the envelope check, the SDK's models and every client recurse
#: over them (measured: ~450 levels broke pydantic), and no record MeSQ returns nests past 10.
MAX_DEPTH = 100


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"the result nests deeper than {MAX_DEPTH} levels; return a flatter value")


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def check_depth(value: Any) -> None:
    """TooDeep if `value` nests deeper than MAX_DEPTH (iterative: any depth is safe to check)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            if depth > MAX_DEPTH:
                raise TooDeep()
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))


def truncate(value: Any, limit: int) -> tuple[Any, bool]:
    """`value` cut to at most `limit` characters of compact JSON, at a whole element: an array
    keeps its first elements whole (a record in a list is never cut), an object its first
    members, and the member that does not fit is cut the same way if it is an array or object
    (`{"memos": [...], "page": ...}` keeps its first memos), else left out. Strings and numbers
    are never cut; a lone scalar over the budget becomes null. TooDeep past MAX_DEPTH.

    Each node's size is computed once, bottom-up (`_Sizes`), so the cost is linear in the size
    of `value` whatever its shape (re-serialising each subtree was quadratic on deep values)."""
    check_depth(value)
    sizes = _Sizes()
    if sizes.of(value) <= limit:
        return value, False
    return _cut(value, limit, sizes), True


class _Sizes:
    """The compact-JSON length of every container, memoised by identity (the value is alive
    for the whole cut, so ids are stable)."""

    def __init__(self) -> None:
        self._known: dict[int, int] = {}

    def of(self, value: Any) -> int:
        if isinstance(value, list):
            known = self._known.get(id(value))
            if known is None:
                known = 2 + sum(self.of(item) for item in value) + max(0, len(value) - 1)
                self._known[id(value)] = known
            return known
        if isinstance(value, dict):
            known = self._known.get(id(value))
            if known is None:
                members = sum(len(compact(key)) + 1 + self.of(item) for key, item in value.items())
                known = 2 + members + max(0, len(value) - 1)
                self._known[id(value)] = known
            return known
        return len(compact(value))


def _cut(value: Any, limit: int, sizes: _Sizes) -> Any:
    if isinstance(value, list):
        kept: list[Any] = []
        used = 2  # []
        for item in value:
            comma = 1 if kept else 0
            size = sizes.of(item)
            if used + comma + size > limit:
                break  # an element is kept whole or not at all
            kept.append(item)
            used += comma + size
        return kept
    if isinstance(value, dict):
        members: dict[str, Any] = {}
        used = 2  # {}
        for key, item in value.items():
            head = (1 if members else 0) + len(compact(key)) + 1  # comma, "key", colon
            size = sizes.of(item)
            if used + head + size <= limit:
                members[key] = item
                used += head + size
                continue
            if isinstance(item, (list, dict)) and limit - used - head > 2:
                members[key] = _cut(item, limit - used - head, sizes)
            break
        return members
    return None
