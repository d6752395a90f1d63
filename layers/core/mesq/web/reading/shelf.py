"""The reading shelf (阅读) at `/reading`: the books, one book's highlights and thoughts in
reading order, and a literal search across every note. Read-only, like the `reading` operations:
every read goes through `Page.invoke` (the same validation and code as REST and MCP); sync and
import stay at Settings -> Reading sync (`../settings/sync.py`).

"More" links are plain links to the next offset; with htmx they fetch only the next page's
entries (`HX-Request`), which replace the link in place.

Covers: a book's `cover` is a remote URL and the pages' CSP allows images from this origin only,
so no cover image is shown or proxied (docs/decisions.md); a letter tile stands in for it.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.concurrency import run_sync
from ...kernel.errors import NotFound, ServiceUnavailable
from ...kernel.graphemes import has_words
from ...kernel.messages import quoted
from ...reading.model import public_book, public_note
from ...reading.store import book_notes, read_book
from ..kit.framework import Page, Web, endpoint
from ..kit.request_values import is_htmx, query_offset
from .marks import marked
from .notes import reading_blocks

PAGE = "/reading"
BOOKS_PER_PAGE = 30
NOTES_PER_PAGE = 50
HITS_PER_PAGE = 50
QUERY_MAX = 200  # search_reading_notes' own limit, checked here to keep the form and the text
#: The notes nearest in meaning shown when no note holds the query's exact words.
NEAREST = 5


def _offset(page: Page) -> int:
    return query_offset(page.request.query_params)


def _partial(page: Page) -> bool:
    """An htmx request for the next entries only (not a history restore, which wants the page)."""
    return is_htmx(page.request)


async def shelf_page(page: Page) -> Response:
    data = await page.invoke("list_reading_books", {"offset": _offset(page), "limit": BOOKS_PER_PAGE})
    template = "reading/_books.html" if _partial(page) else "reading/shelf.html"
    return page.render(template, nav="shelf", books=data["books"], page=data["page"], partial=_partial(page))


def _book(page: Page, book_id: str) -> dict[str, Any]:
    found = read_book(page.web.services.items, page.user.user_id, book_id)
    if found is None:
        raise NotFound("reading book %(book_id)s not found", book_id=quoted(book_id))
    return public_book(found)


async def book_page(page: Page) -> Response:
    book_id, offset = page.request.path_params["book_id"], _offset(page)
    # One note before the page as well: it tells whether the page's first note continues a chapter.
    start = max(offset - 1, 0)
    data = await page.invoke(
        "list_reading_notes", {"bookId": book_id, "offset": start, "limit": NOTES_PER_PAGE + (offset - start)}
    )
    notes = data["notes"]
    if start < offset and len(notes) == 1 and data["page"]["hasMore"]:
        # The note before the page alone filled the read's budget (reading/operations.py): read
        # the page without it, or "More notes" would lead back here.
        data = await page.invoke("list_reading_notes", {"bookId": book_id, "offset": offset, "limit": NOTES_PER_PAGE})
        notes, start = data["notes"], offset
    previous = notes[0] if start < offset and notes else None
    shown = notes[1:] if previous is not None else notes
    book = await run_sync(_book, page, book_id)
    template = "reading/_notes.html" if _partial(page) else "reading/book.html"
    return page.render(
        template,
        nav="shelf",
        book=book,
        blocks=reading_blocks(shown, previous),
        page=data["page"],
        offset=offset,
        partial=_partial(page),
    )


async def search_page(page: Page) -> Response:
    query = page.request.query_params.get("q", "").strip()
    context: dict[str, Any] = {
        "nav": "shelf", "query": query, "books": [], "hits": [], "page": None, "error": None,
        "partial": _partial(page), "nearest": None,
    }  # fmt: skip
    if len(query) > QUERY_MAX:
        context["error"] = page.gettext("Search for at most %(max)d characters.", max=QUERY_MAX)
    elif query:
        arguments = {"query": query, "offset": _offset(page), "limit": HITS_PER_PAGE}
        data = await page.invoke("search_reading_notes", arguments)
        context["page"] = data["page"]
        # The books whose title or author holds the query (the first page only): a title is in
        # none of its notes, so a search for a book answers with the book.
        context["books"] = [
            {**book, "titleMarks": marked(book["title"], query), "authorMarks": marked(book["author"], query)}
            for book in data.get("books", [])
        ]
        context["hits"] = [_marked(note, query) for note in data["notes"]]
        if not data["notes"] and not context["books"] and context["page"]["offset"] == 0:
            # Nothing holds the words, no book either (a book found is the answer to its title).
            context["nearest"] = await _nearest(page, query)
    template = "reading/_hits.html" if query and _partial(page) else "reading/search.html"
    return page.render(template, **context)


def _marked(note: dict[str, Any], query: str) -> dict[str, Any]:
    """A note as the hits list shows it: its text, passage and chapter with the query marked."""
    return {
        **note,
        "contentMarks": marked(note["content"], query),
        "quotedMarks": marked(note.get("quotedText", ""), query),
        "chapterMarks": marked(note.get("chapterTitle", ""), query),
    }


def _notes_of(page: Page, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The notes of AI search hits, whole, in the hits' order: each hit's book read up to its last
    note wanted (a hit names its note's id and book, not its place in the book)."""
    wanted: dict[str, set[str]] = {}
    for hit in hits:
        wanted.setdefault(hit["bookId"], set()).add(hit["id"])
    found: dict[str, dict[str, Any]] = {}
    titles = {hit["bookId"]: hit.get("bookTitle") for hit in hits}
    for book, ids in wanted.items():
        for item in book_notes(page.web.services.items, page.user.user_id, book):
            if item["id"] in ids:
                found[item["id"]] = public_note(item, titles[book])
                ids.discard(item["id"])
                if not ids:
                    break
    return [found[hit["id"]] for hit in hits if hit["id"] in found]


async def _nearest(page: Page, query: str) -> list[dict[str, Any]] | None:
    """When no note holds the query's exact words: the reading notes nearest in meaning (AI search,
    search_everything over reading notes; while there is no AI index, those holding the most of
    its words): the confident hits, else the closest below the floor, at most `NEAREST`. None
    when AI search cannot be asked (no letter or digit in the query, the search unavailable): the
    page still offers the memo search."""
    if not has_words(query):
        return None
    try:
        answer = await page.invoke("search_everything", {"query": query, "kinds": ["reading_note"], "limit": NEAREST})
    except ServiceUnavailable:
        return None
    # The confident hits; without one, the closest below the floor (AI search's "less related").
    hits = [hit for hit in answer["items"] or answer.get("closestMatches", []) if hit.get("bookId")][:NEAREST]
    return [_marked(note, query) for note in await run_sync(_notes_of, page, hits)]


def shelf_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, shelf_page), methods=["GET"]),
        Route(PAGE + "/search", endpoint(web, search_page), methods=["GET"]),
        Route(PAGE + "/books/{book_id}", endpoint(web, book_page), methods=["GET"]),
    ]
