"""The task and inbox item forms in the page's zone (in-process, TestClient): a due set through
the API without a zone shows at its local time (the user's zone) in the form, as in the page's
header, and saving the page back, due untouched, leaves the due exactly where it was (the same
instant, no zone added); a changed time is read in the zone it was shown in. The task page's
"At a set time" reminder is asked and shown in the same zone and round-trips to the second."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

import pytest

from mesq.wiring.services import Services

from ..conftest import Browser
from .test_todos_pages import new_task, run

SHANGHAI = "Asia/Shanghai"
#: 12:00 UTC = 20:00 in Shanghai (a Tuesday).
NOON_UTC = {"type": "datetime", "at": "2026-12-08T12:00:00Z"}


class _FormReader(HTMLParser):
    """The fields one form of a page would submit as it stands: inputs, textareas, selected options."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.fields = form_id, False, {}
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        if tag == "input" and a.get("type") not in ("checkbox", "submit") and "name" in a:
            self.fields[a["name"]] = a.get("value", "")
        elif tag == "select":
            self.select = a.get("name")
        elif tag == "option" and self.select and "selected" in a:
            self.fields[self.select] = a.get("value", "")
        elif tag == "textarea":
            self.textarea = a["name"]
            self.fields[self.textarea] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data: str) -> None:
        if self.textarea:
            self.fields[self.textarea] += data


def form_as_shown(page: str, form_id: str) -> dict[str, str]:
    reader = _FormReader(form_id)
    reader.feed(page)
    return {name: value for name, value in reader.fields.items() if name != "csrf"}


@pytest.fixture
def person(services: Services, browser: Callable[..., Browser]) -> Browser:
    """A user whose own zone is Shanghai, in a browser that says UTC (the user's zone wins)."""
    someone = browser()
    run(services, someone.user_id, "set_time_zone", {"timeZone": SHANGHAI})
    someone.client.cookies.set("mesq_tz", "UTC")
    return someone


def stored_task(services: Services, person: Browser, task_id: str) -> dict[str, Any]:
    return run(services, person.user_id, "get_todo_task", {"id": task_id})["task"]


def stored_item(services: Services, person: Browser, item_id: str) -> dict[str, Any]:
    return run(services, person.user_id, "get_todo_inbox_item", {"id": item_id})["item"]


def test_a_task_form_shows_a_zoneless_due_in_the_users_zone_and_saves_it_unchanged(
    services: Services, person: Browser
) -> None:
    task = new_task(services, person.user_id, "dentist 牙医", due=NOON_UTC)
    before = stored_task(services, person, task["id"])
    page = person.get(f"/todos/tasks/{task['id']}").text
    assert re.search(r'<time class="due[^"]*" datetime="[^"]*">Overdue: Dec 8, 2026 20:00</time>', page)  # the header
    form = form_as_shown(page, "task-form")
    assert (form["due_date"], form["due_time"], form["timezone"]) == ("2026-12-08", "20:00", "")
    saved = person.post(f"/todos/tasks/{task['id']}", {**form, "priority": "high"})
    assert saved.status_code == 303, saved.text
    after = stored_task(services, person, task["id"])
    assert after["priority"] == "high"
    assert (after["due"], after["timezone"]) == (before["due"], None)  # the same instant, no zone added


def test_a_changed_due_time_on_a_zoneless_task_is_read_in_the_zone_it_was_shown_in(
    services: Services, person: Browser
) -> None:
    task = new_task(services, person.user_id, "dentist", due=NOON_UTC)
    form = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    assert person.post(f"/todos/tasks/{task['id']}", {**form, "due_time": "21:00"}).status_code == 303
    after = stored_task(services, person, task["id"])
    assert after["due"]["at"].startswith("2026-12-08T13:00:00") and after["timezone"] == SHANGHAI


def test_a_task_with_its_own_zone_shows_and_keeps_its_due_there(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "call NY", due=NOON_UTC, timezone="America/New_York")
    before = stored_task(services, person, task["id"])
    form = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    assert (form["due_time"], form["timezone"]) == ("07:00", "America/New_York")
    assert person.post(f"/todos/tasks/{task['id']}", {**form, "notes": "agenda"}).status_code == 303
    after = stored_task(services, person, task["id"])
    assert (after["due"], after["timezone"], after["notes"]) == (before["due"], "America/New_York", "agenda")


def test_an_unchanged_due_to_the_second_survives_a_save(services: Services, person: Browser) -> None:
    # The time field shows minutes: an untouched due is not rebuilt from it (no seconds lost).
    task = new_task(services, person.user_id, "odd second", due={"type": "datetime", "at": "2026-12-08T12:00:30Z"})
    before = stored_task(services, person, task["id"])
    form = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    assert person.post(f"/todos/tasks/{task['id']}", {**form, "title": "odd second!"}).status_code == 303
    assert stored_task(services, person, task["id"])["due"] == before["due"]


