"""Shaping the board in-process (TestClient): columns added, renamed, moved left / right and by a
drop, marked done and deleted, the space renamed and deleted, each through its form; every
refusal (an empty or too long name, a column or space with tasks, the last open column, the
default space) comes back as the board with the operation's message beside its control and the
typed text kept, nothing written. Also an inbox item's own page: due, notes, subtasks."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest

from mesq.web.todos.shape import api_index
from mesq.wiring.services import Services

from ..conftest import Browser
from .test_todos_pages import board, columns, new_task, run

HTMX = {"HX-Request": "true"}


@pytest.fixture
def person(browser: Callable[..., Browser]) -> Browser:
    return browser()


def spaces(services: Services, user_id: str) -> dict[str, Any]:
    return run(services, user_id, "list_todo_spaces", {})


def names(services: Services, user_id: str) -> list[str]:
    """The default space's columns in order, archived ones too."""
    listing = spaces(services, user_id)
    return [c["name"] for c in listing["columns"] if c["spaceId"] == listing["defaultSpaceId"]]


def menu_of(page: str, column_id: str) -> str:
    """The column's section of the board, from its heading to its cards."""
    start = page.index(f'id="column-title-{column_id}"')
    return page[start : page.index(f'id="column-{column_id}"', start)]


def test_a_column_is_added_renamed_and_deleted(services: Services, person: Browser) -> None:
    space = spaces(services, person.user_id)["spaces"][0]
    added = person.post("/todos/columns", {"space": space["id"], "name": " Later "})
    assert added.status_code == 303
    later = columns(services, person.user_id)[-1]
    assert later["name"] == "Later" and added.headers["location"].endswith(f"#column-title-{later['id']}")
    renamed = person.post(
        f"/todos/columns/{later['id']}/rename", {"space": space["id"], "revision": 1, "name": "Someday"}
    )
    assert renamed.status_code == 303 and names(services, person.user_id)[-1] == "Someday"
    gone = person.post(f"/todos/columns/{later['id']}/delete", {"space": space["id"], "revision": 2})
    assert gone.status_code == 303 and names(services, person.user_id) == ["To do", "Doing", "Done"]


def test_an_empty_or_long_column_name_is_refused_beside_its_form(services: Services, person: Browser) -> None:
    space = spaces(services, person.user_id)["spaces"][0]
    empty = person.post("/todos/columns", {"space": space["id"], "name": "   "})
    assert empty.status_code == 400 and 'id="add-column-error"' in empty.text
    assert '<details class="add-column" open>' in empty.text
    todo = columns(services, person.user_id)[0]
    long_name = "长" * 101
    refused = person.post(
        f"/todos/columns/{todo['id']}/rename", {"space": space["id"], "revision": 1, "name": long_name}
    )
    assert refused.status_code == 400
    menu = menu_of(refused.text, todo["id"])
    assert 'role="alert"' in menu and "100" in html.unescape(menu) and f'value="{long_name}"' in menu  # text kept
    assert names(services, person.user_id) == ["To do", "Doing", "Done"]  # nothing written


def test_deleting_a_column_with_tasks_or_the_last_one_says_why(services: Services, person: Browser) -> None:
    todo, _doing, _done = columns(services, person.user_id)
    new_task(services, person.user_id, "keep me", columnId=todo["id"])
    refused = person.post(f"/todos/columns/{todo['id']}/delete", {"revision": 1})
    assert refused.status_code == 409
    menu = menu_of(refused.text, todo["id"])
    assert '<details class="column-menu" open>' in menu and "still has 1 live task;" in html.unescape(menu)
    work = run(services, person.user_id, "create_todo_space", {"name": "Work", "columns": ["Only"]})
    only = work["columns"][0]
    last = person.post(f"/todos/columns/{only['id']}/delete", {"space": work["space"]["id"], "revision": 1})
    assert last.status_code == 409 and "last open column" in menu_of(last.text, only["id"])
    assert len(columns(services, person.user_id)) == 4


def test_columns_move_left_and_right_among_the_open_ones(services: Services, person: Browser) -> None:
    _todo, doing, done = columns(services, person.user_id)
    run(
        services,
        person.user_id,
        "update_todo_column",
        {"columnId": doing["id"], "expectedRevision": 1, "archived": True},
    )
    # The board shows To do, Done; "Done" left = place 0 among the open columns.
    moved = person.post(f"/todos/columns/{done['id']}/move", {"revision": 1, "index": 0})
    assert moved.status_code == 303
    assert names(services, person.user_id) == ["Done", "To do", "Doing"]
    right = person.post(f"/todos/columns/{done['id']}/move", {"revision": 2, "index": 1})
    assert right.status_code == 303 and [c["name"] for c in columns(services, person.user_id)] == ["To do", "Done"]
    page = person.get("/todos").text
    assert 'class="secondary move-left" name="index" value="0" disabled' in page  # the first open column


