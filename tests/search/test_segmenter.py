"""jieba over the shipped trie (mesq/search/segmenter.py) is jieba: the shipped files are what
jieba's `dict.txt` builds, every cut equals jieba's own over a corpus (dictionary words run
together, unknown characters for the HMM, real sentences), and the dictionary look-ups answer
as jieba's `FREQ` dict does. And it is small: the trie costs a few MB where jieba's dict costs
tens."""

from __future__ import annotations

import logging
import random
import subprocess
import sys

import jieba
import pytest

from mesq.search import segmenter as compact
from mesq.search.tokenizer import tokens

SENTENCES = [
    "我们在北京大学的图书馆里读书，然后去吃饭了。",
    "今天天气很好，适合写作和思考人生的意义。",
    "结巴中文分词支持三种分词模式",
    "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
    "他来到了网易杭研大厦",
]


@pytest.fixture(scope="module")
def reference() -> jieba.Tokenizer:
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def test_the_shipped_files_are_what_jiebas_dictionary_builds() -> None:
    trie, by_id, totals = compact.build()
    assert compact.TRIE_FILE.read_bytes() == trie.tobytes()
    assert compact.FREQUENCY_FILE.read_bytes() == by_id.tobytes()  # little-endian (the test machine's order)
    assert compact.TOTALS_FILE.read_text(encoding="utf-8").strip() == (
        f'{{"words": {totals["words"]}, "total": {totals["total"]}}}'
    )


def test_every_cut_is_jiebas(reference: jieba.Tokenizer) -> None:
    words = [word for word, _ in compact.source_words()]
    han = [chr(point) for point in range(0x4E00, 0x9FA6)]
    rng = random.Random(44)
    corpus = [*SENTENCES]
    corpus += ["".join(rng.choices(words, k=rng.randint(1, 25))) for _ in range(800)]
    corpus += ["".join(rng.choices(han, k=rng.randint(1, 30))) for _ in range(300)]  # unknown words: the HMM
    mine = compact.segmenter()
    for sentence in corpus:
        assert list(mine.cut_for_search(sentence)) == list(reference.cut_for_search(sentence)), sentence
        assert list(mine.cut(sentence)) == list(reference.cut(sentence)), sentence
        assert list(mine.cut(sentence, HMM=False)) == list(reference.cut(sentence, HMM=False)), sentence
    assert tokens("北京大学的图书馆 Library") == ["北京", "大学", "北京大学", "图书", "书馆", "图书馆", "library"]


def test_the_lookups_answer_as_jiebas_dict(reference: jieba.Tokenizer) -> None:
    mine = compact.segmenter().FREQ
    expected = reference.FREQ
    for key in ("北京大学", "北京大", "北", "的", "图书馆", "zzz", "北京大学图书馆不存在"):
        assert mine.get(key) == expected.get(key), key
        assert mine.get(key, "absent") == expected.get(key, "absent"), key
        assert (key in mine) == (key in expected), key
    assert compact.segmenter().total == reference.total
    with pytest.raises(KeyError):
        mine["zzz"]


def test_the_dictionary_costs_a_few_megabytes_not_tens() -> None:
    """RSS growth of loading each, in fresh interpreters (the trie is memory-mapped)."""
    probe = (
        "import re, sys\n"
        "def rss():\n"
        "    return int(re.search(r'VmRSS:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) / 1024\n"
        "import jieba, logging; jieba.setLogLevel(logging.WARNING)\n"
        "from mesq.search.segmenter import segmenter\n"
        "before = rss()\n"
        "if sys.argv[1] == 'jieba': jieba.initialize()\n"
        "else: list(segmenter().cut_for_search('北京大学的图书馆'))\n"
        "print(rss() - before)\n"
    )

    def growth_of(name: str) -> float:
        return float(
            subprocess.run([sys.executable, "-c", probe, name], capture_output=True, text=True, check=True).stdout
        )

    growth = {name: growth_of(name) for name in ("jieba", "trie")}
    assert growth["trie"] < 8 and growth["jieba"] > 40, growth


PKG_RESOURCES_PROBE = """
import sys
import mesq.search.segmenter
assert "pkg_resources" not in sys.modules, "jieba imported pkg_resources"
from mesq.search.segmenter import segmenter
print(segmenter().lcut("我们在北京开会"))
import pkg_resources  # hidden only while jieba imported: importable again after
print(pkg_resources.__name__)
"""


