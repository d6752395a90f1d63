"""The todo pages in-process (TestClient): the board, a task's page, the inbox and the trash
through their forms, and bad input answered with a clear message (never a 500), nothing written."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mesq.history.forget import forget_record
from mesq.todos.keys import inbox_key, task_key
from mesq.web.todos import board_view
from mesq.wiring.services import Services
from tests.support.operations import call_of, run_operation

from ..conftest import Browser, FakeClock

ALL_TODO = frozenset({"todo:read", "todo:write"})


def run(services: Services, user_id: str, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An operation as another client (REST, MCP) would run it: the other tab of the conflict tests."""
    return dict(run_operation(call_of(services, user_id, ALL_TODO), operation, arguments))


def board(services: Services, user_id: str) -> dict[str, Any]:
    return run(services, user_id, "list_todos", {"includeInbox": False})


def columns(services: Services, user_id: str) -> list[dict[str, Any]]:
    return board(services, user_id)["columns"]


def task_ids(services: Services, user_id: str, column_id: str) -> list[str]:
    return [t["id"] for t in board(services, user_id)["tasks"] if t["columnId"] == column_id]


def new_task(services: Services, user_id: str, title: str, **fields: Any) -> dict[str, Any]:
    return run(services, user_id, "create_todo_task", {"title": title, **fields})["task"]


@pytest.fixture
def person(browser: Callable[..., Browser]) -> Browser:
    return browser()


def test_board_shows_the_default_space_and_adds_a_task(services: Services, person: Browser) -> None:
    page = person.get("/todos")
    assert page.status_code == 200
    for name in ("To do", "Doing", "Done"):
        assert f">{name}</h2>" in page.text
    todo = columns(services, person.user_id)[0]
    added = person.post("/todos/tasks", {"column": todo["id"], "title": "  写周报 weekly report "})
    assert added.status_code == 303
    [task] = board(services, person.user_id)["tasks"]
    assert task["title"] == "写周报 weekly report" and task["columnId"] == todo["id"]
    assert added.headers["location"].endswith(f"#task-{task['id']}")
    shown = person.get("/todos").text
    assert f'id="task-{task["id"]}"' in shown and "写周报 weekly report" in shown


def test_a_card_shows_due_priority_tags_progress_and_recurrence(services: Services, person: Browser) -> None:
    task = new_task(
        services, person.user_id, "gym", priority="high", tags=["health"], due={"type": "date", "date": "2026-12-07"},
        recurrence="FREQ=WEEKLY",
    )  # fmt: skip
    for title in ("warm up", "lift"):
        run(services, person.user_id, "create_todo_subtask", {"taskId": task["id"], "title": title})
    html = person.get("/todos").text
    card = html[html.index(f'id="task-{task["id"]}"') :]
    card = card[: card.index("</li>")]
    assert "priority-high" in card and "#health" in card and "2026-12-07" in card
    assert "☑ 0/2" in card and "Every week</span>" in card and "FREQ=" not in card  # recurrence in words


def test_adding_an_empty_task_keeps_the_board_and_says_why(services: Services, person: Browser) -> None:
    todo = columns(services, person.user_id)[0]
    answer = person.post("/todos/tasks", {"column": todo["id"], "title": "   "})
    assert answer.status_code == 400
    assert 'role="alert"' in answer.text and "title" in answer.text
    assert board(services, person.user_id)["tasks"] == []


def test_a_task_for_a_column_gone_meanwhile_keeps_the_title(services: Services, person: Browser) -> None:
    answer = person.post("/todos/tasks", {"column": "gone-column", "title": "don't lose me"})
    assert answer.status_code == 400 and "not found" in answer.text and "don&#39;t lose me" in answer.text


def test_spaces_are_created_and_switched(services: Services, person: Browser) -> None:
    empty = person.post("/todos/spaces", {"name": ""})
    assert empty.status_code == 400 and 'role="alert"' in empty.text
    made = person.post("/todos/spaces", {"name": "家务 Home"})
    assert made.status_code == 303
    space_id = made.headers["location"].split("space=")[1]
    page = person.get(f"/todos?space={space_id}").text
    assert "<h1>家务 Home</h1>" in page and f'href="/todos?space={space_id}" aria-current="page"' in page


def test_the_keyboard_move_form_moves_between_and_within_columns(services: Services, person: Browser) -> None:
    todo, doing = columns(services, person.user_id)[:2]
    first, second = (new_task(services, person.user_id, t, columnId=todo["id"]) for t in ("one", "two"))
    down = person.post(f"/todos/tasks/{first['id']}/move", {"revision": first["revision"], "column": todo["id"],
                                                          "index": "1"})  # fmt: skip
    assert down.status_code == 303
    assert task_ids(services, person.user_id, todo["id"]) == [second["id"], first["id"]]
    moved = person.post(f"/todos/tasks/{second['id']}/move", {"revision": second["revision"], "column": doing["id"]})
    assert moved.status_code == 303
    assert task_ids(services, person.user_id, doing["id"]) == [second["id"]]
    stale = person.post(f"/todos/tasks/{first['id']}/move", {"revision": first["revision"], "index": "0"})
    assert stale.status_code == 303 and stale.headers["location"] == f"/todos?space={first['spaceId']}"
    assert "changed meanwhile" in person.client.get(stale.headers["location"]).text
    assert task_ids(services, person.user_id, todo["id"]) == [first["id"]]  # unchanged


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"column": "x", "index": 0}, "the form is incomplete or out of date"),  # said as a page says it
        ({"revision": "abc", "index": 0}, "the form is incomplete or out of date"),
        ({"revision": 1, "index": -3}, "Position:"),
        ({"revision": 1, "index": "top"}, "Position:"),
        ({"revision": 1, "column": "no such column!"}, "columnId"),
        ({"revision": 1}, "destination"),
    ],
)
def test_a_bad_drop_is_a_json_400(services: Services, person: Browser, body: dict[str, Any], expected: str) -> None:
    task = new_task(services, person.user_id, "drag me")
    answer = person.client.post(f"/todos/tasks/{task['id']}/drop", json=body, headers={"X-CSRF-Token": person.csrf})
    assert answer.status_code == 400, answer.text
    assert expected in answer.json()["error"]["message"]
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["revision"] == task["revision"]


