"""The reading file import (docs/reading-import.md): parse and check the WHOLE file first, naming
the first bad element (`books[1].notes[3].noteType: ...`), and only then write, book by book, with
the same idempotent merge a sync uses, so re-importing a file changes nothing.

A book in the file is a full snapshot of that book: its notes missing from the file are marked
deletedUpstream. Books not in the file are left alone.
"""

from __future__ import annotations

import json
from typing import Any

from ..kernel.errors import ValidationError
from ..kernel.i18n import Text
from ..kernel.json_problems import json_problem
from ..kernel.messages import quoted
from ..kernel.ports.storage import ItemStore
from ..kernel.timestamps import normalize_timestamp
from .merge import MergeReport, apply_snapshot
from .model import PROVIDER, BookSnapshot, UpstreamBook, UpstreamNote

MAX_BOOKS = 5_000
MAX_NOTES_PER_BOOK = 20_000
MAX_ID = 200
MAX_TITLE = 1_000
MAX_TEXT = 50_000
MAX_POSITION = 999_999_998

_TOP_FIELDS = {"provider", "books"}
_BOOK_FIELDS = {"id", "title", "author", "cover", "notes"}
_NOTE_FIELDS = {"id", "noteType", "content", "quotedText", "chapterTitle", "chapterIndex", "position", "createdAt"}


def _fail(where: str, problem: Text) -> ValidationError:
    """The refusal of the file at `where`; the problem is a catalog message, so the settings
    page's import says all of it in the page's language."""
    return ValidationError("%(where)s: %(problem)s; nothing was imported", where=where, problem=problem)


def _object(value: Any, where: str, allowed: set[str], required: tuple[str, ...]) -> dict[str, Any]:
    """`value` as an object of `allowed` fields; `where` is its path, "" for the file's top."""
    if not isinstance(value, dict):
        raise _fail(where, Text("must be an object"))
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise _fail(
            _field(where, unknown[0]),
            Text("unknown field (allowed: %(allowed)s)", allowed=", ".join(sorted(allowed))),
        )
    for name in required:
        if name not in value:
            raise _fail(_field(where, name), Text("is required"))
    return value


