"""Today, Upcoming and Overdue (issue 30 items 6 and 7): open records of every space by their due,
through query_todos, each due in words in the browser's zone (the `mesq_tz` cookie), overdue ones
marked; Today's quick-add box; and stored times shown in the browser's zone on other pages."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mesq.auth.user_zone import set_zone
from mesq.kernel import timestamps
from mesq.kernel.timestamps import format_timestamp, parse_timestamp
from mesq.web.kit.render import when
from mesq.web.todos.agenda import day_bounds, query_arguments
from mesq.web.todos.agenda_rows import tomorrow_due
from mesq.web.todos.fields import friendly_due
from mesq.wiring.services import Services

from ..conftest import Browser, FakeClock
from .test_todos_pages import board, new_task, person, run  # noqa: F401  (person: a signed-in browser)

ZONE = "Asia/Shanghai"


def _at(moment: datetime) -> dict[str, str]:
    return {"type": "datetime", "at": format_timestamp(moment)}


def _section(html: str, list_id: str) -> str:
    start = html.index(f'id="{list_id}"')
    return html[start : html.index("</ul>", start)]


def test_the_days_are_the_browsers() -> None:
    now = datetime(2027, 1, 15, 20, 0, tzinfo=UTC)  # already Saturday the 16th in Shanghai
    assert day_bounds(now, ZONE, 0, 1) == ("2027-01-15T16:00:00.000000Z", "2027-01-16T16:00:00.000000Z")
    assert day_bounds(now, "UTC", 0, 1) == ("2027-01-15T00:00:00.000000Z", "2027-01-16T00:00:00.000000Z")
    upcoming = query_arguments("upcoming", now, ZONE, 0)
    assert (upcoming["dueAfter"], upcoming["dueBefore"]) == (
        "2027-01-16T16:00:00.000000Z",
        "2027-01-23T16:00:00.000000Z",
    )
    assert query_arguments("overdue", now, ZONE, 100) == {
        "status": "open", "orderBy": "due", "offset": 100, "limit": 100, "overdue": True
    }  # fmt: skip


def test_today_upcoming_and_overdue_across_spaces(services: Services, person: Browser, clock: FakeClock) -> None:  # noqa: F811
    # query_todos judges "overdue" by the real clock: the pages' clock is set to it.
    clock.now = time.time()
    now = datetime.fromtimestamp(clock(), UTC)
    midnight = datetime.fromisoformat(day_bounds(now, ZONE, 1, 2)[0].replace("Z", "+00:00"))
    later_today = now + (midnight - now) / 2  # still today in Shanghai, whatever the hour
    user = person.user_id
    other = run(services, user, "create_todo_space", {"name": "Home"})["space"]
    late = new_task(services, user, "late one", due=_at(now - timedelta(days=2)))
    new_task(services, user, "tonight", due=_at(later_today), spaceId=other["id"])
    new_task(services, user, "soon one", due=_at(now + timedelta(days=3)))
    new_task(services, user, "far one", due=_at(now + timedelta(days=20)))
    new_task(services, user, "no due")
    done = new_task(services, user, "done late", due=_at(now - timedelta(days=2)))
    run(services, user, "complete_todo_task", {"id": done["id"], "expectedRevision": done["revision"]})
    run(services, user, "create_todo_inbox_item", {"title": "inbox today", "due": _at(later_today)})
    person.client.cookies.set("mesq_tz", ZONE)

    def words(moment: datetime, zone: str = ZONE) -> str:
        shown = friendly_due(_at(moment), now, zone)
        assert shown is not None
        return shown.text

    page = person.get("/todos/today")
    assert page.status_code == 200, page.text
    overdue, due_today = _section(page.text, "overdue-list"), _section(page.text, "today-list")
    late_words = words(now - timedelta(days=2))
    assert re.search(rf'<time class="due overdue"[^>]*>Overdue: {late_words}</time>', overdue), overdue
    assert "late one" in overdue and "done late" not in page.text
    assert "tonight" in due_today and f"Due {words(later_today)}" in due_today and "Home" in due_today
    assert "inbox today" in due_today and "soon one" not in page.text and "far one" not in page.text
    assert 'href="/todos/today" aria-current="page"' in page.text  # the todo nav links the views

    upcoming = person.get("/todos/upcoming").text
    assert f"Due {words(now + timedelta(days=3))}" in _section(upcoming, "upcoming-list")
    assert "tonight" not in upcoming and "far one" not in upcoming and "late one" not in upcoming

    late_page = person.get("/todos/overdue").text
    assert "late one" in _section(late_page, "overdue-list") and "tonight" not in late_page
    assert f'href="/todos/tasks/{late["id"]}"' in late_page
    # The same moment seen from another browser's zone: its words follow it.
    person.client.cookies.set("mesq_tz", "America/Los_Angeles")
    assert f"Overdue: {words(now - timedelta(days=2), 'America/Los_Angeles')}" in person.get("/todos/overdue").text


def test_todays_box_adds_in_the_browsers_zone(services: Services, person: Browser, clock: FakeClock) -> None:  # noqa: F811
    """ "明天下午5点 !high #家" and "call mom tomorrow 5pm !high #home": due tomorrow 17:00 in the browser's zone,
    high priority, the tag; into the default space, shown on Today's page afterwards when due."""
    clock.now = datetime(2026, 12, 3, 2, 0, tzinfo=UTC).timestamp()  # Thursday 10:00 in Shanghai
    person.client.cookies.set("mesq_tz", ZONE)
    for line in ("明天下午5点 !high #家", "call mom tomorrow 5pm !high #home", "今天晚上9点 买菜"):
        added = person.post("/todos/today", {"title": line})
        assert added.status_code == 303 and added.headers["location"].startswith("/todos/today?added="), added.text
    tasks = {task["title"]: task for task in board(services, person.user_id)["tasks"]}
    expected = {"type": "datetime", "at": "2026-12-04T09:00:00Z"}
    zh, en = tasks["明天下午5点"], tasks["call mom"]
    assert (zh["due"], zh["timezone"], zh["priority"], zh["tags"]) == (expected, ZONE, "high", ["家"])
    assert (en["due"], en["timezone"], en["priority"], en["tags"]) == (expected, ZONE, "high", ["home"])
    spaces = run(services, person.user_id, "list_todo_spaces", {})
    assert {t["spaceId"] for t in tasks.values()} == {spaces["defaultSpaceId"]}
    shown = person.get(added.headers["location"]).text
    assert 'id="today-added"' in shown and 'id="today-added"' not in person.get("/todos/today").text
    assert "买菜" in shown  # due today (or already passed: then listed as overdue)


