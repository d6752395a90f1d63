"""Probe queries: how near each note sits to queries in general, so a "hub" note stops answering
every query (docs/search.md "Fusion, the floor and the score").

e5 similarities sit high and close together, and some notes sit higher than others for *every*
query: a short note of generic words ("Reading notes: Thinking Fast and Slow, anchoring bias")
was the nearest note to 股票, 学日语, 吉他 and `%_%` alike, and the query-relative z-score made
it a confident answer to each. The fix reads a note's similarity against the note's own
distribution as well: its mean and spread over a fixed set of probe queries (the note side of
"s-norm", CSLS in cross-lingual retrieval). A hub's similarity to an unrelated query is
ordinary for it; the right note's similarity to its query is far above its own mean.

The probes: 256 Chinese words taken evenly from jieba's dictionary (nouns and verbs of two to
four characters with a middling frequency: everyday topics, no rare names) and each word's
CC-CEDICT gloss in English, embedded as queries. A note's statistics are kept per probe
language (Chinese, English, and the two together as the pipeline's query + gloss vector is):
a Chinese note sits lower for every English query, and its twin in English is read against
English queries, not against the Chinese ones its own language lifts.

Embedding 512 probes costs seconds, so the bundled model's vectors ship beside this file
(`probes.npz`: the texts, the model's name and float16 vectors; `python -m mesq.search.probes`
writes it again). Another local model (`SentenceTransformerEmbedder`, `embeds_probes = True`)
embeds the shipped texts once per process; a remote one (Bedrock) has no probes: its notes'
statistics are unknown and fusion reads the query side alone (pipeline.py `_note_z`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ..kernel.ports.models import Embedder

SHIPPED = Path(__file__).with_name("probes.npz")
#: Probe words per language.
COUNT = 256
#: Rows of one matrix product while a part's statistics are computed (bounds the memory: 8192 x
#: 768 float32 is 24 MB).
CHUNK = 8192
Matrix = npt.NDArray[np.float32]
#: The probe groups, in the order of `Probes.vectors`' blocks and of a part's statistics columns.
CHINESE, ENGLISH, MIXED = 0, 1, 2


@dataclass(frozen=True)
class Probes:
    """Unit vectors of the probe queries: Chinese words, their English glosses, and each pair
    together (unit(zh + en), shaped like the pipeline's query + gloss vector), stacked in that
    order, COUNT rows each. `name`: the embedding model's."""

    name: str
    vectors: Matrix

    def statistics(self, vectors: Matrix) -> tuple[Matrix, Matrix]:
        """Per row of `vectors` (unit note vectors) and probe group: the mean and the standard
        deviation of its similarity to the group's probes, shape (rows, 3) each."""
        rows = len(vectors)
        mean = np.zeros((rows, 3), dtype=np.float32)
        spread = np.ones((rows, 3), dtype=np.float32)
        count = len(self.vectors) // 3
        for start in range(0, rows, CHUNK):
            block = vectors[start : start + CHUNK] @ self.vectors.T
            for group in (CHINESE, ENGLISH, MIXED):
                scores = block[:, group * count : (group + 1) * count]
                mean[start : start + CHUNK, group] = scores.mean(axis=1)
                spread[start : start + CHUNK, group] = np.maximum(scores.std(axis=1), 1e-4)
        return mean, spread


def _unit(matrix: npt.ArrayLike) -> Matrix:
    array = np.asarray(matrix, dtype=np.float32)
    return array / np.maximum(np.linalg.norm(array, axis=1, keepdims=True), 1e-12)


def _probes(name: str, chinese: npt.ArrayLike, english: npt.ArrayLike) -> Probes:
    zh, en = _unit(chinese), _unit(english)
    return Probes(name, np.concatenate([zh, en, _unit(zh + en)]).astype(np.float32))


def _shipped() -> tuple[str, list[str], list[str], npt.NDArray[np.float16]]:
    with np.load(SHIPPED, allow_pickle=False) as archive:
        return (
            str(archive["model"]), [str(t) for t in archive["chinese"]], [str(t) for t in archive["english"]],
            archive["vectors"],
        )  # fmt: skip


_loaded: dict[str, Probes | None] = {}
_lock = threading.Lock()


def probes_for(embedder: Embedder) -> Probes | None:
    """The probe vectors of `embedder`'s model: the shipped ones when it is the model they were
    made with, else (a local model that says it can) its own embedding of the shipped texts,
    once per process; None for a model without them."""
    name = embedder.name
    if name in _loaded:
        return _loaded[name]
    with _lock:
        if name not in _loaded:
            _loaded[name] = _made(embedder)
        return _loaded[name]


def _made(embedder: Embedder) -> Probes | None:
    model, chinese, english, vectors = _shipped()
    if model == embedder.name:
        return _probes(model, vectors[: len(chinese)], vectors[len(chinese) :])
    if not getattr(embedder, "embeds_probes", False):
        return None
    embedded = np.asarray(embedder.embed(chinese + english, query=True), dtype=np.float32)
    return _probes(embedder.name, embedded[: len(chinese)], embedded[len(chinese) :])


def probe_words() -> tuple[list[str], list[str]]:
    """The probe texts, made again: COUNT Chinese words evenly over jieba's dictionary (nouns and
    verbs, 2-4 characters, frequency 300-30,000) that CC-CEDICT glosses in under 40 characters,
    and their glosses."""
    import jieba

    from .crosslingual import GLOSSARY

    words = []
    with open(Path(jieba.__file__).with_name("dict.txt"), encoding="utf-8") as dictionary:
        for line in dictionary:
            word, frequency, tag = line.split()
            if tag in ("n", "v", "vn", "nz") and 2 <= len(word) <= 4 and 300 <= int(frequency) <= 30000:
                words.append(word)
    words.sort()
    chinese, english = [], []
    for word in words[:: len(words) // 300]:
        gloss = GLOSSARY.translate(word)
        if gloss and len(gloss) < 40 and len(chinese) < COUNT:
            chinese.append(word)
            english.append(gloss)
    return chinese, english


def main() -> None:
    """Write probes.npz for the bundled model (the texts made again, then embedded)."""
    from ..adapters.models.local_models import BundledEmbedder

    chinese, english = probe_words()
    embedder = BundledEmbedder()
    vectors = np.asarray(embedder.embed(chinese + english, query=True), dtype=np.float16)
    np.savez_compressed(
        SHIPPED, model=np.array(embedder.name), chinese=np.array(chinese), english=np.array(english), vectors=vectors
    )
    print(f"{SHIPPED}: {len(chinese)} + {len(english)} probes, model {embedder.name}")


if __name__ == "__main__":
    main()
