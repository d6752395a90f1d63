"""Settings → Import in the reader's language, for the rarer refusals and the report's entries
(docs/i18n.md): a ZIP member that leaves the archive, an encrypted member, members whose data
overlap, an account archive's manifest fault, and what a report lists as skipped or kept as
text are said in Chinese on a Chinese page, with no English sentence left, and in English on an
English page. (The common refusals: test_import_language.py.)"""

from __future__ import annotations

import html
import re
import struct
from collections.abc import Callable
from typing import Any

import pytest

from ..conftest import Browser
from .test_import_language import _upload as refused_upload
from .test_import_language import _zip

EN = {"accept-language": "en-US"}
ZH = {"accept-language": "zh-CN"}
CARD = '<div class="memo"><div class="time">{}</div><div class="content"><p>{}</p></div>{}</div>'
#: English words of the refusals and report entries these tests meet; none may reach a zh page.
ENGLISH = re.compile(
    r"leaves the archive|path traversal|encrypted members|overlap|a ZIP bomb\?|manifest|version|"
    r"not in the export|is not a date|card \d|\bline \d|kept in the notes|a task without|nothing imported"
)


def _central_entries(data: bytes) -> list[int]:
    """Where each central-directory entry starts."""
    return [match.start() for match in re.finditer(rb"PK\x01\x02", data)]


def _encrypted(data: bytes) -> bytes:
    """`data` with its first member marked encrypted (the general-purpose flag's bit 0)."""
    patched = bytearray(data)
    at = _central_entries(data)[0]
    flags = struct.unpack_from("<H", patched, at + 8)[0]
    struct.pack_into("<H", patched, at + 8, flags | 0x1)
    return bytes(patched)


def _overlapping(data: bytes) -> bytes:
    """`data` with its second member's entry pointing at the first member's data."""
    patched = bytearray(data)
    struct.pack_into("<L", patched, _central_entries(data)[1] + 42, 0)
    return bytes(patched)


def _flomo(*cards: str, files: dict[str, bytes] | None = None) -> bytes:
    page = f"<html><body>{''.join(cards)}</body></html>".encode()
    return _zip({"flomo@x/index.html": page, **(files or {})})


def _error_block(page: str, block: str) -> str:
    return page.split(f'id="{block}"')[1].split("</div>")[0]


