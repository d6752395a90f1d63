"""search_memos through the literal index answers exactly what the scan answers: random memos
(Chinese, English, characters whose case folding changes their length), random edits, trash moves,
restores and permanent deletes between random queries (single characters, case variants, filters,
pages) — on SQLite with the in-process follower, and on DynamoDB Local + S3 with the stream
function's handler (`search/stream.py`) delivering the table's change records, as on AWS.

Each query runs twice: as is (and the test checks the index answered it, not the scan) and with
the index switched off (the scan); the two answers must be equal, page objects included."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.application.invocation import REGISTRY
from mesq.kernel.context import Call
from mesq.kernel.errors import ValidationError
from mesq.kernel.ports.storage import ItemStore
from mesq.memos import reads
from mesq.memos import store as memo_store
from mesq.memos.purge import purge_memo
from mesq.search import literal_store
from mesq.search.follow import FollowingStore
from mesq.search.literal_index import COMPACT_AFTER, LiteralIndex, Row
from mesq.search.stream import handle_records
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.support.operations import call_of

from ..contract.blob_fixtures import fake_aws, s3_store  # noqa: F401
from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

SCOPES = frozenset({"memo:read", "memo:write"})
ALPHABET = "aAbBsSßİi你好我们的世界醫医 #＃\n"
TEXT = st.text(alphabet=ALPHABET, min_size=0, max_size=24)
NEEDLE = st.text(alphabet=ALPHABET.replace("#", ""), min_size=1, max_size=4)

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("create"), TEXT.filter(str.strip)),
        st.tuples(st.just("edit"), st.integers(0, 30), TEXT.filter(str.strip)),
        st.tuples(st.just("pin"), st.integers(0, 30), st.booleans()),
        st.tuples(st.just("archive"), st.integers(0, 30)),
        st.tuples(st.just("trash"), st.integers(0, 30)),
        st.tuples(st.just("restore"), st.integers(0, 30)),
        st.tuples(st.just("purge"), st.integers(0, 30)),
        st.tuples(st.just("compact")),  # fold everything into a new snapshot (a rebuild)
        st.tuples(
            st.just("query"),
            st.one_of(NEEDLE, st.integers(0, 30)),  # an integer: a piece of that memo's content
            st.sampled_from([None, "NORMAL", "ARCHIVED", "DELETED", "ALL"]),
            st.sampled_from([None, True, False]),
            st.integers(0, 4),
            st.integers(1, 5),
        ),
    ),
    min_size=1,
    max_size=30,
)


def _call(services: Services, user_id: str) -> Call:
    return call_of(services, user_id, SCOPES)


def _scan(call: Call, args: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as patch:
        patch.setattr(reads, "_literal_matches", lambda *_args: None)
        return reads.search_memos(call, args)


def _indexed(call: Call, args: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    def no_scan(*_args: Any) -> Iterator[Any]:
        raise AssertionError("the literal index did not answer: the scan ran")

    with monkeypatch.context() as patch:
        patch.setattr(memo_store, "all_memos", no_scan)
        return reads.search_memos(call, args)


def _apply(call: Call, step: tuple[Any, ...], ids: list[str]) -> dict[str, Any] | None:
    """One write (or None for a query or a step on a memo that does not fit it)."""
    items, user_id = call.services.items, call.principal.user_id
    if step[0] == "create":
        created = REGISTRY["create_memo"](call, {"content": step[1]})
        ids.append(created["memo"]["id"])
        return created
    if step[0] == "query" or not ids:
        return None
    memo = memo_store.read_memo(items, user_id, ids[step[1] % len(ids)])
    if memo is None:
        return None
    common = {"id": memo["id"], "expectedRevision": memo["revision"]}
    status = memo["status"]
    if step[0] == "edit" and status != "DELETED":
        return REGISTRY["update_memo"](call, {**common, "content": step[2]})
    if step[0] == "pin" and status != "DELETED":
        return REGISTRY["update_memo"](call, {**common, "pinned": step[2]})
    if step[0] == "archive" and status == "NORMAL":
        return REGISTRY["update_memo"](call, {**common, "status": "ARCHIVED"})
    if step[0] == "trash" and status != "DELETED":
        return REGISTRY["delete_memo"](call, common)
    if step[0] == "restore" and status == "DELETED":
        return REGISTRY["restore_memo"](call, common)
    if step[0] == "purge" and status == "DELETED":
        ids.remove(memo["id"])
        return purge_memo(items, user_id, memo["id"], memo["revision"])
    return None


def _query_args(call: Call, step: tuple[Any, ...], ids: list[str]) -> dict[str, Any]:
    _, needle, status, pinned, offset, limit = step
    if isinstance(needle, int):  # a piece of an existing memo, in another case
        items, user_id = call.services.items, call.principal.user_id
        memo = memo_store.read_memo(items, user_id, ids[needle % len(ids)]) if ids else None
        content = memo["content"] if memo else "a"
        start = needle % max(1, len(content))
        needle = content[start : start + 1 + needle % 5].swapcase() or "a"
    args: dict[str, Any] = {"query": needle, "offset": offset, "limit": limit}
    if status is not None:
        args["status"] = status
    if pinned is not None:
        args["pinned"] = pinned
    return args


def _run_steps(
    call: Call, steps: list[tuple[Any, ...]], deliver: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> int:
    """Play the steps; before each query `deliver` brings the index up to date. Returns how many
    queries the index answered."""
    ids: list[str] = []
    answered = 0
    for step in steps:
        if step[0] == "compact":
            deliver()
            literal_store.rebuild(call.services, call.principal.user_id)
            continue
        if step[0] != "query":
            _apply(call, step, ids)
            continue
        deliver()
        args = _query_args(call, step, ids)
        if not args["query"].strip():  # only spaces: both ways refuse it, before any read
            for way in (_scan, _indexed):
                with pytest.raises(ValidationError, match="only spaces"):
                    way(call, args, monkeypatch)
            continue
        expected = _scan(call, args, monkeypatch)
        assert _indexed(call, args, monkeypatch) == expected, args
        answered += 1
    return answered


# -- SQLite, in-process follower ----------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    data_dir = tmp_path_factory.mktemp("literal")
    services = build_services(
        inprocess_settings(data_dir=data_dir, search_provider="none", search_index_updates="inprocess")
    )
    yield services
    services.items.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_sqlite_indexed_search_equals_the_scan(
    sqlite_services: Services, steps: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    call = _call(sqlite_services, f"u{uuid.uuid4().hex[:12]}")
    # A new user has no index until the first memo write builds it: a query before that scans.
    steps = [("create", "seed 種子 Seed"), *steps]
    _run_steps(call, steps, lambda: sqlite_services.search.settle_literal(call.principal.user_id), monkeypatch)


def test_an_index_out_of_step_is_not_used_and_is_rebuilt(
    sqlite_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write the follower never saw (an import, another process) leaves the counters ahead of
    the index: the query scans, and asks for the rebuild that brings the index back."""
    call = _call(sqlite_services, "out-of-step")
    REGISTRY["create_memo"](call, {"content": "first 第一"})
    sqlite_services.search.settle_literal("out-of-step")
    inner = sqlite_services.items._inner  # type: ignore[attr-defined]
    unfollowed = Services(settings=sqlite_services.settings, items=inner, blobs=sqlite_services.blobs)  # type: ignore[call-arg]
    bypass = Call(call.principal, unfollowed, "t", "api")
    REGISTRY["create_memo"](bypass, {"content": "second 第二"})
    args = {"query": "第"}
    with pytest.raises(AssertionError, match="scan ran"):
        _indexed(call, args, monkeypatch)
    sqlite_services.items.wait_idle()  # type: ignore[attr-defined]  # the rebuild ran
    assert _indexed(call, args, monkeypatch)["page"]["totalCount"] == 2


