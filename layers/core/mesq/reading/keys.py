"""The reading shelf's sort-key prefixes (docs/data-model.md "Reading"), written here once and read
from here everywhere else; the keys built from them are in model.py.

- book: sk `READ#BOOK#<bookId>`
- note: sk `READ#NOTE#<bookId>#<chapter 6 digits>#<position 9 digits>#<noteId>`
"""

from __future__ import annotations

BOOK_PREFIX = "READ#BOOK#"
NOTE_PREFIX = "READ#NOTE#"
