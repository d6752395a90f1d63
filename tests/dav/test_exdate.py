"""A phone app excludes one occurrence of a repeating task (EXDATE): completing the occurrence
before it moves the due past the excluded date, an excluded date is not one of the rule's COUNT
occurrences (RFC 5545 3.8.5.1), a time-range query over the excluded day does not find the task,
and the app's EXDATE lines come back as it wrote them. Deleting "this occurrence" of an overdue
task lands where a late completion lands it, on the rule's first date that is not past and not
excluded (a date series: from today on, today not being over; a timed one: the first after now);
COUNT and UNTIL end the series where they would have. python-caldav against a real `mesq serve`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from xml.etree import ElementTree as ET
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.conftest import LiveServer
from tests.dav.conftest import Dav, basic, hrefs, phone_of, vtodo
from tests.dav.driver import CaldavClient
from tests.dav.mesq_side import Rest


@pytest.fixture(scope="module")
def phone(mesq: LiveServer) -> Iterator[tuple[CaldavClient, Rest, str]]:
    with phone_of(mesq, "alice") as (caldav, rest):
        space = rest.ok("GET", "/api/toolkit/todo/spaces")["spaces"][0]
        yield caldav, rest, f"{mesq.base_url}/dav/alice/{space['id']}/"


def _vtodo(uid: str, *lines: str) -> str:
    return vtodo(uid, *lines, summary=f"Task {uid}")


def _completed(caldav: CaldavClient, url: str) -> str:
    """The app ticks the task, then reads it again: MeSQ's answer."""
    caldav.ok("load", url=url, slot=url)
    caldav.ok("complete", slot=url)
    return str(caldav.ok("get", url=url)["data"])


def _due(data: str) -> str:
    found = re.search(r"^DUE[^:\r\n]*:(\S+)\r?$", data, re.MULTILINE)
    assert found is not None, data
    return found.group(1)


