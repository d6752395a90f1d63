"""The budget rule (what is measured, the error's shape) and get_todo_task's pure part."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mesq.kernel.errors import NotFound, ResponseTooLarge
from mesq.todos.views.budget import RESPONSE_BUDGET_CHARACTERS, ensure_fits, item_cost, json_size, response_too_large
from mesq.todos.views.details import task_details
from mesq.todos.views.traversal import Board

T0 = "2026-11-01T00:00:00.000000Z"


def test_the_budget_counts_compact_json_characters_not_bytes() -> None:
    data = {"title": "长长", "n": 1, "quote": 'a"b'}
    assert json_size(data) == len('{"title":"长长","n":1,"quote":"a\\"b"}')
    assert json_size(data) < len(json.dumps(data).encode())  # bytes or ASCII escapes would count more
    assert item_cost(data) == json_size(data) + 1  # the comma in an array
    assert RESPONSE_BUDGET_CHARACTERS == 25_000


def test_ensure_fits_passes_or_raises_with_hints() -> None:
    small = {"x": "y" * 10}
    assert ensure_fits(small, "small") is small
    with pytest.raises(ResponseTooLarge) as caught:
        ensure_fits({"x": "y" * 25_000}, "task t1", hints=["includeContext"], record_id="t1")
    error = caught.value
    assert error.code == "RESPONSE_TOO_LARGE"
    assert error.details == {
        "budgetCharacters": 25_000,
        "sizeCharacters": 25_008,
        "hints": {"includeContext": False},
        "recordId": "t1",
    }
    assert "includeContext=false" in error.message and "does not mean there are no tasks" in error.message
    default = response_too_large("a page", 30_000)
    assert default.details["hints"] == {"limit": 1, "includeNotes": False, "includeContext": False}


def _task(ident: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": ident,
        "spaceId": "s1",
        "columnId": "c1",
        "parentId": None,
        "title": ident,
        "notes": "",
        "position": "a0",
        "revision": 1,
        "updatedAt": T0,
        "deletedAt": None,
        **fields,
    }


def _board(notes: str = "", tags: int = 0) -> Board:
    return Board(
        spaces=[{"id": "s1", "position": "a0"}, {"id": "s2", "position": "a1"}],
        columns=[{"id": "c1", "spaceId": "s1", "position": "a0"}, {"id": "c9", "spaceId": "s2", "position": "a0"}],
        tasks=[
            _task("t1", notes=notes, timezone=None),
            _task("s-b", parentId="t1", columnId=None, position="a1", done=True),
            _task("s-a", parentId="t1", columnId=None, position="a0"),
            _task("s-gone", parentId="t1", columnId=None, deletedAt=T0),
            _task("trashed", deletedAt=T0),
        ],
        inbox_items=[{**_task("i1", notes="hidden"), "subtasks": [{"id": "x"}]}, {**_task("i2"), "deletedAt": T0}],
        tags=[{"name": f"tag{n:03d}-" + "x" * 90} for n in range(tags)],
    )


def test_details_have_full_notes_all_live_subtasks_and_a_timezone() -> None:
    data = task_details(_board(notes="n" * 5000), "t1", default_timezone="Asia/Shanghai")
    assert data["task"]["notes"] == "n" * 5000
    assert [s["id"] for s in data["subtasks"]] == ["s-a", "s-b"]  # by position, done included, trash not
    assert data["timezone"] == "Asia/Shanghai"
    assert set(data) == {"task", "subtasks", "timezone"}
    assert task_details(_board(), "t1")["timezone"] == "UTC"


def test_context_only_on_request() -> None:
    data = task_details(_board(), "t1", include_context=True)
    assert data["board"]["space"]["id"] == "s1" and [c["id"] for c in data["board"]["columns"]] == ["c1"]
    assert [s["id"] for s in data["board"]["spaces"]] == ["s1", "s2"]
    assert data["inbox"] == {"items": [{k: v for k, v in _task("i1").items() if k != "notes"}], "totalCount": 1}


def test_missing_and_trashed_tasks_are_not_found() -> None:
    for ident in ("nope", "trashed"):
        with pytest.raises(NotFound):
            task_details(_board(), ident)


def _read_whole(board: Board, **options: Any) -> tuple[str, list[int]]:
    """The notes of t1 read page after page as a client would; every page within the budget."""
    pages, sizes, offset = [], [], 0
    while True:
        data = task_details(board, "t1", notes_offset=offset, **options)
        sizes.append(json_size(data))
        pages.append(data["task"]["notes"])
        if not data.get("notesTruncated"):
            assert "notesNextOffset" not in data
            return "".join(pages), sizes
        assert data["notesNextOffset"] == offset + len(data["task"]["notes"])
        offset = data["notesNextOffset"]


@pytest.mark.parametrize("unit", ["n", "长", '"', "\n", "a\u0001"])
def test_a_50000_character_note_reads_back_whole_in_pages_that_fit(unit: str) -> None:
    # Escapes count in the budget (a quote or a newline takes two characters, a control six), so
    # the cut is measured on the JSON text, not on the length of the note.
    notes = (unit * 50_000)[:50_000]
    board = _board(notes=notes)
    read, sizes = _read_whole(board)
    assert read == notes and max(sizes) <= RESPONSE_BUDGET_CHARACTERS
    assert max(sizes) > RESPONSE_BUDGET_CHARACTERS - 40  # pages are full, not timid
    read, sizes = _read_whole(board, include_context=True)
    assert read == notes and max(sizes) <= RESPONSE_BUDGET_CHARACTERS


def test_notes_limit_and_offset_page_a_note() -> None:
    board = _board(notes="0123456789")
    data = task_details(board, "t1", notes_offset=2, notes_limit=3)
    assert data["task"]["notes"] == "234" and data["notesTruncated"] is True and data["notesNextOffset"] == 5
    last = task_details(board, "t1", notes_offset=7, notes_limit=3)
    assert last["task"]["notes"] == "789" and "notesTruncated" not in last
    assert task_details(board, "t1", notes_offset=99)["task"]["notes"] == ""
    short = task_details(_board(notes="short"), "t1")
    assert short["task"]["notes"] == "short" and set(short) == {"task", "subtasks", "timezone"}


def test_over_budget_details_fail_with_the_right_hint() -> None:
    # No room for one character of notes beside the rest: RESPONSE_TOO_LARGE, never an empty page.
    with pytest.raises(ResponseTooLarge) as caught:
        task_details(_board(notes="n" * 30_000), "t1", budget=200)
    assert caught.value.details["hints"] == {} and caught.value.details["recordId"] == "t1"
    # Required context over budget: the hint is includeContext=false, and without it the task fits.
    board = _board(tags=300)
    with pytest.raises(ResponseTooLarge) as caught:
        task_details(board, "t1", include_context=True)
    assert caught.value.details["hints"] == {"includeContext": False}
    assert task_details(board, "t1")["task"]["id"] == "t1"
