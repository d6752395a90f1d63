"""The hybrid query (docs/contract.md §9): bm25 -> vector -> fusion -> rerank, each a stage with
its status, duration and candidate count.

Each branch gives every candidate its own evidence, and fusion turns the two into one calibrated
confidence, a number from 0 to 1 that means the same for every query (docs/search.md "Fusion"):

- bm25: the documents sharing a term with the query (after the caller's filter); a document's
  evidence is its **coverage**, the share of the query's terms it contains, each term weighted by
  its IDF (stop words of either language are no terms at all: tokenizer.py). A memo that shares one
  incidental word with a paraphrase covers a small share of it and weighs little;
- vector: every document's similarity to the query, read two ways: against **the query's own
  distribution** (`z`, a z-score over the user's documents: e5 similarities sit high and close
  together, so a raw cosine says little, while a note far above the rest is a real match) and
  against **the note's own level** (`note_z`: minus its mean similarity to fixed probe queries,
  over the model's spread, probes.py: a "hub" note near every query is ordinary for an
  unrelated one). The branch's `score` is their mean ("s-norm"). A note in the other language
  (Chinese vs English) is also scored against the query plus its CC-CEDICT gloss
  (crosslingual.py): its z keeps the better of the two, its note_z reads the glossed query. The
  candidates are the `VECTOR_CANDIDATES` best with a score >= `VECTOR_MIN_Z` (and always the
  `CLOSEST_MATCHES` nearest, so a small or unrelated collection still has its closest matches);
  how far a note's score stands above the rest of its language (`gap`) is evidence too: the
  notes leading a language within `GROUP_BAND` of its best (at most `GROUP_MAX`) form a group
  that ends at the widest drop after one of them at least `GROUP_RATIO` times every drop before
  it, and each of the group is measured against the first note below that drop, so two or three
  near-equal notes on one thing (a person's notes a week apart) keep each other's company instead
  of each cancelling the other's margin; every other note is measured against the best;
- fusion: `confidence = sigmoid(W_COVERAGE * coverage^3 + W_SIMILARITY * max(score, 0)
  + W_GAP * max(gap, -1) + BIAS)` over the union of both branches' candidates (every candidate
  has both numbers: BM25 candidates have a similarity too). The cube keeps one weak token weak
  and a full match strong; the weights were fitted on the TUNING half of the relevance set only
  (tests/search/calibrate.py);
- a query without a letter or a digit (spaces, punctuation, symbols) answers nothing: every
  stage `skipped` (`has_words`);
- the floor: hits at or above `FLOOR` confidence are the answer; up to `CLOSEST_MATCHES` below it
  follow as `closest` ("less related" on the page), so a query with one right memo returns that
  memo and not the timeline;
- rerank: a reranker (Bedrock on AWS) scores the first `RERANK_CANDIDATES` fused candidates in
  batches of `RERANK_BATCH`; its relevance (0-1) becomes the score and its own floor
  (`min_relevance`, else `FLOOR`) splits them. Without one (the local provider) the stage says
  `fused`.

Statuses: `ok`, `failed` (the provider raised), `unavailable` (no provider configured), `fused`
(no reranker: the fused order stands), `skipped` (nothing to rerank, or a query without words). `degraded` is true when
exactly one branch answered; when neither can, ServiceUnavailable. Zero hits is a normal empty
answer. `Outcome.ranks` says, per hit, which branches found it and at which rank (1 = best).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from aws_lambda_powertools import Logger

from ..kernel.errors import ServiceUnavailable
from ..kernel.graphemes import has_words
from ..kernel.i18n import is_chinese
from ..kernel.ports.models import Embedder, ProviderError, Reranker
from .crosslingual import GLOSSARY
from .documents import Doc
from .index import SearchIndex, Vector
from .probes import CHINESE, ENGLISH, MIXED, Probes, probes_for
from .tokenizer import tokens

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
RERANK_BATCH = 20
#: The fused candidates a reranker scores (the issue's budget: a reranker over the top 30).
RERANK_CANDIDATES = 30
#: The vector branch's candidates: at most this many, each with a score (the mean of its z over
#: the query's similarities and its z against its own level, `_Semantic`) of at least VECTOR_MIN_Z
#: (a vector always has a nearest neighbour, so without a bar every document would be a candidate).
VECTOR_CANDIDATES = 100
VECTOR_MIN_Z = 1.0
#: The leading group of a language (`_leading_group`): its notes are within GROUP_BAND of the
#: best score (in the score's standard deviations), at most GROUP_MAX of them, and the drop that
#: ends it is at least GROUP_RATIO times every drop inside it. Same-language notes on one thing
#: measured 0.1-0.8 apart (a note and its rewrite a week later, three readings of one thing). The
#: ratio keeps an even slope out (an absent topic's usual head: steps of 0.45, 0.53, 0.53 became
#: a group of three and an item without it). GROUP_MAX: a crowd of near-equal notes is no group,
#: its margin stays that of a crowd. Chosen on tests/search/test_twin_notes.py's account; the
#: relevance set reads the same at any band of 1.0-1.5 and ratio of 1.5-2 (docs/search.md).
GROUP_BAND = 1.25
GROUP_MAX = 4
GROUP_RATIO = 2.0
#: `_kth_largest` bounds a long array's k-th largest by a sample of about this many scores.
KTH_SAMPLE = 1024
#: Fusion's weights and the floor, fitted on the tuning half of tests/search/relevance_set.py
#: (`python -m tests.search.calibrate`: logistic regression of "is the query's note" on the
#: features, over every class's tuning queries: twins have two right notes, absent topics none).
#: The coverage weight is held at 11.5, not fitted: a note holding every query term then clears
#: the floor whatever its vector says (11.5 + BIAS - W_GAP > logit(FLOOR)), which the set's
#: controls cannot teach (their vectors agree). FLOOR: the highest confidence that keeps the
#: tuning half's recall@5 of every class and both notes of every twin query (0.25 loses a
#: Chinese paraphrase); absent topics with no item: 0.6 of the tuning half at 0.05, 0.8 at 0.2.
W_COVERAGE = 11.5
W_SIMILARITY = 1.78
W_GAP = 2.12
BIAS = -8.47
FLOOR = 0.2
#: Hits below the floor that still follow the answer (the page draws them as "less related").
CLOSEST_MATCHES = 3
#: Below this many documents a query's similarity distribution is unreliable: it is blended with
#: the model's prior (`similarity_prior` of the embedder: mean and spread of a query's similarity
#: to unrelated notes), weighted by the count. A model without one uses the user's notes alone.
DISTRIBUTION_MIN = 20
Accept = Callable[[Doc], bool]
Mask = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
Floats32 = npt.NDArray[np.float32]
#: Embeds a query's gloss and scores every note against it while the request's own thread does the
#: query: the two are independent, so on a second core the gloss costs no wall time (about half a
#: query at 100k notes: docs/search.md). Two workers: two searches at once each get one.
_GLOSS_HELPER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mesq-gloss")


@dataclass
class Outcome:
    hits: list[tuple[Doc, float]]
    stages: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False
    #: doc key -> {branch: rank in that branch (1 = best)}, for every returned hit.
    ranks: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Below the floor, best first (at most CLOSEST_MATCHES): "less related".
    closest: list[tuple[Doc, float]] = field(default_factory=list)
    #: Why the answer is degraded, in words, when the index (not a branch) is the cause
    #: (search/operations.py).
    reason: str | None = None

    def matched(self, doc: Doc) -> dict[str, int]:
        return self.ranks.get(doc.key, {})


class _Stage:
    def __init__(self, outcome: Outcome, name: str) -> None:
        self.record: dict[str, Any] = {"name": name, "status": "ok", "ms": 0.0, "candidates": 0}
        outcome.stages.append(self.record)
        self._start = time.perf_counter()

    def done(self, status: str, candidates: int) -> None:
        self.record.update(
            status=status, candidates=candidates, ms=round((time.perf_counter() - self._start) * 1000, 2)
        )


@dataclass
class _Lexical:
    """The BM25 branch: which positions are candidates, their BM25 score (for `ranks`) and their
    coverage of the query's terms (for fusion)."""

    member: Mask
    scores: Floats
    coverage: Floats

    def ranks(self, positions: list[int], tie: npt.NDArray[np.int64]) -> dict[int, int]:
        """Each of `positions` (candidates) with its rank: 1 + how many candidates come before it
        (higher score, then smaller key), all in a few passes over the candidates: each
        candidate's level among the asked positions' distinct scores (one searchsorted), so a
        count of levels gives "higher score" for every one at once; only the candidates whose
        score equals a level are sorted, by level then key, for "same score, smaller key"
        (five passes over every position per hit cost ~0.1 ms a hit at 100k)."""
        if not positions:
            return {}
        candidates = np.flatnonzero(self.member)
        scores, ties = self.scores[candidates], tie[candidates]
        levels = np.unique(self.scores[positions])  # ascending
        level = np.searchsorted(levels, scores, side="left")  # how many levels are below a score
        # higher[j]: the candidates above level j - 1, i.e. scoring more than levels[j - 1]
        higher = np.cumsum(np.bincount(level, minlength=len(levels) + 1)[::-1])[::-1]
        equal = np.flatnonzero(scores == levels[np.minimum(level, len(levels) - 1)])
        order = np.lexsort((ties[equal], level[equal]))
        equal_level, equal_tie = level[equal][order], ties[equal][order]
        ranked = {}
        for position in positions:
            at = int(np.searchsorted(levels, self.scores[position]))
            first, last = np.searchsorted(equal_level, [at, at + 1])
            before = int(np.searchsorted(equal_tie[first:last], tie[position]))
            ranked[position] = int(higher[at + 1]) + before + 1
        return ranked


