"""A phone app deletes "this occurrence" of a repeating task that is overdue (an EXDATE on its
own due, days past): the task lands where a late completion lands it, on the rule's first date
that is not past and not excluded (a date series: from today on, today not being over; a timed
one: the first after now), never on a date that is overdue again; COUNT and UNTIL end the series
where they would have (the dates passed are COUNT's rule dates, no occurrence). python-caldav
against a real `mesq serve`, and the app's stale copies in process."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import LiveServer
from tests.dav.conftest import Dav, phone_of, vtodo
from tests.dav.driver import CaldavClient
from tests.dav.mesq_side import Rest


@pytest.fixture(scope="module")
def phone(mesq: LiveServer) -> Iterator[tuple[CaldavClient, Rest, str]]:
    with phone_of(mesq, "olga") as (caldav, rest):
        space = rest.ok("GET", "/api/toolkit/todo/spaces")["spaces"][0]
        yield caldav, rest, f"{mesq.base_url}/dav/olga/{space['id']}/"


def _today() -> date:
    """Today where the series steps: neither the task nor the account has a zone, so UTC."""
    return datetime.now(UTC).date()


def _day(offset: int) -> date:
    return _today() + timedelta(days=offset)


def _ical(day: date) -> str:
    return day.strftime("%Y%m%d")


def _due(data: str) -> str:
    found = re.search(r"^DUE[^:\r\n]*:(\S+)\r?$", data, re.MULTILINE)
    assert found is not None, data
    return found.group(1)


def _excluded_now(caldav: CaldavClient, url: str, value: str, tzid: str | None = None) -> str:
    """The app deletes "this occurrence", the current one, then reads the task again."""
    caldav.ok("load", url=url, slot=url)
    caldav.ok("exclude", slot=url, value=value, tzid=tzid)
    return str(caldav.ok("get", url=url)["data"])


def _completed(caldav: CaldavClient, url: str) -> str:
    caldav.ok("load", url=url, slot=url)
    caldav.ok("complete", slot=url)
    return str(caldav.ok("get", url=url)["data"])


def test_deleting_an_overdue_daily_occurrence_lands_on_today_not_four_days_ago(
    phone: tuple[CaldavClient, Rest, str],
) -> None:
    caldav, rest, calendar = phone
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("vitamins", *lines, summary="吃维生素"))["url"]
    data = _excluded_now(caldav, url, _day(-5).isoformat())
    # today is not over: its occurrence is still to do (a late completion counts today as done)
    assert _due(data) == _ical(_today()), data
    task = rest.titled("吃维生素")
    assert task["due"] == {"type": "date", "date": _today().isoformat()}
    assert task["done"] is False and task["occurrences"] == []  # nothing was done


def test_deleting_an_overdue_weekly_occurrence_keeps_the_rules_weekday(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, _rest, calendar = phone
    start = _day(-16)  # a weekly series two weeks and two days overdue: next on its weekday, 5 days on
    url = caldav.ok(
        "add", calendar=calendar, ical=vtodo("weekly", f"DUE;VALUE=DATE:{_ical(start)}", "RRULE:FREQ=WEEKLY")
    )["url"]
    assert _due(_excluded_now(caldav, url, start.isoformat())) == _ical(_day(5))


def test_deleting_an_overdue_timed_occurrence_lands_on_the_first_after_now(
    phone: tuple[CaldavClient, Rest, str],
) -> None:
    caldav, rest, calendar = phone
    berlin = ZoneInfo("Europe/Berlin")
    now = datetime.now(berlin)
    first = datetime.combine(now.date() - timedelta(days=5), time(9, 0))
    url = caldav.ok(
        "add",
        calendar=calendar,
        ical=vtodo("timed", f"DUE;TZID=Europe/Berlin:{first:%Y%m%dT%H%M%S}", "RRULE:FREQ=DAILY", summary="Stand-up"),
    )["url"]
    data = _excluded_now(caldav, url, first.isoformat(), "Europe/Berlin")
    following = datetime.combine(now.date(), time(9, 0), berlin)
    if following <= now:
        following = datetime.combine(now.date() + timedelta(days=1), time(9, 0), berlin)
    assert _due(data) == f"{following:%Y%m%dT%H%M%S}", data
    assert rest.titled("Stand-up")["due"] == {"type": "datetime", "at": following.isoformat()}


def test_counted_and_ended_as_a_late_completion_counts_and_ends(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, rest, calendar = phone
    # COUNT=7 from five days ago: five past dates (the deleted one among them), today, tomorrow
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY;COUNT=7")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("seven", *lines, summary="Seven"))["url"]
    assert _due(_excluded_now(caldav, url, _day(-5).isoformat())) == _ical(_today())
    assert _due(_completed(caldav, url)) == _ical(_day(1))
    finished = _completed(caldav, url)
    assert "STATUS:COMPLETED" in finished and rest.titled("Seven")["done"] is True
    # COUNT=3 from five days ago: every date is past, nothing is left: done for good, nothing done
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY;COUNT=3")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("three", *lines, summary="Three"))["url"]
    data = _excluded_now(caldav, url, _day(-5).isoformat())
    task = rest.titled("Three")
    assert "STATUS:COMPLETED" in data and task["done"] is True and task["occurrences"] == []
    # UNTIL two days ago: the same
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", f"RRULE:FREQ=DAILY;UNTIL={_ical(_day(-2))}")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("until", *lines, summary="Until"))["url"]
    data = _excluded_now(caldav, url, _day(-5).isoformat())
    assert "STATUS:COMPLETED" in data and rest.titled("Until")["done"] is True


def test_a_task_that_arrives_with_its_overdue_due_excluded_starts_today(dav: Dav) -> None:
    born = (f"DUE;VALUE=DATE:{_ical(_day(-3))}", "RRULE:FREQ=DAILY", f"EXDATE;VALUE=DATE:{_ical(_day(-3))}")
    assert dav.put("born.ics", vtodo("born", *born)).status_code == 201
    assert _due(dav.get("born.ics").text) == _ical(_today())


def test_the_apps_stale_copies_of_an_overdue_skip_count_each_date_once(dav: Dav) -> None:
    """COUNT=8 from five days ago. The app deletes that occurrence (MeSQ moves the due to today),
    sends the same copy again (nothing changes), then, its copy still due five days ago, deletes
    today's too: tomorrow is left, and the day after (COUNT's 8th date) after it."""
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY;COUNT=8")
    assert dav.put("stale.ics", vtodo("stale", *lines, summary="Stale")).status_code == 201
    first = f"EXDATE;VALUE=DATE:{_ical(_day(-5))}"
    for _ in range(2):
        assert dav.put("stale.ics", vtodo("stale", *lines, first, summary="Stale")).status_code == 204
        task = dav.rest("GET", "/api/toolkit/todo/query?query=Stale")["items"][0]
        assert task["due"] == {"type": "date", "date": _today().isoformat()}
    both = f"EXDATE;VALUE=DATE:{_ical(_day(-5))},{_ical(_today())}"
    assert dav.put("stale.ics", vtodo("stale", *lines, both, summary="Stale")).status_code == 204
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]
    assert task["done"] is False and task["due"] == {"type": "date", "date": _day(1).isoformat()}
    assert dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])[
        "task"
    ]["due"] == {"type": "date", "date": _day(2).isoformat()}
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]
    done = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])
    assert done["task"]["done"] is True
