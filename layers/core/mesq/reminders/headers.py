"""Text that goes into a header line (an email's Subject, ntfy's Title, any HTTP header of a
send): one line, no control character, bounded. A task title is the user's free text and may hold
line breaks (an import, an API client); in a header a line break is either refused by the library
(the email package raises, which used to fail the whole send) or, worse, read as the start of a
header the user never wrote. Every line break, tab and other control or separator character
becomes one space, runs of spaces collapse, and the text is cut at `MAX_HEADER_CHARS`."""

from __future__ import annotations

import unicodedata

#: What a header keeps of a title: a mail client or a notification shows about a line of it.
MAX_HEADER_CHARS = 200
#: Cc: C0/C1 controls (CR, LF, TAB, NUL, NEL); Zl/Zp: U+2028/U+2029 (line and paragraph
#: separators, which some readers break lines at); Cf is kept (zero-width joiners in emoji).
_BREAKING = frozenset({"Cc", "Zl", "Zp"})


def one_line(text: str, limit: int = MAX_HEADER_CHARS) -> str:
    """`text` folded to one safe header line of at most `limit` characters (an ellipsis marks a cut)."""
    spaced = "".join(" " if unicodedata.category(char) in _BREAKING else char for char in text)
    folded = " ".join(spaced.split())
    if len(folded) <= limit:
        return folded
    return folded[: limit - 1].rstrip() + "…"