def test_compaction_keeps_the_answers(sqlite_services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    call = _call(sqlite_services, "compacting")
    ids: list[str] = []
    for number in range(COMPACT_AFTER + 20):
        _apply(call, ("create", f"memo {number} 第{number}条"), ids)
    sqlite_services.search.settle_literal("compacting")
    loaded = literal_store.repository(sqlite_services).load("compacting")
    assert loaded is not None and len(loaded[0].overlay) < COMPACT_AFTER
    for needle in ("第1", "memo 2", "条", "7条", "MEMO 27"):
        args = {"query": needle, "status": "ALL", "limit": 50}
        assert _indexed(call, args, monkeypatch) == _scan(call, args, monkeypatch)


def test_index_unit_candidates_are_a_superset() -> None:
    rows = [Row(str(i), {}, text.casefold()) for i, text in enumerate(["abc", "xbcx", "我们的", "", "b"])]
    index = LiteralIndex.build(lambda row: row.id, rows)

    def ids(needle: str) -> set[str]:
        snapshot, overlay = index.candidates(needle)
        return {row.id for row in [*snapshot, *overlay]}

    assert ids("bc") == {"0", "1"}
    assert ids("们的") == {"2"}
    assert ids("zz") == set()
    assert ids("b") == {"0", "1", "2", "3", "4"}  # one character: every row
    index.apply([Row("9", {}, "zzz")], ["0"])
    # The overlay's rows (at most COMPACT_AFTER) are always candidates; the removed one never.
    assert ids("bc") == {"1", "9"}
    assert ids("zz") == {"9"}
    assert len(index) == 5
    index.apply([Row("5", {}, "ab")], [])
    # Matches come in the index's order (descending), the overlay's merged in.
    assert [row.id for row in index.matching("b", lambda _fields, text: "b" in text)] == ["5", "4", "1"]


# -- DynamoDB Local + S3, the stream function's handler ------------------------------------------


class _StreamRecorder(FollowingStore):
    """The table's change stream as Lambda delivers it: one record per written key, in order."""

    def __init__(self, inner: ItemStore) -> None:
        super().__init__(inner)
        self.records: list[dict[str, Any]] = []

    def _changed(self, keys: Any) -> None:
        for pk, sk in keys:
            self.records.append({
                "eventName": "MODIFY", "eventSource": "aws:dynamodb",
                "dynamodb": {"Keys": {"pk": {"S": pk}, "sk": {"S": sk}},
                             "SequenceNumber": f"{len(self.records) + 1:021d}", "StreamViewType": "KEYS_ONLY"},
            })  # fmt: skip


@pytest.fixture
def aws_services(dynamodb_local: ItemStore, s3_store: Any) -> Services:  # noqa: F811
    settings_ = inprocess_settings(search_provider="none", search_index_updates="stream")
    return Services(settings=settings_, items=_StreamRecorder(dynamodb_local), blobs=s3_store)  # type: ignore[call-arg]


@pytest.mark.dynamodb_local
def test_dynamodb_local_and_s3_indexed_search_equals_the_scan(
    aws_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder: _StreamRecorder = aws_services.items  # type: ignore[assignment]

    def deliver() -> None:
        batch, recorder.records[:] = list(recorder.records), []
        if batch:
            assert handle_records(aws_services, batch) == {"batchItemFailures": []}

    @settings(max_examples=15, deadline=None)
    @given(steps=STEPS)
    def play(steps: list[tuple[Any, ...]]) -> None:
        user_id = f"u{uuid.uuid4().hex[:12]}"
        aws_services.search.cache.clear()  # each query reads the pointer and blobs from S3 again
        _run_steps(_call(aws_services, user_id), [("create", "seed 種子 Seed"), *steps], deliver, monkeypatch)

    play()


@pytest.mark.dynamodb_local
def test_dynamodb_local_lagging_stream_falls_back_to_the_scan(
    aws_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records not delivered yet (stream lag): the counters are ahead, so the query scans."""
    recorder: _StreamRecorder = aws_services.items  # type: ignore[assignment]
    call = _call(aws_services, "lagging")
    REGISTRY["create_memo"](call, {"content": "one 一"})
    assert handle_records(aws_services, recorder.records) == {"batchItemFailures": []}
    recorder.records.clear()
    REGISTRY["create_memo"](call, {"content": "two 一二"})
    args = {"query": "一"}
    with pytest.raises(AssertionError, match="scan ran"):
        _indexed(call, args, monkeypatch)
    assert reads.search_memos(call, args)["page"]["totalCount"] == 2
    assert handle_records(aws_services, recorder.records) == {"batchItemFailures": []}
    assert _indexed(call, args, monkeypatch) == _scan(call, args, monkeypatch)


def test_rebuild_is_the_backfill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memos written with index updates off (an import): no index, so the scan answers; the
    rebuild (`mesq search reindex`) makes the index answer the same."""
    off = build_services(inprocess_settings(data_dir=tmp_path, search_provider="none", search_index_updates="off"))
    call = _call(off, "backfill")
    for text in ("Alpha 甲", "beta 乙", "ALPHA gamma"):
        REGISTRY["create_memo"](call, {"content": text})
    assert literal_store.repository(off).pointer("backfill") is None
    assert literal_store.rebuild(off, "backfill") == 3
    off.items.close()
    on = build_services(inprocess_settings(data_dir=tmp_path, search_provider="none", search_index_updates="inprocess"))
    call = _call(on, "backfill")
    args = {"query": "alpha"}
    assert _indexed(call, args, monkeypatch) == _scan(call, args, monkeypatch)
    assert _indexed(call, args, monkeypatch)["page"]["totalCount"] == 2
    on.items.close()