def test_a_column_drop_answers_its_revision_and_keeps_the_order(services: Services, person: Browser) -> None:
    todo, _doing, _done = columns(services, person.user_id)
    answer = person.client.post(
        f"/todos/columns/{todo['id']}/drop", json={"revision": 1, "index": 2}, headers={"X-CSRF-Token": person.csrf}
    )
    assert answer.status_code == 200 and answer.json()["column"] == {"id": todo["id"], "revision": 2}
    assert names(services, person.user_id) == ["Doing", "Done", "To do"]
    stale = person.client.post(
        f"/todos/columns/{todo['id']}/drop", json={"revision": 1, "index": 0}, headers={"X-CSRF-Token": person.csrf}
    )
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "REVISION_CONFLICT"


def test_api_index_skips_archived_columns() -> None:
    cols = [{"id": i, "archived": i == "b"} for i in "abcd"]
    assert api_index(cols, "d", 0) == 0
    assert api_index(cols, "d", 1) == 2  # after a and the archived b: before c
    assert api_index(cols, "a", 5) == 3


def test_marking_the_done_column_and_completing_a_card_moves_it(services: Services, person: Browser) -> None:
    todo, _doing, done = columns(services, person.user_id)
    marked = person.post(f"/todos/columns/{done['id']}/done", {"revision": 1, "done": "true"})
    assert marked.status_code == 303
    page = person.get("/todos").text
    assert "Done column" in menu_of(page, done["id"]) and 'aria-pressed="true"' in menu_of(page, done["id"])
    task = new_task(services, person.user_id, "ship it", columnId=todo["id"])
    card = person.post(
        f"/todos/tasks/{task['id']}/complete",
        {"revision": 1, "place": 0, "column": todo["id"]},
        headers=HTMX,
    )
    assert card.status_code == 200 and f'hx-swap-oob="afterbegin:#column-{done["id"]}"' in card.text
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["done"] and stored["columnId"] == done["id"]


def test_a_space_is_renamed_and_deleted_with_the_apis_rules(services: Services, person: Browser) -> None:
    default = spaces(services, person.user_id)["spaces"][0]
    empty = person.post(f"/todos/spaces/{default['id']}/rename", {"revision": 1, "name": " "})
    assert (
        empty.status_code == 400
        and 'id="space-error"' in empty.text
        and '<details class="space-menu" open>' in empty.text
    )
    renamed = person.post(f"/todos/spaces/{default['id']}/rename", {"revision": 1, "name": "个人 Personal"})
    assert renamed.status_code == 303 and spaces(services, person.user_id)["spaces"][0]["name"] == "个人 Personal"
    refused = person.post(f"/todos/spaces/{default['id']}/delete", {"revision": 2})
    assert refused.status_code == 409 and "default space cannot be deleted" in refused.text
    work = run(services, person.user_id, "create_todo_space", {"name": "Work"})
    new_task(services, person.user_id, "report", columnId=work["columns"][0]["id"])
    busy = person.post(f"/todos/spaces/{work['space']['id']}/delete", {"revision": 1})
    assert busy.status_code == 409 and 'id="space-delete-error"' in busy.text and "<h1>Work</h1>" in busy.text
    assert len(spaces(services, person.user_id)["spaces"]) == 2
    spare = run(services, person.user_id, "create_todo_space", {"name": "Spare"})["space"]
    gone = person.post(f"/todos/spaces/{spare['id']}/delete", {"revision": 1})
    assert gone.status_code == 303 and len(spaces(services, person.user_id)["spaces"]) == 2


def test_a_space_with_tasks_is_refused_by_its_name(services: Services, person: Browser) -> None:
    """The refusal names the space as the board shows it; it named its slug, and a Chinese name's
    slug is "space": "空间 'space' 中还有 1 个任务"."""
    work = run(services, person.user_id, "create_todo_space", {"name": "工作"})
    new_task(services, person.user_id, "交报告", columnId=work["columns"][0]["id"])
    busy = person.post(
        f"/todos/spaces/{work['space']['id']}/delete", {"revision": 1}, headers={"accept-language": "zh-CN"}
    )
    assert busy.status_code == 409
    said = html.unescape(busy.text)
    assert "空间“工作”中还有 1 个任务；请先移走或删除" in said and "'space'" not in said


