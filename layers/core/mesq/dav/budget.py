"""A multistatus answer written one `response` at a time under a byte budget, so no answer grows
past what the CalDAV function can return, on `mesq serve` as on Lambda.

On AWS the function URL is BUFFERED: the answer travels as the JSON Lambda returns, capped at
6 MB (runtime/lambda_entry.py). Mangum puts an `application/xml` body in it as text, never
base64 (its text media types), and the python3.12 runtime writes that JSON with
`ensure_ascii=False`: the body's UTF-8 bytes, plus one byte for each `"`, `\\`, tab, line feed and
carriage return it escapes (other control characters never reach an answer: xml.py drops them).
`sent_bytes` counts exactly that, so the budget is in the bytes the runtime sends.

A response that would pass the budget is not added; the caller answers the truncation the RFCs
name instead (`truncated`: a 507 `DAV:number-of-matches-within-limits` response for the
collection, RFC 6578 3.6 / RFC 5323 5.17) and stops reading. The memory an answer takes is its
budget: each response is serialised as it is added, and the rest is never rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from .xml import DAV, document, element, fragment, href_element, tag

#: What one answer carries at most, in the bytes Lambda's runtime sends (`sent_bytes`): 4 MiB of
#: the 6 MB a function URL can return, leaving the headers (a few hundred bytes), the JSON
#: envelope and lambda_entry's margin far behind, and room for a body written at 2x by JSON
#: escapes (a note of backslashes) should the count ever be wrong by that much.
ANSWER_BUDGET = 4 * 1024 * 1024
#: Kept free of members for what closes an answer: the truncation response, the sync token
#: (a continuation token is at most a few KiB) and the closing tag.
CLOSING_RESERVE = 16 * 1024
_ESCAPED = (b'"', b"\\", b"\t", b"\n", b"\r")
#: What adds a response (or the sync token) to the multistatus it is given.
Build = Callable[[ET.Element], object]


def sent_bytes(data: bytes) -> int:
    """The size of `data` once it is a JSON string of Lambda's answer (ensure_ascii=False)."""
    return len(data) + sum(data.count(character) for character in _ESCAPED)


class Answer:
    """A `D:multistatus` under `budget` (a module constant a test may lower) and at most
    `max_responses` member responses (a client's `DAV:limit`, None: no limit)."""

    def __init__(self, max_responses: int | None = None, budget: int | None = None) -> None:
        self._budget = (ANSWER_BUDGET if budget is None else budget) - CLOSING_RESERVE
        self._max_responses = max_responses
        self._fragments: list[bytes] = []
        self._size = 0
        self.responses = 0

    def room_for(self, count: int) -> bool:
        return self._max_responses is None or self.responses + count <= self._max_responses

    def responses_left(self) -> int | None:
        """How many more member responses it takes (None: no `max_responses`)."""
        return None if self._max_responses is None else max(0, self._max_responses - self.responses)

    def add(self, build: Build, *, keep_free: int = 0) -> bool:
        """Add what `build` appends to a multistatus, unless it would take the answer past its
        budget less `keep_free` bytes, or past its responses: then nothing is added (False). The
        first response of an answer is always added (one task is at most 256 KiB of iCalendar),
        so each answer moves the client on."""
        if not self.room_for(1):
            return False
        pieces = _written(build)
        size = sum(sent_bytes(piece) for piece in pieces)
        if self.responses and self._size + size > self._budget - keep_free:
            return False
        self._fragments.extend(pieces)
        self._size += size
        self.responses += 1
        return True

    def add_always(self, build: Build) -> None:
        """What an answer holds whatever its size: the collection's own response, a 404, a token."""
        pieces = _written(build)
        self._fragments.extend(pieces)
        self._size += sum(sent_bytes(piece) for piece in pieces)

    def truncated(self, href: str) -> None:
        """The response RFC 6578 3.6 (and RFC 5323 5.17 for other reports and PROPFIND) marks a
        cut answer with: 507 for the request's collection, `DAV:number-of-matches-within-limits`."""
        self.add_always(lambda parent: insufficient(parent, href))

    def body(self) -> bytes:
        return document("D:multistatus", self._fragments)


def _written(build: Build) -> list[bytes]:
    """What `build` appends to a multistatus, each element as the bytes it adds to an answer."""
    holder = ET.Element(tag(DAV, "multistatus"))
    build(holder)
    return [fragment(child) for child in holder]


def gone(href: str) -> Build:
    """A member that is no more (sync-collection, a multiget's unknown href): 404."""

    def build(parent: ET.Element) -> None:
        response = element(parent, tag(DAV, "response"))
        href_element(response, href)
        element(response, tag(DAV, "status"), "HTTP/1.1 404 Not Found")

    return build


def insufficient(parent: ET.Element, href: str) -> None:
    """A `response` with 507 and the `DAV:number-of-matches-within-limits` precondition."""
    response = element(parent, tag(DAV, "response"))
    href_element(response, href)
    element(response, tag(DAV, "status"), "HTTP/1.1 507 Insufficient Storage")
    element(element(response, tag(DAV, "error")), tag(DAV, "number-of-matches-within-limits"))


@cache
def _insufficient_around() -> int:
    # an empty href would be written <D:href />
    return sum(sent_bytes(piece) for piece in _written(lambda parent: insufficient(parent, "x"))) - 1


def insufficient_bytes(href: str) -> int:
    """What `insufficient(href)` adds to an answer (a multiget keeps room for one per href left),
    without writing it: the response around its href, and the href as XML text."""
    return _insufficient_around() + sent_bytes(escape(href).encode())
