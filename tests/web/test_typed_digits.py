"""Numbers a person types into a page, in any script's digits (decisions.md "digits a person
types"): full-width digits (a Chinese input method) and Arabic-Indic `٢٥` are read as 25 and the page
then shows what was saved in ASCII digits; what is no number (`2_5`, `+25`, `²`) is refused in the
page's language, never a 500 and never read as something else."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from mesq.reminders import channels
from mesq.wiring.services import Services

from .conftest import Browser
from .todos.test_todos_pages import columns, new_task, run, task_ids

MAIL = {"kind": "email", "host": "smtp.example.com", "security": "starttls", "from": "mesq@example.org",
        "to": "me@example.org"}  # fmt: skip
ERROR = re.compile(r'id="email-error">(.*?)</p>', re.S)


@pytest.mark.parametrize("port", ["٢٥", "２５", " 25 "])
def test_an_smtp_port_in_any_scripts_digits_is_that_number(
    browser: Callable[..., Browser], services: Services, port: str
) -> None:
    person = browser()
    answer = person.post("/settings/reminders/channels", {**MAIL, "port": port})
    assert answer.status_code == 303, answer.text
    (record,) = channels.channel_records(services.items, person.user_id)
    assert record["url"] == "smtp://smtp.example.com:25"
    assert "smtp://smtp.example.com:25" in person.get("/settings/reminders").text  # how it was read


@pytest.mark.parametrize("port", ["2_5", "+25", "²", "2 5", "٢_٥", "99999"])
@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "the SMTP port must be a number from 1 to 65535"), ("zh", "SMTP 端口必须是 1 到 65535 之间的数字")],
)
def test_an_smtp_port_that_is_no_number_is_refused_in_the_pages_language(
    browser: Callable[..., Browser], services: Services, port: str, language: str, said: str
) -> None:
    """`int()` read `2_5` and `+25` as 25: a port nobody typed was saved."""
    person = browser()
    assert person.post("/settings/language", {"language": language}).status_code == 303
    answer = person.post("/settings/reminders/channels", {**MAIL, "port": port})
    assert answer.status_code == 400, answer.text
    error = ERROR.search(answer.text)
    assert error and said in error.group(1), answer.text
    assert channels.channel_records(services.items, person.user_id) == []


def test_a_telegram_chat_id_in_arabic_indic_digits_is_that_number(
    browser: Callable[..., Browser], services: Services
) -> None:
    person = browser()
    bot = "123456:" + "A" * 35
    answer = person.post("/settings/reminders/channels", {"kind": "telegram", "token": bot, "chat": "-٤٢٤٢"})
    assert answer.status_code == 303, answer.text
    (record,) = channels.channel_records(services.items, person.user_id)
    assert record["config"] == {"chat": "-4242"}
    assert "-4242" in person.get("/settings/reminders").text


def test_a_due_date_time_and_reminder_in_full_width_digits_are_read(
    browser: Callable[..., Browser], services: Services
) -> None:
    """A browser without date inputs (or a person typing in one that is a text box) sends what was
    typed; a date in full-width digits was refused as "not a date"."""
    person = browser()
    task = new_task(services, person.user_id, "plan trip")
    form = {"revision": task["revision"], "title": "plan trip", "priority": "none", "due_date": "２０２６-１２-２０",
            "due_time": "０９:３０", "timezone": "Asia/Shanghai"}  # fmt: skip
    saved = person.post(f"/todos/tasks/{task['id']}", form)
    assert saved.status_code == 303, saved.text
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["due"] == {"type": "datetime", "at": "2026-12-20T01:30:00.000000Z"}
    assert 'value="2026-12-20"' in person.get(f"/todos/tasks/{task['id']}").text
    reminded = person.post(
        f"/todos/tasks/{task['id']}/reminders", {"revision": stored["revision"], "at": "٢٠٢٦-١٢-١٩T٢٠:٠٠"}
    )
    assert reminded.status_code == 303, reminded.text
    reminders = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["reminders"]
    assert reminders == [{"type": "absolute", "at": "2026-12-19T12:00:00.000000Z"}]


def test_a_position_that_is_no_number_is_a_400_and_one_in_full_width_digits_moves(
    browser: Callable[..., Browser], services: Services
) -> None:
    """`"²".isdigit()` is true and `int("²")` fails: the move form and the drop answered 500."""
    person = browser()
    todo = columns(services, person.user_id)[0]
    first, second = (new_task(services, person.user_id, title, columnId=todo["id"]) for title in ("one", "two"))
    moved = f"/todos/tasks/{first['id']}/move"
    refused = person.post(moved, {"revision": first["revision"], "column": todo["id"], "index": "²"})
    assert refused.status_code in (303, 400), refused.text
    dropped = person.client.post(
        f"/todos/tasks/{first['id']}/drop", json={"revision": first["revision"], "index": "²"},
        headers={"X-CSRF-Token": person.csrf},
    )  # fmt: skip
    assert dropped.status_code == 400 and "Position:" in dropped.json()["error"]["message"], dropped.text
    assert task_ids(services, person.user_id, todo["id"]) == [first["id"], second["id"]]  # unchanged
    down = person.post(moved, {"revision": first["revision"], "column": todo["id"], "index": "１"})
    assert down.status_code == 303, down.text
    assert task_ids(services, person.user_id, todo["id"]) == [second["id"], first["id"]]


def test_a_more_link_with_a_count_that_is_no_number_still_shows_the_board(
    browser: Callable[..., Browser], services: Services
) -> None:
    person = browser()
    todo = columns(services, person.user_id)[0]
    new_task(services, person.user_id, "one", columnId=todo["id"])
    answer = person.get(f"/todos/more?offset=1&carry={todo['id']}:²")
    assert answer.status_code == 200, answer.text