def test_an_inbox_item_page_saves_due_notes_and_subtasks(services: Services, person: Browser) -> None:
    item = run(services, person.user_id, "create_todo_inbox_item", {"title": "renew passport"})["item"]
    listed = person.get("/todos/inbox").text
    assert f'href="/todos/inbox/{item["id"]}"' in listed
    page = person.get(f"/todos/inbox/{item['id']}")
    assert page.status_code == 200 and "renew passport" in page.text
    form = {"revision": 1, "title": "renew passport", "notes": "photos first", "priority": "high", "tags": "admin",
            "due_date": "2026-12-20", "due_time": "", "timezone": ""}  # fmt: skip
    saved = person.post(f"/todos/inbox/{item['id']}", form)
    assert saved.status_code == 303
    stored = run(services, person.user_id, "get_todo_inbox_item", {"id": item["id"]})["item"]
    assert stored["due"] == {"type": "date", "date": "2026-12-20"} and stored["notes"] == "photos first"
    assert stored["priority"] == "high" and stored["tags"] == ["admin"]
    bad = person.post(f"/todos/inbox/{item['id']}", {**form, "revision": 2, "due_date": "20-12", "notes": "keep"})
    assert bad.status_code == 400 and 'id="item-error"' in bad.text and ">keep</textarea>" in bad.text
    stale = person.post(f"/todos/inbox/{item['id']}", {**form, "notes": "mine"})  # revision 1: changed since
    assert stale.status_code == 409 and ">mine</textarea>" in stale.text and 'name="revision" value="2"' in stale.text
    added = person.post(f"/todos/inbox/{item['id']}/subtasks", {"revision": 2, "title": "book photo"}, headers=HTMX)
    assert added.status_code == 200 and "book photo" in added.text
    [sub] = run(services, person.user_id, "get_todo_inbox_item", {"id": item["id"]})["item"]["subtasks"]
    ticked = person.post(f"/todos/inbox/{item['id']}/subtasks/{sub['id']}/toggle", {"revision": 3, "done": "false"},
                         headers=HTMX)  # fmt: skip
    assert "(1/1 done)" in ticked.text
    stale_tick = person.post(f"/todos/inbox/{item['id']}/subtasks/{sub['id']}/delete", {"revision": 3}, headers=HTMX)
    assert "changed meanwhile" in stale_tick.text and "book photo" in stale_tick.text
    deleted = person.post(f"/todos/inbox/{item['id']}/subtasks/{sub['id']}/delete", {"revision": 4}, headers=HTMX)
    assert "book photo" not in deleted.text
    empty = person.post(f"/todos/inbox/{item['id']}/subtasks", {"revision": 5, "title": " "}, headers=HTMX)
    assert empty.status_code == 200 and 'role="alert"' in empty.text
    assert board(services, person.user_id)["tasks"] == []  # still in the inbox


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "the default space cannot be deleted; make another space the default first"),
        ("zh", "默认空间不能删除；请先把另一个空间设为默认空间"),
    ],
)
def test_the_default_space_is_refused_in_words_and_another_one_can_become_the_default(
    services: Services, person: Browser, language: str, words: str
) -> None:
    """Sweep F12: the page says what to do in its own words (no API call named; REST keeps it),
    and the space menu has the control that does it."""
    assert person.post("/settings/language", {"language": language}).status_code == 303
    default = spaces(services, person.user_id)["spaces"][0]
    refused = person.post(f"/todos/spaces/{default['id']}/delete", {"revision": 1})
    said = html.unescape(refused.text)
    assert refused.status_code == 409 and 'id="space-delete-error"' in refused.text
    assert words in said and "makeDefault" not in said and "update_todo_space" not in said
    assert 'action="/todos/spaces/' + default["id"] + '/default"' not in refused.text  # it is the default
    with pytest.raises(Exception, match=r"\(update_todo_space makeDefault\)"):
        run(services, person.user_id, "delete_todo_space", {"spaceId": default["id"], "expectedRevision": 1})
    work = run(services, person.user_id, "create_todo_space", {"name": "工作"})["space"]
    board_of_work = person.get(f"/todos?space={work['id']}")
    assert f'action="/todos/spaces/{work["id"]}/default"' in board_of_work.text
    made = person.post(f"/todos/spaces/{work['id']}/default", {"revision": work["revision"]})
    assert made.status_code == 303
    assert spaces(services, person.user_id)["defaultSpaceId"] == work["id"]
    gone = person.post(f"/todos/spaces/{default['id']}/delete", {"revision": 1})
    assert gone.status_code == 303 and [s["id"] for s in spaces(services, person.user_id)["spaces"]] == [work["id"]]