def test_a_conflict_then_save_keeps_a_zoneless_due(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "draft", due=NOON_UTC)
    before = stored_task(services, person, task["id"])
    form = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "task-form")
    run(services, person.user_id, "update_todo_task",
        {"id": task["id"], "expectedRevision": task["revision"], "notes": "theirs"})  # fmt: skip
    clash = person.post(f"/todos/tasks/{task['id']}", {**form, "title": "mine"})
    assert clash.status_code == 409
    assert 'data-field="due_time"' not in clash.text  # the same due on both sides: no difference shown
    again = form_as_shown(clash.text, "task-form")
    assert again["due_time"] == "20:00" and again["notes"] == "theirs"
    assert person.post(f"/todos/tasks/{task['id']}", again).status_code == 303
    after = stored_task(services, person, task["id"])
    assert (after["title"], after["due"], after["timezone"]) == ("mine", before["due"], None)


def test_an_inbox_item_form_shows_its_due_in_the_users_zone_and_saves_it_unchanged(
    services: Services, person: Browser
) -> None:
    item = run(services, person.user_id, "create_todo_inbox_item", {"title": "续签护照", "due": NOON_UTC})["item"]
    before = stored_item(services, person, item["id"])
    page = person.get(f"/todos/inbox/{item['id']}").text
    form = form_as_shown(page, "item-form")
    assert (form["due_date"], form["due_time"], form["timezone"]) == ("2026-12-08", "20:00", "")
    assert html.unescape(re.search(r'id="timezone-hint">([^<]*)<', page).group(1)).startswith(  # type: ignore[union-attr]
        "A due time without a zone is read in your time zone"
    )
    assert person.post(f"/todos/inbox/{item['id']}", {**form, "priority": "high"}).status_code == 303
    after = stored_item(services, person, item["id"])
    assert after["priority"] == "high" and after["due"] == before["due"]
    changed = form_as_shown(person.get(f"/todos/inbox/{item['id']}").text, "item-form")
    assert person.post(f"/todos/inbox/{item['id']}", {**changed, "due_time": "21:00"}).status_code == 303
    moved = stored_item(services, person, item["id"])
    assert moved["due"]["at"].startswith("2026-12-08T13:00:00")  # read in Shanghai, where it was shown


def test_an_inbox_item_with_its_own_zone_shows_its_due_there(services: Services, person: Browser) -> None:
    arguments = {"title": "call NY", "due": NOON_UTC, "timezone": "America/New_York"}
    item = run(services, person.user_id, "create_todo_inbox_item", arguments)["item"]
    form = form_as_shown(person.get(f"/todos/inbox/{item['id']}").text, "item-form")
    assert (form["due_time"], form["timezone"]) == ("07:00", "America/New_York")


def test_a_set_time_reminder_is_asked_and_shown_in_the_dues_zone(services: Services, person: Browser) -> None:
    task = new_task(services, person.user_id, "call mum", due=NOON_UTC)
    page = person.get(f"/todos/tasks/{task['id']}").text
    label = page[page.index("At a set time") :][:300]
    assert "UTC" not in label and "(China" in label  # the user's zone, in words
    reminders = form_as_shown(page, "reminder-form")
    saved = person.post(f"/todos/tasks/{task['id']}/reminders", {**reminders, "at": "2026-12-08T19:00"})
    assert saved.status_code == 303
    stored = stored_task(services, person, task["id"])
    assert stored["reminders"] == [{"type": "absolute", "at": "2026-12-08T11:00:00.000000Z"}]
    shown = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "reminder-form")
    assert shown["at"] == "2026-12-08T19:00"


def _save_reminder_form(services: Services, person: Browser, reminders: list[dict[str, str]]) -> list[Any]:
    """A task with `reminders` set through the API, its reminder form saved as shown with a
    15-minute offset ticked: the reminders stored before and after, and the form as shown."""
    task = new_task(services, person.user_id, "call mum", due=NOON_UTC)
    run(services, person.user_id, "set_todo_reminders",
        {"id": task["id"], "expectedRevision": task["revision"], "reminders": reminders})  # fmt: skip
    before = stored_task(services, person, task["id"])["reminders"]
    shown = form_as_shown(person.get(f"/todos/tasks/{task['id']}").text, "reminder-form")
    saved = person.client.post(
        f"/todos/tasks/{task['id']}/reminders",
        data={"csrf": person.csrf, **shown, "offset": ["-PT15M"]},
        follow_redirects=False,
    )
    assert saved.status_code == 303
    return [before, stored_task(services, person, task["id"])["reminders"], shown]


def test_an_unchanged_set_time_reminder_keeps_its_exact_moment(services: Services, person: Browser) -> None:
    before, after, shown = _save_reminder_form(services, person, [{"type": "absolute", "at": "2026-12-08T11:00:30Z"}])
    assert shown["at"] == "2026-12-08T19:00"
    assert after == [{"type": "relative", "offset": "-PT15M"}, *before]


def test_saving_the_reminder_form_keeps_the_reminders_it_cannot_show(services: Services, person: Browser) -> None:
    """The form shows the listed offsets and one set time; a second set time or an offset it does
    not list (set through the API) survives a save of the form."""
    first, second = (
        {"type": "absolute", "at": "2026-12-08T11:00:00Z"},
        {"type": "absolute", "at": "2026-12-09T01:00:00Z"},
    )
    unlisted = {"type": "relative", "offset": "-PT7M"}
    _before, after, _shown = _save_reminder_form(services, person, [first, unlisted, second])
    assert after == [{"type": "relative", "offset": "-PT15M"}, first, unlisted, second]
