"""Settings → Export and Settings → Import (issue 28 items 1-2) in-process: the export is the
REST export's archive (the whole account), an import is validated whole before anything is
written (the first bad line named, the form kept), its counts shown, a second import creating
nothing; a ZIP of Markdown notes; the upload's size cap; the bound on archive work at once."""

from __future__ import annotations

import contextlib
import io
import json
import re
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mesq.asgi import account_archive
from mesq.asgi.account_archive import ARCHIVE_SLOTS, archive_slot
from mesq.auth.user_zone import set_zone
from mesq.memos.writes import create_memo
from mesq.web.settings import archive
from mesq.wiring.services import Services
from tests.support.archives import with_member_replaced

from ..conftest import Browser, memo_call


def _memos(services: Services, user_id: str) -> list[str]:
    from mesq.memos.reads import list_memos

    listed = list_memos(memo_call(services, user_id), {})
    return [memo["content"] for memo in listed["pinnedItems"] + listed["timelineItems"]]


def _export(person: Browser) -> bytes:
    answer = person.post("/settings/export")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/zip"
    assert answer.headers["content-disposition"].startswith('attachment; filename="mesq-export-')
    assert int(answer.headers["content-length"]) == len(answer.content)
    return answer.content


def _import(person: Browser, data: bytes, kind: str = "archive", name: str = "mesq-export.zip") -> Any:
    return person.client.post(
        "/settings/import",
        data={"csrf": person.csrf, "kind": kind},
        files={"file": (name, data, "application/zip")},
        follow_redirects=False,
    )


def _with_bad_line(data: bytes, number: int) -> bytes:
    """The archive with records.jsonl line `number` replaced by text that is not JSON, its
    manifest checksum updated so that only the line itself is at fault."""

    def bad_line(records: bytes) -> bytes:
        lines = records.decode().splitlines()
        lines[number - 1] = "{not json"
        return ("\n".join(lines) + "\n").encode()

    return with_member_replaced(data, "records.jsonl", bad_line)


