"""The task form's "Every month" on the 29th-31st keeps the short months (todos/short_months.py):
a task due on 31 January repeats on 28 February and 31 March (RFC 5545's plain monthly rule from
the 31st skips February, April, June, September and November). The form still shows "Every
month" for such a series, in February too, and saving the form for its title keeps the series'
day: "Every month" said again from 28 February would move it to the 28th for good."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mesq.wiring.services import Services

from ..conftest import Browser
from .test_todos_pages import new_task, run
from .test_todos_zones import form_as_shown

LAST_DAY = "FREQ=MONTHLY;BYMONTHDAY=-1"


@pytest.fixture
def person(browser: Callable[..., Browser]) -> Browser:
    return browser()


def test_every_month_from_the_31st_keeps_february_and_its_day(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "对账")
    form = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    form.update(due_date="2027-01-31", repeat="FREQ=MONTHLY")
    assert person.post(f"/todos/tasks/{task['id']}", form).status_code == 303
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["recurrence"] == LAST_DAY and stored["due"] == {"type": "date", "date": "2027-01-31"}
    page = person.get(f"/todos/tasks/{task['id']}").text
    assert '<span class="recurrence">Every month on the last day</span>' in page
    assert form_as_shown(page, "task-form")["repeat"] == "FREQ=MONTHLY"  # the preset, not a custom rule

    completed = run(services, person.user_id, "complete_todo_task",
                    {"id": task["id"], "expectedRevision": stored["revision"]})["task"]  # fmt: skip
    assert completed["due"] == {"type": "date", "date": "2027-02-28"}
    # In February the form still shows "Every month"; a save for the title keeps the 31st's rule.
    february = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    assert february["repeat"] == "FREQ=MONTHLY"
    assert person.post(f"/todos/tasks/{task['id']}", {**february, "title": "月底对账"}).status_code == 303
    renamed = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert renamed["title"] == "月底对账" and renamed["recurrence"] == LAST_DAY
    march = run(services, person.user_id, "complete_todo_task",
                {"id": task["id"], "expectedRevision": renamed["revision"]})["task"]  # fmt: skip
    assert march["due"] == {"type": "date", "date": "2027-03-31"}

    # Moving the due in the form says the preset again from the new day.
    moved = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    assert person.post(f"/todos/tasks/{task['id']}", {**moved, "due_date": "2027-04-15"}).status_code == 303
    assert run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]["recurrence"] == "FREQ=MONTHLY"
