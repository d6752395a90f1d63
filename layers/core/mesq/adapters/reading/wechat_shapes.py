"""WeChat Reading's answer shapes -> books and notes. The same shapes come back from the official
agent gateway (`/user/notebooks`, `/book/bookmarklist`, `/review/list/mine`) and from the web
reader's endpoints (`/api/user/notebook`, `/web/book/bookmarklist`, `/web/review/list`):

- notebook entry: `{bookId, book: {bookId, title, author, cover}, noteCount, bookmarkCount, reviewCount, sort}`
- bookmark list: `{updated: [{bookmarkId, markText, chapterUid, chapterIdx?, range: "start-end",
  createTime}], chapters: [{chapterUid, chapterIdx, title}]}`
- review list: `{reviews: [{review: {reviewId, content, abstract?, chapterUid?, chapterName?, range?,
  createTime}}], hasMore, synckey}`

An answer that is not one of these (no list where one must be) is UpstreamMalformed: a sync
never writes a half-understood answer. One item of a list that cannot be read (a book without a
title, a note without an id or a time, something that is not an object) is UnreadableItem: the
provider skips it and says so, and the rest of the answer is synced.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...kernel.i18n import Text
from ...kernel.timestamps import format_timestamp
from ...reading.model import UpstreamBook, UpstreamNote
from ...reading.provider import UpstreamMalformed

MAX_TEXT = 50_000

# What the messages call each answer and item (`%(what)s`): words, said in the reader's language.
NOTEBOOK_LIST = Text("notebook list")
BOOKMARK_LIST = Text("bookmark list")
REVIEW_LIST = Text("review list")
NOTEBOOK = Text("notebook entry")
BOOKMARK = Text("bookmark")
REVIEW = Text("review")
#: The lists an answer must hold, by their field: `%(name)s` of the message that one is missing.
_LISTS = {
    "books": Text("books"),
    "updated": Text("highlights"),
    "chapters": Text("chapters"),
    "reviews": Text("thoughts"),
}


class UnreadableItem(UpstreamMalformed):
    """One item of an answer that cannot be read: skipped, the rest of the answer is synced. A
    notebook entry's is said with the book's id and title where those could be read."""

    book_id: str | None = None
    title: str | None = None


def _upstream_id(value: Any, what: Text) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise UnreadableItem("WeChat Reading sent a %(what)s without a usable id", what=what)
    text = str(value).strip()
    if len(text) > 200:
        raise UnreadableItem("WeChat Reading sent a %(what)s id longer than 200 characters", what=what)
    return text


#: Digits a number given as a string may have: more is no count or time WeChat Reading sends (and
#: Python refuses int() of over 4300 digits).
MAX_DIGITS = 18


def digits(value: str) -> int | None:
    """The number an ASCII digit string says, else None. `str.isdigit` alone also admits "²" and
    other Unicode digits that int() refuses."""
    if value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS:
        return int(value)
    return None


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str):
        return digits(value)
    return None


def _text(value: Any) -> str | None:
    return value[:MAX_TEXT] if isinstance(value, str) and value.strip() else None


def _created(value: Any, what: Text) -> str:
    seconds = _integer(value)
    if seconds is None or seconds > 253_402_300_799:  # 9999-12-31
        raise UnreadableItem("WeChat Reading sent a %(what)s without a valid createTime", what=what)
    return format_timestamp(datetime.fromtimestamp(seconds, UTC))


def _position(range_text: Any) -> int | None:
    start = digits(range_text.split("-", 1)[0]) if isinstance(range_text, str) else None
    return None if start is None else min(start, 999_999_998)


def list_field(answer: dict[str, Any], name: str, what: Text) -> list[Any]:
    """The answer's list `name`, which must be there: an answer without it (`{}` from a gateway or
    a proxy in trouble) is not an empty shelf, and taking it for one would mark notes deleted."""
    value = answer.get(name)
    if not isinstance(value, list):
        raise UpstreamMalformed(
            "WeChat Reading's %(what)s answer has no list of %(name)s", what=what, name=_LISTS.get(name, name)
        )
    return value


def notebook_book(entry: Any) -> UpstreamBook:
    if not isinstance(entry, dict):
        raise UnreadableItem("WeChat Reading's notebook list holds something that is not a book")
    nested = entry.get("book")
    book: dict[str, Any] = nested if isinstance(nested, dict) else {}
    title = _text(book.get("title")) or _text(book.get("name"))
    try:
        external = _upstream_id(entry.get("bookId", book.get("bookId")), NOTEBOOK)
    except UnreadableItem as unreadable:
        unreadable.title = title[:1000] if title else None
        raise
    if title is None:
        untitled = UnreadableItem("WeChat Reading's notebook %(external)s has no title", external=external)
        untitled.book_id = external
        raise untitled
    counts = ":".join(str(_integer(entry.get(name)) or 0) for name in ("noteCount", "bookmarkCount", "reviewCount"))
    return UpstreamBook(
        external_id=external,
        title=title[:1000],
        author=(_text(book.get("author")) or "")[:1000],
        cover=(_text(book.get("cover")) or "")[:2000] or None,
        mark=f"{_integer(entry.get('sort')) or 0}:{counts}",
    )


def chapter_map(answer: dict[str, Any]) -> dict[str, tuple[int | None, str | None]]:
    chapters: dict[str, tuple[int | None, str | None]] = {}
    for chapter in list_field(answer, "chapters", BOOKMARK_LIST):
        if isinstance(chapter, dict) and chapter.get("chapterUid") is not None:
            chapters[str(chapter["chapterUid"])] = (_integer(chapter.get("chapterIdx")), _text(chapter.get("title")))
    return chapters


def _chapter(item: dict[str, Any], chapters: dict[str, tuple[int | None, str | None]]) -> tuple[int | None, str | None]:
    index, title = chapters.get(str(item.get("chapterUid")), (None, None))
    own_index = _integer(item.get("chapterIdx"))
    own_title = _text(item.get("chapterName")) or _text(item.get("chapterTitle"))
    return (own_index if own_index is not None else index), (own_title or title)


def bookmark_note(item: Any, chapters: dict[str, tuple[int | None, str | None]]) -> UpstreamNote | None:
    """A highlight, or None for a bookmark without marked text (a plain page bookmark)."""
    if not isinstance(item, dict):
        raise UnreadableItem("WeChat Reading's bookmark list holds something that is not a bookmark")
    external = _upstream_id(item.get("bookmarkId"), BOOKMARK)
    text = _text(item.get("markText"))
    if text is None:
        return None
    index, title = _chapter(item, chapters)
    return UpstreamNote(
        note_type="highlight",
        external_id=external,
        content=text,
        created_at=_created(item.get("createTime"), BOOKMARK),
        chapter_title=title,
        chapter_index=index,
        position=_position(item.get("range")),
    )


def review_note(wrapper: Any, chapters: dict[str, tuple[int | None, str | None]]) -> UpstreamNote | None:
    """A thought, or None for a review without text."""
    if not isinstance(wrapper, dict):
        raise UnreadableItem("WeChat Reading's review list holds something that is not a review")
    nested = wrapper.get("review")
    item: dict[str, Any] = nested if isinstance(nested, dict) else wrapper
    external = _upstream_id(item.get("reviewId"), REVIEW)
    text = _text(item.get("content"))
    if text is None:
        return None
    index, title = _chapter(item, chapters)
    return UpstreamNote(
        note_type="note",
        external_id=external,
        content=text,
        created_at=_created(item.get("createTime"), REVIEW),
        quoted_text=_text(item.get("abstract")),
        chapter_title=title,
        chapter_index=index,
        position=_position(item.get("range")),
    )