def _field(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _text(value: Any, where: str, maximum: int, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _fail(where, Text("must be a string"))
    if not empty and not value.strip():
        raise _fail(where, Text("must not be empty"))
    if len(value) > maximum:
        raise _fail(where, Text("is longer than %(maximum)s characters", maximum=maximum))
    return value


def _optional_text(value: dict[str, Any], name: str, where: str, maximum: int) -> str | None:
    if value.get(name) is None:
        return None
    return _text(value[name], f"{where}.{name}", maximum)


def _integer(value: dict[str, Any], name: str, where: str) -> int | None:
    raw = value.get(name)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= MAX_POSITION:
        raise _fail(f"{where}.{name}", Text("must be a whole number 0..%(maximum)s", maximum=MAX_POSITION))
    return raw


def _note(raw: Any, where: str) -> UpstreamNote:
    note = _object(raw, where, _NOTE_FIELDS, ("id", "noteType", "content", "createdAt"))
    if note["noteType"] not in ("highlight", "note"):
        raise _fail(
            f"{where}.noteType", Text('must be "highlight" or "note", not %(value)s', value=quoted(note["noteType"]))
        )
    passage = _optional_text(note, "quotedText", where, MAX_TEXT)
    if passage is not None and note["noteType"] == "highlight":
        raise _fail(f"{where}.quotedText", Text("only a note (a thought) quotes a passage; a highlight is the passage"))
    try:
        created = normalize_timestamp(note["createdAt"], f"{where}.createdAt")
    except ValidationError as error:  # it names the field already, in words the catalog has
        raise ValidationError("%(problem)s; nothing was imported", problem=error.text) from None
    return UpstreamNote(
        note_type=note["noteType"],
        external_id=_text(note["id"], f"{where}.id", MAX_ID),
        content=_text(note["content"], f"{where}.content", MAX_TEXT),
        created_at=created,
        quoted_text=passage,
        chapter_title=_optional_text(note, "chapterTitle", where, MAX_TITLE),
        chapter_index=_integer(note, "chapterIndex", where),
        position=_integer(note, "position", where),
    )


def _book(raw: Any, where: str) -> BookSnapshot:
    book = _object(raw, where, _BOOK_FIELDS, ("id", "title", "notes"))
    notes = book["notes"]
    if not isinstance(notes, list):
        raise _fail(f"{where}.notes", Text("must be an array"))
    if len(notes) > MAX_NOTES_PER_BOOK:
        raise _fail(f"{where}.notes", Text("has more than %(maximum)s notes", maximum=MAX_NOTES_PER_BOOK))
    parsed = tuple(_note(note, f"{where}.notes[{index}]") for index, note in enumerate(notes))
    seen: dict[str, int] = {}
    for index, note in enumerate(parsed):
        first = seen.setdefault(note.external_id, index)
        if first != index:
            raise _fail(
                f"{where}.notes[{index}].id",
                Text("repeats the id of notes[%(first)s] (%(id)s)", first=first, id=quoted(note.external_id)),
            )
    upstream = UpstreamBook(
        external_id=_text(book["id"], f"{where}.id", MAX_ID),
        title=_text(book["title"], f"{where}.title", MAX_TITLE),
        author=_text(book.get("author") or "", f"{where}.author", MAX_TITLE, empty=True),
        cover=_optional_text(book, "cover", where, 2_000),
    )
    return BookSnapshot(upstream, parsed)


def _json_integer(literal: str) -> int:
    """A JSON integer; one of more digits than any position is read as too large (Python refuses
    to read over 4,300 digits, with a ValueError no JSON error catches)."""
    return int(literal) if len(literal.lstrip("-")) <= 18 else (-1 if literal.startswith("-") else 10**18)


def parse_import(text: str | bytes) -> list[BookSnapshot]:
    """The snapshots of a reading export file, or ValidationError naming the first bad element."""
    try:
        document = json.loads(text, parse_int=_json_integer)
    except RecursionError:  # thousands of nested brackets: no export file is so deep
        raise ValidationError("the file is not valid JSON: it nests too deeply; nothing was imported") from None
    except UnicodeDecodeError as error:
        raise ValidationError(
            "the file is not UTF-8 text (byte %(start)s); save it as UTF-8 and import it again", start=error.start
        ) from None
    except json.JSONDecodeError as error:
        raise ValidationError(
            "the file is not valid JSON: %(problem)s at line %(lineno)s column %(colno)s; nothing was imported",
            problem=json_problem(error),
            lineno=error.lineno,
            colno=error.colno,
        ) from None
    return parse_document(document)


def parse_document(document: Any) -> list[BookSnapshot]:
    if not isinstance(document, dict):
        raise ValidationError(
            'the file must hold one JSON object, {"provider": "wechat-reading", "books": [...]}; nothing was imported'
        )
    top = _object(document, "", _TOP_FIELDS, ("provider", "books"))
    if top["provider"] != PROVIDER:
        raise _fail(
            "provider",
            Text("must be %(expected)s, not %(value)s", expected=quoted(PROVIDER), value=quoted(top["provider"])),
        )
    books = top["books"]
    if not isinstance(books, list):
        raise _fail("books", Text("must be an array"))
    if len(books) > MAX_BOOKS:
        raise _fail("books", Text("has more than %(maximum)s books", maximum=MAX_BOOKS))
    snapshots = [_book(book, f"books[{index}]") for index, book in enumerate(books)]
    seen: dict[str, int] = {}
    for index, snapshot in enumerate(snapshots):
        first = seen.setdefault(snapshot.book.external_id, index)
        if first != index:
            raise _fail(
                f"books[{index}].id",
                Text("repeats the id of books[%(first)s] (%(id)s)", first=first, id=quoted(snapshot.book.external_id)),
            )
    return snapshots


def import_snapshots(items: ItemStore, user_id: str, snapshots: list[BookSnapshot], now: str) -> MergeReport:
    report = MergeReport()
    for snapshot in snapshots:
        report.add(apply_snapshot(items, user_id, snapshot, now, source="import"))
    return report
