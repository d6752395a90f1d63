"""The note side of the vector branch (search/probes.py): the shipped probes are the bundled
model's; a part keeps each note's mean similarity to each probe group; a query of spaces or
punctuation answers nothing; and, on the bundled model, the account of the outside test (a
bilingual account with one "hub" note) no longer gets that note as a confident answer to topics it
never wrote about, while a note written in the other language joins its twin in the answer."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.search import pipeline
from mesq.search.documents import Doc
from mesq.search.index import Entry, SearchIndex, unit
from mesq.search.probes import Probes, probes_for, shipped
from mesq.wiring.services import Services

from .conftest import run

HUB = "Reading notes: Thinking Fast and Slow, anchoring bias. #读书笔记"
#: Part of the outside test's account (the sweep's harness.py), the hub note among them.
ACCOUNT = [
    "今天在楼下的咖啡店试了新的手冲，埃塞俄比亚豆子，果酸很明显。 #生活",
    "Tried a new pour-over coffee at the corner cafe this morning, very fruity. #life",
    HUB,
    "Meeting with the Q1 roadmap team: ship search v2 before March. #work",
    "学习 Python 的 asyncio，事件循环 event loop 很关键 #编程",
    "Learned how Rust borrow checker works; lifetimes still confusing #programming",
    "信用卡被盗刷了两笔，已经打电话冻结",
    "Bank called about a duplicate charge on my credit card",
    "北京今天雾霾很严重，AQI 超过 300，出门戴口罩",
    "Beijing smog today, AQI over 300, wear a mask",
    "给妈妈买生日礼物：一条羊毛围巾 #家庭",
    "Birthday gift for mom: a wool scarf",
    "Watched Interstellar again, the docking scene is still amazing #movies",
    "周报：本周完成了登录模块重构，下周开始做支付 #工作",
    "量子计算入门：qubit、叠加态、纠缠 #学习",
    "Note about quantum computing: superposition and entanglement",
]


def test_the_shipped_probes_are_the_bundled_models() -> None:
    probes = probes_for(BundledEmbedder())
    assert probes is not None and probes is shipped()
    assert probes.centroids.shape == (3, 384) and probes.centroids.dtype == np.float32
    assert np.all(probes.spread > 0) and np.all(probes.spread < 0.1)

    class Other:
        name = "bedrock:amazon.titan-embed-text-v2:0"

    assert probes_for(Other()) is None  # another model: the query side alone (no weights for it)


def test_a_part_keeps_each_notes_mean_over_each_probe_group() -> None:
    rng = np.random.default_rng(7)
    vectors = [unit(rng.normal(size=4)) for _ in range(5)]
    entries = [Entry(Doc("memo", f"d{i}", f"note {i}", {}), ("note",), vector) for i, vector in enumerate(vectors)]
    entries.append(Entry(Doc("memo", "bare", "no vector yet", {}), ("vector",), None))
    index = SearchIndex(entries, dimension=4)
    index.apply([Entry(Doc("memo", "new", "written since", {}), ("written",), unit(rng.normal(size=4)))])
    probes = Probes("test", unit(rng.normal(size=(3, 4))), np.array([0.1, 0.2, 0.3], dtype=np.float32))
    means = index.note_means(probes)
    expected = [entry.vector @ probes.centroids.T if entry.vector is not None else np.zeros(3) for entry in entries]
    expected.append(index.entry("memo:new").vector @ probes.centroids.T)  # type: ignore[union-attr]
    assert means.shape == (3, 7) and np.allclose(means.T, np.array(expected), atol=1e-6)
    snapshot = index.snapshot()
    assert snapshot.note_means(probes) is snapshot.note_means(probes)  # kept per part and model


@pytest.mark.parametrize("query", ["   ", "\u3000", "%_%", "*", "[[]]", "？！", "\t\n"])
def test_a_query_without_words_answers_nothing(make_services: Callable[..., Services], query: str) -> None:
    services = make_services()
    run(services, "create_memo", {"content": "the plumber fixes the kitchen faucet %_% *"})
    services.items.wait_idle()  # type: ignore[attr-defined]
    answer = run(services, "search_ai_memos", {"query": query})
    assert answer["items"] == [] and answer["closestMatches"] == [] and answer["degraded"] is False
    assert {stage["status"] for stage in answer["stages"]} == {"skipped"}
    assert not pipeline.has_words(query) and pipeline.has_words("a") and pipeline.has_words("钢琴")


@pytest.mark.slow
def test_a_hub_note_answers_no_absent_topic_and_twins_answer_together(
    make_services: Callable[..., Services], local_embedder: BundledEmbedder
) -> None:
    services = make_services()
    services.search.embedder = local_embedder
    ids = {text: run(services, "create_memo", {"content": text})["memo"]["id"] for text in ACCOUNT}
    services.items.wait_idle()  # type: ignore[attr-defined]

    def answer(query: str) -> tuple[list[str], list[float]]:
        found = run(services, "search_ai_memos", {"query": query})
        return [item["id"] for item in found["items"]], [item["score"] for item in found["items"]]

    for query in ("股票", "学日语", "吉他", "piano lesson", "car maintenance"):
        items, _scores = answer(query)
        assert ids[HUB] not in items, query
    for query in ("股票", "吉他", "piano lesson"):
        assert answer(query)[0] == [], query
    for query, twins in (("雾霾", ACCOUNT[8:10]), ("smog", ACCOUNT[8:10]), ("量子计算", ACCOUNT[14:16])):
        items, _scores = answer(query)
        assert {ids[text] for text in twins} <= set(items), query
    # Interstellar: the only match is English, and the gloss ("interstellar pass through") finds it
    # first (the hub was an item at 0.62 before); on these 16 notes its confidence stays under the
    # floor: a "less related" answer, not a confident one.
    found = run(services, "search_ai_memos", {"query": "星际穿越"})
    shown = [item["id"] for item in found["items"] + found["closestMatches"]]
    assert shown[:1] == [ids[ACCOUNT[12]]] and ids[HUB] not in shown, found


@pytest.mark.slow
def test_the_shipped_probe_texts_are_what_the_script_makes() -> None:
    """probes.npz holds the texts infra/search_probes.py makes (jieba's dictionary, CC-CEDICT):
    a change to either shows here; run the script to embed them again."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "infra" / "search_probes.py"
    spec = importlib.util.spec_from_file_location("search_probes", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    chinese, english = module.probe_words()
    with np.load(Path(pipeline.__file__).with_name("probes.npz"), allow_pickle=False) as archive:
        assert [str(text) for text in archive["chinese"]] == chinese
        assert [str(text) for text in archive["english"]] == english
        assert archive["vectors"].shape == (len(chinese) * 2, 384)
