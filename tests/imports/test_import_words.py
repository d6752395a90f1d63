"""What an import writes into records itself (a comment's heading, a kept Todoist date, a row of
another kind) is in the person's language, and a comment's time in their zone: a Chinese
writer's imported notes carry no English of MeSQ's own."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mesq.auth.user_zone import set_zone
from mesq.auth.users import create_user, set_setting
from mesq.memos import store as memo_store
from mesq.todos.state import load_state
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .exports import todoist_csv
from .test_stranger_files import _memos


@pytest.mark.parametrize(
    ("language", "zone", "answered_by_bob", "own_note"),
    [
        ("zh", "Asia/Shanghai", "**bob 的评论，2023-11-15 06:13**", "（对 bob 的 memos/bobs 的评论）"),
        ("en", None, "**Comment by bob, 2023-11-14 22:13 UTC**", "(a comment on memos/bobs by bob)"),
    ],
)
def test_a_memos_comment_heading_is_in_the_persons_language_and_zone(
    services: Services, tmp_path: Path, language: str, zone: str | None, answered_by_bob: str, own_note: str
) -> None:
    user = create_user(services.items, f"reader-{language}", "correct horse battery")
    set_setting(services.items, user["id"], "language", language)
    if zone:
        set_zone(services.items, user["id"], zone)
    memos = [(1, "mine", 1, "my memo"), (2, "reply", 2, "bob answers"), (3, "bobs", 2, "bob's memo"),
             (4, "own", 1, "MY WORDS on bob's memo")]  # fmt: skip
    path = _memos(tmp_path / "memos_prod.db", memos, [(2, 1, "COMMENT"), (4, 3, "COMMENT")])
    import_file(services, user["id"], "memos", path, options=ImportOptions(memos_user="alice"))
    memos_now = memo_store.all_memos(services.items, user["id"])
    contents = {memo["content"].split("\n")[0]: memo["content"] for memo in memos_now}
    assert f"{answered_by_bob}\n\n> bob answers" in contents["my memo"]
    assert own_note in contents["MY WORDS on bob's memo"]


def test_todoist_lines_kept_in_the_notes_are_in_the_persons_language(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "Odds.csv"
    rows = [
        ["task", "after the rains", "", "1", "1", "", "", "sometime after the rains", "en", "UTC"],
        ["note", "a project note", "", "", "", "", "", "", "", ""],
        ["weird", "a row of another kind", "", "", "", "", "", "", "", ""],
    ]
    todoist_csv(path, rows)
    user = create_user(services.items, "lin", "correct horse battery")
    now = datetime(2026, 12, 4, tzinfo=UTC)
    import_file(services, user["id"], "todoist", path, options=ImportOptions(now=now, language="zh"))
    task = next(t for t in load_state(services.items, user["id"]).every_task() if t["title"] == "after the rains")
    assert "Todoist 日期“sometime after the rains”" in task["notes"]  # the phrase whole, in Chinese marks
    assert "**评论**\n\na project note" in task["notes"]
    assert "Todoist 第 4 行：" in task["notes"]
    assert "Todoist date" not in task["notes"] and "Comment" not in task["notes"]
