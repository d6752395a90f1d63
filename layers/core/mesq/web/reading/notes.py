"""A page of one book's notes as the book page shows them: in reading order, a heading where a
chapter starts, each highlight (the book's words) with the thoughts written on it, and a thought
whose highlight is not on the page standing alone with the passage it quotes.

A thought (`noteType: note`) names the passage it quotes only by text (`quotedText`), not by id:
it is shown under the highlight of the same chapter whose text is that passage, when that
highlight is on the same page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Note = dict[str, Any]
Chapter = tuple[int | None, str | None]


@dataclass
class Block:
    """One thing on the page: a chapter heading, a highlight with its thoughts, or a lone thought."""

    kind: str  # "chapter" | "highlight" | "thought"
    title: str = ""  # a chapter's title as the book gives it; without one the template says `number`
    number: int | None = None  # the chapter's number, for a heading without a title ("Chapter 2")
    note: Note = field(default_factory=dict)
    thoughts: list[Note] = field(default_factory=list)


def chapter_of(note: Note) -> Chapter:
    return note.get("chapterIndex"), note.get("chapterTitle")


def _passage_key(chapter: Chapter, text: str) -> tuple[Chapter, str]:
    return chapter, " ".join(text.split())


def _heading(chapter: Chapter) -> Block:
    """The heading's block: the book's title for the chapter, else its number or neither, which
    the template words in the reader's language ("第 2 章", "书中其他位置")."""
    index, title = chapter
    return Block("chapter", title=title or "", number=None if title else index)


def reading_blocks(notes: list[Note], previous: Note | None = None) -> list[Block]:
    """`notes` (one page, reading order) as blocks; `previous` is the note just before the page,
    so a page that continues a chapter does not repeat its heading."""
    highlights: dict[tuple[Chapter, str], Block] = {}
    blocks: list[Block] = []
    for note in notes:
        if note["noteType"] == "highlight":
            block = Block("highlight", note=note)
            highlights.setdefault(_passage_key(chapter_of(note), note["content"]), block)
            blocks.append(block)
        else:
            blocks.append(Block("thought", note=note))
    placed: list[Block] = []
    for block in blocks:
        quoted = block.note.get("quotedText") if block.kind == "thought" else None
        target = highlights.get(_passage_key(chapter_of(block.note), quoted)) if quoted else None
        if target is not None:
            target.thoughts.append(block.note)
        else:
            placed.append(block)
    return _with_headings(placed, previous)


def _with_headings(blocks: list[Block], previous: Note | None) -> list[Block]:
    current: Chapter | None = chapter_of(previous) if previous is not None else None
    chaptered = any(chapter_of(block.note) != (None, None) for block in blocks)
    result: list[Block] = []
    for block in blocks:
        chapter = chapter_of(block.note)
        if chaptered and chapter != current:
            result.append(_heading(chapter))
            current = chapter
        result.append(block)
    return result
