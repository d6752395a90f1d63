"""Todoist lets a task's name hold Markdown (`**bold**`, `*italic*`, `~~struck~~`, `[text](https://…)`,
`` `code` ``) and its CSV keeps the marks. A MeSQ title is plain text (the board, the Reminders
app over CalDAV, a reminder's words): the import keeps the words without the marks, and a link's
address goes to the task's notes (Markdown there), so nothing is lost."""

from __future__ import annotations

from pathlib import Path

from mesq.auth.users import create_user
from mesq.todos.state import load_state
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .exports import todoist_csv


def _task(title: str, description: str = "", indent: str = "1") -> list[str]:
    return ["task", title, description, "4", indent, "", "", "", "", ""]


def test_a_task_name_keeps_its_words_without_the_marks_and_a_links_address_in_the_notes(
    services: Services, tmp_path: Path
) -> None:
    path = todoist_csv(
        tmp_path / "标记 [2203306141].csv",
        [
            _task("**交周报** 给 *老板* @工作"),
            _task("读 [三体书评](https://example.com/三体?a=1) 和 `README.md`", "原有描述"),
            _task("__加粗__ 和 _斜体_：**《三体》**很好看"),
            _task("[](https://example.com/only)"),
            _task("看 https://example.com/a_b_c 和 <https://example.com/x>"),
            _task("2*3 = 6, snake_case_name, ~~旧的~~, \\*星号\\*"),
            _task("**子任务的父**"),
            _task("*子任务* [说明](https://example.com/sub)", indent="2"),
        ],
    )
    user = create_user(services.items, "wang", "correct horse battery")

    report = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))

    assert report.imported["tasks"] == 7 and report.imported["subtasks"] == 1, report.as_dict()
    tasks = {task["title"]: task for task in load_state(services.items, user["id"]).every_task()}
    assert sorted(tasks) == sorted(
        [
            "交周报 给 老板",
            "读 三体书评 和 README.md",
            "加粗 和 斜体：《三体》很好看",
            "https://example.com/only",
            "看 https://example.com/a_b_c 和 https://example.com/x",
            "2*3 = 6, snake_case_name, 旧的, *星号*",  # Todoist draws ~~旧的~~ struck through
            "子任务的父",
            "子任务 说明",
        ]
    ), sorted(tasks)
    assert tasks["交周报 给 老板"]["tags"] == ["工作"] and not tasks["交周报 给 老板"].get("notes")
    assert (
        tasks["读 三体书评 和 README.md"]["notes"]
        == "原有描述\n\n[三体书评](https://example.com/%E4%B8%89%E4%BD%93?a=1)"
    )
    assert tasks["https://example.com/only"]["notes"] == "<https://example.com/only>"
    assert not tasks["看 https://example.com/a_b_c 和 https://example.com/x"].get("notes")
    assert tasks["子任务 说明"]["notes"] == "[说明](https://example.com/sub)"
    assert tasks["子任务 说明"]["parentId"] == tasks["子任务的父"]["id"]

    again = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))
    assert not any(again.imported.values()), again.as_dict()


def test_an_inline_footnote_in_a_task_name_keeps_its_words(services: Services, tmp_path: Path) -> None:
    """Memo Markdown reads `^[…]` as an inline footnote; a task's name has no footnotes, so the
    words in it stay as typed (the title parser shares the memo parser: they were dropped)."""
    path = todoist_csv(tmp_path / "脚注 [2203306143].csv", [_task("买牛奶 ^[两升] 和面包[^1]")])
    user = create_user(services.items, "wang", "correct horse battery")
    import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))
    titles = [task["title"] for task in load_state(services.items, user["id"]).every_task()]
    assert titles == ["买牛奶 ^[两升] 和面包[^1]"], titles


def test_a_struck_through_task_name_keeps_its_words_without_the_tildes(services: Services, tmp_path: Path) -> None:
    """Todoist draws `~~…~~` in a name as struck-through words, like `**` as bold: the title keeps
    the words. A single tilde (a range, 3~5天), an unclosed pair (a playful 好的~~) and escaped
    tildes stay as typed."""
    path = todoist_csv(
        tmp_path / "删除线 [2203306144].csv",
        [
            _task("~~旧方案~~ 新方案"),
            _task("订~~周五~~周六的票 @出行"),
            _task("**~~作废~~** 草稿"),
            _task("跑步 3~5 公里"),
            _task("好的~~"),
            _task("\\~\\~原样\\~\\~"),
        ],
    )
    user = create_user(services.items, "wang", "correct horse battery")
    import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))
    tasks = {task["title"]: task for task in load_state(services.items, user["id"]).every_task()}
    assert sorted(tasks) == sorted(
        ["旧方案 新方案", "订周五周六的票", "作废 草稿", "跑步 3~5 公里", "好的~~", "~~原样~~"]
    )
    assert tasks["订周五周六的票"]["tags"] == ["出行"]
