"""How a too-long run_code result is cut: at a whole element, in time proportional to what is kept.

Standard library only: the sandbox worker process (worker.py, run by path) imports it too, so a
result is cut where it was made and only the cut text crosses the pipe.
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring
from typing import Any

#: Deeper results are refused: the envelope check, the SDK's models and every client recurse
#: over them (measured: ~450 levels broke pydantic), and no record MeSQ returns nests past 10.
MAX_DEPTH = 100


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"the result nests deeper than {MAX_DEPTH} levels; return a flatter value")


def compact(value: Any) -> str:
    """Compact JSON that UTF-8 can carry: a lone surrogate (a JavaScript string may hold one, and
    JSON.stringify escapes it as `\\ud800`) becomes U+FFFD, one character for one."""
    return well_formed(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (json.loads joins a valid pair into one
    character, so any surrogate left in a str stands alone). ASCII (known at once) and text UTF-8
    can encode (one C pass, ~5x the regex's speed) are returned as they are: a 14 MB answer's
    search took ~0.1 s of the event loop, twice per read."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def truncate(value: Any, limit: int) -> tuple[Any, bool]:
    """`value` cut to at most `limit` characters of compact JSON, at a whole element: an array
    keeps its first elements whole (a record in a list is never cut), an object its first
    members, and the member that does not fit is cut the same way if it is an array or object
    (`{"memos": [...], "page": ...}` keeps its first memos), else left out. Strings and numbers
    are never cut; a lone scalar over the budget becomes null. TooDeep past MAX_DEPTH in what is
    walked.

    The cost is proportional to what is kept, never to the whole value: sizes are measured with
    a running count that stops one element past the limit (`_Sizes`), and what one measure
    learnt (a node's exact size, or that it is over a budget) is kept, so the cut never walks a
    node twice. A million integers cut to 25,000 characters walk ~5,000 of them."""
    sizes = _Sizes()
    if sizes.within(value, limit) is not None:
        return value, False
    return _cut(value, limit, sizes), True


def _scalar_size(value: Any) -> int:
    if isinstance(value, str):
        return len(encode_basestring(value))  # the quoted, escaped string (json.dumps' own encoder)
    return len(json.dumps(value))


class _Sizes:
    """Compact-JSON lengths measured no further than a budget, memoised by identity (the value is
    alive for the whole cut, so ids are stable): a container's exact size once it was measured
    whole, else the largest budget it is known to exceed."""

    def __init__(self) -> None:
        self._exact: dict[int, int] = {}
        self._over: dict[int, int] = {}

    def within(self, value: Any, budget: int, depth: int = 1) -> int | None:
        """The length of `value`'s compact JSON if it is at most `budget`, else None."""
        if not isinstance(value, (list, dict)):
            size = _scalar_size(value)
            return size if size <= budget else None
        key = id(value)
        known = self._exact.get(key)
        if known is not None:
            return known if known <= budget else None
        if self._over.get(key, -1) >= budget:
            return None
        if depth > MAX_DEPTH:
            raise TooDeep()
        measured = self._measure(value, budget, depth)
        if measured is None:
            self._over[key] = budget
        else:
            self._exact[key] = measured
        return measured

    def _measure(self, value: list[Any] | dict[str, Any], budget: int, depth: int) -> int | None:
        """The container's size, walking its children with what is left of `budget`: None as soon
        as one does not fit. Counts as `_cut` does, so the cut finds each answer memoised."""
        used = 2  # [] or {}
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for index, (key, item) in enumerate(items):
            used += 1 if index else 0  # the comma
            if isinstance(value, dict):
                used += _scalar_size(key) + 1  # "key":
            if used > budget:
                return None
            size = self.within(item, budget - used, depth + 1)
            if size is None:
                return None
            used += size
        return used if used <= budget else None


def _cut(value: Any, limit: int, sizes: _Sizes, depth: int = 1) -> Any:
    if isinstance(value, list):
        kept: list[Any] = []
        used = 2  # []
        for item in value:
            comma = 1 if kept else 0
            size = sizes.within(item, limit - used - comma, depth + 1)
            if size is None:
                break  # an element is kept whole or not at all
            kept.append(item)
            used += comma + size
        return kept
    if isinstance(value, dict):
        members: dict[str, Any] = {}
        used = 2  # {}
        for key, item in value.items():
            head = (1 if members else 0) + _scalar_size(key) + 1  # comma, "key", colon
            size = sizes.within(item, limit - used - head, depth + 1)
            if size is not None:
                members[key] = item
                used += head + size
                continue
            if isinstance(item, (list, dict)) and limit - used - head > 2:
                members[key] = _cut(item, limit - used - head, sizes, depth + 1)
            break
        return members
    return None


_DECODE = json.JSONDecoder().raw_decode


def whole_prefix(text: str) -> Any:
    """The complete part of `text`, the first characters of a longer compact JSON value (a cut
    prefix of JSON.stringify's text), as a value: what `truncate` may keep of the whole and nothing it may
    not. An array keeps its complete elements (the one the prefix ends in is left out, however far
    it got), an object its complete members and the array or object member the prefix ends in,
    itself cut so (a scalar member that did not end is left out); a lone scalar that did not end
    is None (as `truncate` makes a lone scalar over its budget). An array element or a scalar
    member that ends where the prefix ends is left out too (a number may go on): the sandbox
    hands over a prefix at least twice as long as the cut can keep (worker.py), so it could not
    have fit. Each complete
    element is parsed by the json module's C scanner. TooDeep past MAX_DEPTH open containers."""
    return _open_container(text, 0, 1)


def _open_container(text: str, start: int, depth: int) -> Any:
    """The complete part of the container that opens at `start` and does not close in `text`."""
    if depth > MAX_DEPTH:
        raise TooDeep()
    opener = text[start : start + 1]
    index = start + 1
    if opener == "[":
        items: list[Any] = []
        while True:
            try:
                item, index = _DECODE(text, index)
            except ValueError:
                return items  # an element is kept whole or not at all
            if text[index : index + 1] != ",":
                return items
            items.append(item)
            index += 1
    if opener == "{":
        members: dict[str, Any] = {}
        while text[index : index + 1] == '"':
            try:
                key, after = _DECODE(text, index)
            except ValueError:
                break
            if text[after : after + 1] != ":":
                break
            try:
                item, index = _DECODE(text, after + 1)
            except ValueError:
                if text[after + 1 : after + 2] in ("[", "{"):  # the member being cut
                    members[key] = _open_container(text, after + 1, depth + 1)
                break
            if text[index : index + 1] != ",":
                if isinstance(item, (list, dict)):  # whole (its bracket closed): cut like the whole
                    members[key] = item
                break
            members[key] = item
            index += 1
        return members
    return None  # a scalar that did not end
