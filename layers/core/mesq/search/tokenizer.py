"""Search tokens for Chinese, English and mixed text.

bm25s's own splitter keeps a run of Han characters as one token (a whole Chinese memo becomes a
single word), so text is cut into script runs first: Han runs go to jieba's search mode (words
and the shorter words inside them: 北京大学 -> 北京, 大学, 北京大学), other runs to a Unicode
word splitter. Everything is NFKC-normalised and case-folded, so full-width Latin letters and
case never matter.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jieba

# Han (CJK unified ideographs and extension A, compatibility ideographs), kana, hangul.
CJK_CHARACTERS = _CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_RUNS = re.compile(rf"([{_CJK}]+)|([^\W_]+)")
_STOPWORD_TEXT = """
    a an and are as at be by for from has have in is it its of on or that the this to was were will with
    的 了 和 是 在 我 也 就 都 而 及 与 着 或 一个 没有 我们 你们 他们
"""
STOPWORDS = _STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_ready = threading.Lock()
_loaded = False


def _segmenter() -> jieba.Tokenizer:
    """jieba's dictionary loads once per process (about a second), quietly; jieba itself is
    imported here too (0.3 s of tables), so text without Han characters never pays either."""
    global _loaded
    import jieba

    with _ready:
        if not _loaded:
            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            _loaded = True
    return jieba.dt


def tokens(text: str) -> list[str]:
    """The BM25 terms of `text`, in order, stopwords dropped."""
    normal = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for han, word in _RUNS.findall(normal):
        if han:
            out.extend(part for part in _segmenter().cut_for_search(han) if part.strip())
        else:
            out.append(word)
    return [term for term in out if term not in _STOPWORDS]