def _lexical(index: SearchIndex, query: str, accepted: Mask, outcome: Outcome) -> _Lexical | None:
    stage = _Stage(outcome, "bm25")
    try:
        branch = _coverage(index, list(dict.fromkeys(tokens(query))), accepted)
    except Exception:  # the branch fails alone; the other one may still answer
        log.exception("search: bm25 branch failed")
        stage.done("failed", 0)
        return None
    stage.done("ok", int(np.count_nonzero(branch.member)))
    return branch


def _coverage(index: SearchIndex, terms: list[str], accepted: Mask) -> _Lexical:
    """Per position: the BM25 score (the sum of its terms' scores) and the IDF-weighted share of
    the query's terms it contains. IDF over the visible documents: a term every note has weighs
    almost nothing, a term no note has still counts in the whole (nothing covers it)."""
    size = len(accepted)
    scores = np.zeros(size, dtype=np.float64)
    covered = np.zeros(size, dtype=np.float64)
    total = 0.0
    documents = max(int(np.count_nonzero(index.visible())), 1)
    for term in terms:
        # Only the term's postings are touched (a position appears once in them): the same sums
        # as adding the term's score array of every position, without the array.
        positions, term_scores = index.postings(term)
        found = positions[term_scores > 0]
        frequency = len(found)
        weight = math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))
        scores[positions] += term_scores
        covered[found] += weight
        total += weight
    coverage = covered / total if total > 0 else covered
    return _Lexical(member=(scores > 0) & accepted, scores=scores, coverage=coverage)