def test_a_drop_answers_the_new_revision(services: Services, person: Browser) -> None:
    doing = columns(services, person.user_id)[1]
    task = new_task(services, person.user_id, "drag me")
    answer = person.client.post(
        f"/todos/tasks/{task['id']}/drop", json={"revision": task["revision"], "column": doing["id"], "index": 0},
        headers={"X-CSRF-Token": person.csrf},
    )  # fmt: skip
    assert answer.status_code == 200
    assert answer.json()["task"] == {"id": task["id"], "columnId": doing["id"], "revision": task["revision"] + 1}
    refused = person.client.post(f"/todos/tasks/{task['id']}/drop", json={"revision": 1, "index": 0})
    assert refused.status_code == 403  # no CSRF header


def test_more_loads_the_next_page_with_exact_column_indices(
    services: Services, person: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_view, "PAGE_SIZE", 3)
    todo, doing = columns(services, person.user_id)[:2]
    made = [new_task(services, person.user_id, f"t{n}", columnId=todo["id"]) for n in range(4)]
    made.append(new_task(services, person.user_id, "d0", columnId=doing["id"]))
    first = person.get("/todos").text
    assert all(f'id="task-{t["id"]}"' in first for t in made[:3]) and made[3]["id"] not in first
    link = re.search(r'hx-get="(/todos/more\?[^"]+)"', first)
    assert link, "no load-more link"
    more = person.get(link.group(1).replace("&amp;", "&"), headers={"HX-Request": "true"})
    assert more.status_code == 200
    assert f'hx-swap-oob="beforeend:#column-{todo["id"]}"' in more.text
    assert f'hx-swap-oob="beforeend:#column-{doing["id"]}"' in more.text
    fourth = more.text[more.text.index(f'id="task-{made[3]["id"]}"') :]
    assert 'class="secondary move-down" name="index" value="4"' in fourth[: fourth.index("</li>")]
    assert "hx-get" not in more.text  # the last page: no further link


def test_a_task_page_saves_every_field(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "plan trip")
    page = person.get(f"/todos/tasks/{task['id']}")
    assert page.status_code == 200 and "plan trip" in page.text
    form = {
        "revision": task["revision"], "title": "plan the trip 旅行", "notes": "book **hotel**", "priority": "urgent",
        "tags": "travel, 家庭", "due_date": "2026-12-20", "due_time": "09:30", "timezone": "Asia/Shanghai",
        "repeat": "custom", "rule": "FREQ=WEEKLY;BYDAY=MO,WE",
    }  # fmt: skip
    saved = person.post(f"/todos/tasks/{task['id']}", form)
    assert saved.status_code == 303, saved.text
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["title"] == "plan the trip 旅行" and stored["notes"] == "book **hotel**"
    assert stored["priority"] == "urgent" and stored["tags"] == ["travel", "家庭"]
    assert stored["due"] == {"type": "datetime", "at": "2026-12-20T01:30:00.000000Z"}
    assert stored["timezone"] == "Asia/Shanghai" and stored["recurrence"] == "FREQ=WEEKLY;BYDAY=MO,WE"
    shown = person.get(f"/todos/tasks/{task['id']}").text
    assert 'value="09:30"' in shown and 'value="2026-12-20"' in shown
    # No developer wording: the rule in words, the raw RRULE only under "Advanced", no "revision N".
    summary = shown[shown.index('<p class="muted summary">') :]
    summary = summary[: summary.index("</p>")]
    assert '<span class="recurrence">Every week on Monday, Wednesday</span>' in summary and "FREQ" not in summary
    assert "revision" not in summary
    advanced = shown[shown.index('<details class="advanced"') :]
    assert "<summary>Advanced</summary>" in advanced[:200]
    assert 'value="FREQ=WEEKLY;BYDAY=MO,WE"' in advanced[: advanced.index("</details>")]
    assert 'name="revision" value="2"' in shown  # still in the forms


def test_tags_typed_as_the_board_shows_them_or_listed_with_the_chinese_comma(
    services: Services, person: Browser
) -> None:
    """A tag typed as "#家庭" (as a card shows it) was refused as no valid tag, and "工作、阅读" (as Chinese
    lists things) was one tag refused for its punctuation."""
    task = new_task(services, person.user_id, "plan")
    form = {"revision": task["revision"], "title": "plan", "priority": "", "repeat": "", "timezone": "",
            "tags": "#家庭，工作、阅读, ＃travel"}  # fmt: skip
    saved = person.post(f"/todos/tasks/{task['id']}", form)
    assert saved.status_code == 303, saved.text
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["tags"] == ["家庭", "工作", "阅读", "travel"]


