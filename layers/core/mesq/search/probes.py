"""Probe queries: how near each note sits to queries in general, so a "hub" note stops answering
every query (docs/search.md "Fusion, the floor and the score").

e5 similarities sit high and close together, and some notes sit higher than others for *every*
query: a short note of generic words ("Reading notes: Thinking Fast and Slow, anchoring bias")
was the nearest note to 股票, 学日语, 吉他 and `%_%` alike, and the query-relative z-score made
it a confident answer to each. So a note's similarity is also read against the note's own
level: its mean similarity to a fixed set of probe queries, over the model's spread of such
similarities (the note side of "s-norm"; CSLS's penalty in cross-lingual retrieval). A hub's
similarity to an unrelated query is ordinary for it; the right note's similarity to its query
stands far above its own mean.

The probes: 256 Chinese words taken evenly from jieba's dictionary (nouns and verbs of two to
four characters, middling frequency: everyday topics, no rare names) and each word's CC-CEDICT
gloss in English, embedded as queries (infra/search_probes.py). A note's mean is kept per probe
group: the Chinese words, the English glosses, and each pair together (unit(zh + en), shaped as
the pipeline's query + gloss vector is), because a Chinese note sits lower for every English
query. The mean is linear in the note's vector (v . p̄, p̄ the group's mean probe), so a note's
three means cost three dot products; the spread is one number per group, the median over the
relevance set's notes of a note's standard deviation over the group (a note's own deviation
ranked the paraphrases no better and costs a product with every probe: 4.5 s per 100k notes).

The bundled model's probe vectors and spreads ship beside this file (`probes.npz`: the texts,
the model's name, float16 vectors, the spreads; `python infra/search_probes.py` writes it again).
Another model has no probes: fusion reads its notes by the query side alone (pipeline.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ..kernel.ports.models import Embedder

SHIPPED = Path(__file__).with_name("probes.npz")
Matrix = npt.NDArray[np.float32]
#: The probe groups, in the order of `Probes.centroids` and of a part's columns of means.
CHINESE, ENGLISH, MIXED = 0, 1, 2


@dataclass(frozen=True)
class Probes:
    """`centroids`: each group's mean probe vector (rows: Chinese, English, the pairs together);
    `spread`: each group's spread of a note's similarity to its probes; `name`: the model's."""

    name: str
    centroids: Matrix
    spread: Matrix

    def means(self, vectors: Matrix) -> Matrix:
        """Per group and row of `vectors` (unit note vectors): the row's mean similarity to the
        group's probes (shape: 3 x rows, each group's row contiguous for a query's arithmetic)."""
        return np.ascontiguousarray(self.centroids @ vectors.T, dtype=np.float32)


def _unit(matrix: npt.ArrayLike) -> Matrix:
    array = np.asarray(matrix, dtype=np.float32)
    return np.asarray(array / np.maximum(np.linalg.norm(array, axis=1, keepdims=True), 1e-12), dtype=np.float32)


def groups(chinese: npt.ArrayLike, english: npt.ArrayLike) -> tuple[Matrix, Matrix, Matrix]:
    """The three probe groups' unit vectors from the words' and the glosses' vectors."""
    zh, en = _unit(chinese), _unit(english)
    return zh, en, _unit(zh + en)


@cache
def shipped() -> Probes:
    with np.load(SHIPPED, allow_pickle=False) as archive:
        vectors = archive["vectors"].astype(np.float32)
        count = len(archive["chinese"])
        centroids = np.stack([group.mean(axis=0) for group in groups(vectors[:count], vectors[count:])])
        return Probes(str(archive["model"]), centroids, archive["spread"].astype(np.float32))


def probes_for(embedder: Embedder) -> Probes | None:
    """The probes of `embedder`'s model: the shipped ones when it is the model they were made
    with, else None (the weights are fitted on the bundled model only)."""
    probes = shipped()
    return probes if probes.name == embedder.name else None