def test_a_bad_line_keeps_the_box(person: Browser) -> None:  # noqa: F811
    refused = person.post("/todos/today", {"title": "   "})
    assert refused.status_code == 400
    assert 'id="today-add-error" role="alert"' in refused.text and 'aria-invalid="true"' in refused.text


def test_stored_times_are_shown_in_the_browsers_zone(services: Services, person: Browser) -> None:  # noqa: F811
    assert when("2026-11-29T08:00:00.000000Z") == "2026-11-29 08:00 UTC"
    assert when("2026-11-29T20:30:00.000000Z", ZONE) == "2026-11-30 04:30 +0800"
    assert when("2026-11-29T20:30:00.000000Z", ZONE, "zh") == "2026-11-30 04:30 +0800"
    assert when("2026-07-01T12:00:00.000000Z", "America/New_York") == "2026-07-01 08:00 EDT"  # CLDR's own name
    # a zone with a clock change reads by its zone's name in Chinese (daylight or standard), as
    # English's EDT / EST says it: never a bare -0400 that means nothing to the reader
    assert when("2026-07-01T12:00:00.000000Z", "America/New_York", "zh") == "2026-07-01 08:00 北美东部夏令时间"
    assert when("2026-12-01T12:00:00.000000Z", "America/New_York", "zh") == "2026-12-01 07:00 北美东部标准时间"
    assert when("2026-07-01T12:00:00.000000Z", "Europe/Berlin") == "2026-07-01 14:00 Central European Summer Time"
    assert when("not a time") == "not a time"
    task = new_task(services, person.user_id, "thrown away")
    run(services, person.user_id, "delete_todo_task", {"id": task["id"], "expectedRevision": task["revision"]})
    # The trash says when as /activity does ("deleted today 04:30"), its clock in the page's zone.
    deleted = re.search(
        r"deleted (?:today|yesterday|\w{3} \d{1,2}(?:, \d{4})?) (\d\d):(\d\d)", person.get("/todos/trash").text
    )
    assert deleted, "the trash says when a task was deleted"
    in_utc = datetime(2026, 1, 1, int(deleted.group(1)), int(deleted.group(2)), tzinfo=UTC)

    def clock_in(zone: str) -> str:
        offset = ZoneInfo(zone).utcoffset(datetime.now(UTC)) or timedelta(0)
        return (in_utc + offset).strftime("%H:%M")

    person.client.cookies.set("mesq_tz", ZONE)
    shown = person.get("/todos/trash").text
    assert re.search(rf"deleted \S+(?: \S+)* {clock_in(ZONE)}<", shown) and " UTC" not in shown and "+0800" not in shown
    person.client.cookies.set("mesq_tz", "America/New_York")  # a zone with a clock change, on a Chinese page
    chinese = person.get("/todos/trash", headers={"Accept-Language": "zh-CN"}).text
    assert "删除于 " in chinese and clock_in("America/New_York") in chinese
    assert not re.search(r"\d\d:\d\d -0[45]00", chinese)
    person.client.cookies.set("mesq_tz", "Not/AZone")  # a bad cookie is ignored, never an error page
    assert person.get("/todos/trash").status_code == 200


