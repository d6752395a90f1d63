"""Search tokens for Chinese, English and mixed text.

bm25s's own splitter keeps a run of Han characters as one token (a whole Chinese memo becomes a
single word), so text is cut into script runs first: Han runs go to jieba's search mode (words
and the shorter words inside them: 北京大学 -> 北京, 大学, 北京大学; jieba's own cuts over a
compact copy of its dictionary, segmenter.py), other runs to a Unicode word splitter. Everything
is NFKC-normalised and case-folded, so full-width Latin letters and case never matter, and a
traditional Chinese character reads as its simplified form (traditional.py, as literal search
reads it: 醫院複診 and 医院复诊 are the same terms).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from .literal_kind import casefold
from .traditional import to_simplified

if TYPE_CHECKING:
    from .segmenter import Segmenter

#: The terms' version, kept in the AI index's pointer: an index stored under another has its terms
#: made again on its next build, its vectors kept (persist.py). 5: the dotted capital İ is i
#: (literal_kind.casefold: "İstanbul" was the term "stanbul"); 4: a number with the date unit
#: after it (12月) is a term too, C++ and C# are terms; 3: a word of other letters or
#: digits ends where a Han run begins, and Han counts U+3007, 々 and the supplementary planes;
#: an English plural is its singular (`singular`);
#: 2: traditional Chinese reads as simplified; 1 (a pointer without one): NFKC and casefold alone.
TOKENS_FORMAT = 5

# Han (CJK unified ideographs and extension A, compatibility ideographs, the supplementary planes'
# extensions B-H and compatibility supplement, the iteration mark 々 and the zero U+3007), kana, hangul.
CJK_CHARACTERS = _CJK = (
    "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U000323af\u3040-\u30ff\uac00-\ud7af"
)
#: Script runs: a CJK run, or a word of any other letters and digits. The word's class leaves the
#: CJK characters out (they are word characters too): "跑步5公里" is 跑步, 5, 公里, where a word
#: starting at the 5 took 公里 with it and no query word found it. A word's `++` or a `#` ending it
#: stays on it: C++, C# and F# are languages, not the letter c.
_RUNS = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+(?:\+\+|#(?![^\W_{_CJK}]))?)")
#: Words that carry no search weight in either language: function words, pronouns and particles
#: (the ISO lists drop content words such as "computer" or 问题, so the list is our own, short).
#: A query term in this list is never a BM25 term, so a note cannot match on it alone.
_STOPWORD_TEXT = """
    a an and are as at be by for from has have in is it its of on or that the this to was were will with
    about after again all am any because been before being but can could did do does doing into just me
    more most my no nor not now off once only our out over own same should so some such than then there
    these they those through too under until up very what when where which while who whom why would you
    your i we he she him her his them their us
    的 了 和 是 在 我 也 就 都 而 及 与 着 或 一个 没有 我们 你们 他们
    里 个 吗 呢 吧 啊 呀 嘛 很 太 要 会 能 得 地 过 把 被 给 让 对 从 向 到 这 那 有 些 之 其 你 他 她 它
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def segmenter() -> Segmenter:
    """jieba over its dictionary as a memory-mapped trie (segmenter.py): the same cuts, 3 MB
    instead of 62 MB, loaded at once instead of in a second or two. Imported here (jieba's own
    modules: 0.3 s of tables), so text without Han characters never pays for it."""
    from .segmenter import segmenter as compact

    return compact()


def tokens(text: str) -> list[str]:
    """The BM25 terms of `text`, in order, stopwords dropped."""
    normal = to_simplified(casefold(unicodedata.normalize("NFKC", text)))
    out: list[str] = []
    runs = list(_RUNS.finditer(normal))
    for at, run in enumerate(runs):
        han, word = run.groups()
        if han:
            out.extend(part for part in segmenter().cut_for_search(han) if part.strip())
            continue
        out.append(word)
        after = runs[at + 1] if at + 1 < len(runs) else None
        unit = after.group(1)[0] if after and after.start() == run.end() and after.group(1) else ""
        if unit in _DATE_UNITS and word.isascii() and word.isdigit():  # 12月, 18日, 9点: beside 12, 18, 9
            out.append(word + unit)
    return [singular(term) for term in out if term not in STOPWORDS]


#: The units of a date or a time written after its number (12月18日, 上午9点, 2026年, 5号).
_DATE_UNITS = frozenset("年月日号点时分秒")


_ENGLISH_WORD = re.compile(r"[a-z]{4,}")


def singular(word: str) -> str:
    """An English plural read as its singular, Harman's "S" stemmer (1991): -ies -> -y, -es -> -e
    (not -aes, -ees, -oes), -s -> nothing (not -us, -ss); words of four or more ASCII letters only.
    Without it "keyboards" shared no term with "keyboard", and of several notes about keyboards
    only the one nearest in meaning stayed above the floor. Weak on purpose: it rarely merges two
    words (news, new), never touches a verb's tense, and an odd stem (boxes -> boxe) only misses,
    as the plain word did."""
    if not _ENGLISH_WORD.fullmatch(word):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word