def long_note(size: int = 50_000) -> str:
    """A note of exactly `size` characters whose every line is numbered, so a lost page shows."""
    lines = "".join(f"line {number:05d} 长笔记 & <b>\n" for number in range(size // 20 + 1))
    return lines[: size - 7] + "THE END"


def test_a_50000_character_note_shows_whole_and_saves_unchanged(services: Services, person: Browser) -> None:
    # get_todo_task pages a note over the response budget; the page reads every page.
    notes = long_note()
    task = new_task(services, person.user_id, "long read", notes=notes)
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]}).get("notesTruncated") is True
    page = person.get(f"/todos/tasks/{task['id']}")
    assert page.status_code == 200
    textarea = re.search(r'<textarea name="notes"[^>]*>(.*?)</textarea>', page.text, re.S)
    assert textarea and html.unescape(textarea.group(1)) == notes
    # Saving the form unchanged keeps the whole note (a cut note in the form would cut the task).
    form = {"revision": task["revision"], "title": "long read", "notes": notes, "priority": "none"}
    assert person.post(f"/todos/tasks/{task['id']}", form).status_code == 303
    pages, offset = [], 0
    while True:
        read = run(services, person.user_id, "get_todo_task", {"id": task["id"], "notesOffset": offset})
        pages.append(read["task"]["notes"])
        if not read.get("notesTruncated"):
            break
        offset = read["notesNextOffset"]
    assert "".join(pages) == notes and len(pages) > 1


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"title": ""}, "title"),
        ({"due_date": "2026-02-30"}, "not a date"),
        ({"due_date": "tomorrow"}, "2026-12-31"),
        ({"due_time": "9am", "due_date": "2026-12-01"}, "09:30"),
        ({"due_time": "09:30"}, "give a date"),
        ({"timezone": "Mars/Olympus", "due_date": "2026-12-01", "due_time": "08:00"}, "IANA"),
        ({"repeat": "FREQ=HOURLY"}, "listed options"),
        ({"repeat": "custom", "rule": ""}, "RRULE"),
        ({"repeat": "FREQ=DAILY"}, "needs a due"),
        ({"priority": "whenever"}, "priority"),
        ({"tags": "a" * 101}, "tags"),
    ],
)
def test_a_bad_task_form_keeps_the_text_and_writes_nothing(
    services: Services, person: Browser, change: dict[str, str], expected: str
) -> None:
    task = new_task(services, person.user_id, "original")
    form = {"revision": str(task["revision"]), "title": "my edit", "notes": "keep these notes 保留", **change}
    answer = person.post(f"/todos/tasks/{task['id']}", form)
    assert answer.status_code == 400, answer.text
    assert expected in answer.text and "keep these notes 保留" in answer.text
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["revision"] == task["revision"]


def base_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'name="(base_\w+)" value="([0-9a-f]+)"', html))


def test_a_conflict_merges_what_only_one_side_changed(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "draft", notes="v1")
    base = base_fields(person.get(f"/todos/tasks/{task['id']}").text)
    assert set(base) == {f"base_{name}" for name in ("title", "notes", "priority", "tags", "due_date", "due_time",
                                                     "timezone", "preset", "rule")}  # fmt: skip
    run(services, person.user_id, "update_todo_task",
        {"id": task["id"], "expectedRevision": task["revision"], "title": "their title"})  # fmt: skip
    mine = {**base, "revision": task["revision"], "title": "draft", "notes": "my long notes 我的笔记"}
    answer = person.post(f"/todos/tasks/{task['id']}", mine)
    assert answer.status_code == 409
    assert 'id="conflict"' in answer.text
    assert 'name="title" id="title" value="their title"' in answer.text  # only they changed it: merged in
    assert ">my long notes 我的笔记</textarea>" in answer.text  # only I changed it: kept
    assert 'class="outcome-theirs" data-field="title"' in answer.text
    assert 'class="outcome-yours" data-field="notes"' in answer.text
    assert f'name="revision" value="{task["revision"] + 1}"' in answer.text
    again = {**base_fields(answer.text), "revision": task["revision"] + 1, "title": "their title",
             "notes": "my long notes 我的笔记"}  # fmt: skip
    assert person.post(f"/todos/tasks/{task['id']}", again).status_code == 303
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert (stored["title"], stored["notes"]) == ("their title", "my long notes 我的笔记")


def test_a_refused_save_keeps_the_base_it_started_from(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "draft", notes="v1")
    base = base_fields(person.get(f"/todos/tasks/{task['id']}").text)
    run(services, person.user_id, "update_todo_task",
        {"id": task["id"], "expectedRevision": task["revision"], "notes": "their notes"})  # fmt: skip
    bad = person.post(f"/todos/tasks/{task['id']}", {**base, "revision": task["revision"], "title": "",
                                                    "notes": "v1"})  # fmt: skip
    assert bad.status_code == 400 and base_fields(bad.text) == base  # not the digests of their newer version
    fixed = person.post(f"/todos/tasks/{task['id']}", {**base_fields(bad.text), "revision": task["revision"],
                                                      "title": "mine", "notes": "v1"})  # fmt: skip
    assert fixed.status_code == 409
    assert ">their notes</textarea>" in fixed.text  # I never touched the notes: theirs merged in, not my stale v1


def test_notes_are_stored_with_plain_line_ends(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "list", notes="one\ntwo")
    base = base_fields(person.get(f"/todos/tasks/{task['id']}").text)
    saved = person.post(f"/todos/tasks/{task['id']}", {**base, "revision": task["revision"], "title": "list 2",
                                                      "notes": "one\r\ntwo"})  # fmt: skip
    assert saved.status_code == 303
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["notes"] == "one\ntwo"


def test_long_cjk_notes_save_from_the_form(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "long notes")
    base = base_fields(person.get(f"/todos/tasks/{task['id']}").text)
    # 20,000 characters: ~180 kB once form-encoded (9 bytes each), over the default 64 KiB form cap,
    # and a task get_todo_task still returns whole (its 25,000-character response budget).
    notes = "读书笔记" * 5_000
    saved = person.post(f"/todos/tasks/{task['id']}", {**base, "revision": task["revision"], "title": "long notes",
                                                      "notes": notes})  # fmt: skip
    assert saved.status_code == 303, saved.text[:300]
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["notes"] == notes


def test_a_conflict_on_the_same_field_keeps_the_users_text(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "draft", notes="v1")
    base = base_fields(person.get(f"/todos/tasks/{task['id']}").text)
    run(services, person.user_id, "update_todo_task",
        {"id": task["id"], "expectedRevision": task["revision"], "notes": "their notes"})  # fmt: skip
    answer = person.post(f"/todos/tasks/{task['id']}", {**base, "revision": task["revision"], "title": "draft",
                                                       "notes": "my notes"})  # fmt: skip
    assert answer.status_code == 409
    assert ">my notes</textarea>" in answer.text and "their notes" in answer.text
    assert 'class="outcome-both" data-field="notes"' in answer.text
    # Without the base digests (an old form) every difference counts as the user's: nothing is dropped.
    answer = person.post(f"/todos/tasks/{task['id']}", {"revision": task["revision"], "title": "x", "notes": "n"})
    assert answer.status_code == 409 and 'name="title" id="title" value="x"' in answer.text


