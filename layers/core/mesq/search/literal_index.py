"""The literal (substring) index behind `search_memos`: character bigrams of the case-folded text
(docs/contract.md §4, "literal search"). It only narrows the candidates; the caller verifies each
with the scan's own predicate, so an answer through the index is the scan's answer.

Layout (a snapshot + an overlay, like the AI index in index.py):
- the snapshot: its rows (`Row`: id, the filter fields, the folded text) and CSR postings: `codes`
  (every distinct bigram, `first << 21 | second` code point, sorted), `offsets` into `postings`
  (the row ordinals holding that bigram, ascending);
- the overlay: rows written since the snapshot (None = removed), at most `COMPACT_AFTER` before
  they are folded into a new snapshot.

The snapshot's rows are kept in the answer's order (`order`, descending unless `descending` is
False; for memos the list order: pinned, then newest created, then id; reading notes ascend by
their sort key), so `matching` needs no sort of the matches: it merges the
snapshot's matches (already in order) with the few of the overlay.

A needle of two or more folded characters is served by intersecting its bigrams' postings (a row
lacking one of them cannot contain the needle); a one-character needle has no bigram, so every row
is a candidate: a pass over the folded texts in memory, never over the store.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .literal_kind import Order, Row

COMPACT_AFTER = 256
_CHAR_BITS = 21  # every code point fits (0x10FFFF < 2**21): a bigram is 42 bits
_ROW_BITS = 22  # the (bigram, row) pair of a build is one uint64: at most 4,194,304 rows a user
MAX_ROWS = 1 << _ROW_BITS


def _code_points(text: str) -> np.ndarray:
    # surrogatepass: a lone surrogate (stored from JSON) is one code unit here as in the str.
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)


def bigram_codes(folded: str) -> np.ndarray:
    """The distinct bigram codes of a folded text, sorted."""
    points = _code_points(folded)
    if points.size < 2:
        return np.zeros(0, dtype=np.uint64)
    return np.unique((points[:-1] << _CHAR_BITS) | points[1:])


def _postings(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, offsets, postings) of `texts`, built in chunks so the peak stays a few times the
    final arrays rather than eight bytes a character of the whole corpus at once."""
    if len(texts) >= MAX_ROWS:
        raise ValueError(f"a literal index holds at most {MAX_ROWS - 1} rows")
    chunks: list[np.ndarray] = []
    chunk_start = 0
    while chunk_start < len(texts):
        chunk_end, characters = chunk_start, 0
        while chunk_end < len(texts) and (characters < 2_000_000 or chunk_end == chunk_start):
            characters += len(texts[chunk_end])
            chunk_end += 1
        part = texts[chunk_start:chunk_end]
        lengths = np.fromiter((len(text) for text in part), dtype=np.int64, count=len(part))
        points = _code_points("".join(part))
        if points.size >= 2:
            rows = np.repeat(np.arange(chunk_start, chunk_end, dtype=np.uint64), lengths)
            inside = rows[:-1] == rows[1:]  # a bigram never spans two texts
            grams = ((points[:-1] << _CHAR_BITS) | points[1:])[inside]
            chunks.append(np.unique((grams << _ROW_BITS) | rows[:-1][inside]))
        chunk_start = chunk_end
    pairs = np.sort(np.concatenate(chunks)) if chunks else np.zeros(0, dtype=np.uint64)
    grams = pairs >> _ROW_BITS
    postings = (pairs & np.uint64(MAX_ROWS - 1)).astype(np.int32)
    del pairs
    starts = np.flatnonzero(np.concatenate(([True], grams[1:] != grams[:-1]))) if grams.size else np.zeros(0, np.int64)
    codes = grams[starts]
    offsets = np.append(starts, grams.size).astype(np.int64)
    return codes, offsets, postings


#: The answer's order of two rows (descending unless the index ascends); unique per row: a total order.


