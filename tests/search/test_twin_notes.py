"""Near-equal notes on one thing (search/pipeline.py `_leading_group`): a person writes two or three
notes on the same thing (a weekly report template and its rewrite a week later, a dentist
appointment and the moved one). The gap used to measure each note against the next one, so two
near-twins cancelled each other's margin: neither cleared the floor, or only one did. Now the
notes leading a language within GROUP_BAND of its best, ended by a drop at least GROUP_RATIO times
any drop inside them, are one group measured against the first note below it; a query about
nothing the notes hold still answers nothing. On the bundled model, through `search_ai_memos`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.search import pipeline
from mesq.search.documents import Doc
from mesq.search.index import Entry, SearchIndex
from mesq.search.indexer import rebuild
from mesq.search.pipeline import _Group, _leading_group
from mesq.search.tokenizer import tokens
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import run

WEEKLY = [
    "周报模板：本周完成、下周计划、风险与需要的支持",
    "周报模板（改进版）：本周完成事项、下周计划、遇到的风险、需要的协助",
]
DENTIST = [
    "Dentist appointment on Tuesday 3pm, bring the insurance card",
    "Moved the dentist appointment to next Thursday 10am, remember the insurance card",
]
BLOOD_PRESSURE = [
    "体检报告出来了，血压偏高，医生让少吃盐",
    "复查血压，还是有点高，医生建议每天量一次",
    "第三次量血压，终于正常了，继续少吃盐",
]
UNRELATED = [
    "Renewed the car insurance, the premium went up again #money",
    "周末去山里徒步，看到了很多野花",
    "读完了《三体》第二部，黑暗森林的设定很震撼",
    "Bought tomatoes and basil for the garden",
    "Flight to Tokyo booked for March, passport expires next year",
    "猫粮快吃完了，记得下单",
    "Fixed the kitchen faucet leak, the plumber charged 80",
    "学了一首新的吉他曲子",
    "Jazz concert on Friday night with Anna",
    "房租下个月涨了两百",
    "Learned how Rust borrow checker works",
    "跑步五公里，膝盖有点疼",
]
#: Queries that share no search term with their notes (only the vector branch finds them, so the
#: gap decides), each with the notes that answer it. Before the group, each of these answered one
#: note or none as an item (e.g. 看牙: 0.18 and 0.007; 高血压: one of three).
ANSWERED = [
    ("每周工作汇报的格式", WEEKLY),
    ("weekly report template", WEEKLY),
    ("when do I see the tooth doctor", DENTIST),
    ("看牙", DENTIST),
    ("高血压", BLOOD_PRESSURE),
]
#: Topics none of the notes is about: still no item.
ABSENT = ["养蜂", "golf swing", "火山喷发", "knitting a sweater", "婚礼请柬", "股票"]


def test_a_lone_answer_is_measured_against_the_next_note() -> None:
    assert _leading_group(np.array([5.0, 1.0, 2.0, -np.inf])) == _Group(5.0, 5.0, 2.0)
    assert _leading_group(np.array([3.0])) == _Group(3.0, 3.0, 0.0)
    assert _leading_group(np.array([-np.inf, -np.inf])) == _Group(0.0, 0.0, 0.0)
    assert _leading_group(np.array([], dtype=np.float64)) == _Group(0.0, 0.0, 0.0)


def test_near_equal_leaders_are_one_group_measured_below_it() -> None:
    assert _leading_group(np.array([1.0, 3.7, 3.6, 0.9])) == _Group(3.7, 3.6, 1.0)  # twins
    assert _leading_group(np.array([4.2, 3.6, 3.4, 2.1, 1.1])) == _Group(4.2, 3.4, 2.1)  # three of a kind
    # Equal scores (equal texts): no drop inside, none ending a group: measured to each other.
    assert _leading_group(np.array([2.0, 2.0, 2.0])) == _Group(2.0, 2.0, 2.0)


def test_an_even_slope_or_a_far_second_is_no_group() -> None:
    # Steps of 0.45, 0.53, 0.53 (an absent topic's notes): the drop ending a group is no wider
    # than the ones inside it, so the best stands alone against the next.
    assert _leading_group(np.array([3.1, 2.65, 2.12, 1.59])) == _Group(3.1, 3.1, 2.65)
    # A second note more than the band below the best is no twin, however far the third falls.
    second = 3.0 - pipeline.GROUP_BAND - 0.1
    assert _leading_group(np.array([3.0, second, -4.0])) == _Group(3.0, 3.0, second)
    # No more than GROUP_MAX notes form a group: a crowd of near-equal notes keeps a crowd's margin.
    crowd = np.array([3.0 - 0.01 * i for i in range(pipeline.GROUP_MAX + 1)] + [0.0])
    group = _leading_group(crowd)
    assert group.best - group.below < 0.1


def test_a_score_that_is_no_number_is_no_member_of_the_group() -> None:
    # A provider's vector with huge components makes cosines inf or NaN (inf - inf): the group is
    # read from the finite scores, as if those notes had none, instead of failing the search.
    assert _leading_group(np.array([np.nan, 3.7, 3.6, 1.0])) == _Group(3.7, 3.6, 1.0)
    assert _leading_group(np.array([3.0, np.inf, 1.0])) == _Group(3.0, 3.0, 1.0)
    assert _leading_group(np.array([np.inf, np.inf, np.nan])) == _Group(0.0, 0.0, 0.0)


def test_a_query_vector_out_of_range_still_answers() -> None:
    """Before, `_leading_group` raised ValueError (max() of no drops) on such scores: a 500."""

    class Overflowing:
        name = "overflowing"

        def embed(self, texts: Sequence[str], query: bool = False) -> npt.NDArray[np.float32]:
            row = [3e38, 3e38] + [0.0] * 6  # float32 dot products overflow to inf
            return np.array([row for _ in texts], dtype=np.float32)

    def entry(key: str, text: str, vector: list[float]) -> Entry:
        doc = Doc("memo", key, text, {"status": "NORMAL", "tagPaths": []})
        return Entry(doc, tuple(tokens(text)), np.array(vector + [0.0] * 6, dtype=np.float32))

    index = SearchIndex(
        [
            entry("a", "kitchen faucet", [0.6, 0.8]),
            entry("b", "garden river", [0.8, 0.6]),
            entry("c", "piano", [1.0, 0.0]),
        ],
        dimension=8,
    )
    index.snapshot()
    with np.errstate(invalid="ignore", over="ignore"):
        outcome = pipeline.search(index, "river", embedder=Overflowing(), reranker=None, accept=lambda doc: True)
    assert [doc.id for doc, _score in outcome.hits] == ["b"]  # the literal match, from the words


def test_a_group_member_gaps_to_the_note_below_the_group_the_rest_to_the_best() -> None:
    score = np.array([3.7, 3.6, 1.0, 0.5])
    semantic = pipeline._Semantic(
        z=score, note_z=score, score=score, candidates=np.arange(4), chinese=np.zeros(4, dtype=bool),
        groups=(_leading_group(score.copy()), _Group(0.0, 0.0, 0.0)), embedded=np.ones(4, dtype=bool),
    )  # fmt: skip
    assert np.allclose(semantic.gap(np.arange(4)), [2.7, 2.6, -2.7, -3.2])


@pytest.fixture(scope="module")
def account(
    local_embedder: BundledEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Services, dict[str, str]]]:
    """The notes above, ids to texts, in one build (updates off: the index is the build's)."""
    settings = inprocess_settings(
        data_dir=tmp_path_factory.mktemp("twins"), search_provider="none", search_index_updates="off"
    )
    services = build_services(settings)
    services.search.embedder = local_embedder
    notes = UNRELATED + WEEKLY + DENTIST + BLOOD_PRESSURE
    ids = {run(services, "create_memo", {"content": text})["memo"]["id"]: text for text in notes}
    rebuild(services, "u1")
    yield services, ids
    services.items.close()


@pytest.mark.slow
@pytest.mark.parametrize(("query", "notes"), ANSWERED, ids=[query for query, _notes in ANSWERED])
def test_notes_on_one_thing_are_answered_together(
    account: tuple[Services, dict[str, str]], query: str, notes: list[str]
) -> None:
    services, ids = account
    answer = run(services, "search_ai_memos", {"query": query})
    items = [ids[item["id"]] for item in answer["items"]]
    assert set(items[: len(notes)]) == set(notes), (query, answer["items"])  # all of them, before any other
    assert all(item["score"] >= pipeline.FLOOR for item in answer["items"])


@pytest.mark.slow
@pytest.mark.parametrize("query", ABSENT)
def test_a_topic_no_note_is_about_still_answers_nothing(account: tuple[Services, dict[str, str]], query: str) -> None:
    services, _ids = account
    answer = run(services, "search_ai_memos", {"query": query})
    assert answer["items"] == [], (query, answer["items"])
