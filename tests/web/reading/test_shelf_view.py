"""The shelf pages' pure parts: hit marking (casefold rule, mapped back to the original text) and
a page of notes as reading-order blocks (headings, thoughts placed under their highlight)."""

from __future__ import annotations

from typing import Any

from mesq.web.reading.marks import marked
from mesq.web.reading.notes import reading_blocks


def test_marks_follow_casefold_and_keep_the_original_text() -> None:
    street = marked("Die Straße, STRASSE", "strasse")
    assert street == [("Die ", False), ("Straße", True), (", ", False), ("STRASSE", True)]
    assert marked("财政与财政", "财政") == [("财政", True), ("与", False), ("财政", True)]
    assert marked("aaa", "aa") == [("aa", True), ("a", False)]  # non-overlapping, left to right
    assert marked("", "x") == [] and marked("text", "") == [("text", False)]
    assert "".join(part for part, _ in marked("<b>Bold</b>", "b")) == "<b>Bold</b>"  # nothing lost or added


def _note(id_: str, kind: str, content: str, chapter: int | None, **extra: Any) -> dict[str, Any]:
    note: dict[str, Any] = {"id": id_, "noteType": kind, "content": content, **extra}
    if chapter is not None:
        note.update(chapterIndex=chapter, chapterTitle=f"Ch {chapter}")
    return note


def test_blocks_place_thoughts_under_their_highlight_and_head_chapters() -> None:
    notes = [
        _note("h1", "highlight", "the  passage", 1),
        _note("t1", "note", "mine", 1, quotedText="the passage"),  # whitespace differences do not matter
        _note("t2", "note", "elsewhere", 2, quotedText="the passage"),  # another chapter: stands alone
        _note("h2", "highlight", "later", 2),
    ]
    blocks = reading_blocks(notes)
    assert [(b.kind, b.title or b.note["id"]) for b in blocks] == [
        ("chapter", "Ch 1"), ("highlight", "h1"), ("chapter", "Ch 2"), ("thought", "t2"), ("highlight", "h2"),
    ]  # fmt: skip
    assert [t["id"] for t in blocks[1].thoughts] == ["t1"]


def test_a_page_that_continues_a_chapter_has_no_repeated_heading() -> None:
    previous = _note("h0", "highlight", "before", 3)
    blocks = reading_blocks([_note("h1", "highlight", "next", 3), _note("h2", "highlight", "new", 4)], previous)
    assert [b.kind for b in blocks] == ["highlight", "chapter", "highlight"]
    unchaptered = reading_blocks([_note("a", "highlight", "x", None), _note("b", "note", "y", None)])
    assert [b.kind for b in unchaptered] == ["highlight", "thought"]  # a book without chapters: no headings
