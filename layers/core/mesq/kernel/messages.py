"""Pieces of client-facing error messages that carry what the client sent.

A message never echoes a bad value in full: a 1 MB id would make a 2 MB answer (and on Lambda,
past 6 MB, no answer at all), a YAML note expanding to gigabytes a 1.3 GB error page. Values are
quoted as a short prefix (`quoted`, every error path of `mesq`: tests/hostile/test_error_excerpts.py
keeps it so), field names too, and both come out as plain escaped text: a lone surrogate or a
control character in a value cannot break the answer's encoding or a log line. `MesqError` cuts a
message that is still too long (`bounded_message`) as a last resort.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: How much of a value a message quotes.
QUOTE_CHARS = 40
#: `quoted`'s limit for a value said whole, as written (an import's report and the notes it writes
#: keep a date phrase or a file name as the file had it).
WHOLE = 1 << 30
#: The longest message an error carries, whatever it quotes.
MESSAGE_CHARS = 1000
#: How many items of a list of names (unknown fields, ...) a message shows.
LIST_ITEMS = 5
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")


class Quoted(str):
    """A string as `quoted` wrote it (`'工作'`), which remembers what is between its marks
    (`inner`, still escaped) so that a page in another language quotes it in its own (a Chinese
    page: “工作”; `i18n.Translator.text`). Everywhere else it is the plain string it reads as."""

    inner: str

    def __new__(cls, shown: str) -> Quoted:
        made = super().__new__(cls, shown)
        made.inner = shown[1:-1]
        return made


def quoted(value: Any, limit: int = QUOTE_CHARS) -> str:
    """`repr`-like text of a value, cut to `limit` characters plus "…"; escape sequences stand in
    for surrogates and control characters (repr's own escaping). A string comes back `Quoted`."""
    if isinstance(value, str):
        if len(value) <= limit:
            return Quoted(repr(value))
        text = repr(value[:limit])
        return Quoted(text[:-1] + "…" + text[-1])
    if isinstance(value, bool) or value is None:
        return "null" if value is None else str(value).lower()
    if isinstance(value, int):
        # Big ints: repr() is quadratic and refuses more than 4,300 digits.
        if value.bit_length() <= 64:
            return str(value)
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return "an object" if value else "{}"
    if isinstance(value, list):
        return "an array" if value else "[]"
    return type(value).__name__


def quoted_list(values: Iterable[Any]) -> str:
    """At most LIST_ITEMS quoted values, comma-separated, then "and N more"."""
    items = list(values)
    shown = ", ".join(quoted(item) for item in items[:LIST_ITEMS])
    return shown + (f" and {len(items) - LIST_ITEMS} more" if len(items) > LIST_ITEMS else "")


def field_path(parts: Iterable[str | int]) -> str:
    """`updates[2].title`: plain names as they are, array indexes in brackets, any other key (too
    long, spaces, control characters, ...) quoted in brackets."""
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _PLAIN_NAME.fullmatch(part):
            path += f".{part}" if path else part
        else:
            path += f"[{quoted(part)}]"
    return path


def bounded_message(message: str, limit: int = MESSAGE_CHARS) -> str:
    """`message` cut in its middle when longer than `limit` (its start names the field, its end
    says what to do)."""
    if len(message) <= limit:
        return message
    keep = (limit - 40) // 2
    return f"{message[:keep]}… ({len(message) - 2 * keep:,} characters cut) …{message[-keep:]}"
