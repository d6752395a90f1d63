"""Settings -> Calendar feed and `GET /calendar/<secret>.ics`: the feed parses with `icalendar`,
shows open dated todos as VEVENTs with their RRULE (round-tripped) and VALARMs, leaves out done,
trashed and undated ones, is private and read-only; a rotated or revoked secret, another
user's record and a bearer-less guess never read."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Calendar, vRecur

from mesq.wiring.services import Services
from tests.support.operations import call_of, run_operation

from ..conftest import Browser

FEED = re.compile(r"https?://[^\"<\s]+/calendar/(mesq_cal_[A-Za-z0-9_-]{43})\.ics")


def _todo(services: Services, user_id: str, operation: str, args: dict[str, Any]) -> dict[str, Any]:
    call = call_of(services, user_id, {"todo:read", "todo:write"}, channel="web", kind="session")
    return dict(run_operation(call, operation, args))


def _issue(person: Browser) -> str:
    made = person.post("/settings/calendar")
    assert made.status_code == 303 and made.headers["location"] == "/settings/calendar"
    page = person.get("/settings/calendar")
    found = FEED.findall(page.text)
    assert len(found) == 1 and "shown only this once" in page.text
    assert not FEED.search(person.get("/settings/calendar").text)  # a reload: gone
    return found[0]


def _events(response: Any) -> dict[str, Any]:
    calendar = Calendar.from_ical(response.content)
    return {str(event["summary"]): event for event in calendar.walk("VEVENT")}


def test_feed_lists_open_dated_todos_with_rrule_and_alarms(services: Services, browser: Callable[..., Browser]):
    person = browser()
    uid = person.user_id
    weekly = _todo(services, uid, "create_todo_task", {
        "title": "Standup", "due": {"type": "datetime", "at": "2037-03-02T09:00:00+08:00"},
        "timezone": "Asia/Shanghai", "recurrence": "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=6",
    })["task"]  # fmt: skip
    _todo(services, uid, "set_todo_reminders", {
        "id": weekly["id"], "expectedRevision": weekly["revision"],
        "reminders": [{"type": "relative", "offset": "-PT15M"}, {"type": "absolute", "at": "2037-03-01T20:00:00Z"}],
    })  # fmt: skip
    _todo(services, uid, "create_todo_task", {"title": "Taxes", "due": {"type": "date", "date": "2026-04-15"},
                                              "notes": "bring receipts", "tags": ["home"]})  # fmt: skip
    _todo(services, uid, "create_todo_inbox_item", {"title": "Call mom", "due": {"type": "date", "date": "2026-05-01"}})
    _todo(services, uid, "create_todo_task", {"title": "Someday"})  # no due: not in the feed
    done = _todo(services, uid, "create_todo_task", {"title": "Done", "due": {"type": "date", "date": "2026-01-01"}})
    _todo(services, uid, "complete_todo_task", {"id": done["task"]["id"], "expectedRevision": 1})
    trashed = _todo(services, uid, "create_todo_task", {"title": "Gone", "due": {"type": "date", "date": "2026-01-02"}})
    _todo(services, uid, "delete_todo_task", {"id": trashed["task"]["id"], "expectedRevision": 1})

    secret = _issue(person)
    anonymous = person.client.__class__(person.client.app, base_url=str(person.client.base_url))
    response = anonymous.get(f"/calendar/{secret}.ics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/calendar")
    assert response.headers["cache-control"].startswith("private")
    events = _events(response)
    assert sorted(events) == ["Call mom", "Standup", "Taxes"]

    standup = events["Standup"]
    start = standup.decoded("dtstart")
    assert start == datetime(2037, 3, 2, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert str(start.tzinfo) == "Asia/Shanghai"
    rule = standup["rrule"]
    assert rule == vRecur.from_ical("FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=6")  # the RRULE round-trips
    assert vRecur.from_ical(rule.to_ical().decode()).to_ical() == b"FREQ=WEEKLY;COUNT=6;BYDAY=MO,WE,FR"
    alarms = standup.walk("VALARM")
    triggers = [alarm.decoded("trigger") for alarm in alarms]
    assert triggers[0] == timedelta(minutes=-15) and triggers[1] == datetime.fromisoformat("2037-03-01T20:00:00+00:00")
    assert all(str(alarm["action"]) == "DISPLAY" for alarm in alarms)
    # RFC 5545 §3.8.6.3: a TRIGGER is a duration unless it says VALUE=DATE-TIME (strict apps drop it)
    lines = response.text.replace("\r\n ", "").splitlines()
    assert sorted(line for line in lines if line.startswith("TRIGGER")) == [
        "TRIGGER:-PT15M", "TRIGGER;VALUE=DATE-TIME:20370301T200000Z"
    ]  # fmt: skip
    calendar = Calendar.from_ical(response.content)
    assert [str(tz["tzid"]) for tz in calendar.walk("VTIMEZONE")] == ["Asia/Shanghai"]

    taxes = events["Taxes"]
    assert taxes.decoded("dtstart") == date(2026, 4, 15)
    assert str(taxes["description"]) == "bring receipts"
    assert events["Call mom"]["uid"].startswith("inbox-")

    # Completing one occurrence moves the feed's event on and lowers the remaining COUNT.
    current = _todo(services, uid, "get_todo_task", {"id": weekly["id"]})["task"]
    _todo(services, uid, "complete_todo_task", {"id": weekly["id"], "expectedRevision": current["revision"]})
    moved = _events(anonymous.get(f"/calendar/{secret}.ics"))["Standup"]
    assert moved.decoded("dtstart") == datetime(2037, 3, 4, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert moved["rrule"]["COUNT"] == [5]

    # Read-only: nothing but GET/HEAD.
    assert anonymous.post(f"/calendar/{secret}.ics").status_code == 405
    anonymous.close()


def test_rotated_and_revoked_secrets_never_read(services: Services, browser: Callable[..., Browser]):
    alice, bob = browser(), browser()
    _todo(
        services,
        alice.user_id,
        "create_todo_task",
        {"title": "alice only", "due": {"type": "date", "date": "2026-06-01"}},
    )
    _todo(
        services, bob.user_id, "create_todo_task", {"title": "bob only", "due": {"type": "date", "date": "2026-06-01"}}
    )
    first = _issue(alice)
    bobs = _issue(bob)
    assert b"alice only" in alice.get(f"/calendar/{first}.ics").content
    assert b"alice only" not in alice.get(f"/calendar/{bobs}.ics").content  # each secret is its owner's only
    rotated = _issue(alice)
    assert rotated != first
    old = alice.get(f"/calendar/{first}.ics")
    assert old.status_code == 404 and b"alice" not in old.content
    assert alice.get(f"/calendar/{rotated}.ics").status_code == 200
    revoked = alice.post("/settings/calendar/revoke", {"confirm": "yes"})
    assert revoked.status_code == 303
    assert alice.get(f"/calendar/{rotated}.ics").status_code == 404
    assert "No feed yet" in alice.get("/settings/calendar").text
    for guess in ("mesq_cal_" + "A" * 43 + ".ics", "nothing.ics", f"{bobs}", f"{bobs}.txt"):
        assert alice.get(f"/calendar/{guess}").status_code == 404
    assert bob.get(f"/calendar/{bobs}.ics").status_code == 200  # bob's feed is untouched
    # Only hashes are stored.
    stored = repr(services.items.query(f"U#{alice.user_id}", prefix="CALFEED").items)
    assert rotated not in stored and first not in stored


def test_feed_settings_need_a_session_and_csrf(services: Services, browser: Callable[..., Browser]):
    person = browser()
    forged = person.client.post("/settings/calendar", data={"csrf": "wrong"}, follow_redirects=False)
    assert forged.status_code == 403
    with_token = person.client.post(
        "/settings/calendar", data={"csrf": person.csrf}, headers={"Authorization": "Bearer mesq_pat_x"}
    )
    assert with_token.status_code == 403
    assert "No feed yet" in person.get("/settings/calendar").text


def test_an_unknown_feed_says_so_in_the_browsers_language(browser: Callable[..., Browser]):
    """A rotated or revoked feed URL opened in a browser: no account is known from it, so the
    browser's language says it (a Chinese reader got "no such calendar feed")."""
    person = browser()
    url = "/calendar/mesq_cal_" + "A" * 43 + ".ics"
    zh = person.client.get(url, headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    en = person.client.get(url, headers={"Accept-Language": "en-US"})
    assert zh.status_code == en.status_code == 404
    assert "日历订阅" in zh.text and not re.search(r"[A-Za-z]", zh.text), zh.text
    assert "calendar feed" in en.text and not re.search(r"[\u4e00-\u9fff]", en.text), en.text
    assert zh.headers["content-language"] == "zh-Hans" and en.headers["content-language"] == "en"
