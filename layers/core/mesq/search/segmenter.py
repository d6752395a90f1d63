"""jieba's segmentation over a compact copy of its dictionary.

jieba keeps its dictionary as a Python dict of every word and every prefix of a word (498,113
keys): about 62 MB of a process's memory, a third of `mesq serve`'s once search has loaded
(docs/performance.md, "Memory"). The same words and frequencies fit in a 1.7 MB MARISA trie
(`marisa-trie`, memory-mapped, so only the pages a lookup touches are resident, and they are
shared between processes) and a 1.4 MB array of frequencies by the trie's key id, built from
jieba's own `dict.txt` and shipped beside this module (`jieba_dict.marisa`,
`jieba_dict.freq`: little-endian uint32; the word count and frequency total in `jieba_dict.json`;
`tests/search/test_segmenter.py` rebuilds it and compares, and `python -m
mesq.search.segmenter` writes it again).

`Segmenter` is jieba's `Tokenizer` with only the dictionary look-ups replaced: the word graph
of a sentence (`get_DAG`: every dictionary word starting at each position, one trie walk per
position) carries each word's frequency to `calc`, and what else reads `FREQ` (the HMM for
unknown words, `cut_for_search`'s 2- and 3-grams) reads the trie. So every cut is jieba's
(the test compares them over a corpus); the dictionary cannot be changed at run time
(`add_word` is not used here).
"""

from __future__ import annotations

import array
import json
import math
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import marisa_trie


@contextmanager
def _pkg_resources_hidden() -> Iterator[None]:
    """jieba reads its files through pkg_resources whenever that imports, and importing it
    (setuptools' scan of every installed distribution) took 0.2-0.3 s of a server's first search;
    Lambda's runtime has no setuptools, so there jieba already opens the same files from its own
    folder. It does so here too: pkg_resources is hidden while jieba imports (unless something
    has imported it already) and only then."""
    hidden = "pkg_resources" not in sys.modules
    if hidden:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # `import` raises ImportError
    try:
        yield
    finally:
        if hidden:
            del sys.modules["pkg_resources"]


with _pkg_resources_hidden():
    import jieba
    import jieba.finalseg  # its HMM tables: read through the same helper

HERE = Path(__file__).parent
TRIE_FILE = HERE / "jieba_dict.marisa"
FREQUENCY_FILE = HERE / "jieba_dict.freq"
TOTALS_FILE = HERE / "jieba_dict.json"
#: jieba's longest dictionary word has 16 characters: a trie walk never needs more of the text.
_LONGEST = 16


def source_words() -> Iterator[tuple[str, int]]:
    """jieba's `dict.txt` as (word, frequency), in file order (a repeated word: its last line wins
    in the trie, every line counts in the total, as jieba's own `gen_pfdict` does)."""
    path = Path(jieba.__file__).parent / "dict.txt"
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            word, frequency = line.split(" ", 2)[:2]
            yield word, int(frequency)


def build() -> tuple[marisa_trie.Trie, array.array[int], dict[str, int]]:
    """The trie, the frequency of each of its key ids, and the totals, from jieba's dictionary."""
    frequencies: dict[str, int] = {}
    total = 0
    for word, frequency in source_words():
        frequencies[word] = frequency
        total += frequency
    trie = marisa_trie.Trie(frequencies)
    by_id = array.array("I", bytes(4 * len(trie)))
    for word, frequency in frequencies.items():
        by_id[trie.key_id(word)] = frequency
    return trie, by_id, {"words": len(frequencies), "total": total}


class Frequencies:
    """jieba's `FREQ` read from the trie: a word's frequency, 0 for a prefix of a word (jieba
    stores those too: "is there a longer word?"), absent otherwise. Read-only."""

    __slots__ = ("_by_id", "_trie")

    def __init__(self, trie: marisa_trie.Trie, by_id: array.array[int]) -> None:
        self._trie, self._by_id = trie, by_id

    def get(self, key: str, default: Any = None) -> Any:
        found = self._trie.get(key)
        if found is not None:
            return self._by_id[found]
        return 0 if next(self._trie.iterkeys(key), None) is not None else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and next(self._trie.iterkeys(key), None) is not None

    def __getitem__(self, key: str) -> int:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return int(value)


class _WordGraph(dict[int, list[int]]):
    """jieba's DAG (start -> the ends of the words starting there), with each edge's frequency."""

    def __init__(self) -> None:
        super().__init__()
        self.frequency: dict[tuple[int, int], int] = {}


class Segmenter(jieba.Tokenizer):  # type: ignore[misc]  # jieba has no type hints
    def __init__(self, trie: marisa_trie.Trie, by_id: array.array[int], total: int) -> None:
        super().__init__()
        self._trie, self._by_id = trie, by_id
        self.FREQ = Frequencies(trie, by_id)
        self.total = total
        self.initialized = True

    def initialize(self, dictionary: Any = None) -> None:
        """Loaded at construction; jieba's own dictionary is never read."""

    def get_DAG(self, sentence: str) -> _WordGraph:
        graph = _WordGraph()
        prefixes, by_id, weights = self._trie.iter_prefixes_with_ids, self._by_id, graph.frequency
        for start in range(len(sentence)):
            ends = []
            for word, key_id in prefixes(sentence[start : start + _LONGEST]):
                frequency = by_id[key_id]
                if frequency:
                    end = start + len(word) - 1
                    ends.append(end)
                    weights[(start, end)] = frequency
            graph[start] = ends or [start]
        return graph

    def calc(self, sentence: str, DAG: dict[int, list[int]], route: dict[int, tuple[float, int]]) -> None:
        if not isinstance(DAG, _WordGraph):
            super().calc(sentence, DAG, route)
            return
        count = len(sentence)
        route[count] = (0, 0)
        log_total = math.log(self.total)
        weights = DAG.frequency
        for start in range(count - 1, -1, -1):
            route[start] = max(
                (math.log(weights.get((start, end)) or 1) - log_total + route[end + 1][0], end) for end in DAG[start]
            )


_lock = threading.Lock()
_loaded: Segmenter | None = None


def segmenter() -> Segmenter:
    """The process's segmenter: the shipped trie memory-mapped (once)."""
    global _loaded
    with _lock:
        if _loaded is None:
            trie = marisa_trie.Trie().mmap(str(TRIE_FILE))
            by_id = array.array("I", FREQUENCY_FILE.read_bytes())
            if sys.byteorder != "little":
                by_id.byteswap()
            totals = json.loads(TOTALS_FILE.read_text(encoding="utf-8"))
            _loaded = Segmenter(trie, by_id, int(totals["total"]))
        return _loaded


def write() -> None:
    """Write the shipped trie, frequencies and totals again from the installed jieba's dictionary."""
    trie, by_id, totals = build()
    trie.save(str(TRIE_FILE))
    if sys.byteorder != "little":
        by_id.byteswap()
    FREQUENCY_FILE.write_bytes(by_id.tobytes())
    TOTALS_FILE.write_text(json.dumps(totals) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