HOSTILE = {
    "traversal": (
        lambda: _zip({"flomo@x/index.html": b"<html></html>", "../evil.html": b"x"}),
        "flomo.zip：文件名“../evil.html”指向压缩包之外（路径穿越）",
        "flomo.zip: member name '../evil.html' leaves the archive (path traversal)",
    ),
    "encrypted": (
        lambda: _encrypted(_zip({"flomo@x/index.html": b"<html></html>"})),
        "flomo.zip 中的 flomo@x/index.html：加密的文件不予读取",
        "flomo.zip: flomo@x/index.html: encrypted members are not read",
    ),
    "overlap": (
        lambda: _overlapping(_zip({"flomo@x/index.html": b"<html></html>", "flomo@x/b.html": b"<html></html>"})),
        "flomo.zip：文件“flomo@x/index.html”和“flomo@x/b.html”的数据互相重叠（可能是 ZIP 炸弹）",
        "flomo.zip: members 'flomo@x/index.html' and 'flomo@x/b.html' overlap (a ZIP bomb?)",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_zip_is_refused_in_the_readers_language(browser: Callable[..., Browser], case: str) -> None:
    build, chinese_line, english_line = HOSTILE[case]
    person = browser()
    chinese = refused_upload(person, "/settings/import/app", build(), "flomo.zip", ZH, kind="flomo")
    said = _error_block(chinese, "app-import-error")
    assert chinese_line in said
    assert ENGLISH.search(said) is None, said
    assert "upload" not in said and "Error" not in said
    english = refused_upload(person, "/settings/import/app", build(), "flomo.zip", EN, kind="flomo")
    assert english_line in _error_block(english, "app-import-error")


def test_an_archives_manifest_fault_in_chinese(browser: Callable[..., Browser]) -> None:
    person = browser()
    manifest = b'{"format": "mesq-archive", "version": 7, "owner": "u1", "files": {}}'
    archive = _zip({"manifest.json": manifest, "records.jsonl": b""})
    chinese = refused_upload(person, "/settings/import", archive, "mine.zip", ZH, kind="archive")
    assert "manifest.json：版本 7 不是 2" in chinese
    assert "version 7 is not" not in chinese
    english = refused_upload(person, "/settings/import", archive, "mine.zip", EN, kind="archive")
    assert "manifest.json: version 7 is not 2" in english


def _report(person: Browser, kind: str, data: bytes, name: str, headers: dict[str, str]) -> Any:
    answer = person.client.post(
        "/settings/import/app",
        data={"csrf": person.csrf, "kind": kind},
        files={"file": (name, data, "application/octet-stream")},
        headers=headers,
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    page = person.client.get(answer.headers["location"], headers=headers)
    assert page.status_code == 200
    return html.unescape(page.text)


def _listed(page: str) -> str:
    return page.split('id="import-report"')[1].split("</section>")[0]


def test_a_flomo_reports_skipped_cards_in_the_readers_language(browser: Callable[..., Browser]) -> None:
    export = _flomo(
        CARD.format("2024-03-05 09:30:00", "有图", '<div class="files"><img src="file/gone.png"></div>'),
        CARD.format("2024-13-45 99:99", "时间坏了", ""),
    )
    person = browser()
    chinese = _listed(_report(person, "flomo", export, "flomo.zip", ZH))
    assert "第 1 张卡片（2024-03-05 09:30:00）的文件“file/gone.png”" in chinese  # Chinese marks, no stray space
    assert "导出里没有这个文件" in chinese
    assert "第 2 张卡片（2024-13-45 99:99）：时间“2024-13-45 99:99”不是日期和时刻" in chinese
    assert ENGLISH.search(chinese) is None, chinese
    english = _listed(_report(browser(), "flomo", export, "flomo.zip", EN))
    assert "card 1 (2024-03-05 09:30:00) file 'file/gone.png'" in english and "not in the export" in english
    assert "card 2 (2024-13-45 99:99): time '2024-13-45 99:99' is not a date and time" in english


def test_a_todoist_reports_kept_and_skipped_rows_in_chinese(browser: Callable[..., Browser]) -> None:
    csv = "TYPE,CONTENT,DATE,INDENT\ntask,,,1\ntask,买米,每逢闰年的第三个星期八,1\n".encode()
    person = browser()
    chinese = _listed(_report(person, "todoist", csv, "家务.csv", ZH))
    assert "家务 第 2 行" in chinese and "没有标题的任务" in chinese
    assert "家务 第 3 行" in chinese and "日期“每逢闰年的第三个星期八”，已原样保留在备注里" in chinese
    # which row, then why: joined by the Chinese colon (it was an ASCII ": " on the Chinese page)
    assert "家务 第 2 行</code>：没有标题的任务" in chinese and "</code>: " not in chinese, chinese
    english = _listed(_report(browser(), "todoist", csv, "chores.csv", EN))
    assert "chores line 2</code>: a task without a title" in english, english
    assert ENGLISH.search(chinese) is None, chinese


def test_a_report_entry_is_text_whatever_the_file_is_named(browser: Callable[..., Browser]) -> None:
    """The report's lines name a Todoist project by its file's name, which is anyone's: markup in
    it is shown as text, never as the page's (the line's template holds the page's own <code>)."""
    person = browser()
    answer = person.client.post(
        "/settings/import/app",
        data={"csrf": person.csrf, "kind": "todoist"},
        files={"file": ('<img src=x onerror="alert(1)">.csv', b"TYPE,CONTENT\ntask,,\n", "text/csv")},
        headers=ZH,
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    page = person.client.get(answer.headers["location"], headers=ZH).text
    listed = _listed(page)
    assert "<img" not in listed and "<code>&lt;img src=x onerror=" in listed and "第 2 行</code>：" in listed, listed


def test_a_report_longer_than_its_list_says_how_many_it_lists(browser: Callable[..., Browser]) -> None:
    """A report keeps 200 entries of a list (fewer when its words are long: a stored report must
    fit a DynamoDB item); its page said "250 skipped" above 200 lines, as if that were all."""
    csv = ("TYPE,CONTENT,INDENT\n" + "task,,1\n" * 250).encode()
    chinese = _listed(_report(browser(), "todoist", csv, "空.csv", ZH))
    assert "共 250 条，这里只列出前 200 条。" in chinese, chinese
    assert ENGLISH.search(chinese) is None, chinese
    english = _listed(_report(browser(), "todoist", csv, "empty.csv", EN))
    assert "The first 200 of 250 are listed here." in english, english