@dataclass
class _Semantic:
    """The vector branch: every position's similarity read two ways, over the query's
    similarities (`z`) and against the note's own level over the probe queries (`note_z`,
    probes.py), and the two together, `score` (0 where a position has no vector); its candidates
    best score first; the best and second-best score of each language's accepted positions (for
    `gap`); which positions have a vector."""

    z: Floats
    note_z: Floats
    score: Floats
    candidates: npt.NDArray[np.intp]
    #: Per position: the note is mostly Chinese (its language, for `gap`).
    chinese: Mask
    #: Per language (index 0: not Chinese, 1: Chinese): its leading group (`_leading_group`).
    groups: tuple[_Group, _Group]
    embedded: Mask

    def gap(self, positions: npt.NDArray[np.intp]) -> Floats:
        """How far each position's score stands above the rest of its language: a note of the
        language's leading group above the first note below the group, any other note above the
        best (a negative gap). A note and its translation (a bilingual user writes both) do not
        compete: each is read against the notes of its own language; near-equal notes on one
        thing do not either: they are one group. A note not yet embedded (written since the
        last build step) has no gap: its similarity is unknown, not low, so a literal match
        written a moment ago is not ranked under a semantic guess."""
        score = self.score[positions]
        language = self.chinese[positions].astype(np.intp)
        best = np.asarray([group.best for group in self.groups])[language]
        lowest = np.asarray([group.lowest for group in self.groups])[language]
        below = np.asarray([group.below for group in self.groups])[language]
        other = np.where(score >= lowest, below, best)
        return np.asarray(np.where(self.embedded[positions], score - other, 0.0), dtype=np.float64)


