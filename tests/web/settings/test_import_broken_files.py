"""A broken file is refused in MeSQ's own words, never a library's (docs/i18n.md): a memos
backup that is not SQLite, damaged, or SQLite of another app; a Todoist CSV with a huge cell, a
quote never closed or a stray quote; a flomo ZIP whose page is corrupt; an account archive whose
records or manifest are not JSON; Markdown notes whose front matter YAML cannot parse. On the
Chinese page the refusal holds no run of English words (SQLite's "file is not a database",
csv's "unexpected end of data", json's "Expecting value"), on the English page and over REST it
is MeSQ's sentence, saying what is wrong and what to do. The library's words go to the server's
log with the request's trace id, never to the answer."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.asgi import app_imports
from tests.conftest import Account
from tests.imports.exports import flomo_export, memos_database
from tests.support.archives import with_member_replaced

from ..conftest import Browser
from .test_import_language import _zip

EN = {"accept-language": "en-US"}
ZH = {"accept-language": "zh-CN"}
#: Two or more English words in a row (a file name, `flomo.zip`, or one product name, SQLite,
#: is no sentence): what a library's message leaves on a Chinese page.
_ENGLISH_RUN = re.compile(r"(?<![\w.@/'-])[A-Za-z]{2,}(?: +[A-Za-z]{2,})+")
#: What the libraries say of these files; none of it may reach a person, in either language.
LIBRARY_WORDS = ("file is not a database", "disk image is malformed", "no such column", "field larger than",
                 "unexpected end of data", "expected after", "Expecting value", "Expecting property name",
                 "mapping values", "could not find expected", "must be in", "premature")  # fmt: skip


def assert_no_english_run(said: str) -> None:
    runs = _ENGLISH_RUN.findall(said)
    assert not runs, f"English words on a Chinese page: {runs} in {said!r}"


def assert_no_library_words(said: str) -> None:
    leaked = [words for words in LIBRARY_WORDS if words.lower() in said.lower()]
    assert not leaked, f"a library's words {leaked} in {said!r}"


def _block(page: str, block: str, end: str = "</div>") -> str:
    """The text of the page's `block` (an error box, the report), tags and spacing out."""
    part = html.unescape(page).split(f'id="{block}"')[1].split(end)[0].split(">", 1)[1]
    return " ".join(re.sub(r"<[^>]+>", " ", part).split())


def _import_pages(person: Browser, path: str, kind: str, file: tuple[str, bytes, str], status: int,
                  block: str, end: str = "</div>") -> dict[str, str]:  # fmt: skip
    """The import page's answer to one upload, in zh-CN and en-US: its `block`, by language."""
    pages = {}
    for headers in (ZH, EN):
        form = {"csrf": person.csrf, "kind": kind}
        answer = person.client.post(path, data=form, files={"file": file}, headers=headers)
        assert answer.status_code == status, answer.text
        pages[headers["accept-language"]] = _block(answer.text, block, end)
    return pages


def _sqlite(path: Path, script: str) -> bytes:
    database = sqlite3.connect(path)
    database.executescript(script)
    database.close()
    return path.read_bytes()


def _memos_db(tmp: Path) -> bytes:
    memos_database(tmp / "memos", "latest", count=40)
    return (tmp / "memos" / "memos_prod.db").read_bytes()


def _malformed(tmp: Path) -> bytes:
    data = bytearray(_memos_db(tmp))
    for offset in range(4096, len(data), 4096):  # every page after the first: garbage
        data[offset + 8 : offset + 64] = b"\xff" * 56
    return bytes(data)


def _corrupt_member(tmp: Path) -> bytes:
    flomo_export(tmp / "flomo.zip", count=2)
    data = bytearray((tmp / "flomo.zip").read_bytes())
    start = data.index(b"PK\x03\x04")
    data[start + 70 : start + 90] = b"\xff" * 20  # inside the first member's deflated data
    return bytes(data)