@dataclass
class LiteralIndex:
    order: Order
    rows: list[Row]
    codes: np.ndarray
    offsets: np.ndarray
    postings: np.ndarray
    overlay: dict[str, Row | None] = field(default_factory=dict)
    #: The stored snapshot this one is (None: not stored yet); see literal_store.py.
    snapshot_id: str | None = None
    _ordinals: dict[str, int] | None = None
    #: False: the answer's order is `order` ascending.
    descending: bool = True

    @classmethod
    def build(cls, order: Order, rows: Iterable[Row], descending: bool = True) -> LiteralIndex:
        listed = sorted(rows, key=order, reverse=descending)
        codes, offsets, postings = _postings([row.text for row in listed])
        return cls(order, listed, codes, offsets, postings, descending=descending)

    @property
    def ordinals(self) -> dict[str, int]:
        if self._ordinals is None:
            self._ordinals = {row.id: ordinal for ordinal, row in enumerate(self.rows)}
        return self._ordinals

    def __len__(self) -> int:
        """Live rows: the snapshot's not replaced or removed, plus the overlay's live ones."""
        replaced = sum(1 for key in self.overlay if key in self.ordinals)
        return len(self.rows) - replaced + sum(1 for row in self.overlay.values() if row is not None)

    def live_rows(self) -> Iterator[Row]:
        for row in self.rows:
            if row.id not in self.overlay:
                yield row
        yield from (row for row in self.overlay.values() if row is not None)

    def fork(self) -> LiteralIndex:
        """A copy to change: readers of this one (a query on another thread) never see a write
        half applied. The arrays and rows are shared: nothing changes them in place."""
        return LiteralIndex(
            self.order, self.rows, self.codes, self.offsets, self.postings,
            dict(self.overlay), self.snapshot_id, self._ordinals, self.descending,
        )  # fmt: skip

    def apply(self, upserts: Iterable[Row], removed: Iterable[str]) -> None:
        """Record changed rows in the overlay; past COMPACT_AFTER, fold it into a new snapshot."""
        for row in upserts:
            self.overlay[row.id] = row
        for key in removed:
            self.overlay[key] = None
        if len(self.overlay) > COMPACT_AFTER:
            rebuilt = LiteralIndex.build(self.order, self.live_rows(), self.descending)
            self.rows, self.codes = rebuilt.rows, rebuilt.codes
            self.offsets, self.postings = rebuilt.offsets, rebuilt.postings
            self.overlay, self.snapshot_id, self._ordinals = {}, None, None

    def _snapshot_ordinals(self, needle: str) -> np.ndarray | None:
        """The snapshot rows holding every bigram of `needle`; None = every row (one character)."""
        wanted = bigram_codes(needle)
        if wanted.size == 0:
            return None
        if self.codes.size == 0:
            return np.zeros(0, dtype=np.int32)
        where = np.searchsorted(self.codes, wanted)
        if np.any(where >= self.codes.size) or np.any(self.codes[np.minimum(where, self.codes.size - 1)] != wanted):
            return np.zeros(0, dtype=np.int32)  # a bigram no row has
        lists = sorted(
            (self.postings[self.offsets[i] : self.offsets[i + 1]] for i in where.tolist()), key=lambda p: p.size
        )
        found = lists[0]
        for other in lists[1:]:
            if found.size == 0:
                break
            at = np.minimum(np.searchsorted(other, found), other.size - 1)
            found = found[other[at] == found]
        return found

    def candidates(self, needle: str) -> tuple[Iterator[Row], list[Row]]:
        """Rows that may contain the folded `needle` (a superset of those that do): the snapshot's
        in order, and the overlay's live rows (every one: there are at most COMPACT_AFTER)."""
        ordinals = self._snapshot_ordinals(needle)
        overlay = self.overlay
        rows = self.rows
        if ordinals is None:
            snapshot: Iterator[Row] = (row for row in rows if row.id not in overlay)
        elif overlay:
            snapshot = (row for row in map(rows.__getitem__, ordinals.tolist()) if row.id not in overlay)
        else:
            snapshot = map(rows.__getitem__, ordinals.tolist())
        return snapshot, [row for row in overlay.values() if row is not None]

    def matching(self, needle: str, accept: Callable[[dict[str, Any], str], bool]) -> list[Row]:
        """Every live row that `accept(fields, text)` takes among the candidates of `needle`, in
        the index's order."""
        snapshot, overlay = self.candidates(needle)
        found = [row for row in snapshot if accept(row.fields, row.text)]
        accepted = (row for row in overlay if accept(row.fields, row.text))
        extra = sorted(accepted, key=self.order, reverse=self.descending)
        if not extra:
            return found
        return list(heapq.merge(found, extra, key=self.order, reverse=self.descending))

    def nbytes(self) -> int:
        """The arrays' bytes plus the rows' texts as UTF-8 (the Python objects of a row, its fields
        dict and strings, come on top: about 1 KB a row, docs/performance.md)."""
        texts = sum(len(row.text.encode("utf-8")) for row in self.rows)
        return int(self.codes.nbytes + self.offsets.nbytes + self.postings.nbytes) + texts
