"""Write layers/core/mesq/search/probes.npz, AI search's probe queries for the bundled model
(mesq/search/probes.py): 256 Chinese words evenly over jieba's dictionary (nouns and verbs,
2-4 characters, frequency 300-30,000) that CC-CEDICT glosses in under 40 characters, their
glosses, both embedded as queries, and each group's spread: the median, over the relevance set's
notes (tests/search/relevance_set.py), of a note's standard deviation of similarity to the
group's probes. Run from the repository root: `python infra/search_probes.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "layers" / "core"), str(ROOT)]

COUNT = 256


def probe_words() -> tuple[list[str], list[str]]:
    import jieba

    from mesq.search.crosslingual import GLOSSARY

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
    from tests.search.relevance_set import MEMOS

    from mesq.adapters.models.local_models import BundledEmbedder
    from mesq.search.probes import SHIPPED, groups

    chinese, english = probe_words()
    embedder = BundledEmbedder()
    vectors = np.asarray(embedder.embed(chinese + english, query=True), dtype=np.float16)
    notes = np.asarray(embedder.embed(list(MEMOS.values())), dtype=np.float32)
    probe_groups = groups(vectors[:COUNT].astype(np.float32), vectors[COUNT:].astype(np.float32))
    spread = np.array([np.median((notes @ group.T).std(axis=1)) for group in probe_groups], dtype=np.float32)
    np.savez_compressed(
        SHIPPED, model=np.array(embedder.name), chinese=np.array(chinese), english=np.array(english),
        vectors=vectors, spread=spread,
    )  # fmt: skip
    print(f"{SHIPPED}: {len(chinese)} + {len(english)} probes, model {embedder.name}, spread {spread.round(4)}")


if __name__ == "__main__":
    main()