def test_completing_skips_an_excluded_date(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, _rest, calendar = phone
    exdate = "EXDATE;VALUE=DATE:20371217"
    url = caldav.ok(
        "add", calendar=calendar, ical=_vtodo("weekly", "DUE;VALUE=DATE:20371210", "RRULE:FREQ=WEEKLY", exdate)
    )["url"]
    data = _completed(caldav, url)
    assert _due(data) == "20371224"  # the 17th is excluded
    assert exdate in data  # the app's own line, as it wrote it


def test_several_exdates_per_line_and_lines_with_a_tzid(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, rest, calendar = phone
    lines = (
        "DTSTART;TZID=Europe/Berlin:20371210T090000",
        "DUE;TZID=Europe/Berlin:20371210T090000",
        "RRULE:FREQ=DAILY",
        "EXDATE;TZID=Europe/Berlin:20371211T090000,20371212T090000",
        "EXDATE:20371213T080000Z",
    )
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("daily", *lines))["url"]
    data = _completed(caldav, url)
    assert _due(data) == "20371214T090000"
    assert lines[3] in data and lines[4] in data
    task = rest.titled("Task daily")
    assert task["due"] == {"type": "datetime", "at": "2037-12-14T09:00:00+01:00"}
    # the same skip for a completion over REST
    done = rest.ok("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])["task"]
    assert done["due"] == {"type": "datetime", "at": "2037-12-15T09:00:00+01:00"}


def test_an_excluded_date_is_not_one_of_the_counted_occurrences(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, rest, calendar = phone
    # COUNT=3 from the 10th: the 10th, 11th and 12th, the 11th excluded: two occurrences.
    lines = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE;VALUE=DATE:20371211")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("counted", *lines))["url"]
    assert _due(_completed(caldav, url)) == "20371212"
    data = _completed(caldav, url)
    assert "STATUS:COMPLETED" in data and _due(data) == "20371212"
    assert rest.titled("Task counted")["done"] is True


def _query(mesq: LiveServer, calendar: str, start: str, end: str) -> list[str]:
    """The hrefs a calendar-query REPORT with this VTODO time-range answers (the server's own
    filter: python-caldav's search also filters what it gets back by itself)."""
    token = mesq.token("alice", "todo:read", "Query")
    body = (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>'
        '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO">'
        f'<C:time-range start="{start}" end="{end}"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>'
    )
    answer = httpx.request(
        "REPORT", calendar, content=body, timeout=30,
        headers={"Authorization": basic("alice", token), "Depth": "1", "Content-Type": "application/xml"},
    )  # fmt: skip
    assert answer.status_code == 207, answer.text
    return hrefs(ET.fromstring(answer.content))


def test_a_time_range_over_the_excluded_day_does_not_find_the_task(
    phone: tuple[CaldavClient, Rest, str], mesq: LiveServer
) -> None:
    caldav, _rest, calendar = phone
    lines = (
        "DTSTART;TZID=Europe/Berlin:20380104T090000",
        "DUE;TZID=Europe/Berlin:20380104T100000",
        "RRULE:FREQ=WEEKLY",
        "EXDATE;TZID=Europe/Berlin:20380111T090000",
    )
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("ranged", *lines))["url"]

    def found(start: str, end: str) -> bool:
        return url in [t["url"] for t in caldav.ok("search", calendar=calendar, start=start, end=end)["todos"]]

    assert not found("2038-01-11T00:00:00+00:00", "2038-01-12T00:00:00+00:00")
    assert found("2038-01-18T00:00:00+00:00", "2038-01-19T00:00:00+00:00")
    path = url.removeprefix(mesq.base_url)
    assert path not in _query(mesq, calendar, "20380111T000000Z", "20380112T000000Z")
    assert path in _query(mesq, calendar, "20380118T000000Z", "20380119T000000Z")
    assert path in _query(mesq, calendar, "20380104T000000Z", "20380105T000000Z")


def test_an_all_day_exdate_excludes_that_day_of_a_timed_series(
    phone: tuple[CaldavClient, Rest, str], mesq: LiveServer
) -> None:
    caldav, _rest, calendar = phone
    # RFC 5545 asks EXDATE of the start's type; apps write a date on a timed series: that day.
    lines = ("DUE;TZID=Asia/Shanghai:20371210T230000", "RRULE:FREQ=DAILY", "EXDATE;VALUE=DATE:20371211")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("allday", *lines))["url"]
    assert not path_in(mesq, url, calendar, "20371211T140000Z", "20371211T160000Z")  # the 11th, 23:00 there
    assert path_in(mesq, url, calendar, "20371212T140000Z", "20371212T160000Z")
    assert _due(_completed(caldav, url)) == "20371212T230000"


def path_in(mesq: LiveServer, url: str, calendar: str, start: str, end: str) -> bool:
    return url.removeprefix(mesq.base_url) in _query(mesq, calendar, start, end)


def test_an_exdate_sent_with_the_completion_is_applied_to_it(dav: Dav) -> None:
    # the app excludes the next occurrence and ticks the current one, synced in one PUT
    lines = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=DAILY")
    assert dav.put("one-put.ics", vtodo("one-put", *lines)).status_code == 201
    etag = dav.get("one-put.ics").headers["etag"]
    both = vtodo("one-put", *lines, "EXDATE;VALUE=DATE:20371211", "STATUS:COMPLETED", "COMPLETED:20371210T120000Z")
    assert dav.put("one-put.ics", both, If_Match=etag).status_code == 204
    data = dav.get("one-put.ics").text
    assert "DUE;VALUE=DATE:20371212" in data and "EXDATE;VALUE=DATE:20371211" in data


def _excluded_now(caldav: CaldavClient, url: str, value: str, tzid: str | None = None) -> str:
    """The app deletes "this occurrence", the current one (an EXDATE on the due), then reads the
    task again: MeSQ's answer."""
    caldav.ok("load", url=url, slot=url)
    caldav.ok("exclude", slot=url, value=value, tzid=tzid)
    return str(caldav.ok("get", url=url)["data"])


def test_excluding_the_current_occurrence_moves_the_due_to_the_next(
    phone: tuple[CaldavClient, Rest, str], mesq: LiveServer
) -> None:
    caldav, rest, calendar = phone
    lines = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=WEEKLY", "EXDATE;VALUE=DATE:20371217")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("current", *lines))["url"]
    data = _excluded_now(caldav, url, "2037-12-10")
    assert _due(data) == "20371224"  # the 10th deleted, the 17th excluded before
    task = rest.titled("Task current")
    assert "STATUS:COMPLETED" not in data and task["due"] == {"type": "date", "date": "2037-12-24"}
    assert task["occurrences"] == []  # nothing was done
    assert path_in(mesq, url, calendar, "20371224T000000Z", "20371225T000000Z")
    assert not path_in(mesq, url, calendar, "20371210T000000Z", "20371211T000000Z")
    # a timed series in its own zone, the app's EXDATE at the due's instant
    timed = ("DUE;TZID=Europe/Berlin:20371210T090000", "RRULE:FREQ=DAILY")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("timed-current", *timed))["url"]
    assert _due(_excluded_now(caldav, url, "2037-12-10T09:00:00", "Europe/Berlin")) == "20371211T090000"
    assert rest.titled("Task timed-current")["due"] == {"type": "datetime", "at": "2037-12-11T09:00:00+01:00"}
    # a task that arrives with its own due excluded starts at its next occurrence
    born = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=DAILY", "EXDATE;VALUE=DATE:20371210")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("born-excluded", *born))["url"]
    assert _due(caldav.ok("get", url=url)["data"]) == "20371211"