def test_a_due_time_without_a_zone_is_the_browsers(services: Services, person: Browser) -> None:  # noqa: F811
    task = new_task(services, person.user_id, "call the bank")
    person.client.cookies.set("mesq_tz", ZONE)
    shown = person.get(f"/todos/tasks/{task['id']}").text
    assert 'placeholder="Asia/Shanghai"' in shown, shown[shown.index('id="timezone"') :][:300]
    assert "zone is read in your time zone, China Time." in shown
    form = {"revision": task["revision"], "title": "call the bank", "priority": "none", "due_date": "2026-12-20",
            "due_time": "09:30", "timezone": "", "repeat": ""}  # fmt: skip
    assert person.post(f"/todos/tasks/{task['id']}", form).status_code == 303
    stored = run(services, person.user_id, "get_todo_task", {"id": task["id"]})["task"]
    assert stored["due"] == {"type": "datetime", "at": "2026-12-20T01:30:00.000000Z"} and stored["timezone"] == ZONE
    # Once the user has set a zone, it is theirs, whatever zone the browser is in (issue 40 §5).
    set_zone(services.items, person.user_id, "Europe/Berlin")
    shown = person.get(f"/todos/tasks/{task['id']}").text
    assert 'placeholder="Europe/Berlin"' in shown and "your time zone, Central European Time." in shown


def _toast_undo(html: str) -> list[str]:
    """The change ids a toast's Undo form carries."""
    return re.findall(r'name="changeId" value="([^"]+)"', html)


