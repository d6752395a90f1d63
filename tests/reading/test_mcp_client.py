"""The official `mcp` client over HTTP against a real `mesq serve`: after `mesq reading import`
of a 3-book, 250-note file it walks every book and then every note with paging (the client checks
each result against the tool's outputSchema) and gets each note exactly once with the right
noteType / contentOrigin / quotedText. A token without reading:read sees no reading tool; a PAT
made before (memo scopes only) never gains one, and the REST routes refuse it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_code_mode import doc_example
from tests.e2e.test_mcp_client import Calls, connect
from tests.mcp.test_protocol import CODE_TOOLS

from .export_files import export

READING_TOOLS = {"list_reading_books", "list_reading_notes", "search_reading_notes"}
#: What a reading-only token also sees: search_everything needs any one read scope (its hits are the
#: kinds that scope reads).
ANY_SCOPE_TOOLS = {"search_everything"}


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, Any]]]:
    server = start_server(tmp_path_factory.mktemp("reading-e2e") / "data")
    try:
        document = export(books=3, notes=250)
        path = tmp_path_factory.mktemp("file") / "export.json"
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        server.account("reader", scopes="memo:read,reading:read")
        imported = server.cli("reading", "import", "reader", str(path))
        assert imported.returncode == 0, imported.stderr
        yield server, document
    finally:
        stop_server(server)


async def _walk(call: Calls, tool: str, key: str, limit: int, **arguments: Any) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    offset = 0
    while True:
        data = await call(tool, {**arguments, "offset": offset, "limit": limit})
        seen += data[key]
        if not data["page"]["hasMore"]:
            return seen
        offset = data["page"]["nextOffset"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_full_read_walks_books_then_notes(shelf, mode):
    server, document = shelf
    token = server.account(f"walker-{mode}", scopes="reading:read").token
    # The walker's own shelf is empty: import for it through the CLI too.
    path = server.data_dir.parent / f"walker-{mode}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert server.cli("reading", "import", f"walker-{mode}", str(path)).returncode == 0
    expected = {(book["id"], note["id"]): note for book in document["books"] for note in book["notes"]}

    async def scenario() -> None:
        async with connect(server.base_url, token, mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == READING_TOOLS | ANY_SCOPE_TOOLS | set(CODE_TOOLS)
            call = Calls(client)
            books = await _walk(call, "list_reading_books", "books", limit=2)
            assert len(books) == len({b["id"] for b in books}) == 3
            got: dict[tuple[str, str], dict[str, Any]] = {}
            for book in books:
                for note in await _walk(call, "list_reading_notes", "notes", limit=37, bookId=book["id"]):
                    key = (book["externalId"], note["externalId"])
                    assert key not in got, f"{key} returned twice"
                    got[key] = note
            assert set(got) == set(expected)
            for key, note in got.items():
                source = expected[key]
                assert note["noteType"] == source["noteType"]
                assert (
                    note["contentOrigin"] == {"highlight": "book_excerpt", "note": "reader_thought"}[source["noteType"]]
                )
                assert note.get("quotedText") == source.get("quotedText")
                assert note["content"] == source["content"] and note["deletedUpstream"] is False
            hits = await _walk(call, "search_reading_notes", "notes", limit=50, query="QUOTED 1")
            assert hits and all("quoted 1" in h["quotedText"] for h in hits)
            assert all(h["bookTitle"].startswith("Book ") for h in hits)

    anyio.run(scenario)


def test_a_search_for_a_book_title_or_author_finds_the_book(shelf):
    """A book's title is in none of its notes' text: searching 三体 found no note of 《三体》 and
    said nothing of the book. The first page now answers with the books whose title or author
    holds the query (folded as the notes are), and the official client accepts the result
    against the listed output schema; later pages, and queries no title holds, carry none."""
    server, _document = shelf
    token = server.account("title-searcher", scopes="reading:read").token
    path = server.data_dir.parent / "title-searcher.json"
    path.write_text(json.dumps(export(books=3, notes=30), ensure_ascii=False), encoding="utf-8")
    assert server.cli("reading", "import", "title-searcher", str(path)).returncode == 0

    async def scenario() -> None:
        async with connect(server.base_url, token, "auto") as client:
            call = Calls(client)
            found = await call("search_reading_notes", {"query": "BOOK 1 书"})
            assert [book["title"] for book in found["books"]] == ["Book 1 书"]
            assert found["notes"] == [] and found["page"]["totalCount"] == 0
            by_author = await call("search_reading_notes", {"query": "author"})
            assert sorted(book["author"] for book in by_author["books"]) == ["Author 0", "Author 1", "Author 2"]
            both = await call("search_reading_notes", {"query": "内容", "limit": 5})
            assert "books" not in both and len(both["notes"]) == 5
            later = await call("search_reading_notes", {"query": "书", "offset": 5, "limit": 5})
            assert "books" not in later
            first = await call("search_reading_notes", {"query": "书", "limit": 5})
            assert len(first["books"]) == 3

    anyio.run(scenario)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_no_reading_tool_without_the_scope_and_old_pats_never_gain_it(shelf, mode):
    server, _document = shelf
    old = server.account(f"old-{mode}", scopes="memo:read,memo:write,todo:read")

    async def scenario() -> None:
        async with connect(server.base_url, old.token, mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names and not names & READING_TOOLS
            # Hidden by scope: the call is refused (a 403 step-up challenge), never answered.
            with pytest.raises(MCPError):
                await client.call_tool("list_reading_books", {})

    anyio.run(scenario)
    refused = httpx.get(f"{server.base_url}/api/toolkit/reading/books", headers=old.headers, timeout=10)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"


def test_the_documented_code_mode_walk_reads_every_note_of_one_book(shelf):
    server, document = shelf
    token = server.account("code-walker", scopes="reading:read").token
    path = server.data_dir.parent / "code-walker.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert server.cli("reading", "import", "code-walker", str(path)).returncode == 0
    book = document["books"][1]
    script = doc_example(2).replace("'Thinking'", json.dumps(book["title"]))

    async def scenario() -> None:
        async with connect(server.base_url, token, "auto") as client:
            result = await client.call_tool("run_code", {"code": script, "maxOutputChars": 100_000})
            data = result.structured_content["data"]
            assert data["result"]["book"] == book["title"], data
            assert data["result"]["count"] == len(book["notes"]) == len(data["result"]["notes"])
            texts = sorted(note["text"] for note in data["result"]["notes"])
            assert texts == sorted(note["content"] for note in book["notes"])
            assert "budget" not in data and all(line.startswith("list_reading_") for line in data["log"])

    anyio.run(scenario)
