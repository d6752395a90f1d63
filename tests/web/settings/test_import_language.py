"""Settings → Import in the reader's language (docs/i18n.md). Its refusals: a file that is not a ZIP,
not the app's format or over a size is named on the Chinese page in Chinese and on the English
page in English, for the account archive / Markdown form and the "from another app" form alike;
the error names the file by the name the person uploaded, never the server's temporary "upload".
REST and the command line keep the English (`str(error)`, checked in tests/imports). What it
makes: a Todoist import's first column is named as a new board's, in the page's language."""

from __future__ import annotations

import html
import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mesq.auth.user_zone import set_zone
from mesq.imports import todoist
from mesq.kernel.timestamps import parse_timestamp
from mesq.todos.state import load_state
from mesq.wiring.services import Services

from ..conftest import Browser

EN = {"accept-language": "en-US"}
ZH = {"accept-language": "zh-CN"}
NOT_A_ZIP = b"this is a text file, not a ZIP archive\n" * 4


def _upload(person: Browser, path: str, data: bytes, name: str, headers: dict[str, str], **fields: str) -> Any:
    answer = person.client.post(
        path,
        data={"csrf": person.csrf, **fields},
        files={"file": (name, data, "application/octet-stream")},
        headers=headers,
        follow_redirects=False,
    )
    assert answer.status_code == 400, answer.text
    return html.unescape(answer.text)


def _app_error(page: str) -> str:
    """The "from another app" form's error block."""
    return page.split('id="app-import-error"')[1].split("</div>")[0]


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize("kind", ["markdown", "archive"])
def test_a_file_that_is_not_a_zip_in_both_languages(browser: Callable[..., Browser], kind: str) -> None:
    person = browser()
    chinese = _upload(person, "/settings/import", NOT_A_ZIP, "bogus.zip", ZH, kind=kind)
    assert "bogus.zip：不是可读的 ZIP 文件（没有中央目录结尾记录）" in chinese
    assert "not a readable" not in chinese
    english = _upload(person, "/settings/import", NOT_A_ZIP, "bogus.zip", EN, kind=kind)
    assert "bogus.zip: not a readable ZIP archive (no end of central directory record)" in english


def test_another_apps_refusals_in_chinese(browser: Callable[..., Browser]) -> None:
    person = browser()
    path = "/settings/import/app"
    flomo = _upload(person, path, NOT_A_ZIP, "flomo.zip", ZH, kind="flomo")
    assert "flomo.zip 不是 ZIP 文件：flomo 的导出是“导出全部（HTML）”得到的 ZIP" in flomo
    damaged = _upload(person, path, b"PK\x03\x04" + NOT_A_ZIP, "flomo.zip", ZH, kind="flomo")
    assert "flomo.zip：ZIP 文件不完整（缺少结尾部分），可能没有下载或复制完：请重新下载或复制" in damaged
    cut = _upload(person, path, "TYPE,CONTENT,DATE\r\ntask,交房".encode(), "工作.csv", ZH, kind="todoist")
    assert "工作.csv：第 2 行在一行的中间就结束了，说明文件不完整。请从 Todoist 重新导出这个项目" in cut
    assert "upload" not in _app_error(flomo)
    no_page = _upload(person, path, _zip({"notes.txt": b"x"}), "flomo.zip", ZH, kind="flomo")
    assert "flomo.zip：不是 flomo 的导出（ZIP 包里没有 HTML 页面）" in no_page
    columns = _upload(person, path, b"title,body\nA,B\n", "work.csv", ZH, kind="todoist")
    assert "不是 Todoist 的 CSV（第一行须有 TYPE 和 CONTENT 两列）" in columns
    memos = _upload(person, path, NOT_A_ZIP, "memos_prod.db", ZH, kind="memos")
    assert "memos_prod.db 不是 memos 的数据库，它根本不是 SQLite 文件" in memos
    for page in (flomo, damaged, cut, no_page, columns, memos):
        assert "not a" not in _app_error(page)