def test_jieba_loads_without_pkg_resources_and_leaves_it_importable() -> None:
    done = subprocess.run([sys.executable, "-c", PKG_RESOURCES_PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cut, name = done.stdout.strip().splitlines()
    assert cut == str(jieba.lcut("我们在北京开会")) and name == "pkg_resources"


def test_traditional_chinese_has_the_terms_of_simplified() -> None:
    assert tokens("醫院複診的時間") == tokens("医院复诊的时间") and "医院" in tokens("醫院複診的時間")
    assert tokens("學習 Python") == tokens("学习 python")


def test_a_traditional_query_gets_the_gloss_of_its_simplified_form() -> None:
    from mesq.search.crosslingual import GLOSSARY

    gloss = GLOSSARY.translate("醫院複診")
    assert gloss and gloss == GLOSSARY.translate("医院复诊") and "hospital" in gloss


def test_digits_and_latin_letters_never_glue_to_the_chinese_after_them() -> None:
    # A Han run after a digit or a Latin letter was read as one word with it ("3月31日冻结",
    # "abc公司"), so no query word found the Chinese inside: 公里 missed "跑步5公里".
    assert tokens("跑步5公里") == ["跑步", "5", "公里"]
    assert tokens("3月31日冻结功能") == ["3", "3月", "月", "31", "31日", "日", "冻结", "功能"]
    assert tokens("买了AirPods降噪") == ["买", "airpod", "降噪"]
    assert tokens("ＡＢＣ公司") == ["abc", "公司"]
    assert "上午" in tokens("预约在12月18日上午9点")


def test_han_outside_the_basic_blocks_is_chinese_too() -> None:
    # U+3007 (二〇二六年), 々 and the supplementary-plane ideographs of names (𠮷, 𬭚) were word
    # characters of the Latin splitter, which then took the whole Han run after them as one word.
    assert "北京" in tokens("二〇二六年十二月去北京看展览") and "展览" in tokens("二〇二六年十二月去北京看展览")
    assert "同学" in tokens("王𬭚同学的作业") and "作业" in tokens("王𬭚同学的作业")
    assert "好吃" in tokens("𠮷野家的牛丼很好吃")


def test_an_english_plural_has_the_terms_of_its_singular() -> None:
    # "keyboards" shared no term with "Bought a new mechanical keyboard": of four such memos one
    # was an item (by its vector), the others fell under the floor, where "keyboard" found all four.
    assert tokens("keyboards") == tokens("keyboard") == ["keyboard"]
    assert tokens("Meetings and appointments") == tokens("meeting, appointment")
    assert tokens("cities") == tokens("city") and tokens("horses") == tokens("horse")
    # Not a plural: -ss, -us, short words; stop words are dropped before any folding.
    assert tokens("glass status bus gas") == ["glass", "status", "bus", "gas"]
    assert tokens("this is his") == []


def test_a_number_and_its_chinese_date_unit_are_also_one_term() -> None:
    # "12月18日" shared 12, 月 and 日 with every note of "11月12日": such a note was an item for a
    # query of 12月18日. The number with its unit (12月, 18日, 9点, 2026年) is a term beside the
    # number alone, so a bare "2026" still finds "2026年".
    assert tokens("12月18日上午9点") == ["12", "12月", "月", "18", "18日", "日", "上午", "9", "9点", "点"]
    assert "2026" in tokens("2026年") and "2026年" in tokens("2026年")
    assert tokens("跑步5公里") == ["跑步", "5", "公里"]  # a unit of measure is no date


def test_cpp_and_csharp_are_terms_of_their_own() -> None:
    # "C++" was the term "c", a confident match for every note on C语言 (and "Plan C").
    assert tokens("Learning C++ templates") == ["learning", "c++", "template"]
    assert tokens("C#/.NET 和 F# 笔记") == ["c#", "net", "f#", "笔记"] and tokens("用C#写的") == ["用", "c#", "写"]
    assert "c" in tokens("C语言入门") and "c++" not in tokens("C语言入门")
    assert tokens("x+y c+d") == ["x", "y", "c", "d"]
