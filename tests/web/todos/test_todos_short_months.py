"""The task form's repeats on the 29th-31st keep the short months (todos/short_months.py): a task
due on 31 January "Every month" repeats on 28 February and 31 March (RFC 5545's plain monthly rule
from the 31st skips February, April, June, September and November): it is stored as the last-day
rule, which the form offers as a preset of its own. On the 30th, "Every month" is the 30th or a
shorter month's last day; the form shows it as "Every month" while the due is on the 30th and as
the rule itself on 28 February, so no save ever says the preset again from the 28th.

The dates are in 2037 (February has 28 days, as in 2027): a completion after the due catches up
to the real today, so a due in 2027 would have failed these tests from 2027-02-01."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mesq.wiring.services import Services

from ..conftest import Browser
from .test_todos_pages import new_task, run
from .test_todos_zones import form_as_shown

LAST_DAY = "FREQ=MONTHLY;BYMONTHDAY=-1"
THIRTIETH = "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1"


@pytest.fixture
def person(browser: Callable[..., Browser]) -> Browser:
    return browser()


def _form(person: Browser, task_id: str) -> dict[str, str]:
    return form_as_shown(person.get(f"/todos/tasks/{task_id}").text, "task-form")


def _stored(services: Services, person: Browser, task_id: str) -> dict[str, object]:
    task: dict[str, object] = run(services, person.user_id, "get_todo_task", {"id": task_id})["task"]
    return task


def _completed(services: Services, person: Browser, task_id: str) -> dict[str, object]:
    revision = _stored(services, person, task_id)["revision"]
    task: dict[str, object] = run(services, person.user_id, "complete_todo_task",
                                  {"id": task_id, "expectedRevision": revision})["task"]  # fmt: skip
    return task


def test_every_month_from_the_31st_is_the_last_day_and_keeps_february(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "对账")
    form = {**_form(person, task["id"]), "due_date": "2037-01-31", "repeat": "FREQ=MONTHLY"}
    assert person.post(f"/todos/tasks/{task['id']}", form).status_code == 303
    assert _stored(services, person, task["id"])["recurrence"] == LAST_DAY
    page = person.get(f"/todos/tasks/{task['id']}").text
    assert '<span class="recurrence">Every month on the last day</span>' in page
    assert form_as_shown(page, "task-form")["repeat"] == LAST_DAY  # the last-day preset, not a custom rule
    assert _completed(services, person, task["id"])["due"] == {"type": "date", "date": "2037-02-28"}
    february = _form(person, task["id"])
    assert february["repeat"] == LAST_DAY
    assert person.post(f"/todos/tasks/{task['id']}", {**february, "title": "月底对账"}).status_code == 303
    assert _stored(services, person, task["id"])["recurrence"] == LAST_DAY
    assert _completed(services, person, task["id"])["due"] == {"type": "date", "date": "2037-03-31"}
    # Moving the due keeps the last day: the preset says it whatever the due's day.
    moved = {**_form(person, task["id"]), "due_date": "2037-06-30"}
    assert person.post(f"/todos/tasks/{task['id']}", moved).status_code == 303
    assert _stored(services, person, task["id"])["recurrence"] == LAST_DAY


def test_every_month_from_the_30th_keeps_february_and_its_day(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "交房租")
    form = {**_form(person, task["id"]), "due_date": "2037-01-30", "repeat": "FREQ=MONTHLY"}
    assert person.post(f"/todos/tasks/{task['id']}", form).status_code == 303
    assert _stored(services, person, task["id"])["recurrence"] == THIRTIETH
    assert _form(person, task["id"])["repeat"] == "FREQ=MONTHLY"  # on the 30th: "Every month"
    assert _completed(services, person, task["id"])["due"] == {"type": "date", "date": "2037-02-28"}
    # On 28 February the form shows the rule itself, in words; a save for the title keeps it.
    page = person.get(f"/todos/tasks/{task['id']}").text
    assert "Every month on day 30, or the last day of a shorter month" in page
    february = form_as_shown(page, "task-form")
    assert february["repeat"] == "custom"
    assert person.post(f"/todos/tasks/{task['id']}", {**february, "title": "交二月房租"}).status_code == 303
    assert _stored(services, person, task["id"])["recurrence"] == THIRTIETH
    assert _completed(services, person, task["id"])["due"] == {"type": "date", "date": "2037-03-30"}
    # Moving the due in the form with "Every month" says the preset again from the new day.
    moved = {**_form(person, task["id"]), "due_date": "2037-04-15"}
    assert moved["repeat"] == "FREQ=MONTHLY"
    assert person.post(f"/todos/tasks/{task['id']}", moved).status_code == 303
    assert _stored(services, person, task["id"])["recurrence"] == "FREQ=MONTHLY"