def test_rows_show_the_chips_and_complete_postpone_and_trash_in_place(
    services: Services,
    person: Browser,  # noqa: F811
    clock: FakeClock,
) -> None:
    """Issue 41 §5: every row has a one-tap complete button, the parsed due, priority and tags as
    chips, and a menu (due tomorrow, trash); each write answers with the lists and an Undo toast."""
    clock.now = time.time()
    now = datetime.fromtimestamp(clock(), UTC)
    user = person.user_id
    person.client.cookies.set("mesq_tz", ZONE)
    late = new_task(services, user, "late one", due=_at(now - timedelta(days=2)), priority="high", tags=["家"])
    parent = new_task(services, user, "parent task")
    sub = run(services, user, "create_todo_subtask", {"taskId": parent["id"], "title": "a late step"})["subtask"]
    yesterday = {"id": sub["id"], "expectedRevision": sub["revision"], "due": _at(now - timedelta(days=1))}
    sub = run(services, user, "update_todo_subtask", yesterday)["subtask"]
    # Quick capture in the inbox: the row shows what was understood, not only the title.
    captured = person.post("/todos/inbox", {"title": "后天 取快递 !high #家", "ignore": "recurrence"})
    assert captured.status_code == 303
    inbox = person.get("/todos/inbox").text
    row = inbox[inbox.index('id="row-') :]
    assert ">取快递</a>" in row and 'class="priority priority-high"' in row and '<span class="tag">#家</span>' in row
    assert re.search(r'<time class="due" datetime="\d{4}-\d\d-\d\d"', row), row[:1500]
    assert 'aria-label="Complete: 取快递"' in row and 'role="menuitem"' in row and "<select" not in row
    upcoming = _section(person.get("/todos/upcoming").text, "upcoming-list")
    assert "取快递" in upcoming and 'class="priority priority-high"' in upcoming and '<time class="due"' in upcoming

    overdue = person.get("/todos/overdue").text
    rows = _section(overdue, "overdue-list")
    assert 'aria-label="Complete: late one"' in rows and 'aria-label="Complete: a late step"' in rows
    assert ">high</span>" in rows and '<span class="tag">#家</span>' in rows
    assert f'href="/todos/tasks/{parent["id"]}"' in rows  # a subtask's row opens its task

    htmx = {"HX-Request": "true"}
    fields = {"kind": "task", "id": late["id"], "revision": late["revision"]}
    done = person.post("/todos/overdue/complete", fields, headers=htmx)
    assert done.status_code == 200 and 'id="agenda-lists"' in done.text and "late one" not in done.text
    assert next(t for t in board(services, user)["tasks"] if t["id"] == late["id"])["done"] is True
    assert 'hx-post="/todos/overdue/undo"' in done.text and _toast_undo(done.text)
    assert f'name="id" value="{late["id"]}"' in done.text  # the toast names its row: it undoes in order
    undone = person.post("/todos/overdue/undo", {"changeId": _toast_undo(done.text), "id": late["id"]}, headers=htmx)
    assert undone.status_code == 200 and "late one" in _section(undone.text, "overdue-list")
    assert "Undone: open again." in undone.text
    late = next(t for t in board(services, user)["tasks"] if t["id"] == late["id"])
    assert late["done"] is False

    # Due tomorrow keeps the time of day in the browser's zone; the row leaves Overdue.
    local = parse_timestamp(late["due"]["at"], "due").astimezone(ZoneInfo(ZONE))
    moved = person.post(
        "/todos/overdue/tomorrow", {**fields, "revision": late["revision"], "due": late["due"]["at"]}, headers=htmx
    )
    assert moved.status_code == 200 and "late one" not in moved.text, moved.text[-800:]
    late = next(t for t in board(services, user)["tasks"] if t["id"] == late["id"])
    tomorrow = parse_timestamp(late["due"]["at"], "due").astimezone(ZoneInfo(ZONE))
    assert tomorrow.date() == now.astimezone(ZoneInfo(ZONE)).date() + timedelta(days=1)
    assert (tomorrow.hour, tomorrow.minute) == (local.hour, local.minute)

    # A stale revision changes nothing and says so; a plain form post goes back to the view.
    stale = person.post("/todos/overdue/trash", {"kind": "subtask", "id": sub["id"], "revision": 1}, headers=htmx)
    assert stale.status_code == 200 and "changed meanwhile" in stale.text and "a late step" in stale.text
    trashed = person.post("/todos/overdue/trash", {"kind": "subtask", "id": sub["id"], "revision": sub["revision"]})
    assert trashed.status_code == 303 and trashed.headers["location"] == "/todos/overdue"
    assert "a late step" not in person.get("/todos/overdue").text
    assert person.post("/todos/overdue/complete", {"kind": "memo", "id": "x", "revision": 1}).status_code == 400
    for due in ("2026-13-45", "not a time"):
        bad = {**fields, "revision": late["revision"], "due": due}
        assert person.post("/todos/today/tomorrow", bad).status_code == 400, due


def test_tomorrow_keeps_a_date_a_date_and_a_time_its_time_of_day() -> None:
    now = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)  # already the 4th in Shanghai
    assert tomorrow_due("", now, ZONE) == {"type": "date", "date": "2026-12-05"}
    assert tomorrow_due("2026-11-20", now, ZONE) == {"type": "date", "date": "2026-12-05"}
    moved = tomorrow_due("2026-11-20T01:30:00.000000Z", now, ZONE)  # 09:30 in Shanghai
    assert moved == {"type": "datetime", "at": "2026-12-05T01:30:00.000000Z"}


def test_a_date_still_today_in_its_own_zone_is_listed_today(
    services: Services,
    person: Browser,  # noqa: F811
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Shanghai person's task due 5 December in its own zone, Los Angeles, at 05:34 UTC on the
    6th: still the 5th there, so not overdue (query_todos judges a date in its own zone), but it
    began before Shanghai's midnight. It was in none of Today, Upcoming and Overdue, and its card
    said "Overdue: yesterday"; it is today's, and says so."""
    now = datetime(2026, 12, 6, 5, 34, tzinfo=UTC)
    clock.now = now.timestamp()
    monkeypatch.setattr(timestamps, "utc_now", lambda: now)  # the clock query_todos judges "overdue" by
    set_zone(services.items, person.user_id, ZONE)
    task = new_task(
        services, person.user_id, "call LA", due={"type": "date", "date": "2026-12-05"}, timezone="America/Los_Angeles"
    )
    today = person.get("/todos/today").text
    assert "call LA" in _section(today, "today-list") and 'id="overdue-list"' not in today  # nothing late
    assert "call LA" not in person.get("/todos/upcoming").text
    assert "call LA" not in person.get("/todos/overdue").text
    for page in (today, person.get(f"/todos/tasks/{task['id']}").text, person.get("/todos").text):
        said = re.search(r'<time class="due[^"]*"[^>]*>([^<]*)</time>', page)
        assert said and said.group(1) == "Due today", said and said.group(0)
