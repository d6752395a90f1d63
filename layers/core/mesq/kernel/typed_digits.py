"""Numbers a person types into a form, in any script's digits (decisions.md "digits a person types").

A Chinese input method in full-width mode types 25 as U+FF12 U+FF15, an Arabic keyboard as `٢٥`:
both are the number 25, and a form reads them so; what was saved then shows in ASCII digits (the
channel's `smtp://host:25`, the task's due date), so the person sees how it was read. Only
decimal digits (Unicode category Nd) count: `²` and `①` are digits to `str.isdigit()` but no digit
to `int()`, and `2_5`, `+25` or `2 5` are numbers to `int()` that nobody types into a port field.
"""

from __future__ import annotations


def ascii_digits(text: str) -> str:
    """`text` with every decimal digit of any script as its ASCII digit; everything else as it is."""
    if text.isascii():
        return text
    return "".join(str(int(char)) if char.isdecimal() else char for char in text)


def typed_whole_number(raw: str, max_digits: int) -> int | None:
    """The whole number `raw` holds (spaces around it ignored), or None when it holds anything but
    1..`max_digits` decimal digits (no sign, no separator, no superscript)."""
    text = ascii_digits(raw.strip())
    if not (text.isascii() and text.isdigit()) or len(text) > max_digits:
        return None
    return int(text)