def test_completing_a_recurring_task_shows_the_next_occurrence(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "water plants", due={"type": "date", "date": "2037-12-01"},
                    recurrence="FREQ=WEEKLY")  # fmt: skip
    done = person.post(f"/todos/tasks/{task['id']}/complete", {"revision": task["revision"]})
    assert done.status_code == 303
    page = person.client.get(done.headers["location"])
    assert "Done for Dec 1, 2037. Next: Dec 8, 2037." in page.text  # the clock is in 2038: years shown
    assert "Completed occurrences" in page.text


@pytest.mark.parametrize(
    ("language", "task_zone", "said"),
    [
        ("zh", None, "已完成 1月15日 09:00 这一次。下一次：1月22日 09:00。"),
        ("zh", "Asia/Shanghai", "已完成 1月15日 09:00 这一次。下一次：1月22日 09:00。"),
        (
            "zh",
            "America/New_York",
            "已完成 1月15日 09:00（北美东部时间） 这一次。下一次：1月22日 09:00（北美东部时间）。",
        ),
        ("en", "America/New_York", "Done for Jan 15 09:00 (Eastern Time). Next: Jan 22 09:00 (Eastern Time)."),
    ],
)
def test_a_recurring_completion_says_its_dates_in_words_and_a_zone_only_when_another(
    services: Services, person: Browser, language: str, task_zone: str | None, said: str
) -> None:
    """Sweep F9: CLDR dates in the page's language, no IANA ids, and the task's zone named only
    when it is not the user's (Asia/Shanghai here)."""
    run(services, person.user_id, "set_time_zone", {"timeZone": "Asia/Shanghai"})
    assert person.post("/settings/language", {"language": language}).status_code == 303
    zone = ZoneInfo(task_zone or "Asia/Shanghai")
    at = datetime(2038, 1, 15, 9, 0, tzinfo=zone).isoformat()  # the test clock's day: no year shown
    task = new_task(services, person.user_id, "周报", due={"type": "datetime", "at": at}, recurrence="FREQ=WEEKLY",
                    **({"timezone": task_zone} if task_zone else {}))  # fmt: skip
    done = person.post(f"/todos/tasks/{task['id']}/complete", {"revision": task["revision"]})
    page = person.client.get(done.headers["location"]).text
    flash = re.search(r'class="flash"[^>]*>([^<]*)<', page)
    assert flash is not None and html.unescape(flash.group(1)).strip() == said


def test_subtasks_add_tick_rename_delete(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "move house")
    htmx = {"HX-Request": "true"}
    added = person.post(f"/todos/tasks/{task['id']}/subtasks", {"title": "pack books"}, headers=htmx)
    assert added.status_code == 200 and added.text.startswith('<section class="card subtasks"')
    [sub] = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["subtasks"]
    ticked = person.post(f"/todos/subtasks/{sub['id']}/toggle", {"task": task["id"], "revision": sub["revision"],
                                                               "done": "false"}, headers=htmx)  # fmt: skip
    assert "(1/1 done)" in ticked.text
    renamed = person.post(f"/todos/subtasks/{sub['id']}/rename", {"task": task["id"], "revision": sub["revision"],
                                                                "title": "pack"}, headers=htmx)  # fmt: skip
    assert "changed meanwhile" in renamed.text  # the tick bumped its revision
    renamed = person.post(f"/todos/subtasks/{sub['id']}/rename", {"task": task["id"], "revision": sub["revision"] + 1,
                                                                "title": "pack boxes"})  # fmt: skip
    assert renamed.status_code == 303
    deleted = person.post(f"/todos/subtasks/{sub['id']}/delete", {"task": task["id"], "revision": sub["revision"] + 2},
                          headers=htmx)  # fmt: skip
    assert "pack boxes" not in deleted.text
    empty = person.post(f"/todos/tasks/{task['id']}/subtasks", {"title": " "}, headers=htmx)
    assert empty.status_code == 200 and 'role="alert"' in empty.text


def test_reminders_are_set_and_cleared(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "call mum", due={"type": "date", "date": "2026-12-24"})
    bad = person.post(f"/todos/tasks/{task['id']}/reminders", {"revision": task["revision"], "offset": "-PT3H"})
    assert bad.status_code == 400 and "listed offsets" in bad.text
    saved = person.client.post(
        f"/todos/tasks/{task['id']}/reminders",
        data={"csrf": person.csrf, "revision": task["revision"], "offset": ["-PT15M", "-P1D"],
              "at": "2026-12-23T20:00"},
        follow_redirects=False,
    )  # fmt: skip
    assert saved.status_code == 303
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["reminders"] == [
        {"type": "relative", "offset": "-PT15M"}, {"type": "relative", "offset": "-P1D"},
        {"type": "absolute", "at": "2026-12-23T20:00:00.000000Z"},
    ]  # fmt: skip
    cleared = person.post(f"/todos/tasks/{task['id']}/reminders", {"revision": stored["revision"]})
    assert cleared.status_code == 303
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["reminders"] == []


def test_inbox_capture_and_file(services: Services, person: Browser) -> None:
    empty = person.post("/todos/inbox", {"title": ""}, headers={"HX-Request": "true"})
    assert empty.status_code == 200 and 'id="capture-error"' in empty.text
    captured = person.post("/todos/inbox", {"title": "buy milk 牛奶"}, headers={"HX-Request": "true"})
    assert captured.status_code == 200 and "buy milk 牛奶" in captured.text
    [item] = run(services, person.user_id, "list_todo_inbox_items", {})["items"]
    doing = columns(services, person.user_id)[1]
    no_column = person.post(f"/todos/inbox/{item['id']}/file", {"revision": item["revision"]})
    assert no_column.status_code == 400 and "choose a column" in no_column.text
    filed = person.post(f"/todos/inbox/{item['id']}/file", {"revision": item["revision"], "column": doing["id"]})
    assert filed.status_code == 303
    assert run(services, person.user_id, "list_todo_inbox_items", {})["items"] == []
    assert [t["title"] for t in board(services, person.user_id)["tasks"]] == ["buy milk 牛奶"]