def test_export_is_the_whole_account_as_an_archive(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    create_memo(memo_call(services, person.user_id), {"content": "the first memo #export"})
    page = person.get("/settings/export")
    assert page.status_code == 200 and 'action="/settings/export"' in page.text
    assert 'href="/settings/export" aria-current="page"' in page.text  # in the Settings bar
    archive_zip = zipfile.ZipFile(io.BytesIO(_export(person)))
    manifest = json.loads(archive_zip.read("manifest.json"))
    assert manifest["owner"] == person.user_id and "scopes" not in manifest  # the whole account
    assert "the first memo #export" in archive_zip.read("records.jsonl").decode()
    refused = person.client.post("/settings/export", data={"csrf": "wrong"}, follow_redirects=False)
    assert refused.status_code == 403 and "application/zip" not in refused.headers["content-type"]


def test_the_export_is_named_by_the_pages_day(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """10:30 UTC on 6 December is 7 December in the browser's Kiritimati (no zone set: the page's
    zone is the browser's), and again once the person sets Kathmandu (16:15 on the 6th there)."""
    person = browser()
    monkeypatch.setattr(account_archive, "now_timestamp", lambda: "2026-12-06T10:30:00.000000Z")
    person.client.cookies.set("mesq_tz", "Pacific/Kiritimati")
    answer = person.post("/settings/export")
    assert 'filename="mesq-export-2026-12-07.zip"' in answer.headers["content-disposition"]
    set_zone(services.items, person.user_id, "Asia/Kathmandu")  # the setting wins over the browser
    answer = person.post("/settings/export")
    assert 'filename="mesq-export-2026-12-06.zip"' in answer.headers["content-disposition"]


def test_import_into_another_account_then_again(services: Services, browser: Callable[..., Browser]) -> None:
    source, target = browser(), browser()
    create_memo(memo_call(services, source.user_id), {"content": "carried over 搬家 #moved"})
    data = _export(source)
    page = target.get("/settings/import")
    assert page.status_code == 200 and 'enctype="multipart/form-data"' in page.text
    first = _import(target, data)
    assert first.status_code == 200, first.text
    assert 'id="import-result"' in first.text and "new, 0 already there" in first.text
    assert _memos(services, target.user_id) == ["carried over 搬家 #moved"]
    again = _import(target, data)
    assert again.status_code == 200 and " 0 new, " in again.text  # nothing created twice
    # The counts add up: the records a person is told of are the new ones and those already there
    # (the counters an archive carries are recomputed, not written: they are neither).
    for answer in (first, again):
        said = re.search(r"(\d+) records: (\d+) new, (\d+) already there", answer.text)
        assert said, answer.text
        assert int(said[1]) == int(said[2]) + int(said[3]) > 0, said[0]
    assert len(_memos(services, target.user_id)) == 1
    # Into an account with a memo of its own: refused, the importer's words shown as a sentence in
    # a tinted box, not as code (issue 41: the page showed them in red monospace).
    create_memo(memo_call(services, target.user_id), {"content": "mine"})
    create_memo(memo_call(services, source.user_id), {"content": "a second one"})  # another archive, not a resume
    used = _import(target, _export(source))
    start = used.text.index('id="import-error"')
    error = used.text[start : used.text.index("</div>", start)]
    assert used.status_code == 400 and "already holds" in error, error
    assert "<code>" not in error and 'class="card failed"' in used.text


def test_a_bad_line_is_named_and_nothing_is_written(services: Services, browser: Callable[..., Browser]) -> None:
    source, target = browser(), browser()
    for text in ("one", "two", "three"):
        create_memo(memo_call(services, source.user_id), {"content": text})
    refused = _import(target, _with_bad_line(_export(source), 2), name="damaged.zip")
    assert refused.status_code == 400
    assert 'role="alert" id="import-error"' in refused.text and "Nothing was imported." in refused.text
    assert "records.jsonl line 2: " in refused.text and "damaged.zip" in refused.text
    assert 'name="kind" value="archive" checked' in refused.text and 'aria-invalid="true"' in refused.text
    assert _memos(services, target.user_id) == []  # validated whole: not even line 1 was written
    not_zip = _import(target, b"just text", name="notes.txt")
    assert not_zip.status_code == 400 and "not a readable ZIP archive" in not_zip.text


def test_a_zip_of_markdown_notes(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    notes = io.BytesIO()
    with zipfile.ZipFile(notes, "w") as folder:
        folder.writestr("vault/hello.md", "---\ntags: [imported]\n---\nHello from Obsidian #notes\n")
        folder.writestr("vault/broken.md", b"\xff\xfe not utf-8")
    answer = _import(person, notes.getvalue(), kind="markdown", name="vault.zip")
    assert answer.status_code == 200, answer.text
    assert "2 Markdown files: 1 new memos, 0 already there, 1 skipped" in answer.text
    assert "<code>broken.md</code>" in answer.text
    [memo] = _memos(services, person.user_id)
    assert memo.startswith("Hello from Obsidian #notes")


def test_the_form_asks_for_a_file_and_a_kind(browser: Callable[..., Browser]) -> None:
    person = browser()
    empty = _import(person, b"", name="")
    assert empty.status_code == 400 and "Choose a file to import." in empty.text
    odd = _import(person, b"PK", kind="photos")
    assert odd.status_code == 400 and "Choose what the file is" in odd.text
    forged = person.client.post("/settings/import", data={"kind": "archive"}, files={"file": ("a.zip", b"PK")})
    assert forged.status_code == 403 and "CSRF" in forged.text  # the token is a field of the upload form too
    plain = person.post("/settings/import", {"kind": "archive"})  # not multipart
    assert plain.status_code == 400 and "multipart/form-data" in plain.text


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(archive, "IMPORT_MAX_BYTES", 4 * 1024 * 1024)
    yield 4 * 1024 * 1024


def test_an_upload_over_the_cap_is_refused(small_cap: int, services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    answer = _import(person, b"x" * (small_cap + 1))
    assert answer.status_code == 413 and "over 4 MiB" in answer.text
    # Without a Content-Length (chunked), the stream itself is cut at the cap.
    boundary = "mesqboundary"
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{person.csrf}\r\n--{boundary}\r\n'
            'Content-Disposition: form-data; name="file"; filename="big.zip"\r\n\r\n').encode()  # fmt: skip

    def body() -> Iterator[bytes]:
        yield head
        for _ in range(small_cap // 65536 + 2):
            yield b"x" * 65536

    chunked = person.client.post(
        "/settings/import", content=body(), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    assert "content-length" not in chunked.request.headers
    assert chunked.status_code == 413 and "over 4 MiB" in chunked.text
    assert _memos(services, person.user_id) == []


def test_archive_work_at_once_is_bounded(browser: Callable[..., Browser]) -> None:
    person = browser()
    with contextlib.ExitStack() as held:
        for number in range(ARCHIVE_SLOTS):  # every slot, each held by another user
            held.enter_context(archive_slot(f"someone {number}"))
        busy = person.post("/settings/export")
        assert busy.status_code == 503 and busy.headers.get("retry-after") == "30"
        assert "already running" in busy.text
        assert _import(person, b"PK").status_code == 503
    assert person.post("/settings/export").status_code == 200  # the slots were given back


def test_one_user_holds_one_archive_slot_at_a_time(browser: Callable[..., Browser]) -> None:
    """A user whose export is running cannot take the other slot too (and lock everyone else out):
    their second is refused, while another user still gets the free slot."""
    person, other = browser(), browser()
    with archive_slot(person.user_id):
        busy = person.post("/settings/export")
        assert busy.status_code == 503 and busy.headers.get("retry-after") == "30"
        assert "of yours is already running" in busy.text
        assert _import(person, b"PK").status_code == 503
        assert other.post("/settings/export").status_code == 200
    assert person.post("/settings/export").status_code == 200  # the slot was given back


def test_an_import_says_it_took_the_archives_language_and_time_zone(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The archive carries the account's language and zone (docs/archive.md); an account that set
    neither takes them, and the result says so in the page's language; the next page is in the
    language it took."""
    source, target = browser(), browser()
    assert source.post("/settings/language", {"language": "zh"}).status_code == 303
    assert source.post("/settings/time-zone", {"timeZone": "Asia/Shanghai"}).status_code == 303
    create_memo(memo_call(services, source.user_id), {"content": "carried over #moved"})
    answer = _import(target, _export(source))
    assert answer.status_code == 200, answer.text
    assert "its pages are now in the archive’s, 中文." in answer.text
    assert 'id="import-time-zone">This account had no time zone of its own: it now uses the archive’s' in answer.text
    assert 'lang="zh' in target.get("/settings").text.split(">", 2)[1]
    again = _import(target, _export(source))
    assert 'id="import-language"' not in again.text and 'id="import-time-zone"' not in again.text
