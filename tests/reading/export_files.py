"""Reading export files for the import tests (the format of docs/reading-import.md)."""

from __future__ import annotations

from typing import Any


def export(books: int = 3, notes: int = 250) -> dict[str, Any]:
    """`notes` notes spread over `books` books; every fourth note a thought with quotedText."""
    shelf: list[dict[str, Any]] = [
        {"id": f"book-{b}", "title": f"Book {b} 书", "author": f"Author {b}", "notes": []} for b in range(books)
    ]
    for n in range(notes):
        note: dict[str, Any] = {
            "id": f"n{n}",
            "noteType": "note" if n % 4 == 0 else "highlight",
            "content": f"content {n} 内容",
            "chapterTitle": f"Chapter {n % 7}",
            "chapterIndex": n % 7,
            "position": n,
            "createdAt": f"2026-01-{1 + n % 28:02d}T08:{n % 60:02d}:00+08:00",
        }
        if note["noteType"] == "note":
            note["quotedText"] = f"quoted {n}"
        shelf[n % books]["notes"].append(note)
    return {"provider": "wechat-reading", "books": shelf}