@dataclass(frozen=True)
class _Group:
    """A language's leading group: its best score, the lowest score in the group (a score at or
    above it is in the group) and the first score below the group (each member's gap is measured
    to it). With one member: best == lowest, below the second-best score. No usable note: 0s."""

    best: float
    lowest: float
    below: float


def _vector(
    index: SearchIndex, query: str, embedder: Embedder | None, accepted: Mask, outcome: Outcome
) -> _Semantic | None:
    stage = _Stage(outcome, "vector")
    if embedder is not None and not len(index.tie_order()):
        # No note at all (a new account): nothing to compare with is an empty answer, not a
        # missing branch (its index has no dimension only because it has no vector).
        stage.done("ok", 0)
        return None
    if embedder is None or index.dimension is None:
        stage.done("unavailable", 0)
        return None
    try:
        branch = _similarity(index, query, embedder, accepted)
    except ProviderError:
        log.warning("search: vector branch failed", exc_info=True)
        stage.done("failed", 0)
        return None
    stage.done("ok", len(branch.candidates))
    return branch


def _similarity(index: SearchIndex, query: str, embedder: Embedder, accepted: Mask) -> _Semantic:
    # wait=False: right after a start the warm-up may still be parsing the dictionary; this query
    # then goes without the gloss rather than queueing behind it (a Lambda container, with no
    # warm-up, parses it on its first such query).
    gloss = GLOSSARY.translate(query, wait=False) if _has_other_language(index, query) else None
    helper = _GLOSS_HELPER.submit(_scored_against, index, embedder, gloss) if gloss is not None else None
    try:
        query_vector, similarity = _scored_against(index, embedder, query)
    except BaseException:
        if helper is not None:
            helper.cancel()
        raise
    if helper is not None and gloss is not None:
        # Not started yet (the helpers are busy with other searches): run it here, no later
        # than one thread would have.
        gloss_vector, gloss_similarity = _scored_against(index, embedder, gloss) if helper.cancel() else helper.result()
        # Cosines are linear: V . unit(q + g) = (V . q + V . g) / |q + g|. Kept as its own
        # contiguous array beside the query's (not stacked as columns: every later pass over a
        # column of a two-column array strides through twice the memory).
        together = (similarity + gloss_similarity) / max(float(np.linalg.norm(query_vector + gloss_vector)), 1e-12)
    else:
        together = None
    # NaN: no vector; an infinite cosine (a provider's vector out of float32's range) says no more.
    embedded = np.isfinite(similarity)
    usable = accepted & embedded
    prior = getattr(embedder, "similarity_prior", None)
    chinese_query = is_chinese(query)
    chinese = index.chinese()
    other = chinese != chinese_query
    z = _standard(similarity, usable, prior)
    if together is not None:  # a note of the other language: the query or the query plus its gloss
        z = np.where(other, np.maximum(z, _standard(together, usable, prior)), z)
    z[~usable] = 0.0
    probes = probes_for(embedder)
    note_z = z if probes is None else _note_z(index, probes, similarity, together, chinese_query, other, usable)
    score = np.asarray((z + note_z) * 0.5)
    score[~usable] = 0.0
    ranked = np.flatnonzero(usable & (score >= VECTOR_MIN_Z))
    if len(ranked) < CLOSEST_MATCHES:  # the nearest few are always candidates: "closest matches"
        nearest, _score = _first(index, np.flatnonzero(usable), score[usable].astype(np.float64), CLOSEST_MATCHES)
        ranked = np.union1d(ranked, nearest)
    # The best VECTOR_CANDIDATES by score, then key: notes tied at the cut (equal texts have
    # equal vectors) are kept or dropped by key, not by where a partition happened to put them.
    candidates, _scores = _first(index, ranked, score[ranked], VECTOR_CANDIDATES)
    offsets = index.language_offsets()
    usable_scores = np.where(usable, score, -np.inf)
    groups = (_leading_group(usable_scores + offsets[0]), _leading_group(usable_scores + offsets[1]))
    return _Semantic(
        z=z, note_z=note_z, score=score, candidates=candidates, chinese=chinese, groups=groups, embedded=embedded,
    )  # fmt: skip