def test_another_apps_refusals_in_english(browser: Callable[..., Browser]) -> None:
    person = browser()
    columns = _upload(person, "/settings/import/app", b"title,body\nA,B\n", "work.csv", EN, kind="todoist")
    assert "not a Todoist CSV (its first line must name TYPE and CONTENT)" in columns


def test_a_file_over_the_size_in_chinese(browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(todoist, "MAX_CSV_BYTES", 10)
    person = browser()
    csv = b"TYPE,CONTENT\ntask,A long enough title\n"
    big = _upload(person, "/settings/import/app", _zip({"work.csv": csv}), "todoist.zip", ZH, kind="todoist")
    assert "超过 10 字节；Todoist 的项目导出远比这小" in big


def test_a_todoist_import_names_its_first_column_in_chinese(
    services: Services, browser: Callable[..., Browser]
) -> None:
    person = browser()  # no language chosen: the page's is the browser's, zh-CN
    answer = person.client.post(
        "/settings/import/app",
        data={"csrf": person.csrf, "kind": "todoist"},
        files={"file": ("Errands.csv", b"TYPE,CONTENT,PRIORITY,INDENT\ntask,buy rice,1,1\n", "text/csv")},
        headers=ZH,
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    state = load_state(services.items, person.user_id)
    imported = next(space for space in state.spaces.values() if space["name"] == "Errands")  # the CSV's name
    assert [column["name"] for column in state.columns.values() if column["spaceId"] == imported["id"]] == ["待办"]


def test_a_todoist_import_from_the_page_reads_dates_in_the_browsers_zone(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """No zone set and the field left empty: a Todoist date without a TIMEZONE is read in the
    page's zone (this browser's, Asia/Shanghai), as every other time a page reads and shows, not
    in the server's UTC (09:00 became 17:00 on the board); the account's own zone wins once set."""
    person = browser()
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    rows = b"TYPE,CONTENT,PRIORITY,INDENT,DATE,DATE_LANG,TIMEZONE\ntask,call mum,1,1,2027-01-05 09:00,en,\n"

    def imported(name: str) -> dict[str, Any]:
        answer = person.client.post(
            "/settings/import/app",
            data={"csrf": person.csrf, "kind": "todoist"},
            files={"file": (name, rows, "text/csv")},
            headers=EN,
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
        state = load_state(services.items, person.user_id)
        space = next(space for space in state.spaces.values() if space["name"] == name.removesuffix(".csv"))
        return next(task for task in state.tasks.values() if task["spaceId"] == space["id"])

    task = imported("Family.csv")
    assert task["timezone"] == "Asia/Shanghai"
    assert parse_timestamp(task["due"]["at"], "due") == parse_timestamp("2027-01-05T09:00:00+08:00", "due")
    set_zone(services.items, person.user_id, "Asia/Kathmandu")
    task = imported("Calls.csv")
    assert task["timezone"] == "Asia/Kathmandu"
    assert parse_timestamp(task["due"]["at"], "due") == parse_timestamp("2027-01-05T09:00:00+05:45", "due")


def test_skipped_markdown_notes_are_said_in_the_readers_language(browser: Callable[..., Browser]) -> None:
    """A Markdown import imports the good notes and lists each skipped one with its reason: in
    the page's language, the note's own name as it is."""
    person = browser()
    notes = _zip({
        "good.md": "一篇好笔记 #读书".encode(),
        "empty.md": b"   \n",
        "pinned.md": "---\npinned: maybe\n---\n正文".encode(),
        "outside.md": "![图](../secret.png)".encode(),
    })  # fmt: skip
    for headers, said, unsaid in (
        (ZH, ["empty.md</code>：内容为空：没有文字，也没有标签", "pinned：“maybe”不是 true 或 false",
              "图片“../secret.png”指向文件夹之外"], ["no text", "is not true", "outside the folder"]),
        (EN, ["empty: no text and no tags", "pinned: 'maybe' is not true or false",
              "image '../secret.png' points outside the folder"], ["内容为空"]),
    ):  # fmt: skip
        answer = person.client.post(
            "/settings/import",
            data={"csrf": person.csrf, "kind": "markdown"},
            files={"file": ("notes.zip", notes, "application/zip")},
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
        page = html.unescape(answer.text)
        assert all(words in page for words in said), page
        assert not any(words in page for words in unsaid), page


def test_an_overlong_tag_kept_as_text_is_said_on_the_report_in_the_readers_language(
    browser: Callable[..., Browser],
) -> None:
    """A flomo card with a `#word` too long to be a tag is imported; the report page says the word
    was kept as text, in Chinese on the Chinese page and in English on the English one."""
    person = browser()
    card = (
        '<div class="memo"><div class="time">2024-03-05 09:30:00</div>'
        f'<div class="content"><p>读完 #{"长" * 101}</p></div></div>'
    )
    export = _zip({"flomo@x/index.html": f"<html><body>{card}</body></html>".encode()})
    answer = person.client.post(
        "/settings/import/app",
        data={"csrf": person.csrf, "kind": "flomo"},
        files={"file": ("flomo.zip", export, "application/zip")},
        headers=ZH,
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    report = answer.headers["location"]
    chinese = html.unescape(person.client.get(report, headers=ZH).text)
    assert "超过 100 个字符，标签最长只能这么长：已作为文字保留，不算标签" in chinese, chinese
    english = html.unescape(person.client.get(report, headers=EN).text)
    assert "is longer than 100 characters, the most a tag can have: kept as text, not as a tag" in english, english


def test_a_long_project_name_from_the_page_names_its_space(services: Services, browser: Callable[..., Browser]) -> None:
    """Settings → Import names a Todoist space after the CSV's own name however long: a name past
    the 120 bytes of the upload's temporary copy (forty Chinese characters) was named "upload",
    and two such projects' tasks of one title were one task."""
    person = browser()
    names = [
        "读书笔记：二〇二六年要读完的中外经典文学作品与社会科学著作清单（含书评） [2203306145].csv",
        "旅行计划：二〇二六年暑假带父母和孩子去云南大理丽江的行程安排（含预算） [2203306146].csv",
    ]
    for name in names:
        answer = person.client.post(
            "/settings/import/app",
            data={"csrf": person.csrf, "kind": "todoist"},
            files={"file": (name, "TYPE,CONTENT\ntask,每周复盘\n".encode(), "text/csv")},
            headers=ZH,
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
    state = load_state(services.items, person.user_id)
    spaces = {space["id"]: space["name"] for space in state.spaces.values()}
    review = sorted(spaces[task["spaceId"]] for task in state.every_task() if task["title"] == "每周复盘")
    assert review == sorted(name.removesuffix(".csv").rsplit(" [", 1)[0] for name in names)


def _summary(page: str) -> tuple[str, list[str]]:
    """The report's summary line and its counts, as the page says them."""
    text = html.unescape(page)
    summary = text.split('id="import-summary">')[1].split("</p>")[0] if 'id="import-summary"' in text else ""
    counts = text.split('class="import-counts">')[1].split("</ul>")[0]
    return summary, [item.split("</li>")[0] for item in counts.split("<li>")[1:]]


@pytest.mark.parametrize(
    ("headers", "created", "again_said"),
    [
        (EN, ["1 space", "2 columns"], "Nothing new was imported."),
        (ZH, ["1 个空间", "2 列"], "没有导入新的内容。"),
    ],
)
def test_a_todoist_project_of_sections_only_is_counted_on_its_report(
    browser: Callable[..., Browser], headers: dict[str, str], created: list[str], again_said: str
) -> None:
    """A project with sections and no tasks becomes a space with its columns: its report counts
    them and never says nothing new was imported (it did, when only memos and tasks counted);
    the same file again creates nothing and says so."""
    person = browser()
    project = b"TYPE,CONTENT,PRIORITY,INDENT\nsection,Backlog,,\nsection,Doing,,\n"
    reports = []
    for _ in range(2):
        answer = person.client.post(
            "/settings/import/app",
            data={"csrf": person.csrf, "kind": "todoist"},
            files={"file": ("Plans.csv", project, "text/csv")},
            headers=headers,
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
        reports.append(_summary(person.client.get(answer.headers["location"], headers=headers).text))
    (first, first_counts), (again, again_counts) = reports
    assert first_counts == created
    assert first == ""  # no "0 already there. 0 skipped. 0 kept only as text.": nothing to add
    assert again_counts == [] and again == again_said


@pytest.mark.parametrize(
    ("headers", "first_said", "again_said"),
    [
        (EN, "", "Nothing new was imported. 1 already there (imported before)."),
        (ZH, "", "没有导入新的内容。1 条已存在（之前导入过）。"),  # Chinese sets sentences side by side, no space
    ],
)
def test_a_report_says_only_the_counts_there_are(
    browser: Callable[..., Browser], headers: dict[str, str], first_said: str, again_said: str
) -> None:
    """A report's summary names only counts that are not zero (it said "0 already there (imported
    before). 0 skipped. 0 kept only as text." under every clean import), in the page's language's
    way of setting sentences side by side."""
    person = browser()
    reports = []
    for _ in range(2):
        answer = person.client.post(
            "/settings/import/app",
            data={"csrf": person.csrf, "kind": "todoist"},
            files={"file": ("Home.csv", "TYPE,CONTENT\ntask,买菜\n".encode(), "text/csv")},
            headers=headers,
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
        reports.append(_summary(person.client.get(answer.headers["location"], headers=headers).text)[0])
    assert reports == [first_said, again_said]


def test_a_report_kept_while_its_import_runs_says_so_and_offers_no_undo_yet(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The report is kept from before an import's first write; while its process (this one) still
    writes, the page says it is running, and Undo waits for the end (409) rather than racing it."""
    from collections import Counter

    from mesq.imports.plan import Report
    from mesq.imports.reports import keep_progress, read_report
    from mesq.kernel.timestamps import now_timestamp

    person = browser()
    report = Report("todoist", run_id="run-still-writing", imported=Counter(spaces=1, columns=2, tasks=3))
    keep_progress(services.items, person.user_id, report, now_timestamp())
    page = html.unescape(person.client.get("/settings/import/runs/run-still-writing", headers=EN).text)
    assert "This import is still running: reload this page to see what it has written so far." in page
    assert "/undo" not in page
    undo = person.client.post("/settings/import/runs/run-still-writing/undo", data={"csrf": person.csrf}, headers=ZH)
    assert undo.status_code == 409
    assert "这次导入还在进行中" in html.unescape(undo.text)
    stored = read_report(services.items, person.user_id, "run-still-writing")
    assert stored is not None and "running" in stored and "interrupted" not in stored


@pytest.mark.parametrize("headers", [EN, ZH])
def test_an_import_cut_short_on_the_page_leads_to_its_report_and_undo(
    browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, headers: dict[str, str]
) -> None:
    """An import whose request's time runs out (a Lambda invocation's deadline, `finish_within`;
    here the clock says so after the fifth memo) stops with what it wrote. The page said "Nothing
    was imported. The file ... has a problem:" above "the import stopped after writing 5 memos",
    with no way to its report or Undo (nor was it among the imports that did not finish). It now
    goes to the report: why it stopped, the 5 memos, Undo; and Settings -> Import links to it."""
    from mesq.imports import plan

    from ...imports.exports import flomo_export

    asked = {"n": 0}

    def five_memos_then_out_of_time() -> bool:
        asked["n"] += 1
        return asked["n"] > 5

    monkeypatch.setattr(plan, "out_of_time", five_memos_then_out_of_time)
    person = browser()
    flomo_export(tmp_path / "flomo.zip", count=12)
    answer = person.client.post(
        "/settings/import/app",
        data={"csrf": person.csrf, "kind": "flomo"},
        files={"file": ("flomo.zip", (tmp_path / "flomo.zip").read_bytes(), "application/zip")},
        headers=headers,
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    where = answer.headers["location"]
    assert where.startswith("/settings/import/runs/")
    page = html.unescape(person.client.get(where, headers=headers).text)
    state = page.split('id="import-state">')[1].split("</p>")[0]
    if headers is EN:
        assert "the import stopped after writing 5 memos" in state
        assert "this request's time on the server was up" in state
        assert "5 memos" in page
    else:
        # the stop first, then what it wrote: "导入在写入 已导入 5 条笔记 后中断" read as two verbs
        assert "停止前已导入 5 条笔记" in state and "本次请求在服务器上的时间已用完" in state
    assert f'action="{where}/undo"' in page
    listed = html.unescape(person.client.get("/settings/import", headers=headers).text)
    assert f'href="{where}"' in listed.split('id="import-unfinished"')[1]


@pytest.mark.parametrize(
    ("headers", "memos_line", "todoist_line"),
    [
        (
            EN,
            "1 record moved to the trash.</p>",
            "2 records moved to the trash. 1 imported space removed.</p>",
        ),
        (ZH, "1 条记录移到了回收站。</p>", "2 条记录移到了回收站。删除了 1 个导入的空间。</p>"),
    ],
)
def test_an_undone_reports_counts_are_said_as_counted(
    browser: Callable[..., Browser], headers: dict[str, str], memos_line: str, todoist_line: str
) -> None:
    """The undone line said "1 records moved to the trash, 0 imported spaces removed." for a flomo
    import of one card (no spaces to remove, and a plural for one): each count is said with its
    number's form, and spaces only when the undo removed some."""
    person = browser()
    card = b'<div class="memo"><div class="time">2024-03-05 09:30:00</div><div class="content"><p>hi</p></div></div>'
    uploads = [
        ("flomo", "flomo.zip", _zip({"flomo@x/index.html": card})),
        ("todoist", "Home.csv", b"TYPE,CONTENT\ntask,a\ntask,b\n"),
    ]
    for (kind, name, data), line in zip(uploads, (memos_line, todoist_line), strict=True):
        answer = person.client.post(
            "/settings/import/app",
            data={"csrf": person.csrf, "kind": kind},
            files={"file": (name, data, "application/octet-stream")},
            headers=headers,
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
        where = answer.headers["location"]
        undone = person.client.post(where + "/undo", data={"csrf": person.csrf}, headers=headers)
        page = html.unescape(undone.text)
        assert line in page, page.split('role="status"')[-1][:300]
        assert "0 imported spaces" not in page and "删除了 0" not in page


@pytest.mark.parametrize(
    ("headers", "nothing"),
    [
        (EN, "This import created nothing, so there is nothing to undo."),
        (ZH, "这次导入没有新建任何内容，没有可撤销的。"),
    ],
)
def test_an_import_that_created_nothing_offers_no_undo(
    browser: Callable[..., Browser], headers: dict[str, str], nothing: str
) -> None:
    """The same file imported a second time creates nothing ("4 already there"), yet its report
    offered "Undo this import: every memo and task it created goes to the trash": a person took it
    for a way to remove what the first import made, and got "0 records moved to the trash". The
    first import's report keeps its Undo; the second says there is nothing to undo."""
    person = browser()
    card = b'<div class="memo"><div class="time">2024-03-05 09:30:00</div><div class="content"><p>hi</p></div></div>'
    export = _zip({"flomo@x/index.html": card})
    pages = []
    for _ in range(2):
        answer = person.client.post(
            "/settings/import/app",
            data={"csrf": person.csrf, "kind": "flomo"},
            files={"file": ("flomo.zip", export, "application/zip")},
            headers=headers,
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
        pages.append(html.unescape(person.client.get(answer.headers["location"], headers=headers).text))
    first, second = pages
    assert "/undo" in first and nothing not in first
    assert "/undo" not in second and nothing in second
