"""Reading shelves for the shelf page tests, in the export-file format of docs/reading-import.md
(the same parser and merge the CLI, the settings page's upload and a sync use): CJK titles and
notes, chapters, thoughts on a highlight, a lone thought, a note removed upstream, and markup that
must stay text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.timestamps import now_timestamp
from mesq.reading.importer import import_snapshots, parse_document

COVER = "https://covers.example/zsss.jpg"
XSS = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


def note(note_id: str, kind: str, content: str, chapter: int | None, position: int, **extra: Any) -> dict[str, Any]:
    made: dict[str, Any] = {
        "id": note_id, "noteType": kind, "content": content, "position": position,
        "createdAt": f"2026-03-{1 + position % 28:02d}T21:{position % 60:02d}:00+08:00", **extra,
    }  # fmt: skip
    if chapter is not None:
        made.update(chapterIndex=chapter, chapterTitle=extra.get("chapterTitle", f"第{chapter}章"))
    return made


def sample_shelf() -> dict[str, Any]:
    """Two books: 置身事内 with chapters, a thought on a highlight and a lone thought; and one more."""
    passage = "地方政府是经济发展的重要参与者。"
    one, two = "第一章 地方政府的权力与事务", "第二章 财税与政府行为"
    notes = [
        note("h1", "highlight", passage, 1, 10, chapterTitle=one),
        note("t1", "note", "我的想法：这正是土地财政的起点。", 1, 11, quotedText=passage,
             chapterTitle=one),
        note("h2", "highlight", "财政收入与支出的不匹配 is the key.", 1, 20, chapterTitle=one),
        note("t2", "note", "A lone thought about debt 债务.", 2, 5, quotedText="一段没有划线的原文",
             chapterTitle=two),
        note("h3", "highlight", XSS, 2, 8, chapterTitle=two),
    ]  # fmt: skip
    books = [
        {"id": "b-1", "title": "置身事内", "author": "兰小欢", "cover": COVER, "notes": notes},
        {"id": "b-2", "title": "The Art of Doing Science", "author": "Richard Hamming",
         "notes": [note("x1", "highlight", "What are the important problems of your field?", 3, 1)]},
    ]  # fmt: skip
    return {"provider": "wechat-reading", "books": books}


def many_notes_shelf(notes: int, *, chapters: int = 1) -> dict[str, Any]:
    """One book with `notes` highlights spread evenly over `chapters` chapters, in order."""
    per_chapter = max(notes // chapters, 1)
    made = [note(f"n{n}", "highlight", f"第{n}条划线 passage {n}", 1 + n // per_chapter, n) for n in range(notes)]
    return {"provider": "wechat-reading", "books": [{"id": "long", "title": "长篇", "notes": made}]}


def many_books_shelf(books: int) -> dict[str, Any]:
    shelf = [
        {"id": f"m{b}", "title": f"书 {b:03d}", "notes": [note(f"m{b}n", "highlight", f"passage {b}", 1, b)]}
        for b in range(books)
    ]
    return {"provider": "wechat-reading", "books": shelf}


def seed(items: ItemStore, user_id: str, document: dict[str, Any]) -> None:
    import_snapshots(items, user_id, parse_document(document), now_timestamp())


def write_export(path: Path, document: dict[str, Any]) -> Path:
    """For `mesq reading import USERNAME FILE` against a live server."""
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path