#: kind, the file (made in a folder), its name, the English refusal (after "nothing imported: ").
APP_FILES: dict[str, tuple[str, Callable[[Path], bytes], str, str]] = {
    "memos-not-sqlite": (
        "memos",
        lambda tmp: b"a text file, not SQLite at all\n" * 8,
        "memos_prod.db",
        "memos_prod.db is not a memos database: it is not a SQLite file at all. Pick memos_prod.db in memos'"
        " data folder (or a ZIP of that folder) and import it",
    ),
    "memos-damaged": (
        "memos",
        _malformed,
        "memos_prod.db",
        "memos_prod.db is a damaged database: parts of it cannot be read. Stop memos, copy memos_prod.db again"
        " (a copy made while memos writes, or cut short, is damaged) and import the new copy",
    ),
    "memos-cut-short": (
        "memos",
        lambda tmp: _memos_db(tmp)[: 4096 * 3],
        "memos_prod.db",
        "memos_prod.db is a damaged database: parts of it cannot be read. Stop memos, copy memos_prod.db again"
        " (a copy made while memos writes, or cut short, is damaged) and import the new copy",
    ),
    "memos-other-tables": (
        "memos",
        lambda tmp: _sqlite(
            tmp / "other.db",
            "CREATE TABLE memo (id INTEGER, creator_id INTEGER, created_ts INTEGER, content TEXT, row_status TEXT);"
            "CREATE TABLE user (id INTEGER); INSERT INTO memo VALUES (1, 1, 1, 'x', 'NORMAL');",
        ),
        "memos_prod.db",
        "memos_prod.db is a SQLite database, but its tables are not the ones memos keeps; check it is memos'"
        " own memos_prod.db",
    ),
    "todoist-huge-cell": (
        "todoist",
        lambda tmp: b"TYPE,CONTENT\ntask,fine\ntask," + b"x" * (1024 * 1024 + 10) + b"\n",
        "Home.csv",
        "Home.csv: a cell at line 3 is over 1048576 characters, far past a task's title and notes; check that"
        " this is a Todoist project export",
    ),
    "todoist-quote-never-closed": (
        "todoist",
        lambda tmp: b'TYPE,CONTENT\ntask,fine\ntask,"cut off\nhere\n',
        "Home.csv",
        "Home.csv: a quoted cell opened at line 3 is never closed, so the file is cut short. Export the project"
        " from Todoist again",
    ),
    "todoist-stray-quote": (
        "todoist",
        lambda tmp: b'TYPE,CONTENT\ntask,"quoted" then more\n',
        "Home.csv",
        "Home.csv: line 2 is not valid CSV (a quote inside a cell that is not doubled). Export the project from"
        ' Todoist again, or double the quote ("")',
    ),
    "flomo-corrupt-member": (
        "flomo",
        _corrupt_member,
        "flomo.zip",
        "flomo.zip: flomo@tester-20240101/index.html: its compressed data is corrupt. The ZIP is damaged:"
        " download or copy the export again",
    ),
}


