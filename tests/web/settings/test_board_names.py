"""A board made in one language, read in the other (settings/board_names.py): `/settings` offers
its untouched default names in the page's language, one click renames them through the rename
operations (each recorded in the history), and a name the person gave stays."""

from __future__ import annotations

import re
from collections.abc import Callable

from mesq.todos.board.spaces import has_board
from mesq.wiring.services import Services
from tests.support.operations import call_of, run_operation

from ..conftest import Browser

EN = {"accept-language": "en"}
ZH = {"accept-language": "zh-CN"}
SCOPES = ("todo:read", "todo:write", "memo:read")


def _names(services: Services, user_id: str) -> tuple[list[str], list[str]]:
    listing = run_operation(call_of(services, user_id, SCOPES), "list_todo_spaces", {})
    return [space["name"] for space in listing["spaces"]], [column["name"] for column in listing["columns"]]


def test_an_english_board_read_in_chinese_is_offered_its_chinese_names(
    services: Services, browser: Callable[..., Browser]
) -> None:
    person = browser()
    assert person.get("/todos", headers=EN).status_code == 200  # the first board, made in English
    assert _names(services, person.user_id) == (["Default"], ["To do", "Doing", "Done"])
    assert 'id="board-names"' not in person.get("/settings", headers=EN).text  # its own language: nothing
    offer = person.get("/settings", headers=ZH).text
    assert 'id="board-names"' in offer
    for old, new in (("Default", "默认"), ("To do", "待办"), ("Doing", "进行中"), ("Done", "已完成")):
        assert f"“{old}” → “{new}”" in offer, old
    done = person.post("/settings/board-names", {}, headers=ZH)
    assert done.status_code == 303 and done.headers["location"] == "/settings"
    page = person.get("/settings", headers=ZH).text
    assert "已重命名看板上的 4 个名称。" in page and 'id="board-names"' not in page
    assert _names(services, person.user_id) == (["默认"], ["待办", "进行中", "已完成"])
    changes = run_operation(call_of(services, person.user_id, SCOPES), "list_changes", {"limit": 20})["changes"]
    renamed = {change["record"]["kind"] for change in changes if change["operation"].startswith("update_todo_")}
    assert renamed == {"space", "column"} and len(changes) >= 4  # each rename in the history: undoable


def test_a_name_the_person_gave_stays(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    person.get("/todos", headers=ZH)  # made in Chinese
    call = call_of(services, person.user_id, SCOPES)
    listing = run_operation(call, "list_todo_spaces", {})
    doing = next(column for column in listing["columns"] if column["name"] == "进行中")
    run_operation(call, "update_todo_column", {"columnId": doing["id"], "expectedRevision": doing["revision"],
                                               "name": "阅读中"})  # fmt: skip
    offer = person.get("/settings", headers=EN).text
    assert "“默认” → “Default”" in offer and "“待办” → “To do”" in offer and "“阅读中”" not in offer
    done = person.post("/settings/board-names", {}, headers=EN)
    assert done.status_code == 303
    assert "Renamed 3 names on your board." in person.get("/settings", headers=EN).text
    assert _names(services, person.user_id) == (["Default"], ["To do", "阅读中", "Done"])


def test_each_column_offered_says_its_space(services: Services, browser: Callable[..., Browser]) -> None:
    """Two spaces made in English, read in Chinese: each column's line names its space (the list
    said "列 “To do” → “待办”" twice, once a space, with nothing to tell the two apart)."""
    person = browser()
    person.get("/todos", headers=EN)
    call = call_of(services, person.user_id, SCOPES)
    run_operation(call, "create_todo_space", {"name": "Work"})
    offer = person.get("/settings", headers=ZH).text
    lines = re.findall(r"<li>([^<]*→[^<]*)</li>", offer)
    assert len(lines) == len(set(lines)) == 7, lines
    assert "空间“Default” → “默认”" in lines
    for space in ("Default", "Work"):
        assert f"“{space}”中的列“To do” → “待办”" in lines, lines


def test_looking_at_settings_makes_no_board(services: Services, browser: Callable[..., Browser]) -> None:
    """The offer reads the board only if there is one: listing the spaces would make the first
    board, named in the language of whatever page looked first."""
    person = browser()
    assert 'id="board-names"' not in person.get("/settings", headers=EN).text
    assert not has_board(services.items, person.user_id)
    person.get("/todos", headers=ZH)
    assert _names(services, person.user_id) == (["默认"], ["待办", "进行中", "已完成"])


def test_the_board_points_to_the_offer_while_it_stands(services: Services, browser: Callable[..., Browser]) -> None:
    """The board page, where a person sees the names, says where to rename them; once renamed, or
    in the board's own language, it says nothing."""
    person = browser()
    assert 'id="board-names-hint"' not in person.get("/todos", headers=EN).text  # made in English, read in English
    board = person.get("/todos", headers=ZH).text
    assert 'id="board-names-hint"' in board and 'href="/settings#board-names"' in board
    assert "看板上有些名称仍是另一种语言的默认名。" in board and "去设置里改名" in board
    assert person.post("/settings/board-names", {}, headers=ZH).status_code == 303
    assert 'id="board-names-hint"' not in person.get("/todos", headers=ZH).text
    assert 'id="board-names-hint"' in person.get("/todos", headers=EN).text  # now the other way round
