"""search_reading_notes and query_todos' `query` through their literal indexes (search/
literal.py in reading/ and todos/) answer exactly what the scan answers: random reading notes (synced snapshots:
new, changed and deleted-upstream notes, Chinese, English, characters whose case folding changes
their length) and random todo writes (tasks, subtasks, inbox items and their subtasks: create,
edit, complete, trash, restore, move to the board) between random queries (single characters,
case variants, pieces of stored text, statuses, priorities, pages) — on SQLite with the
in-process follower, and on DynamoDB Local + S3 with the stream function's handler.

Each query runs twice: as is (the test checks the index answered it, not the scan) and with the
index switched off (the scan); the two answers must be equal, page objects included."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesq.application.invocation import REGISTRY
from mesq.application.registries import SEARCHABLES
from mesq.kernel.context import Call
from mesq.kernel.errors import MesqError
from mesq.kernel.ports.storage import ItemStore
from mesq.reading import operations as reading_ops
from mesq.reading import store as reading_store
from mesq.reading.literal import LITERAL as READING
from mesq.reading.literal import READING_FIELDS
from mesq.reading.merge import apply_snapshot
from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote
from mesq.search import literal_store
from mesq.search.stream import handle_records
from mesq.todos.literal import LITERAL as TODO
from mesq.todos.state import load_state
from mesq.todos.views import operations as todo_views
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.support.operations import call_of

from ..contract.blob_fixtures import fake_aws, s3_store  # noqa: F401
from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401
from .test_literal_index import _StreamRecorder

SCOPES = frozenset({"reading:read", "todo:read", "todo:write"})
ALPHABET = "aAbBsSßİi你好我们的世界醫医 #＃\n"
TEXT = st.text(alphabet=ALPHABET, min_size=0, max_size=16)
TITLE = TEXT.filter(str.strip)
NEEDLE = st.text(alphabet=ALPHABET, min_size=1, max_size=4).filter(str.strip)
PIECE = st.one_of(NEEDLE, st.integers(0, 40))  # an integer: a piece of a stored text, case swapped

KINDS, LITERAL_PREFIXES = SEARCHABLES.literal, SEARCHABLES.literal_prefixes


def _call(services: Services, user_id: str) -> Call:
    return call_of(services, user_id, SCOPES)


def _piece(texts: list[str], pick: int | str) -> str:
    if isinstance(pick, str):
        return pick
    text = texts[pick % len(texts)] if texts else "a"
    start = pick % max(1, len(text))
    return text[start : start + 1 + pick % 4].swapcase().strip() or "a"


# -- reading notes -----------------------------------------------------------------------------

NOTE = st.tuples(
    st.integers(0, 5),  # external id: a later snapshot changes or drops the same note
    st.sampled_from(["highlight", "note"]),
    TEXT,
    st.one_of(st.none(), TEXT),
    st.one_of(st.none(), TEXT),
    st.one_of(st.none(), st.integers(0, 3)),
    st.one_of(st.none(), st.integers(0, 50)),
)
READING_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("sync"), st.integers(0, 2), st.lists(NOTE, max_size=6, unique_by=lambda n: (n[0], n[1]))),
        st.tuples(st.just("compact")),
        st.tuples(st.just("query"), PIECE, st.integers(0, 4), st.integers(1, 6)),
    ),
    min_size=1,
    max_size=20,
)


def _sync(call: Call, book: int, notes: list[tuple[Any, ...]], texts: list[str]) -> None:
    upstream = tuple(
        UpstreamNote(kind, str(ident), content, "2026-10-01T00:00:00.000000Z", quoted, chapter, index, position)
        for ident, kind, content, quoted, chapter, index, position in notes
    )
    texts += [text for note in notes for text in note[2:5] if text]
    snapshot = BookSnapshot(UpstreamBook(f"book-{book}", f"Book {book} 书"), upstream)
    apply_snapshot(call.services.items, call.principal.user_id, snapshot, "2026-10-02T00:00:00.000000Z", "import")


def _reading_scan(call: Call, args: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as patch:
        patch.setattr(reading_ops, "_indexed_hits", lambda *_args: None)
        return reading_ops.search_reading_notes(call, args)


def _no_scan(*_args: Any) -> Iterator[Any]:
    raise AssertionError("the literal index did not answer: the scan ran")


def _reading_indexed(call: Call, args: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as patch:
        patch.setattr(reading_store, "every_note", _no_scan)
        return reading_ops.search_reading_notes(call, args)


def _run_reading(
    call: Call, steps: list[tuple[Any, ...]], deliver: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    texts: list[str] = []
    for step in steps:
        if step[0] == "sync":
            _sync(call, step[1], step[2], texts)
        elif step[0] == "compact":
            deliver()
            literal_store.rebuild(call.services, call.principal.user_id, READING)
        else:
            deliver()
            args = {"query": _piece(texts, step[1]), "offset": step[2], "limit": step[3]}
            assert _reading_indexed(call, args, monkeypatch) == _reading_scan(call, args, monkeypatch), args


# -- todos -------------------------------------------------------------------------------------

TODO_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("task"), TITLE, TEXT),
        st.tuples(st.just("subtask"), st.integers(0, 30), TITLE, TEXT),
        st.tuples(st.just("edit"), st.integers(0, 30), TITLE, TEXT),
        st.tuples(st.just("complete"), st.integers(0, 30)),
        st.tuples(st.just("trash"), st.integers(0, 30)),
        st.tuples(st.just("restore"), st.integers(0, 30)),
        st.tuples(st.just("inbox"), TITLE, TEXT, st.lists(TITLE, max_size=2)),
        st.tuples(st.just("inbox_sub"), st.integers(0, 30), TITLE, TEXT),
        st.tuples(st.just("inbox_edit"), st.integers(0, 30), TITLE, TEXT),
        st.tuples(st.just("inbox_trash"), st.integers(0, 30)),
        st.tuples(st.just("to_board"), st.integers(0, 30)),
        st.tuples(st.just("compact")),
        st.tuples(
            st.just("query"),
            PIECE,
            st.sampled_from(["open", "done", "all"]),
            st.sampled_from([None, ["none"], ["none", "high"]]),  # a priority: the due index's path too
            st.integers(0, 3),
            st.integers(1, 6),
        ),
    ),
    min_size=1,
    max_size=24,
)


def _notes(text: str) -> dict[str, Any]:
    return {"notes": text} if text.strip() else {}


def _todo_write(call: Call, step: tuple[Any, ...], tasks: list[str], inbox: list[str], texts: list[str]) -> None:
    """One write; a step that does not fit the record it picks (or a refused one) does nothing."""
    ops = REGISTRY
    texts += [text for text in step[1:] if isinstance(text, str) and text.strip()]
    kind = step[0]
    if kind == "task":
        tasks.append(ops["create_todo_task"](call, {"title": step[1], **_notes(step[2])})["task"]["id"])
        return
    if kind == "inbox":
        subtasks = [{"title": title} for title in step[3]]
        created = ops["create_todo_inbox_item"](call, {"title": step[1], **_notes(step[2]), "subtasks": subtasks})
        inbox.append(created["item"]["id"])
        texts += step[3]
        return
    items = tasks if kind in ("subtask", "edit", "complete", "trash", "restore") else inbox
    if not items:
        return
    ident = items[step[1] % len(items)]
    state = load_state(call.services.items, call.principal.user_id)
    record = state.task(ident) if items is tasks else state.inbox_item(ident)
    if record is None:
        return
    revision = {"expectedRevision": record["revision"]}
    subtask = record.get("parentId") is not None
    trashed = bool(record.get("deletedAt"))
    with contextlib.suppress(MesqError):  # refused, e.g. a subtask of a subtask
        if kind == "subtask" and not trashed:
            created = ops["create_todo_subtask"](call, {"taskId": ident, "title": step[2], **_notes(step[3])})
            tasks.append(created["subtask"]["id"])
        elif kind == "edit" and not trashed:
            changes = {"id": ident, **revision, "title": step[2], "notes": step[3]}
            ops["update_todo_subtask" if subtask else "update_todo_task"](call, changes)
        elif kind == "complete" and not trashed:
            ops["complete_todo_subtask" if subtask else "complete_todo_task"](call, {"id": ident, **revision})
        elif kind == "trash" and not trashed:
            ops["delete_todo_subtask" if subtask else "delete_todo_task"](call, {"id": ident, **revision})
        elif kind == "restore" and trashed:
            ops["restore_todo_item"](call, {"id": ident, **revision})
        elif kind == "inbox_sub" and not trashed:
            parent = {"parentItemId": ident, "parentRevision": record["revision"]}
            ops["create_todo_inbox_subtask"](call, {**parent, "title": step[2], **_notes(step[3])})
        elif kind == "inbox_edit" and not trashed:
            ops["update_todo_inbox_item"](call, {"id": ident, **revision, "title": step[2], "notes": step[3]})
        elif kind == "inbox_trash":
            if trashed:
                ops["restore_todo_item"](call, {"id": ident, **revision})
            else:
                ops["delete_todo_inbox_item"](call, {"id": ident, **revision})
        elif kind == "to_board" and not trashed:
            moved = ops["move_todo_inbox_item_to_board"](call, {"id": ident, **revision})
            tasks += [moved["task"]["id"], *(sub["id"] for sub in moved["subtasks"])]  # the item is deleted


def _todo_query(call: Call, args: dict[str, Any], monkeypatch: pytest.MonkeyPatch, *, indexed: bool) -> dict[str, Any]:
    original = todo_views.text_candidates

    def through_index(*arguments: Any) -> Any:
        found = original(*arguments)
        assert found is not None, "the literal index did not answer: the scan ran"
        return found

    with monkeypatch.context() as patch:
        patch.setattr(todo_views, "text_candidates", through_index if indexed else lambda *_args: None)
        return REGISTRY["query_todos"](call, args)


def _run_todos(
    call: Call, steps: list[tuple[Any, ...]], deliver: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks: list[str] = []
    inbox: list[str] = []
    texts: list[str] = []
    for step in steps:
        if step[0] == "compact":
            deliver()
            literal_store.rebuild(call.services, call.principal.user_id, TODO)
        elif step[0] != "query":
            _todo_write(call, step, tasks, inbox, texts)
        else:
            deliver()
            _, pick, status, priority, offset, limit = step
            args: dict[str, Any] = {"query": _piece(texts, pick), "status": status, "offset": offset, "limit": limit}
            if priority is not None:
                args["priority"] = priority
            expected = _todo_query(call, args, monkeypatch, indexed=False)
            assert _todo_query(call, args, monkeypatch, indexed=True) == expected, args


# -- SQLite, in-process follower ---------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    data_dir = tmp_path_factory.mktemp("literal-kinds")
    services = build_services(
        inprocess_settings(data_dir=data_dir, search_provider="none", search_index_updates="inprocess")
    )
    yield services
    services.items.close()


def _settle(services: Services, call: Call) -> Callable[[], None]:
    return lambda: services.search.settle_literal(call.principal.user_id)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=READING_STEPS)
def test_sqlite_reading_search_equals_the_scan(
    sqlite_services: Services, steps: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    call = _call(sqlite_services, f"u{uuid.uuid4().hex[:12]}")
    seed = ("sync", 0, [(0, "highlight", "seed 種子 Seed", "Quoted 引文", "Chapter 章", 1, 2)])
    _run_reading(call, [seed, *steps], _settle(sqlite_services, call), monkeypatch)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=TODO_STEPS)
def test_sqlite_todo_query_text_equals_the_scan(
    sqlite_services: Services, steps: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    call = _call(sqlite_services, f"u{uuid.uuid4().hex[:12]}")
    _run_todos(call, [("task", "seed 種子 Seed", ""), *steps], _settle(sqlite_services, call), monkeypatch)


def test_prefixes_and_fields_agree() -> None:
    """The follower routes exactly the kinds' records; the reading rows hold the fields the scan reads."""
    assert set(LITERAL_PREFIXES) == {prefix for kind in KINDS for prefix in kind.prefixes}
    assert READING_FIELDS == reading_ops.READING_FIELDS