def test_the_excluded_current_occurrence_is_one_of_the_counted_ones(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, rest, calendar = phone
    # COUNT=3 from the 10th: the 10th (deleted), the 11th and the 12th
    lines = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=DAILY;COUNT=3")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("counted-current", *lines))["url"]
    data = _excluded_now(caldav, url, "2037-12-10")
    assert _due(data) == "20371211"
    # the app sends its copy again (a retry without If-Match, its due still the 10th): the 10th is
    # not counted twice
    token = str(rest.http.headers["Authorization"]).split()[-1]
    stale = _vtodo("counted-current", *lines, "EXDATE;VALUE=DATE:20371210")
    again = httpx.put(
        url, content=stale, timeout=30,
        headers={"Authorization": basic("alice", token), "Content-Type": "text/calendar"},
    )  # fmt: skip
    assert again.status_code == 204, again.text
    assert _due(str(caldav.ok("get", url=url)["data"])) == "20371211"
    assert _due(_completed(caldav, url)) == "20371212"
    finished = _completed(caldav, url)
    assert "STATUS:COMPLETED" in finished and rest.titled("Task counted-current")["done"] is True


def test_excluding_the_last_occurrence_ends_the_series(phone: tuple[CaldavClient, Rest, str]) -> None:
    caldav, rest, calendar = phone
    lines = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=DAILY;UNTIL=20371211", "EXDATE;VALUE=DATE:20371211")
    url = caldav.ok("add", calendar=calendar, ical=_vtodo("last", *lines))["url"]
    data = _excluded_now(caldav, url, "2037-12-10")
    task = rest.titled("Task last")
    # no occurrence is left: the series is over, done for good, with no occurrence recorded as done
    assert "STATUS:COMPLETED" in data and task["done"] is True and task["occurrences"] == []
    assert task["due"] == {"type": "date", "date": "2037-12-10"}


def test_an_app_that_excludes_the_next_occurrence_before_reading_the_task_again_keeps_the_rest(dav: Dav) -> None:
    """COUNT=3 from the 10th: the app deletes the 10th (MeSQ moves the due to the 11th, answering
    no ETag), then, its copy still due the 10th, deletes the 11th too. The 12th is left: MeSQ
    counted the 10th twice and ended the series for good."""
    lines = ("DUE;VALUE=DATE:20371210", "RRULE:FREQ=DAILY;COUNT=3")
    assert dav.put("stale.ics", vtodo("stale", *lines, summary="Stale")).status_code == 201
    first = "EXDATE;VALUE=DATE:20371210"
    assert dav.put("stale.ics", vtodo("stale", *lines, first, summary="Stale")).status_code == 204
    task = dav.rest("GET", "/api/toolkit/todo/query?query=Stale")["items"][0]
    assert task["due"] == {"type": "date", "date": "2037-12-11"}
    both = "EXDATE;VALUE=DATE:20371210,20371211"
    assert dav.put("stale.ics", vtodo("stale", *lines, both, summary="Stale")).status_code == 204
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]
    assert task["done"] is False and task["due"] == {"type": "date", "date": "2037-12-12"}
    assert _due(dav.get("stale.ics").text) == "20371212"
    # the same stale copy again changes nothing; the 12th, completed, is the last
    assert dav.put("stale.ics", vtodo("stale", *lines, both, summary="Stale")).status_code == 204
    again = dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]
    assert again["due"] == {"type": "date", "date": "2037-12-12"}
    done = vtodo("stale", *lines, both, "STATUS:COMPLETED", "COMPLETED:20371212T100000Z", summary="Stale")
    assert dav.put("stale.ics", done.replace("20371210\r\nRRULE", "20371212\r\nRRULE", 1)).status_code == 204
    assert dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]["done"] is True