def _leading_group(values: Floats) -> _Group:
    """One language's leading group (`values`: its usable scores, -inf elsewhere; changed in
    place). The leading scores are read one maximum at a time (a linear pass each, ~0.05 ms at
    100k; a partition of every score to find a head took ~1.5 ms) while they stay within
    GROUP_BAND of the best, at most GROUP_MAX + 1 of them: a lone answer, more than the band
    above the next, costs two passes as before. The group ends at the widest drop between two
    consecutive leading scores (the first, on a tie): a note and its near-equal rewrite are a
    group, and so is three of a kind, while a note one drop below the best is not pulled in by a
    wider drop under it unless it is within the band. A score that is no number (NaN, or +inf:
    a provider's vector out of float32's range) is read as none, like an unusable position:
    argmax meets such a score first, so the common case pays no extra pass for it."""
    leading: list[float] = []
    while len(leading) < GROUP_MAX + 1 and len(values):
        top = int(np.argmax(values))
        value = float(values[top])
        if value == -np.inf:  # no more usable positions of this language
            break
        if not math.isfinite(value):  # only ever the first: argmax returns a NaN, else an inf, first
            values[~np.isfinite(values)] = -np.inf
            continue
        leading.append(value)
        values[top] = -np.inf
        if leading[0] - value > GROUP_BAND:  # below the band: the last one the group can be measured to
            break
    if not leading:
        return _Group(0.0, 0.0, 0.0)
    if len(leading) == 1:
        return _Group(leading[0], leading[0], 0.0)
    # A drop after the c-th leading score can end the group when that score is within the band.
    steps = [leading[c - 1] - leading[c] for c in range(1, len(leading))]
    drops = [
        (steps[c - 1], c)
        for c in range(1, len(leading))
        if leading[0] - leading[c - 1] <= GROUP_BAND and steps[c - 1] >= GROUP_RATIO * max(steps[: c - 1], default=0.0)
    ]
    size = max(drops, key=lambda drop: (drop[0], -drop[1]))[1]
    return _Group(leading[0], leading[size - 1], leading[size])


def _note_z(
    index: SearchIndex,
    probes: Probes,
    similarity: Floats32,
    together: Floats32 | None,
    chinese_query: bool,
    other: Mask,
    usable: Mask,
) -> Floats:
    """Each note's similarity over its own level: minus its mean similarity to the probe queries
    of the query's language, over the model's spread of such similarities (probes.py); 0 where a
    position is not usable. A "hub" note, near every query, is ordinary for an unrelated one. A
    note of the other language, when the query has a gloss, is read by the query plus its gloss
    against the probes' pairs (the query alone against the probes of its own language over-read
    long Chinese queries next to English notes: a sentence sits nearer every English note than a
    probe word does). Float32 arithmetic over contiguous rows: under a millisecond at 100k notes."""
    means = index.note_means(probes)
    group = CHINESE if chinese_query else ENGLISH
    note_z = (similarity - means[group]) / probes.spread[group]
    if together is not None:
        np.copyto(note_z, (together - means[MIXED]) / probes.spread[MIXED], where=other)
    note_z[~usable] = 0.0  # no vector (NaN) or not accepted
    return np.asarray(note_z, dtype=np.float64)


def _scored_against(index: SearchIndex, embedder: Embedder, text: str) -> tuple[Vector, Floats32]:
    """`text`'s query embedding and every position's cosine similarity to it (NaN: no vector)."""
    vector = np.asarray(embedder.embed([text], query=True), dtype=np.float32)[0]
    return vector, index.similarities(vector[None, :])[:, 0]


def _has_other_language(index: SearchIndex, query: str) -> bool:
    """A gloss is only worth its embedding when some note is in the query's other language."""
    chinese = index.chinese()
    return bool(np.any(chinese != is_chinese(query))) if len(chinese) else False


