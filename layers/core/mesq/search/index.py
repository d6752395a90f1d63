"""One user's search index: a snapshot plus an overlay.

The snapshot holds most documents: their BM25 model (bm25s over our own tokens) and a matrix of
unit-length embeddings searched brute force with numpy. Every write lands in the overlay (the
changed document, or the key alone when it stopped being searchable), so a write costs one
document's tokens and vector, not a rebuild; the overlay hides the snapshot's older copy. When the
overlay outgrows `OVERLAY_MAX` documents, `apply` folds it into a new snapshot (`_compact`).

BM25 scores of the overlay come from a small bm25s model over the overlay alone, so their IDF is
approximate until the next compaction: a fresh document is always a candidate, its rank settles
when it joins the snapshot. Fusion reads which query terms a document matches, not the BM25
score's size (pipeline.py), so that approximation does not move a hit's score.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

import bm25s
import numpy as np
import numpy.typing as npt

from ..kernel.i18n import is_chinese
from .documents import Doc
from .probes import Probes

Vector = npt.NDArray[np.float32]
#: Writes the overlay holds before `compact`: each write re-stores the overlay, a compaction the
#: whole snapshot, so this trades per-write bytes against compaction frequency (docs/search.md).
OVERLAY_MAX = 256
#: Filter masks a part keeps (per filter key): a caller's filter is evaluated once per document of
#: a snapshot, then every later query with the same filter is a boolean mask (docs/search.md).
MASKS_KEPT = 16


@dataclass(frozen=True)
class Entry:
    doc: Doc
    tokens: tuple[str, ...]
    vector: Vector | None = None


def unit(vector: npt.ArrayLike) -> Vector:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array


class Part:
    """An immutable set of entries with their BM25 model and vector matrix. `bm25`: the entries'
    model as stored with the snapshot (persist.py), so loading one does not index it again."""

    def __init__(self, entries: list[Entry], dimension: int | None, bm25: bm25s.BM25 | None = None) -> None:
        self.entries = entries
        self.keys = [entry.doc.key for entry in entries]
        self.position = {key: i for i, key in enumerate(self.keys)}
        self.bm25: bm25s.BM25 | None = bm25
        if bm25 is None and any(entry.tokens for entry in entries):
            self.bm25 = bm25s.BM25()
            self.bm25.index([list(entry.tokens) for entry in entries], show_progress=False)
        self.dimension = dimension
        self.has_vector = np.array([entry.vector is not None for entry in entries], dtype=bool)
        self.vectors: Vector = np.zeros((len(entries), dimension or 0), dtype=np.float32)
        for i, entry in enumerate(entries):
            if entry.vector is not None and dimension and entry.vector.shape == (dimension,):
                self.vectors[i] = entry.vector
            elif entry.vector is not None:
                self.has_vector[i] = False
        self._masks: dict[Hashable, npt.NDArray[np.bool_]] = {}
        self._means: dict[str, npt.NDArray[np.float32]] = {}
        self._means_lock = threading.Lock()

    def note_means(self, probes: Probes) -> npt.NDArray[np.float32]:
        """Per probe group and entry: the entry's mean similarity to the group's probes (probes.py;
        3 x entries), kept per model: three dot products a note (60 ms a 100k-note snapshot on a
        loaded core, once after it loads)."""
        with self._means_lock:
            if probes.name not in self._means:
                if self.dimension and probes.centroids.shape[1] == self.dimension:
                    self._means[probes.name] = probes.means(self.vectors)
                else:  # another dimension: nothing to compare (these entries have no usable vector)
                    self._means[probes.name] = np.zeros((3, len(self.entries)), dtype=np.float32)
            return self._means[probes.name]

    @cached_property
    def chinese(self) -> npt.NDArray[np.bool_]:
        """Per entry: its text is mostly Chinese (crosslingual.is_chinese). The vector branch scores
        a note of the query's other language also against the query's gloss (pipeline.py)."""
        return np.fromiter((is_chinese(entry.doc.text) for entry in self.entries), dtype=bool, count=len(self.entries))

    @cached_property
    def language_offsets(self) -> npt.NDArray[np.float32]:
        """Per language (row 0: not Chinese, 1: Chinese) and entry: 0 for an entry of that
        language, -inf for the other's. Added to scores it leaves one language's as they are
        (x + 0 = x) and the other's out of a maximum, in one branch-free pass: picking one out
        of a mixed account with a mask costs ~0.3 ms at 100k."""
        chinese = self.chinese
        offsets = np.zeros((2, len(chinese)), dtype=np.float32)
        offsets[0, chinese] = -np.inf
        offsets[1, ~chinese] = -np.inf
        return offsets

    def similarities(self, queries: Vector) -> npt.NDArray[np.float32]:
        """Every entry's cosine similarity to each query vector (rows: entries; NaN: no vector)."""
        if not self.dimension or queries.shape[1] != self.dimension:
            return np.full((len(self.entries), len(queries)), np.nan, dtype=np.float32)
        # One matrix-vector product per query: BLAS's matrix-matrix path for 1-2 columns measured
        # 3x slower than two matrix-vector products over 100k x 384 (and rounds differently).
        scores: npt.NDArray[np.float32]
        if len(queries) == 1:  # the product itself as the column: no copy of 100k scores
            scores = (self.vectors @ queries[0])[:, None]
        else:
            scores = np.stack([self.vectors @ query for query in queries], axis=1)
        if len(self.without_vector):
            scores[self.without_vector] = np.nan
        return scores

    @cached_property
    def without_vector(self) -> npt.NDArray[np.intp]:
        """The positions with no (usable) vector: their similarities are NaN."""
        return np.flatnonzero(~self.has_vector)

    @cached_property
    def sorted_keys(self) -> list[str]:
        return sorted(self.keys)

    @cached_property
    def key_rank(self) -> npt.NDArray[np.int64]:
        """Each position's rank in key order (ties in score are broken by key)."""
        rank = np.empty(len(self.keys), dtype=np.int64)
        rank[sorted(range(len(self.keys)), key=self.keys.__getitem__)] = np.arange(len(self.keys))
        return rank

    def scores(self, terms: list[str]) -> npt.NDArray[np.floating]:
        """The BM25 score of every position (0 = no shared term)."""
        if self.bm25 is None or not terms:
            return np.zeros(len(self.entries), dtype=np.float32)
        return np.asarray(self.bm25.get_scores(terms))

    def postings(self, term: str) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.floating]]:
        """The positions holding `term` and their BM25 score for it: exactly what `scores([term])`
        holds where it is not 0, read off bm25s's eager score matrix (the term's column) instead
        of summed into a zeroed array of every position (np.add.at: ~1 ms a term at 100k notes)."""
        bm25 = self.bm25
        if bm25 is None:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
        if bm25.nonoccurrence_array is not None:  # a variant scoring absent terms too: every position
            return np.arange(len(self.entries)), self.scores([term])
        token = bm25.vocab_dict.get(term)
        if token is None:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
        matrix = bm25.scores
        start, end = int(matrix["indptr"][token]), int(matrix["indptr"][token + 1])
        return matrix["indices"][start:end].astype(np.intp), matrix["data"][start:end]

    def accepted(self, accept: Callable[[Doc], bool], key: Hashable | None) -> npt.NDArray[np.bool_]:
        """Which positions `accept` takes; kept per `key` (a filter's identity), so only the first
        query with a filter pays a Python call per document."""
        if key is not None and key in self._masks:
            return self._masks[key]
        mask = np.fromiter((accept(entry.doc) for entry in self.entries), dtype=bool, count=len(self.entries))
        if key is not None:
            if len(self._masks) >= MASKS_KEPT:
                self._masks.pop(next(iter(self._masks)))
            self._masks[key] = mask
        return mask

    def lexical(self, terms: list[str], hidden: Callable[[str], bool]) -> list[tuple[str, float]]:
        if self.bm25 is None or not terms:
            return []
        scores = self.bm25.get_scores(terms)
        hits = np.flatnonzero(scores > 0)
        return [(self.keys[i], float(scores[i])) for i in hits if not hidden(self.keys[i])]

    def similar(
        self, query: Vector, hidden: Callable[[str], bool], limit: int, hidden_count: int
    ) -> list[tuple[str, float]]:
        """The `limit` most similar visible documents; at most `hidden_count` of them are hidden,
        so only that many more are ranked (argpartition: no sort of every score)."""
        if not self.entries or not self.dimension or query.shape != (self.dimension,):
            return []
        scores = self.vectors @ query
        scores[~self.has_vector] = -np.inf
        wanted = min(len(scores), limit + hidden_count)
        top = np.argpartition(-scores, wanted - 1)[:wanted] if wanted < len(scores) else np.arange(len(scores))
        order = top[np.argsort(-scores[top])]
        order = order[np.isfinite(scores[order])]  # one array test, not one numpy scalar call per row
        hits = [
            (key, score)
            for key, score in zip(map(self.keys.__getitem__, order.tolist()), scores[order].tolist(), strict=True)
            if not hidden(key)
        ]
        return hits[:limit]