def _today() -> date:
    """Today where the series steps: neither the task nor the account has a zone, so UTC."""
    return datetime.now(UTC).date()


def _day(offset: int) -> date:
    return _today() + timedelta(days=offset)


def _ical(day: date) -> str:
    return day.strftime("%Y%m%d")


def test_deleting_an_overdue_daily_occurrence_lands_on_today_not_four_days_ago(
    phone: tuple[CaldavClient, Rest, str],
) -> None:
    caldav, rest, calendar = phone
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("overdue-vitamins", *lines, summary="吃维生素"))["url"]
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
        "add", calendar=calendar, ical=vtodo("overdue-weekly", f"DUE;VALUE=DATE:{_ical(start)}", "RRULE:FREQ=WEEKLY")
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
        ical=vtodo(
            "overdue-timed", f"DUE;TZID=Europe/Berlin:{first:%Y%m%dT%H%M%S}", "RRULE:FREQ=DAILY", summary="Stand-up"
        ),
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
    url = caldav.ok("add", calendar=calendar, ical=vtodo("overdue-seven", *lines, summary="Overdue seven"))["url"]
    assert _due(_excluded_now(caldav, url, _day(-5).isoformat())) == _ical(_today())
    assert _due(_completed(caldav, url)) == _ical(_day(1))
    finished = _completed(caldav, url)
    assert "STATUS:COMPLETED" in finished and rest.titled("Overdue seven")["done"] is True
    # COUNT=3 from five days ago: every date is past, nothing is left: done for good, nothing done
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY;COUNT=3")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("overdue-three", *lines, summary="Overdue three"))["url"]
    data = _excluded_now(caldav, url, _day(-5).isoformat())
    task = rest.titled("Overdue three")
    assert "STATUS:COMPLETED" in data and task["done"] is True and task["occurrences"] == []
    # UNTIL two days ago: the same
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", f"RRULE:FREQ=DAILY;UNTIL={_ical(_day(-2))}")
    url = caldav.ok("add", calendar=calendar, ical=vtodo("overdue-until", *lines, summary="Overdue until"))["url"]
    data = _excluded_now(caldav, url, _day(-5).isoformat())
    assert "STATUS:COMPLETED" in data and rest.titled("Overdue until")["done"] is True


def test_a_task_that_arrives_with_its_overdue_due_excluded_starts_today(dav: Dav) -> None:
    born = (f"DUE;VALUE=DATE:{_ical(_day(-3))}", "RRULE:FREQ=DAILY", f"EXDATE;VALUE=DATE:{_ical(_day(-3))}")
    assert dav.put("overdue-born.ics", vtodo("overdue-born", *born)).status_code == 201
    assert _due(dav.get("overdue-born.ics").text) == _ical(_today())


def test_the_apps_stale_copies_of_an_overdue_skip_count_each_date_once(dav: Dav) -> None:
    """COUNT=8 from five days ago. The app deletes that occurrence (MeSQ moves the due to today),
    sends the same copy again (nothing changes), then, its copy still due five days ago, deletes
    today's too: tomorrow is left, and the day after (COUNT's 8th date) after it."""
    lines = (f"DUE;VALUE=DATE:{_ical(_day(-5))}", "RRULE:FREQ=DAILY;COUNT=8")
    assert dav.put("overdue-stale.ics", vtodo("overdue-stale", *lines, summary="Overdue stale")).status_code == 201
    first = f"EXDATE;VALUE=DATE:{_ical(_day(-5))}"
    for _ in range(2):
        assert (
            dav.put("overdue-stale.ics", vtodo("overdue-stale", *lines, first, summary="Overdue stale")).status_code
            == 204
        )
        task = dav.rest("GET", "/api/toolkit/todo/query?query=Overdue%20stale")["items"][0]
        assert task["due"] == {"type": "date", "date": _today().isoformat()}
    both = f"EXDATE;VALUE=DATE:{_ical(_day(-5))},{_ical(_today())}"
    assert (
        dav.put("overdue-stale.ics", vtodo("overdue-stale", *lines, both, summary="Overdue stale")).status_code == 204
    )
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]
    assert task["done"] is False and task["due"] == {"type": "date", "date": _day(1).isoformat()}
    assert dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])[
        "task"
    ]["due"] == {"type": "date", "date": _day(2).isoformat()}
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{task['id']}")["task"]
    done = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])
    assert done["task"]["done"] is True