def _standard(similarity: npt.NDArray[np.float32], usable: Mask, prior: tuple[float, float] | None) -> Floats:
    """Similarities as z-scores over the usable positions; a small corpus leans on the prior."""
    widened = similarity.astype(np.float64)
    values = widened if usable.all() else widened[usable]  # every position usable: no copy out
    count = len(values)
    if not count and prior is None:
        return np.zeros(len(similarity))
    mean, std = (float(values.mean()), float(values.std())) if count else prior  # type: ignore[misc]
    if prior is not None and count < DISTRIBUTION_MIN:
        share = count / DISTRIBUTION_MIN
        prior_mean, prior_std = prior
        blended = share * mean + (1 - share) * prior_mean
        variance = share * (std**2 + (mean - blended) ** 2) + (1 - share) * (prior_std**2 + (prior_mean - blended) ** 2)
        mean, std = blended, math.sqrt(variance)
    return np.asarray((widened - mean) / max(std, 1e-6))


def logit(coverage: Floats, similarity: Floats, gap: Floats) -> Floats:
    """The fused score before the sigmoid (same order; fusion ranks on it, see `confidence`).
    `similarity`: the vector branch's score (`_Semantic.score`), `gap` its gap."""
    # Below the mean a similarity is no evidence against a hit (a keyword query can match a long
    # note the vector places anywhere); a gap is counted down to -1 (one deviation under the best).
    evidence = W_COVERAGE * coverage**3 + W_SIMILARITY * np.maximum(similarity, 0.0) + W_GAP * np.maximum(gap, -1.0)
    return np.asarray(evidence + BIAS)


def confidence(coverage: Floats, similarity: Floats, gap: Floats) -> Floats:
    """The fused score (0-1): the calibrated chance that a candidate is what the query asks for."""
    return _sigmoid(logit(coverage, similarity, gap))


def _sigmoid(values: Floats) -> Floats:
    return np.asarray(1.0 / (1.0 + np.exp(-values)))


def _fuse(
    index: SearchIndex, lexical: _Lexical | None, semantic: _Semantic | None, outcome: Outcome
) -> tuple[npt.NDArray[np.intp], Floats]:
    """Every candidate of either branch with its fused logit (positions ascending)."""
    stage = _Stage(outcome, "fusion")
    member = np.zeros(len(index.tie_order()), dtype=bool)
    if lexical is not None:
        member |= lexical.member
    if semantic is not None:
        member[semantic.candidates] = True
    positions = np.flatnonzero(member)
    coverage = lexical.coverage[positions] if lexical is not None else np.zeros(len(positions))
    if semantic is not None:
        similarity, gap = semantic.score[positions], semantic.gap(positions)
    else:  # BM25 alone: no similarity evidence either way
        similarity, gap = np.zeros(len(positions)), np.zeros(len(positions))
    stage.done("ok", len(positions))
    return positions, logit(coverage, similarity, gap)  # the sigmoid only for what is returned (search)


def _first(
    index: SearchIndex, positions: npt.NDArray[np.intp], scores: Floats, limit: int | None
) -> tuple[npt.NDArray[np.intp], Floats]:
    """`positions` best score first, ties by key, cut at `limit` (only the positions scoring at
    least the limit-th best are sorted: a partition, ties at the edge kept)."""
    if limit is not None and limit < len(positions):
        if limit <= 0:
            return positions[:0], scores[:0]
        keep = scores >= _kth_largest(scores, limit)
        positions, scores = positions[keep], scores[keep]
    order = np.lexsort((index.tie_order()[positions], -scores))
    positions, scores = positions[order], scores[order]
    return (positions, scores) if limit is None else (positions[:limit], scores[:limit])


def _kth_largest(scores: Floats, k: int) -> float:
    """The `k`-th largest of `scores` (1 <= k <= len). A sample's k-th largest is at most it, so
    only the scores at or above a strided sample's are partitioned: the same value, for ~0.1 ms
    where partitioning all of 58k fused candidates took ~0.5."""
    step = len(scores) // KTH_SAMPLE
    if step > 1:
        sample = scores[::step]
        if len(sample) >= k:
            scores = scores[scores >= np.partition(sample, len(sample) - k)[len(sample) - k]]
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])


