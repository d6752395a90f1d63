"""What JSON Schema cannot say about argument values, checked once for REST and MCP before the
schema is: how deep they nest, that their text is valid Unicode, and that their numbers are
interoperable (I-JSON, RFC 7493).

- Nesting deeper than MAX_DEPTH containers is refused (the arguments object is level 1; the
  deepest legitimate argument is 4 levels down): nothing later has to recurse through 1,000 levels.
- A lone surrogate (`"\\ud800"`, legal in JSON text, not a Unicode character) in a value or a
  field name is refused: it cannot be encoded as UTF-8, so no store, hash or log could take it.
- A number must be finite and within ±MAX_SAFE_INTEGER; an integral float (`1.0`, `2e1`) is an
  integer, as JSON Schema 2020-12 says, and becomes a Python int here, so operations only ever
  see ints where the schema says integer.

The walk is iterative (no recursion to exhaust) and returns a normalised copy.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .errors import ValidationError
from .messages import field_path

MAX_DEPTH = 32
MAX_SAFE_INTEGER = 2**53 - 1

#: C0 controls but TAB, LF and CR, and DEL: invisible, and never part of a name or a title. XML 1.0
#: cannot carry them (CalDAV leaves them out of what it sends), RFC 5545 keeps them out of TEXT,
#: and a one-line label holding one (pasted from a PDF, a form feed; from a terminal, ESC) shows
#: nothing where it is. Free text (a memo, notes) keeps them; a title or a name drops them
#: (`todos/model.check_title`, `check_name`), as it drops its outer whitespace.
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def without_controls(text: str) -> str:
    """`text` without CONTROL_CHARACTERS."""
    return CONTROL_CHARACTERS.sub("", text)


def depth_error(path: list[str | int]) -> ValidationError:
    return ValidationError(
        "%(value)s: nested deeper than %(max_depth)s levels of arrays and objects",
        value=field_path(path) or "arguments",
        max_depth=MAX_DEPTH,
    )


def _text_problem(text: str) -> str | None:
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"contains a lone surrogate (U+{ord(text[exc.start]):04X}) at character {exc.start}, "
            "which is not Unicode text; send valid UTF-8"
        )
    return None


def _number(value: float | int, path: list[str | int]) -> int | float:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError("%(path)s: must be a finite number", path=field_path(path))
        if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
            return int(value)
    if abs(value) > MAX_SAFE_INTEGER:
        raise ValidationError(
            "%(path)s: out of range (at most ±%(max_safe_integer)s is accepted)",
            path=field_path(path),
            max_safe_integer=format(MAX_SAFE_INTEGER, ","),
        )
    return value


def checked_values(arguments: dict[str, Any]) -> dict[str, Any]:
    """A copy of `arguments` with integral floats as ints; ValidationError naming the field for
    nesting, text or a number no part of MeSQ could handle."""
    root: dict[str, Any] = {}
    # (source container, its copy, path, depth)
    pending: list[tuple[Any, Any, list[str | int], int]] = [(arguments, root, [], 1)]
    while pending:
        source, target, path, depth = pending.pop()
        entries = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in entries:
            if isinstance(key, str):
                problem = _text_problem(key)
                if problem is not None:
                    raise ValidationError(
                        "%(value)s: a field name %(problem)s", value=field_path(path) or "arguments", problem=problem
                    )
            where = [*path, key]
            if isinstance(value, (dict, list)):
                if depth + 1 > MAX_DEPTH:
                    raise depth_error(where)
                copy: Any = {} if isinstance(value, dict) else [None] * len(value)
                pending.append((value, copy, where, depth + 1))
                value = copy
            elif isinstance(value, str):
                problem = _text_problem(value)
                if problem is not None:
                    raise ValidationError("%(where)s: %(problem)s", where=field_path(where), problem=problem)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                value = _number(value, where)
            target[key] = value
    return root