def test_writes_the_follower_missed_fall_back_to_the_scan(
    sqlite_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write the follower never saw (an import, another process): the counters (books' note
    counts, list sizes) are ahead of the index, so the query scans and asks for the rebuild."""
    user_id = "out-of-step-kinds"
    call = _call(sqlite_services, user_id)
    _sync(call, 0, [(0, "note", "first 第一", None, None, None, None)], [])
    REGISTRY["create_todo_task"](call, {"title": "first 第一"})
    sqlite_services.search.settle_literal(user_id)
    inner = sqlite_services.items._inner  # type: ignore[attr-defined]
    unfollowed = Services(settings=sqlite_services.settings, items=inner, blobs=sqlite_services.blobs)  # type: ignore[call-arg]
    bypass = Call(call.principal, unfollowed, "t", "api")
    _sync(bypass, 1, [(0, "note", "second 第二", None, None, None, None)], [])
    REGISTRY["create_todo_inbox_item"](bypass, {"title": "second 第二"})
    reading_args, todo_args = {"query": "第"}, {"query": "第"}
    with pytest.raises(AssertionError, match="scan ran"):
        _reading_indexed(call, reading_args, monkeypatch)
    with pytest.raises(AssertionError, match="scan ran"):
        _todo_query(call, todo_args, monkeypatch, indexed=True)
    sqlite_services.items.wait_idle()  # type: ignore[attr-defined]  # the rebuilds ran
    assert _reading_indexed(call, reading_args, monkeypatch)["page"]["totalCount"] == 2
    assert _todo_query(call, todo_args, monkeypatch, indexed=True)["page"]["totalCount"] == 2


# -- DynamoDB Local + S3, the stream function's handler ------------------------------------------


@pytest.fixture
def aws_services(dynamodb_local: ItemStore, s3_store: Any) -> Services:  # noqa: F811
    settings_ = inprocess_settings(search_provider="none", search_index_updates="stream")
    return Services(settings=settings_, items=_StreamRecorder(dynamodb_local), blobs=s3_store)  # type: ignore[call-arg]


def _stream(services: Services) -> Callable[[], None]:
    recorder: _StreamRecorder = services.items  # type: ignore[assignment]

    def deliver() -> None:
        batch, recorder.records[:] = list(recorder.records), []
        if batch:
            assert handle_records(services, batch) == {"batchItemFailures": []}

    return deliver


@pytest.mark.dynamodb_local
def test_dynamodb_local_and_s3_reading_and_todo_text_equal_the_scan(
    aws_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    deliver = _stream(aws_services)

    @settings(max_examples=10, deadline=None)
    @given(reading=READING_STEPS, todos=TODO_STEPS)
    def play(reading: list[tuple[Any, ...]], todos: list[tuple[Any, ...]]) -> None:
        call = _call(aws_services, f"u{uuid.uuid4().hex[:12]}")
        aws_services.search.cache.clear()  # each query reads the pointer and blobs from S3 again
        seed = ("sync", 0, [(0, "highlight", "seed 種子 Seed", None, None, None, None)])
        _run_reading(call, [seed, *reading], deliver, monkeypatch)
        _run_todos(call, [("task", "seed 種子 Seed", ""), *todos], deliver, monkeypatch)

    play()


@pytest.mark.dynamodb_local
def test_dynamodb_local_lagging_stream_falls_back_to_the_scan(
    aws_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records not delivered yet (stream lag): the counters are ahead, so the queries scan."""
    deliver = _stream(aws_services)
    call = _call(aws_services, "lagging-kinds")
    _sync(call, 0, [(0, "note", "one 一", None, None, None, None)], [])
    REGISTRY["create_todo_task"](call, {"title": "one 一"})
    deliver()
    _sync(call, 1, [(0, "note", "two 一二", None, None, None, None)], [])
    REGISTRY["create_todo_task"](call, {"title": "two 一二"})
    args = {"query": "一"}
    with pytest.raises(AssertionError, match="scan ran"):
        _reading_indexed(call, args, monkeypatch)
    with pytest.raises(AssertionError, match="scan ran"):
        _todo_query(call, args, monkeypatch, indexed=True)
    assert reading_ops.search_reading_notes(call, args)["page"]["totalCount"] == 2
    assert REGISTRY["query_todos"](call, args)["page"]["totalCount"] == 2
    deliver()
    assert _reading_indexed(call, args, monkeypatch) == _reading_scan(call, args, monkeypatch)
    assert _todo_query(call, args, monkeypatch, indexed=True) == _todo_query(call, args, monkeypatch, indexed=False)
