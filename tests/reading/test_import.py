"""The reading file import: the documented format, errors naming the first bad element with
nothing written, re-import changing nothing, the CLI command, and the REST reads it feeds."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mesq.kernel.errors import ValidationError
from mesq.kernel.i18n import Translator
from mesq.kernel.keys import user_partition
from mesq.reading.importer import import_snapshots, parse_document, parse_import
from mesq.store.paging import walk
from tests.conftest import run_cli

from .export_files import export

BOOKS = "/api/toolkit/reading/books"
READING = "reading:read"


def stored(services: Any, user_id: str) -> list[dict[str, Any]]:
    return [item for item in walk(services.items, user_partition(user_id)) if item["sk"].startswith("READ#")]


def bad(document: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    target = changed
    for step in path[:-1]:
        target = target[step]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return changed


CASES = [
    (["provider"], "kindle", "provider: must be 'wechat-reading'"),
    (["books"], {}, "books: must be an array"),
    (["books", 1, "title"], KeyError, "books[1].title: is required"),
    (["books", 2, "notes", 5, "noteType"], "quote", 'books[2].notes[5].noteType: must be "highlight" or "note"'),
    (["books", 0, "notes", 3, "createdAt"], "yesterday", "books[0].notes[3].createdAt:"),
    (["books", 0, "notes", 1, "quotedText"], "x", "books[0].notes[1].quotedText: only a note"),
    (["books", 1, "notes", 0, "colour"], "red", "books[1].notes[0].colour: unknown field"),
    (["books", 1, "notes", 2, "position"], -1, "books[1].notes[2].position: must be a whole number"),
    (["books", 0, "notes", 2, "id"], "n0", "books[0].notes[2].id: repeats the id of notes[0]"),
    (["books", 2, "id"], "book-0", "books[2].id: repeats the id of books[0]"),
    (["books", 0, "notes", 4, "content"], "  ", "books[0].notes[4].content: must not be empty"),
]


@pytest.mark.parametrize(("path", "value", "message"), CASES)
def test_bad_file_names_the_first_bad_element_and_writes_nothing(services, make_account, path, value, message):
    account = make_account(scopes=READING)
    document = bad(export(), path, value)
    with pytest.raises(ValidationError) as raised:
        import_snapshots(services.items, account.user_id, parse_document(document), "2026-02-01T00:00:00.000000Z")
    assert raised.value.message.startswith(message), raised.value.message
    assert "nothing was imported" in raised.value.message
    assert stored(services, account.user_id) == []


@pytest.mark.parametrize(("path", "value", "message"), CASES)
def test_a_bad_file_is_said_in_chinese_on_a_chinese_page(services, make_account, path, value, message):
    """The settings page's import shows the refusal in the page's language: the problem itself
    in Chinese, not only the words around it (只有“未导入任何内容”是中文 was the bug)."""
    with pytest.raises(ValidationError) as raised:
        parse_document(bad(export(), path, value))
    said = Translator("zh").text(raised.value.text)
    where, _, problem = said.partition("：")
    assert where == message.split(":", 1)[0] and problem.endswith("；未导入任何内容"), said
    problem = problem.removesuffix("；未导入任何内容")
    assert re.search(r"[\u4e00-\u9fff]", problem), said
    # Code, not words: the format's field names and values, and what the file itself holds.
    fields = {"chapterIndex", "chapterTitle", "content", "createdAt", "id", "noteType", "position", "quotedText"}
    english = fields | {"books", "notes", "highlight", "note", "ISO"}
    words = re.findall(r"[A-Za-z]{3,}", re.sub(r"'[^']*'|\"[^\"]*\"|“[^”]*”", "", problem))
    assert not [word for word in words if word not in english], said


def test_not_json_is_a_clear_error():
    with pytest.raises(ValidationError, match="not valid JSON") as raised:
        parse_import(b'{"provider": ')
    assert raised.value.message == (
        "the file is not valid JSON: a value was expected at line 1 column 14; nothing was imported"
    )  # MeSQ's words, never json's ("Expecting value")
    with pytest.raises(ValidationError, match="not UTF-8 text"):
        parse_import(b'{"provider": "caf\xe9"}')


def test_a_file_too_deep_or_with_a_huge_number_is_refused_by_name():
    """`mesq reading import` of a file of nested brackets said "unexpected RecursionError", and of
    a number of 5,000 digits Python's own ValueError: each is now the file's refusal."""
    with pytest.raises(ValidationError, match="nests too deeply"):
        parse_import("[" * 100_000)
    huge = json.dumps(export(books=1, notes=1)).replace('"position": 0', '"position": ' + "9" * 5000)
    assert "9" * 5000 in huge
    with pytest.raises(ValidationError, match=r"books\[0\]\.notes\[0\]\.position: must be a whole number"):
        parse_import(huge)


def test_reimport_changes_nothing_and_a_dropped_note_is_marked(services, make_account, client):
    account = make_account(scopes=READING)
    snapshots = parse_document(export())
    first = import_snapshots(services.items, account.user_id, snapshots, "2026-02-01T00:00:00.000000Z")
    assert first.added == 250
    before = stored(services, account.user_id)
    again = import_snapshots(services.items, account.user_id, parse_document(export()), "2026-02-02T00:00:00.000000Z")
    assert (again.added, again.updated, again.marked_deleted, again.unchanged) == (0, 0, 0, 250)
    assert stored(services, account.user_id) == before

    smaller = export()
    removed = smaller["books"][0]["notes"].pop(1)
    changed = smaller["books"][1]["notes"][0]
    changed["content"] = "edited upstream"
    report = import_snapshots(services.items, account.user_id, parse_document(smaller), "2026-02-03T00:00:00.000000Z")
    assert (report.added, report.updated, report.marked_deleted) == (0, 1, 1)
    books = client.get(BOOKS, headers=account.headers).json()["data"]["books"]
    first_book = next(b for b in books if b["externalId"] == "book-0")
    assert first_book["deletedUpstreamCount"] == 1
    notes = client.get(f"{BOOKS}/{first_book['id']}/notes", headers=account.headers).json()["data"]["notes"]
    gone = [n for n in notes if n["externalId"] == removed["id"]]
    assert len(gone) == 1 and gone[0]["deletedUpstream"] is True and gone[0]["content"] == removed["content"]
    # Re-adding the note revives the same record, not a copy.
    report = import_snapshots(services.items, account.user_id, parse_document(export()), "2026-02-04T00:00:00.000000Z")
    assert report.updated == 2 and report.added == 0


def test_counts_and_reading_order(services, make_account, client):
    account = make_account(scopes=READING)
    import_snapshots(services.items, account.user_id, parse_document(export()), "2026-02-01T00:00:00.000000Z")
    books = client.get(BOOKS, headers=account.headers).json()["data"]
    assert books["page"] == {"offset": 0, "limit": 100, "returned": 3, "totalCount": 3, "hasMore": False}
    total = 0
    for book in books["books"]:
        assert book["contentSource"] == "external" and book["provider"] == "wechat-reading"
        notes: list[dict] = []
        offset = 0
        while offset is not None:  # the pages keep the 25,000-character budget (reading/operations.py)
            answer = client.get(f"{BOOKS}/{book['id']}/notes", params={"offset": offset},
                                headers=account.headers).json()["data"]  # fmt: skip
            notes += answer["notes"]
            offset = answer["page"].get("nextOffset")
        assert answer["page"]["totalCount"] == book["highlightCount"] + book["thoughtCount"] == len(notes)
        keys = [(n["chapterIndex"], n["position"]) for n in notes]
        assert keys == sorted(keys)
        total += len(notes)
    assert total == 250


def test_cli_import_then_reimport(live_server, tmp_path: Path):
    live_server.account("reader", scopes=READING)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export(), ensure_ascii=False), encoding="utf-8")
    first = live_server.cli("reading", "import", "reader", str(path))
    assert first.returncode == 0, first.stderr
    assert "250 notes added" in first.stdout
    # The indexes are built once, as part of the command, and it says so (record by record, a
    # large shelf kept it busy for minutes after its result, silently).
    assert re.search(r"literal search indexes: [\d,]+ rows", first.stdout), first.stdout
    assert re.search(r"search index: 250 documents", first.stdout), first.stdout
    second = live_server.cli("reading", "import", "reader", str(path))
    assert (
        second.returncode == 0 and "0 notes added, 0 updated, 0 marked deleted upstream, 250 unchanged" in second.stdout
    )
    broken = export()
    broken["books"][1]["notes"][7]["noteType"] = "thought"
    path.write_text(json.dumps(broken), encoding="utf-8")
    failed = live_server.cli("reading", "import", "reader", str(path))
    assert failed.returncode == 1
    assert failed.stderr.startswith("mesq: books[1].notes[7].noteType:") and "nothing was imported" in failed.stderr
    missing = run_cli(
        "reading", "import", "reader", str(tmp_path / "nope.json"), "--data-dir", str(live_server.data_dir)
    )
    assert missing.returncode == 1 and "cannot read" in missing.stderr