@pytest.mark.parametrize("case", sorted(APP_FILES))
def test_another_apps_broken_file_is_refused_in_mesqs_words(
    browser: Callable[..., Browser],
    client: TestClient,
    make_account: Callable[..., Account],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    kind, make, name, english = APP_FILES[case]
    data = make(tmp_path)
    logged: list[dict[str, Any]] = []
    monkeypatch.setattr(app_imports.logger, "info", lambda message, extra: logged.append(extra))
    person = browser()
    pages = _import_pages(person, "/settings/import/app", kind, (name, data, "application/octet-stream"), 400,
                          "app-import-error")  # fmt: skip
    chinese, english_page = pages["zh-CN"], pages["en-US"]
    assert_no_english_run(chinese)
    assert_no_library_words(chinese)
    assert english in english_page and name in chinese
    assert_no_library_words(english_page)

    account = make_account(scopes="memo:read,memo:write,todo:read,todo:write")
    answer = client.post(f"/api/toolkit/import?kind={kind}&filename={name}", content=data,
                         headers={**account.headers, **ZH})  # fmt: skip
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["error"] == {"code": "VALIDATION_ERROR", "message": f"nothing imported: {english}"}
    # The library's words are the server's: logged under the trace id the person is shown.
    rest_log = [extra for extra in logged if extra["traceId"] == body["traceId"]]
    assert len(rest_log) == 1 and rest_log[0]["refusal"] == english
    if case != "flomo-corrupt-member":  # the archive reader's own words name a corrupt member
        assert rest_log[0]["detail"], rest_log
        assert rest_log[0]["detail"] not in json.dumps(body)
    assert len(logged) == 3  # the two pages' refusals are logged too


def _archive_with(person: Browser, member: str, replace: Callable[[bytes], bytes]) -> bytes:
    """This person's own export with `member` replaced (the manifest's checksum kept true, so
    only the member's text is at fault)."""
    exported = person.post("/settings/export")
    assert exported.status_code == 200
    return with_member_replaced(exported.content, member, replace)


ARCHIVES: dict[str, tuple[str, Callable[[bytes], bytes], str]] = {
    "records": (
        "records.jsonl",
        lambda records: b"{not json\n" + records,
        "records.jsonl line 1: not JSON; the archive was changed or cut short after MeSQ wrote it. Export the"
        " account again and import the new archive",
    ),
    "manifest": (
        "manifest.json",
        lambda manifest: manifest[:-20],
        "manifest.json: not JSON; the archive was changed or cut short after MeSQ wrote it. Export the account"
        " again and import the new archive",
    ),
}


@pytest.mark.parametrize("case", sorted(ARCHIVES))
def test_an_archive_that_is_not_json_is_refused_in_mesqs_words(browser: Callable[..., Browser], case: str) -> None:
    member, replace, english = ARCHIVES[case]
    person = browser()
    archive = _archive_with(person, member, replace)
    pages = _import_pages(person, "/settings/import", "archive", ("mine.zip", archive, "application/zip"), 400,
                          "import-error")  # fmt: skip
    assert_no_english_run(pages["zh-CN"])
    assert_no_library_words(pages["zh-CN"])
    assert english in pages["en-US"], pages["en-US"]
    assert_no_library_words(pages["en-US"])


def test_markdown_notes_front_matter_faults_are_said_in_mesqs_words(browser: Callable[..., Browser]) -> None:
    """Per-note reasons on the report: YAML's parser and the date constructor said their own
    English ("mapping values are not allowed here", "month must be in 1..12"), and the depth cap
    was said in English through the parser's error."""
    notes = _zip({
        "good.md": "一篇好笔记".encode(),
        "colon.md": "---\ntitle: a: b\n---\n正文".encode(),
        "month.md": "---\ncreated: 2024-13-01\n---\n正文".encode(),
        "deep.md": ("---\na: " + "[" * 100 + "\n---\n正文").encode(),
    })  # fmt: skip
    person = browser()
    said = _import_pages(person, "/settings/import", "markdown", ("notes.zip", notes, "application/zip"), 200,
                         "import-result", "</section>")  # fmt: skip
    chinese, english = said["zh-CN"], said["en-US"]
    assert "文件头信息第 2 行不是有效的 YAML；请检查冒号、引号和缩进" in chinese, chinese
    assert "文件头信息里有一个不存在的日期" in chinese, chinese
    assert "文件头信息嵌套超过了 20 层的上限" in chinese, chinese  # MeSQ's own cap, once said in English
    assert_no_english_run(chinese)
    assert_no_library_words(chinese)
    assert "front matter is not valid YAML at line 2; check its colons, quotes and indentation" in english
    assert "front matter holds a date that does not exist (such as 2024-13-01 or 2024-02-30)" in english
    assert_no_library_words(english)


def test_a_front_matter_number_too_long_is_not_called_an_impossible_date() -> None:
    """Python refuses an integer of thousands of digits with a ValueError, as it refuses 2024-13-01:
    the note's refusal says which it was."""
    from mesq.archive.markdown_import import NoteError, _front_matter

    with pytest.raises(NoteError) as number:
        _front_matter("---\nn: " + "1" * 5000 + "\n---\nx\n")
    assert "number too long" in str(number.value) and "date" not in str(number.value)
    with pytest.raises(NoteError) as day:
        _front_matter("---\ndate: 2024-13-01\n---\nx\n")
    assert "date that does not exist" in str(day.value)


@pytest.mark.parametrize(("path", "kind"), [("/settings/import", "archive"), ("/settings/import/app", "flomo")])
def test_a_form_the_multipart_parser_refuses_is_said_in_the_pages_language(
    browser: Callable[..., Browser], path: str, kind: str
) -> None:
    """A file name of 10 KB of emoji makes the part's header longer than the multipart parser
    takes (4 KiB); the page said "上传表单格式有误:Invalid multipart data." (a fullwidth colon) (the parser's English in
    a Chinese sentence, and no hint of the cause). It says, in the page's language, that the file
    name is too long; another fault the parser finds (two files) is MeSQ's sentence too."""
    person = browser()
    long_name = ("😀" * 2600 + ".zip", b"PK", "application/zip")
    other = ("a.zip", b"PK", "application/zip")
    for file, words in ((long_name, {"zh-CN": "文件名太长", "en-US": "file name is too long"}),
                        (other, {"zh-CN": "上传表单", "en-US": "upload form"})):  # fmt: skip
        files = [("file", file)] if file is long_name else [("file", file), ("file", file)]
        for headers in (ZH, EN):
            answer = person.client.post(path, data={"csrf": person.csrf, "kind": kind}, files=files, headers=headers)
            assert answer.status_code == 400, answer.text
            said = _block(answer.text.replace('class="error"', 'id="refusal"', 1), "refusal", "</p>")
            assert words[headers["accept-language"]] in said, said
            assert "multipart" not in said.lower() and "Maximum" not in said, said
            if headers is ZH:
                assert_no_english_run(said)
            if file is long_name:
                assert "255" in said, said
