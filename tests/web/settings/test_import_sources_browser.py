"""Settings → Import → "From another app" in headless Chromium against a real `mesq serve`, one
browser session per source (issue 45): 1,000 memos (a ZIP of memos' folder, its database and
assets), 1,000 flomo cards (zh-CN page), 1,040 Todoist tasks (390 px), each checked record by
record in the server's store after the report page shows; the Todoist import is imported a
second time (nothing new) and then undone from its report, leaving the account as it was."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from mesq.auth.users import find_user_by_name
from mesq.todos.state import load_state
from mesq.wiring.config import Settings
from mesq.wiring.services import Services, build_services

from ...conftest import LiveServer, start_server, stop_server
from ...imports.checks import visible
from ...imports.exports import flomo_export, memos_database, todoist_export
from ...imports.test_flomo_import import check_cards
from ...imports.test_memos_import import check_memos
from ...imports.test_todoist_import import check_board
from ..chromium import chromium_page
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES

expect = playwright_sync.expect


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("imports") / "live")
    yield server
    stop_server(server)


def _store(server: LiveServer) -> Services:
    return build_services(Settings(data_dir=server.data_dir))


def _user_id(server: LiveServer, username: str) -> str:
    services = _store(server)
    try:
        return str(find_user_by_name(services.items, username)["userId"])
    finally:
        services.items.close()


#: Notes (in the tab's session storage, which outlives the navigation to the report) when the
#: upload's progress line is shown.
SHOWN_NOTED = """() => {
    sessionStorage.removeItem("importProgressShown");
    const progress = document.getElementById("app-import-progress");
    new MutationObserver((changes, observer) => {
        if (!progress.hidden) { sessionStorage.setItem("importProgressShown", "yes"); observer.disconnect(); }
    }).observe(progress, {attributes: true, attributeFilter: ["hidden"]});
}"""


def _import(page: Any, server: LiveServer, username: str, kind: str, path: Path, memos_user: str = "") -> None:
    page.goto(f"{server.base_url}/login?next=/settings/import")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(server.base_url + "/settings/import")
    _upload(page, kind, path, memos_user)


def _upload(page: Any, kind: str, path: Path, memos_user: str = "") -> None:
    page.check(f"#app-import-form input[name=kind][value={kind}]")
    page.set_input_files("#app-import-file", str(path))
    if memos_user:
        page.fill("#app-import-user", memos_user)
    # A small file is uploaded, imported and its report opened before a poll could see the
    # progress line: the page notes in its session storage that it was shown.
    page.evaluate(SHOWN_NOTED)
    page.click("#app-import-form button[type=submit]")
    page.wait_for_url("**/settings/import/runs/**", timeout=120_000)
    assert page.evaluate("sessionStorage.getItem('importProgressShown')") == "yes"


def _fits(page: Any) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width


def test_memos_in_the_browser(live: LiveServer, tmp_path: Path) -> None:
    expected = memos_database(tmp_path / "memos", "latest", count=1000)
    bundle = tmp_path / "memos.zip"
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in (tmp_path / "memos").rglob("*"):
            if path.is_file():
                archive.write(path, "memos/" + path.relative_to(tmp_path / "memos").as_posix())
    live.account("memos1")
    problems: list[str] = []
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}) as page:
        page.on("pageerror", lambda error: problems.append(str(error)))
        _import(page, live, "memos1", "memos", bundle, memos_user="alice")
        report = page.locator("#import-report")
        expect(report).to_contain_text("1000 memos")
        expect(report).to_contain_text("357 attachments")
        expect(report).to_contain_text("20 comments")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            _fits(page)
    assert problems == []
    services = _store(live)
    try:
        check_memos(services, _user_id(live, "memos1"), expected)
    finally:
        services.items.close()


def test_flomo_in_the_browser_in_chinese(live: LiveServer, tmp_path: Path) -> None:
    export = tmp_path / "flomo.zip"
    expected = flomo_export(export, count=1000)
    live.account("flomo1")
    user_id = _user_id(live, "flomo1")
    services = _store(live)
    try:
        before = visible(services, user_id)
    finally:
        services.items.close()
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale="zh-CN") as page:
        _import(page, live, "flomo1", "flomo", export)
        report_url = page.url
        expect(page.get_by_role("heading", name="从 flomo 导入")).to_be_visible()
        expect(page.locator("#import-report .import-counts")).to_contain_text("1000")
        assert page.evaluate("document.documentElement.lang").startswith("zh")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            _fits(page)
        page.goto(f"{live.base_url}/settings/import")
        expect(page.get_by_role("heading", name="从其他应用导入")).to_be_visible()
        services = _store(live)
        try:
            check_cards(services, user_id, expected)
        finally:
            services.items.close()
        # Undo the import as one run from /activity (the report links there).
        page.goto(report_url)
        page.get_by_role("link", name="在“动态”中查看这次导入").click()
        expect(page).to_have_url(re.compile(r"/activity\?runId=" + re.escape(report_url.rsplit("/", 1)[-1]) + "$"))
        page.locator(".activity-group form button").first.click()  # Undo: the preview first
        preview = page.locator(".undo-preview")  # an import is one run
        expect(preview).to_contain_text("将先撤销 100 处改动，再以同样方式撤销这次运行的其余改动。")
        preview.get_by_role("button", name="撤销").click()
        expect(page.get_by_role("status").first).to_contain_text("已撤销 1000 处改动")
    services = _store(live)
    try:
        assert visible(services, user_id) == before
    finally:
        services.items.close()


def test_todoist_in_the_browser_twice_then_undo(live: LiveServer, tmp_path: Path) -> None:
    folder = tmp_path / "todoist"
    expected = todoist_export(folder, datetime.now(UTC), projects=4, tasks=260)
    bundle = tmp_path / "todoist.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        for path in sorted(folder.glob("*.csv")):
            archive.write(path, path.name)
    live.account("todo1")
    user_id = _user_id(live, "todo1")
    services = _store(live)
    try:
        from ...imports.checks import call

        call(services, user_id, "create_todo_task", title="mine already")
        before = visible(services, user_id)
    finally:
        services.items.close()
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}) as page:
        _import(page, live, "todo1", "todoist", bundle)
        expect(page.locator("#import-report")).to_contain_text("1040 tasks")
        expect(page.locator("#import-report")).to_contain_text("416 subtasks")
        _fits(page)
        services = _store(live)
        try:
            check_board(services, user_id, expected)
        finally:
            services.items.close()
        page.goto(f"{live.base_url}/settings/import")
        _upload(page, "todoist", bundle)
        expect(page.locator("#import-summary")).to_contain_text("Nothing new was imported.")
        expect(page.locator("#import-summary")).to_contain_text("1040 already there")
        services = _store(live)
        try:
            first_run = sorted(
                (item for item in _reports(services, user_id) if item["report"]["imported"].get("tasks")),
                key=lambda item: item["at"],
            )[0]["report"]["runId"]
        finally:
            services.items.close()
        page.goto(f"{live.base_url}/settings/import/runs/{first_run}")
        page.get_by_role("button", name="Undo this import").click()
        expect(page.locator("#import-undo")).to_contain_text(
            "1456 records moved to the trash. 4 imported spaces removed."
        )
    services = _store(live)
    try:
        assert visible(services, user_id) == before
    finally:
        services.items.close()


def _reports(services: Services, user_id: str) -> list[dict[str, Any]]:
    from mesq.imports.reports import PREFIX
    from mesq.kernel.keys import user_partition
    from mesq.store.paging import walk

    return list(walk(services.items, user_partition(user_id), prefix=PREFIX))


def test_shortened_notes_are_said_imported_in_both_languages(live: LiveServer, tmp_path: Path) -> None:
    """A task whose notes were cut to the limit was imported: the report page says it under
    "imported but shortened", never as skipped, in Chinese and in English, at both widths."""
    from mesq.todos import model

    from ...imports.exports import todoist_csv

    path = todoist_csv(tmp_path / "Long [9].csv", [["task", "长备注", "长" * (model.NOTES_MAX + 5), "1", "1"]])
    live.account("shortened1")
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, locale="zh-CN") as page:
        _import(page, live, "shortened1", "todoist", path)
        summary = page.locator("#import-summary")
        expect(summary).to_have_text("1 项已导入，但被截短。")  # no "跳过 0 条。": zero counts are not said
        expect(page.get_by_role("heading", name="已导入，但被截短")).to_be_visible()
        expect(page.locator("#import-report ul.shortened")).to_contain_text(
            f"备注超过 {model.NOTES_MAX} 个字符的部分已截去"
        )
        expect(page.locator("#import-report ul.skipped")).to_have_count(0)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            _fits(page)
        report_url = page.url
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale="en-US") as page:
        page.goto(f"{live.base_url}/login?next=" + report_url.removeprefix(live.base_url))
        page.fill("input[name=username]", "shortened1")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page.locator("#import-summary")).to_have_text("1 imported but shortened.")
        expect(page.get_by_role("heading", name="Imported but shortened")).to_be_visible()
        expect(page.locator("#import-report ul.shortened")).to_contain_text(
            f"notes past {model.NOTES_MAX} characters were cut"
        )
        _fits(page)


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_unfinished_imports_read_at_390_px(live: LiveServer, locale: str) -> None:
    """An interrupted import (its server killed) and one cut short (its request's time up): the
    Import page's list of imports that did not finish and each report's state, at 390 px in both
    languages: said, with Undo, and nothing wider than the phone."""
    from collections import Counter

    from mesq.imports.plan import Report
    from mesq.imports.reports import keep_interrupted, save_report
    from mesq.kernel.i18n import Text
    from mesq.kernel.timestamps import now_timestamp

    username = "narrow-" + locale[:2]
    account = live.account(username, scopes="memo:read,memo:write,todo:read,todo:write")
    services = _store(live)
    try:
        killed = Report("flomo", run_id="run-killed-" + locale[:2], imported=Counter(memos=1200, attachments=30))
        keep_interrupted(services.items, account.user_id, killed, now_timestamp())
        cut = Report("todoist", run_id="run-cut-" + locale[:2], imported=Counter(spaces=1, columns=3, tasks=480))
        reason = Text("this request's time on the server was up (`mesq import` on a computer has no such limit)")
        stop = Text(
            "the import stopped after writing %(summary)s (run %(run_id)s): %(reason)s. Import the same"
            " file again to complete it, or undo the run",
            reason=reason,
            summary=cut.summary_text(),
            run_id=cut.run_id,
        )
        save_report(services.items, account.user_id, cut, cut_short=stop)
    finally:
        services.items.close()
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, locale=locale) as page:
        page.goto(f"{live.base_url}/login?next=/settings/import")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(live.base_url + "/settings/import")
        expect(page.locator("#import-unfinished li")).to_have_count(2)
        _fits(page)
        page.screenshot(path=f"/tmp/r1-unfinished-{locale}.png", full_page=True)
        for run in (killed.run_id, cut.run_id):
            page.goto(f"{live.base_url}/settings/import/runs/{run}")
            expect(page.locator("#import-state")).to_be_visible()
            expect(page.locator(f"form[action='/settings/import/runs/{run}/undo'] button")).to_be_visible()
            _fits(page)
            page.screenshot(path=f"/tmp/r1-{run}.png", full_page=True)


def test_a_project_named_as_a_space_is_said_to_go_into_it_in_both_languages(live: LiveServer, tmp_path: Path) -> None:
    """`工作.csv` beside a space 工作: its tasks go into that space (no second 工作), the report page
    says so in Chinese and in English at both widths, and its Undo leaves the account as it was
    (the column the import added to 工作 removed, the space and its own task kept)."""
    from ...imports.checks import call
    from ...imports.exports import todoist_csv

    live.account("spaces1")
    user_id = _user_id(live, "spaces1")
    services = _store(live)
    try:
        made = call(services, user_id, "create_todo_space", name="工作", columns=["待办", "进行中"])
        space_id = made["space"]["id"]
        call(services, user_id, "create_todo_task", title="已有的", spaceId=space_id)
        before = visible(services, user_id)
    finally:
        services.items.close()
    rows = [["task", "写周报", "", "1", "1"], ["section", "新的"], ["task", "新事", "", "1", "1"]]
    path = todoist_csv(tmp_path / "工作.csv", rows)
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, locale="zh-CN") as page:
        _import(page, live, "spaces1", "todoist", path)
        expect(page.get_by_role("heading", name="导入到已有的位置")).to_be_visible()
        expect(page.locator("#import-report ul.merged")).to_have_text("工作：导入到已有的空间 工作")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            _fits(page)
        report_url = page.url
    services = _store(live)
    try:
        state = load_state(services.items, user_id)
        assert [space["name"] for space in state.spaces.values()].count("工作") == 1
        titles = {task["title"]: task for task in state.every_task()}
        assert titles["写周报"]["spaceId"] == titles["新事"]["spaceId"] == space_id
    finally:
        services.items.close()
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale="en-US") as page:
        page.goto(f"{live.base_url}/login?next=" + report_url.removeprefix(live.base_url))
        page.fill("input[name=username]", "spaces1")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page.get_by_role("heading", name="Into what you already had")).to_be_visible()
        expect(page.locator("#import-report ul.merged")).to_have_text("工作: into the existing space 工作")
        for width, height in reversed(SIZES):
            page.set_viewport_size({"width": width, "height": height})
            _fits(page)
        undo = page.locator("form[action$='/undo']")  # what the Undo says it does, columns too
        expect(undo).to_contain_text("the columns it added to your spaces are removed once empty")
        undo.get_by_role("button", name="Undo this import").click()
        expect(page.locator("#import-undo")).to_contain_text(
            "2 records moved to the trash. 1 column it added to a space you had removed."
        )
    services = _store(live)
    try:
        assert visible(services, user_id) == before
    finally:
        services.items.close()


def test_todoists_inbox_is_said_to_go_into_the_inbox_in_both_languages(live: LiveServer, tmp_path: Path) -> None:
    """`Inbox [1].csv` goes into the inbox (no space "Inbox"); its report page says so, with the
    section and the recurrence kept in the notes, in Chinese at 390 px and English at 1280 px; its
    Undo puts the items in the trash and leaves the inbox as it was."""
    from ...imports.checks import call
    from ...imports.exports import todoist_csv

    live.account("inbox1")
    user_id = _user_id(live, "inbox1")
    services = _store(live)
    try:
        call(services, user_id, "create_todo_inbox_item", title="mine already")
        spaces = sorted(space["name"] for space in load_state(services.items, user_id).spaces.values())
    finally:
        services.items.close()
    rows = [["task", "浇花", "", "4", "1", "", "", "每周五"], ["section", "以后"], ["task", "读书", "", "4", "1"]]
    path = todoist_csv(tmp_path / "Inbox [2203306140].csv", rows)
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, locale="zh-CN") as page:
        _import(page, live, "inbox1", "todoist", path)
        expect(page.locator("#import-report ul.merged")).to_have_text("Inbox：导入到收件箱")
        expect(page.locator("#import-report ul.kept")).to_contain_text("MeSQ 的收件箱条目不能重复")
        expect(page.locator("#import-report ul.kept")).to_contain_text("分区“以后”")
        _fits(page)
        report_url = page.url
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale="en-US") as page:
        page.goto(f"{live.base_url}/login?next=" + report_url.removeprefix(live.base_url))
        page.fill("input[name=username]", "inbox1")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page.locator("#import-report ul.merged")).to_have_text("Inbox: into your inbox")
        expect(page.locator("#import-report ul.kept")).to_contain_text("inbox items do not recur in MeSQ")
        _fits(page)
        services = _store(live)
        try:
            state = load_state(services.items, user_id)
            assert [item["title"] for item in state.live_inbox()] == ["mine already", "浇花", "读书"]
            assert sorted(space["name"] for space in state.spaces.values()) == spaces
        finally:
            services.items.close()
        page.get_by_role("button", name="Undo this import").click()
        expect(page.locator("#import-undo")).to_contain_text("2 records moved to the trash.")
    services = _store(live)
    try:
        assert [item["title"] for item in load_state(services.items, user_id).live_inbox()] == ["mine already"]
    finally:
        services.items.close()