@dataclass
class SearchIndex:
    """The snapshot's entries and the overlay (key -> newer Entry, or None = removed)."""

    snapshot_entries: list[Entry] = field(default_factory=list)
    overlay: dict[str, Entry | None] = field(default_factory=dict)
    dimension: int | None = None
    #: The stored snapshot these entries are; None after `_compact` (persist writes a new one).
    snapshot_id: str | None = None
    _snapshot: Part | None = field(default=None, repr=False)
    _overlay_part: Part | None = field(default=None, repr=False)
    #: Held by a write (`apply`) and by `frozen`: a search reads one consistent state.
    _writing: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    # -- reading ------------------------------------------------------------------------------

    def snapshot(self) -> Part:
        if self._snapshot is None:
            self._snapshot = Part(self.snapshot_entries, self.dimension)
        return self._snapshot

    def overlay_part(self) -> Part:
        if self._overlay_part is None:
            live = [entry for entry in self.overlay.values() if entry is not None]
            self._overlay_part = Part(live, self.dimension)
        return self._overlay_part

    def frozen(self) -> SearchIndex:
        """This index as it is now, for one search. A write replaces the overlay's part and the
        positions in place: a search that read the accepted mask before a write and the
        similarities after it would mix two sizes (it did: `mesq serve` applied a write while a
        search of the same index ran). The parts are immutable, so the copy costs the overlay's
        dict (at most OVERLAY_MAX keys)."""
        with self._writing:
            return SearchIndex(
                self.snapshot_entries, dict(self.overlay), self.dimension, self.snapshot_id,
                _snapshot=self.snapshot(), _overlay_part=self.overlay_part(),
            )  # fmt: skip

    def _hidden(self, key: str) -> bool:
        return key in self.overlay

    def entry(self, key: str) -> Entry | None:
        if key in self.overlay:
            return self.overlay[key]
        snapshot = self.snapshot()
        position = snapshot.position.get(key)
        return None if position is None else snapshot.entries[position]

    def entries(self) -> Iterable[Entry]:
        for entry in self.snapshot_entries:
            if entry.doc.key not in self.overlay:
                yield entry
        yield from (entry for entry in self.overlay.values() if entry is not None)

    # -- positions: snapshot position i is i, overlay position j is len(snapshot) + j ------------

    @cached_property
    def _space(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        """Per position: visible (not hidden by the overlay) and its rank in key order over both
        parts. Cleared by every write (`apply`)."""
        snapshot, overlay = self.snapshot(), self.overlay_part()
        visible = np.ones(len(snapshot.keys) + len(overlay.keys), dtype=bool)
        for key in self.overlay:
            if (position := snapshot.position.get(key)) is not None:
                visible[position] = False
        # An overlay key sits between the snapshot keys around it (an equal snapshot key is hidden).
        slots = len(overlay.keys) + 1
        tie = np.empty(len(visible), dtype=np.int64)
        tie[: len(snapshot.keys)] = snapshot.key_rank * slots + slots - 1
        for j, local in enumerate(overlay.key_rank.tolist()):
            tie[len(snapshot.keys) + j] = bisect.bisect_left(snapshot.sorted_keys, overlay.keys[j]) * slots + local
        return visible, tie

    def visible(self) -> npt.NDArray[np.bool_]:
        """Per position: not hidden by the overlay."""
        return self._space[0]

    def tie_order(self) -> npt.NDArray[np.int64]:
        return self._space[1]

    def key_at(self, position: int) -> str:
        snapshot = self.snapshot()
        if position < len(snapshot.keys):
            return snapshot.keys[position]
        return self.overlay_part().keys[position - len(snapshot.keys)]

    def entry_at(self, position: int) -> Entry:
        snapshot = self.snapshot()
        if position < len(snapshot.entries):
            return snapshot.entries[position]
        return self.overlay_part().entries[position - len(snapshot.entries)]

    def position_of(self, key: str) -> int | None:
        if key in self.overlay:
            local = self.overlay_part().position.get(key)
            return None if local is None else len(self.snapshot().keys) + local
        return self.snapshot().position.get(key)

    def postings(self, term: str) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.floating]]:
        """The visible positions holding `term` and their BM25 score for it (`Part.postings`):
        the BM25 score of every position where it is not 0 (nor hidden), without such an array."""
        snapshot, overlay = self.snapshot(), self.overlay_part()
        here, scores = snapshot.postings(term)
        there, more = overlay.postings(term)
        if len(there):
            here, scores = np.concatenate([here, there + len(snapshot.keys)]), np.concatenate([scores, more])
        visible = self._space[0][here]
        return (here, scores) if visible.all() else (here[visible], scores[visible])

    def similarities(self, queries: Vector) -> npt.NDArray[np.float32]:
        """Every position's cosine similarity to each query vector (`queries`: one per row), NaN
        where a position has no vector; hidden positions are the caller's mask to drop."""
        snapshot, overlay = self.snapshot().similarities(queries), self.overlay_part().similarities(queries)
        return snapshot if not len(overlay) else np.concatenate([snapshot, overlay])

    def note_means(self, probes: Probes) -> npt.NDArray[np.float32]:
        """Per probe group and position: its mean similarity to the group (`Part.note_means`)."""
        snapshot, overlay = self.snapshot().note_means(probes), self.overlay_part().note_means(probes)
        return snapshot if not overlay.shape[1] else np.concatenate([snapshot, overlay], axis=1)

    def chinese(self) -> npt.NDArray[np.bool_]:
        """Per position: the document is mostly Chinese (kept per part: one pass per snapshot)."""
        return np.concatenate([self.snapshot().chinese, self.overlay_part().chinese])

    def language_offsets(self) -> npt.NDArray[np.float32]:
        """Per language and position: 0 or -inf (`Part.language_offsets`)."""
        snapshot, overlay = self.snapshot().language_offsets, self.overlay_part().language_offsets
        return snapshot if not overlay.shape[1] else np.concatenate([snapshot, overlay], axis=1)

    def accepted(self, accept: Callable[[Doc], bool], key: Hashable | None = None) -> npt.NDArray[np.bool_]:
        """Which visible positions `accept` takes (see `Part.accepted` for `key`)."""
        mask = np.concatenate([self.snapshot().accepted(accept, key), self.overlay_part().accepted(accept, key)])
        return mask & self._space[0]

    def __len__(self) -> int:
        return sum(1 for _ in self.entries())

    def lexical(self, terms: list[str]) -> list[tuple[str, float]]:
        """Every document sharing a term with the query, best BM25 score first."""
        hits = self.snapshot().lexical(terms, self._hidden) + self.overlay_part().lexical(terms, lambda _key: False)
        return sorted(hits, key=lambda hit: (-hit[1], hit[0]))

    def similar(self, query: Vector, limit: int) -> list[tuple[str, float]]:
        """The `limit` documents with a vector most similar to `query`, best first."""
        hits = self.snapshot().similar(query, self._hidden, limit, len(self.overlay))
        hits += self.overlay_part().similar(query, lambda _key: False, limit, 0)
        return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:limit]

    # -- writing ------------------------------------------------------------------------------

    def apply(self, upserts: Iterable[Entry] = (), removals: Iterable[str] = ()) -> None:
        with self._writing:
            for entry in upserts:
                if entry.vector is not None and self.dimension is None:
                    self.dimension = int(entry.vector.shape[0])
                self.overlay[entry.doc.key] = entry
            for key in removals:
                self.overlay[key] = None
            self._overlay_part = None
            self.__dict__.pop("_space", None)
            if len(self.overlay) > OVERLAY_MAX:
                self._compact()

    def _compact(self) -> None:
        """The overlay folded into a new snapshot (under `apply`'s lock)."""
        self.snapshot_entries = list(self.entries())
        self.overlay = {}
        self.snapshot_id = None
        self._snapshot = None
        self._overlay_part = None
        self.__dict__.pop("_space", None)