def test_trash_lists_and_restores(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "old idea")
    deleted = person.post(f"/todos/tasks/{task['id']}/delete", {"revision": task["revision"]})
    assert deleted.status_code == 303
    trash = person.get("/todos/trash").text
    assert "old idea" in trash and f'value="{task["id"]}"' in trash
    bad = person.post("/todos/trash/restore", {"id": task["id"], "kind": "memo", "revision": "2"})
    assert bad.status_code == 400 and "kind" in bad.text
    restored = person.post("/todos/trash/restore", {"id": task["id"], "kind": "task", "revision": task["revision"] + 1})
    assert restored.status_code == 303
    assert [t["id"] for t in board(services, person.user_id)["tasks"]] == [task["id"]]


def test_unknown_and_malformed_ids_are_clear_pages(person: Browser) -> None:
    assert person.get("/todos/tasks/nope").status_code == 404
    assert person.get("/todos/tasks/bad%20id!").status_code == 400
    assert person.post("/todos/tasks/x/move", {"revision": "0"}).status_code == 400


def test_an_old_space_link_opens_a_board_never_an_error_page(services: Services, person: Browser) -> None:
    """A bookmark of a space renamed since (its old slug) opens the space under its new name; one
    of a deleted space (its id or slug), or a space never known, opens the default space; each
    with a note. A live space's slug opens it as its id does."""
    made = run(services, person.user_id, "create_todo_space", {"name": "Home Projects"})["space"]
    assert made["slug"] == "home-projects"
    renamed = run(
        services,
        person.user_id,
        "update_todo_space",
        {"spaceId": made["id"], "name": "House", "slug": "house", "expectedRevision": made["revision"]},
    )["space"]
    gone = run(services, person.user_id, "create_todo_space", {"name": "Temp"})["space"]
    run(services, person.user_id, "delete_todo_space", {"spaceId": gone["id"], "expectedRevision": gone["revision"]})
    for link, lands, note in [
        ("/todos?space=home-projects", f"/todos?space={made['id']}", "That space was renamed to “House”; here it is."),
        (f"/todos?space={gone['id']}", "/todos", "That space no longer exists; here is your default space."),
        ("/todos?space=temp&offset=100&carry=x:3", "/todos", "That space no longer exists"),
        ("/todos?space=nope", "/todos", "That space no longer exists"),
        ("/todos/more?space=nope&offset=100", "/todos", "That space no longer exists"),
    ]:
        answer = person.get(link, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == lands, (link, answer.status_code)
        shown = person.get(lands)
        assert shown.status_code == 200 and note in html.unescape(shown.text), link
    by_slug = person.get("/todos?space=house")
    assert by_slug.status_code == 200 and f'href="/todos?space={renamed["id"]}" aria-current="page"' in by_slug.text
    # "Load more" of a space deleted meanwhile (htmx): the whole page goes to the board.
    more = person.get("/todos/more?space=nope&offset=100", headers={"HX-Request": "true"}, follow_redirects=False)
    assert more.status_code == 200 and more.headers["HX-Redirect"] == "/todos"


def test_another_users_task_is_not_found(services: Services, browser: Callable[..., Browser]) -> None:
    owner, other = browser(), browser()
    task = new_task(services, owner.user_id, "private")
    assert other.get(f"/todos/tasks/{task['id']}").status_code == 404
    stolen = other.post(f"/todos/tasks/{task['id']}", {"revision": task["revision"], "title": "mine now"})
    assert stolen.status_code == 404
    assert run(services, owner.user_id, "get_todo_task", {"id": task["id"]})["task"]["title"] == "private"


def test_quick_add_understands_the_line_in_the_browsers_zone(services: Services, person: Browser, clock: Any) -> None:
    """Issue 30: the add box reads dates (the mesq_tz zone), !priority, #tags and "every monday"."""
    from datetime import UTC, datetime

    clock.now = datetime(2026, 12, 3, 2, 0, tzinfo=UTC).timestamp()  # Thursday 10:00 in Shanghai
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    todo = columns(services, person.user_id)[0]
    added = person.post("/todos/tasks", {"column": todo["id"], "title": "明天下午5点 !high #家"})
    assert added.status_code == 303
    person.post("/todos/tasks", {"column": todo["id"], "title": "call mom tomorrow 5pm every monday p1"})
    person.post("/todos/tasks", {"column": todo["id"], "title": "买牛奶 明天 #家务", "ignore": "due"})
    person.post("/todos/tasks", {"column": todo["id"], "title": "下周一 上午9点 开会 !p1"})  # issue 41
    by_title = {task["title"]: task for task in board(services, person.user_id)["tasks"]}
    meeting = by_title["开会"]  # `!p1` understood wherever it stands, not left in the title
    assert meeting["priority"] == "urgent" and meeting["due"] == {"type": "datetime", "at": "2026-12-07T01:00:00Z"}
    zh = by_title["明天下午5点"]
    assert zh["due"] == {"type": "datetime", "at": "2026-12-04T09:00:00Z"} and zh["timezone"] == "Asia/Shanghai"
    assert zh["priority"] == "high" and zh["tags"] == ["家"]
    en = by_title["call mom"]
    assert en["due"] == {"type": "datetime", "at": "2026-12-07T09:00:00Z"} and en["priority"] == "urgent"
    assert en["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    assert "买牛奶 明天" in by_title, list(by_title)
    kept = by_title["买牛奶 明天"]  # the due chip removed: its words stay in the title
    assert kept["due"] is None and kept["tags"] == ["家务"]


def test_quick_add_preview_shows_removable_chips(person: Browser, clock: Any) -> None:
    from datetime import UTC, datetime

    clock.now = datetime(2026, 12, 3, 2, 0, tzinfo=UTC).timestamp()
    person.client.cookies.set("mesq_tz", "America/New_York")  # 21:00 Wednesday there
    shown = person.get("/todos/quick-add", params={"title": "call mom tomorrow 5pm !high #family", "form": "add-x"})
    assert shown.status_code == 200
    for label in ("Due Thu, Dec 3 17:00", "Priority High", "#family", "Title: call mom"):
        assert label in shown.text
    assert 'aria-label="Remove Due Thu, Dec 3 17:00"' in shown.text
    dropped = person.get("/todos/quick-add", params={"title": "call mom tomorrow 5pm !high", "drop": "due"})
    assert 'name="ignore" value="due"' in dropped.text and "Due " not in dropped.text
    assert "Title: call mom tomorrow 5pm" in dropped.text
    assert person.get("/todos/quick-add", params={"title": "buy milk"}).text.strip() == ""
    assert person.get("/todos/quick-add", params={"title": "x" * 5000}).status_code == 200  # capped, not a 500


def test_recurrence_and_chips_in_the_pages_language(services: Services, person: Browser, clock: Any) -> None:
    """Issue 30: the rule in words and the quick-add chips follow the page's language; the raw
    RRULE stays under "Advanced"."""
    from datetime import UTC, datetime

    zh = {"Accept-Language": "zh-CN,zh;q=0.9"}
    task = new_task(
        services, person.user_id, "weekly review", due={"type": "date", "date": "2026-12-07"},
        recurrence="FREQ=WEEKLY;BYDAY=MO,WE",
    )  # fmt: skip
    shown = person.get(f"/todos/tasks/{task['id']}", headers=zh).text
    assert '<span class="recurrence">每周的周一、周三</span>' in shown and "Every week" not in shown
    assert "FREQ=WEEKLY;BYDAY=MO,WE" in shown[shown.index('<details class="advanced"') :]
    assert "每周的周一、周三" in person.get("/todos", headers=zh).text  # the card on the board
    clock.now = datetime(2026, 12, 3, 2, 0, tzinfo=UTC).timestamp()
    person.client.cookies.set("mesq_tz", "America/New_York")
    chips = person.get("/todos/quick-add", params={"title": "call mom tomorrow 5pm !high every friday"}, headers=zh)
    for label in ("截止 12月4日周五 17:00", "优先级：高", "每周的周五"):
        assert label in chips.text, label
    assert "Due " not in chips.text and "Priority" not in chips.text


def test_inbox_capture_understands_quick_add(services: Services, person: Browser, clock: Any) -> None:
    """Issue 30: the inbox's box reads the same line; inbox items do not repeat, so "every monday" stays."""
    from datetime import UTC, datetime

    clock.now = datetime(2026, 12, 3, 2, 0, tzinfo=UTC).timestamp()
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    answer = person.post(
        "/todos/inbox", {"title": "买牛奶 明天下午3点 #家务 !high every monday", "ignore": "recurrence"}
    )
    assert answer.status_code == 303
    [item] = run(services, person.user_id, "list_todo_inbox_items", {})["items"]
    assert item["title"] == "买牛奶 every monday" and item["priority"] == "high" and item["tags"] == ["家务"]
    assert item["due"] == {"type": "datetime", "at": "2026-12-04T07:00:00Z"} and item["timezone"] == "Asia/Shanghai"


def test_a_rule_typed_without_a_date_is_added_as_previewed(services: Services, person: Browser, clock: Any) -> None:
    """Sweep F3: "跑步 每天" showed "每天" as understood, then the add was refused (a rule needs a
    due). The preview now shows the first due the rule gives, the add saves exactly that, and the
    due chip is removed with the rule (never alone: that would leave a rule without a due)."""
    from datetime import UTC, datetime

    clock.now = datetime(2026, 12, 5, 17, 45, tzinfo=UTC).timestamp()  # Sunday 01:45 in Shanghai
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    zh = {"Accept-Language": "zh-CN,zh;q=0.9"}
    todo = columns(services, person.user_id)[0]
    lines = {"跑步 每天": "12月6日周日", "每个工作日 站会": "12月7日周一", "交房租 每月15号": "12月15日周二"}
    for line, day in lines.items():
        chips = person.get("/todos/quick-add", params={"title": line, "form": "add-x"}, headers=zh).text
        assert f"截止 {day}" in chips, chips
        assert html.unescape(chips).count('"drop": "recurrence"') == 2, chips  # the rule's chip and its due's
        assert person.post("/todos/tasks", {"column": todo["id"], "title": line}).status_code == 303
    by_title = {task["title"]: task for task in board(services, person.user_id)["tasks"]}
    assert by_title["跑步"]["due"] == {"type": "date", "date": "2026-12-06"}
    assert by_title["跑步"]["recurrence"] == "FREQ=DAILY"
    assert by_title["站会"]["due"] == {"type": "date", "date": "2026-12-07"}
    assert by_title["交房租"]["due"] == {"type": "date", "date": "2026-12-15"}
    assert by_title["交房租"]["recurrence"] == "FREQ=MONTHLY;BYMONTHDAY=15"


def test_inbox_capture_keeps_a_repeat_phrase_whole(services: Services, person: Browser, clock: Any) -> None:
    """Sweep F4: the inbox does not read repeats, and the date reader must not take a weekday out
    of one ("周报 每周五" was saved as "周报每", due Friday)."""
    from datetime import UTC, datetime

    clock.now = datetime(2026, 12, 5, 17, 45, tzinfo=UTC).timestamp()  # Sunday 01:45 in Shanghai
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    lines = ["周报 每周五", "每周一 开例会", "every friday report"]
    for line in lines:
        chips = person.get("/todos/quick-add", params={"title": line, "ignore": "recurrence", "form": "capture"})
        assert "quick-chip" not in chips.text and "Due " not in chips.text, chips.text  # nothing understood
        assert person.post("/todos/inbox", {"title": line, "ignore": "recurrence"}).status_code == 303
    items = run(services, person.user_id, "list_todo_inbox_items", {})["items"]
    assert sorted((item["title"], item["due"]) for item in items) == sorted((line, None) for line in lines)


def test_an_impossible_time_is_no_due_in_any_add_box(services: Services, person: Browser, clock: Any) -> None:
    """ "at 25:00" was saved due tomorrow 01:00 and "24:30" the next day's 00:30, with the time gone
    from the title. Like 2月30日, a time no clock shows is no due: the preview (either language)
    shows none, and the board, Today and the inbox save the line as typed; a day said with it
    is still the due."""
    from datetime import UTC, datetime

    clock.now = datetime(2026, 12, 5, 17, 45, tzinfo=UTC).timestamp()  # Sunday 01:45 in Shanghai
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    for headers in ({"Accept-Language": "zh-CN,zh;q=0.9"}, {"Accept-Language": "en-US"}):
        for line in ("call at 25:00", "24:30 睡觉", "24点半 睡觉"):
            chips = person.get("/todos/quick-add", params={"title": line, "form": "add-x"}, headers=headers).text
            assert "quick-chip" not in chips and "截止" not in chips and "Due " not in chips, chips
    dated = person.get("/todos/quick-add", params={"title": "明天 25:00 开会", "form": "add-x"}).text
    assert "Due Mon, Dec 7" in dated and "Due Mon, Dec 7 " not in dated and "Title: 25:00 开会" in dated, dated
    todo = columns(services, person.user_id)[0]
    assert person.post("/todos/tasks", {"column": todo["id"], "title": "call at 25:00"}).status_code == 303
    assert person.post("/todos/tasks", {"column": todo["id"], "title": "明天 25:00 开会"}).status_code == 303
    assert person.post("/todos/today", {"title": "24:30 睡觉"}).status_code == 303
    assert person.post("/todos/inbox", {"title": "check 26:00", "ignore": "recurrence"}).status_code == 303
    by_title = {task["title"]: task["due"] for task in board(services, person.user_id)["tasks"]}
    assert by_title == {"call at 25:00": None, "25:00 开会": {"type": "date", "date": "2026-12-07"}, "24:30 睡觉": None}
    [item] = run(services, person.user_id, "list_todo_inbox_items", {})["items"]
    assert (item["title"], item["due"]) == ("check 26:00", None)


def test_a_cards_checkbox_completes_and_reopens_it_in_place(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "water the plants")
    board_html = person.get("/todos").text
    card = board_html[board_html.index(f'id="task-{task["id"]}"') :]
    card = card[: card.index("</li>")]
    assert f'hx-post="/todos/tasks/{task["id"]}/complete"' in card and f'hx-target="#task-{task["id"]}"' in card
    htmx = {"HX-Request": "true"}
    done = person.post(
        f"/todos/tasks/{task['id']}/complete", {"revision": task["revision"], "place": "0"}, headers=htmx
    )
    assert done.status_code == 200 and done.text.lstrip().startswith(
        f'<li class="todo-card done" id="task-{task["id"]}"'
    )
    assert f'hx-post="/todos/tasks/{task["id"]}/reopen"' in done.text and 'aria-pressed="true"' in done.text
    assert done.text.count("✓") == 1  # one tick on a done card: the button's (issue 41)
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["done"] is True
    # A stale checkbox (the task changed in another tab): the card as it is now, and why.
    stale = person.post(f"/todos/tasks/{task['id']}/reopen", {"revision": task["revision"]}, headers=htmx)
    assert stale.status_code == 200 and "changed meanwhile" in stale.text and 'class="todo-card done"' in stale.text
    now = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    reopened = person.post(f"/todos/tasks/{task['id']}/reopen", {"revision": now["revision"]}, headers=htmx)
    assert reopened.status_code == 200 and '<li class="todo-card" id=' in reopened.text
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["done"] is False
    # A recurring task's checkbox completes this occurrence: the card stays open, due the next one.
    weekly = new_task(services, person.user_id, "standup", due={"type": "date", "date": "2037-12-07"},
                      recurrence="FREQ=WEEKLY")  # fmt: skip
    moved = person.post(f"/todos/tasks/{weekly['id']}/complete", {"revision": weekly["revision"]}, headers=htmx)
    assert moved.status_code == 200 and 'datetime="2037-12-14"' in moved.text and "todo-card done" not in moved.text


def test_the_task_page_names_the_reminders_its_form_cannot_show(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """An agent's reminders at offsets the form has no box for, and set times after the first,
    are kept by a save; the page said only "3 reminders set", so nobody could see them. It now
    names each, in the page's language and the task's zone."""
    for language, words in (("en", ("30 minutes before", "1 day 2 hours after", "2026-12-18 09:00")),
                            ("zh", ("提前 30 分钟", "到期后 1 天 2 小时", "2026-12-18 09:00"))):  # fmt: skip
        person = browser()
        assert person.post("/settings/language", {"language": language}).status_code == 303
        task = new_task(services, person.user_id, "提醒", due={"type": "datetime", "at": "2026-12-20T09:00:00+08:00"},
                        timezone="Asia/Shanghai")  # fmt: skip
        reminders = [{"type": "relative", "offset": "-PT30M"}, {"type": "relative", "offset": "-PT900S"},
                     {"type": "relative", "offset": "P1DT2H"}, {"type": "absolute", "at": "2026-12-19T01:00:00Z"},
                     {"type": "absolute", "at": "2026-12-18T01:00:00Z"}]  # fmt: skip
        run(services, person.user_id, "set_todo_reminders",
            {"id": task["id"], "expectedRevision": task["revision"], "reminders": reminders})  # fmt: skip
        page = person.get(f"/todos/tasks/{task['id']}").text
        others = page.split('id="reminder-others"', 1)[1].split("</ul>", 1)[0]
        for said in words:
            assert said in others, (language, others)
        assert "2026-12-19 09:00" not in others  # the first set time is in the form's field
        assert "15" not in others and "900" not in others  # a box the form checks: -PT900S is -PT15M
        assert re.search(r'value="-PT15M" checked', page), "the 15 minutes box is checked"


def test_the_todo_trash_says_when_as_activity_does_not_as_an_offset(
    services: Services, person: Browser, clock: FakeClock
) -> None:
    """`deleted 2026-12-07 04:25 +0800` became `deleted today 04:25` / `删除于 今天 04:25`, as
    /activity says a time."""
    task = new_task(services, person.user_id, "old idea")
    person.post(f"/todos/tasks/{task['id']}/delete", {"revision": task["revision"]})
    clock.now = time.time()
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    deleted_at = run(services, person.user_id, "list_todo_trash", {})["items"][0]["deletedAt"]
    at = datetime.fromisoformat(deleted_at.replace("Z", "+00:00")).astimezone(ZoneInfo("Asia/Shanghai"))
    en = person.get("/todos/trash", headers={"Accept-Language": "en-US"}).text
    assert f"deleted today {at:%H:%M}" in en
    zh = person.get("/todos/trash", headers={"Accept-Language": "zh-CN"}).text
    assert f"删除于 今天 {at:%H:%M}" in zh
    assert "+0800" not in en + zh


def test_the_task_pages_move_refusals_come_back_to_the_task(services: Services, person: Browser) -> None:
    """The Move form (a column of any space): a stale revision, a column gone meanwhile or none
    chosen come back to the task's page with a note, the task where it was; never an error page."""
    task = new_task(services, person.user_id, "stay put")
    home = run(services, person.user_id, "create_todo_space", {"name": "Home"})
    url = f"/todos/tasks/{task['id']}"
    for form, said in [
        ({"revision": task["revision"] + 1, "column": home["columns"][0]["id"]}, "The task changed meanwhile"),
        ({"revision": task["revision"], "column": "AAAAAAAAAAAAAAAA"}, "not found"),
        ({"revision": task["revision"], "column": ""}, "Space and column: must not be empty"),
    ]:
        answer = person.post(url + "/relocate", form)
        assert answer.status_code == 303 and answer.headers["location"] == url, form
        shown = person.get(url)
        assert shown.status_code == 200 and said in html.unescape(shown.text), (form, said)
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["columnId"] == task["columnId"]
    moved = person.post(url + "/relocate", {"revision": task["revision"], "column": home["columns"][0]["id"]})
    assert moved.status_code == 303
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["spaceId"] == home["space"]["id"]


def test_an_old_link_to_a_trashed_record_whose_history_expired_opens_the_trash(
    services: Services, person: Browser
) -> None:
    """A task's or an inbox item's page while its history is kept shows that history ("no longer on
    the board"); once the history has expired (MESQ_HISTORY_DAYS), the link still leads somewhere:
    the todo trash, where it is, with a note. An id never known stays a "not found" page."""
    task = new_task(services, person.user_id, "old chore")
    run(services, person.user_id, "delete_todo_task", {"id": task["id"], "expectedRevision": task["revision"]})
    item = run(services, person.user_id, "create_todo_inbox_item", {"title": "old idea"})["item"]
    run(services, person.user_id, "delete_todo_inbox_item", {"id": item["id"], "expectedRevision": item["revision"]})
    records = [
        (f"/todos/tasks/{task['id']}", task["id"], task_key(person.user_id, task["id"])),
        (f"/todos/inbox/{item['id']}", item["id"], inbox_key(person.user_id, item["id"])),
    ]
    for link, record_id, key in records:
        kept = person.get(link)
        assert kept.status_code == 404 and "Open the todo trash" in kept.text, (link, kept.status_code)
        recent = (services.items.get(key) or {}).get("recentChanges", [])  # the record's newest changes
        forget_record(services.items, person.user_id, record_id, recent)  # what the retention TTL does
        answer = person.get(link, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/todos/trash", link
        trash = person.get("/todos/trash")
        assert "That is in the todo trash now" in html.unescape(trash.text), link
    assert person.get("/todos/tasks/AAAAAAAAAAAAAAAA").status_code == 404


def test_a_task_whose_subtasks_notes_pass_the_agents_budget_opens_and_changes(
    services: Services, person: Browser
) -> None:
    """get_todo_task refuses a task whose subtasks' notes pass the 25,000-character response budget
    (RESPONSE_TOO_LARGE, for agents); the task's page reads it without that budget: it opens, its
    subtask list answers a tick (htmx), and completing it answers its card."""
    task = new_task(services, person.user_id, "大任务", notes="自己的备注")
    subtasks = [
        run(
            services,
            person.user_id,
            "create_todo_subtask",
            {"taskId": task["id"], "title": f"子{n}", "notes": "很长" * 4500},
        )
        for n in (1, 2, 3)
    ]
    with pytest.raises(Exception, match="response budget"):
        run(services, person.user_id, "get_todo_task", {"id": task["id"]})
    page = person.get(f"/todos/tasks/{task['id']}")
    assert page.status_code == 200 and "子3" in page.text and "自己的备注" in page.text
    first = subtasks[0]["subtask"]
    ticked = person.post(
        f"/todos/subtasks/{first['id']}/toggle",
        {"task": task["id"], "revision": first["revision"], "done": "false"},
        headers={"HX-Request": "true"},
    )
    assert ticked.status_code == 200 and 'aria-pressed="true"' in ticked.text
    done = person.post(
        f"/todos/tasks/{task['id']}/complete", {"revision": task["revision"]}, headers={"HX-Request": "true"}
    )
    assert done.status_code == 200 and "大任务" in done.text