def _rerank(
    index: SearchIndex,
    query: str,
    fused: tuple[npt.NDArray[np.intp], Floats],
    candidates: int,
    reranker: Reranker | None,
    outcome: Outcome,
) -> tuple[npt.NDArray[np.intp], Floats, float]:
    """The order and scores the answer takes, and the floor that splits them. `fused`: the
    fused order as far as the answer can reach; `candidates`: how many fusion had."""
    stage = _Stage(outcome, "rerank")
    positions, scores = fused
    if not candidates:
        stage.done("skipped", 0)
        return positions, scores, FLOOR
    if reranker is None:
        stage.done("fused", candidates)
        return positions, scores, FLOOR
    head = positions[:RERANK_CANDIDATES]
    try:
        relevance: list[float] = []
        for start in range(0, len(head), RERANK_BATCH):
            texts = [index.entry_at(int(position)).doc.text for position in head[start : start + RERANK_BATCH]]
            relevance += reranker.rerank(query, texts)
        if len(relevance) != len(head):
            raise ValueError("the reranker answered another number of scores")
    except (ProviderError, ValueError):
        log.warning("search: rerank failed; keeping the fused order", exc_info=True)
        stage.done("failed", len(head))
        return positions, scores, FLOOR
    stage.done("ok", len(head))
    order, reranked = _first(index, head, np.asarray(relevance, dtype=np.float64), None)
    return order, reranked, float(getattr(reranker, "min_relevance", FLOOR))


def search(
    index: SearchIndex,
    query: str,
    *,
    embedder: Embedder | None,
    reranker: Reranker | None,
    accept: Accept,
    accept_key: Hashable | None = None,
    limit: int | None = None,
    floor: float | None = None,
) -> Outcome:
    """`accept_key` names the filter `accept` is (equal keys, equal filters): the index keeps its
    mask per snapshot, so a repeated filter costs no Python call per document. `floor` replaces
    the calibrated floor (0: every candidate is a hit, as the relevance test reads them)."""
    outcome = Outcome(hits=[])
    if not has_words(query):
        for name in ("bm25", "vector", "fusion", "rerank"):
            _Stage(outcome, name).done("skipped", 0)
        return outcome
    index = index.frozen()  # a write applied meanwhile changes the cached index, not this search
    accepted = index.accepted(accept, accept_key)
    lexical = _lexical(index, query, accepted, outcome)
    semantic = _vector(index, query, embedder, accepted, outcome)
    if lexical is None and semantic is None:
        raise ServiceUnavailable("AI search is unavailable right now (no search branch answered); try again later")
    # A new account's index has no note and so no vector: its vector branch answered (nothing).
    nothing_to_compare = embedder is not None and not len(index.tie_order())
    outcome.degraded = lexical is None or (semantic is None and not nothing_to_compare)
    positions, scores = _fuse(index, lexical, semantic, outcome)
    wanted = None if limit is None else max(limit, 0) + CLOSEST_MATCHES
    if reranker is not None:
        wanted = max(wanted or 0, RERANK_CANDIDATES)
    first, logits = _first(index, positions, scores, wanted)
    ordered, scored, calibrated = _rerank(index, query, (first, _sigmoid(logits)), len(positions), reranker, outcome)
    bar = calibrated if floor is None else floor
    confident = int(np.count_nonzero(scored >= bar))  # `scored` is best first
    cap = len(ordered) if limit is None else max(limit, 0)
    shown = min(confident, cap)
    # "Less related" follow only a complete answer: when `limit` cut confident hits, none.
    below = 0 if confident > cap else min(CLOSEST_MATCHES, cap, len(ordered) - confident)
    vector_rank = {} if semantic is None else {int(p): at + 1 for at, p in enumerate(semantic.candidates.tolist())}
    returned = []
    for at, (position, score) in enumerate(zip(ordered.tolist(), scored.tolist(), strict=True)):
        if at < shown:
            returned.append((outcome.hits, position, score))
        elif confident <= at < confident + below:
            returned.append((outcome.closest, position, score))
    lexical_rank = {}
    if lexical is not None:
        members = [position for _target, position, _score in returned if lexical.member[position]]
        lexical_rank = lexical.ranks(members, index.tie_order())
    for target, position, score in returned:
        doc = index.entry_at(position).doc
        target.append((doc, round(score, 6)))
        outcome.ranks[doc.key] = _ranks_of(position, lexical_rank, vector_rank)
    return outcome


def _ranks_of(position: int, lexical_rank: dict[int, int], vector_rank: dict[int, int]) -> dict[str, int]:
    """A returned hit's rank (1 = best) in each branch that has it as a candidate."""
    ranks: dict[str, int] = {}
    if position in lexical_rank:
        ranks["bm25"] = lexical_rank[position]
    if position in vector_rank:
        ranks["vector"] = vector_rank[position]
    return ranks
