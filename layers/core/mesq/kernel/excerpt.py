"""`excerpt(value)`: what an error message may repeat of an offending value.

An error names the value it refuses so the caller can find it, but never repeats more than a
short, cut excerpt of it: a 2 MB title, a YAML note that expands to gigabytes or a line of an
uploaded file must not come back as a 2 MB (or 1.3 GB) error page, nor fill a log. Every error
path that quotes a value the caller sent goes through here; `MesqError` cuts a message that is
still too long as a last resort (`bounded_message`).
"""

from __future__ import annotations

from typing import Any

#: Characters of an offending value an error message repeats (docs/security.md).
EXCERPT_CHARS = 60
#: The longest message an error carries, whatever it quotes.
MESSAGE_CHARS = 1000
_CUT = "…"


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """`repr(value)` cut to `limit` characters (with `…` and the full length when cut). A large
    container is not rendered whole to be cut: only its first items are."""
    if isinstance(value, str | bytes):
        head = value[: limit + 1]
        shown = repr(head)
        if len(value) <= limit and len(shown) <= limit + 3:
            return shown
        return f"{shown[:limit]}{_CUT} ({len(value):,} {'characters' if isinstance(value, str) else 'bytes'})"
    shown = repr(_shallow(value, limit) if isinstance(value, list | tuple | set | frozenset | dict) else value)
    return shown if len(shown) <= limit else shown[:limit] + _CUT


def _shallow(value: Any, limit: int, depth: int = 0) -> Any:
    """At most `limit` items of a container, two levels deep: enough for an excerpt."""
    if depth > 2:
        return ...
    if isinstance(value, dict):
        return {key if not isinstance(key, str) else key[:limit]: _shallow(v, limit, depth + 1)
                for key, v in list(value.items())[:limit]}  # fmt: skip
    if isinstance(value, list | tuple | set | frozenset):
        return [_shallow(v, limit, depth + 1) for v in list(value)[:limit]]
    if isinstance(value, str | bytes):
        return value[: limit + 1]
    return value


def bounded_message(message: str, limit: int = MESSAGE_CHARS) -> str:
    """`message` cut in its middle when longer than `limit` (its start names the field, its end
    says what to do)."""
    if len(message) <= limit:
        return message
    keep = (limit - 40) // 2
    return f"{message[:keep]}{_CUT} ({len(message) - 2 * keep:,} characters cut) {_CUT}{message[-keep:]}"


__all__ = ["EXCERPT_CHARS", "MESSAGE_CHARS", "bounded_message", "excerpt"]
