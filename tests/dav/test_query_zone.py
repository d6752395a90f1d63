"""A calendar-query `time-range` reads a date (a date-only DUE) and a floating time in the
calendar's zone (RFC 4791 §9.9): the query's own `CALDAV:timezone` when it sends one, else the
user's zone (Settings; UTC while none is set), which the collection advertises as
`CALDAV:calendar-timezone`. A phone asks for its local day as UTC instants: in Kiritimati
(UTC+14) 7 December is 6 Dec 10:00Z to 7 Dec 10:00Z, and a task dated 7 December is in it and in
no other day's. python-caldav's `search` and raw REPORTs against a real `mesq serve`."""

from __future__ import annotations

import time as clock
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta
from xml.etree import ElementTree as ET
from zoneinfo import ZoneInfo

import httpx
import pytest
from icalendar import Calendar

from tests.conftest import LiveServer
from tests.dav.conftest import NS, Dav, basic, hrefs, prop, vtodo
from tests.dav.driver import CaldavClient

#: Per zone: a floating time on 7 December that, read as UTC, falls outside that local day, and
#: a UTC time inside it.
CASES = {
    "Asia/Shanghai": ("20261207T180000", "20261207T020000Z"),  # 18:00 there is 10:00Z
    "Pacific/Kiritimati": ("20261207T150000", "20261206T200000Z"),  # 15:00 there is 01:00Z
    "America/Los_Angeles": ("20261207T030000", "20261207T200000Z"),  # 03:00 there is 11:00Z
}


def _vtodo(uid: str, *lines: str) -> str:
    return vtodo(uid, *lines, summary=f"Task {uid}")


def local_day(zone: str, day: date) -> tuple[datetime, datetime]:
    """The day in `zone` as the UTC instants a phone there sends."""
    start = datetime.combine(day, time(0), ZoneInfo(zone))
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


class Phone:
    def __init__(self, mesq: LiveServer, username: str, zone: str) -> None:
        self.token = mesq.account(username, "todo:read,todo:write", "Phone").token
        assert mesq.cli("user", "set-timezone", username, zone).returncode == 0
        self.mesq, self.username, self.zone = mesq, username, zone
        self.client = CaldavClient(f"{mesq.base_url}/dav/", username, self.token)
        space = httpx.get(
            f"{mesq.base_url}/api/toolkit/todo/spaces", headers={"Authorization": f"Bearer {self.token}"}, timeout=30
        ).json()["data"]["spaces"][0]
        self.calendar = f"{mesq.base_url}/dav/{username}/{space['id']}/"
        self.urls: dict[str, str] = {}

    def add(self, name: str, *lines: str) -> None:
        self.urls[name] = self.client.ok("add", calendar=self.calendar, ical=_vtodo(name, *lines))["url"]

    def searched(self, day: date) -> set[str]:
        """What python-caldav's search(todo=True, start, end) finds for the phone's local day, given
        as the phone has it (local times; the library sends them as UTC instants)."""
        start = datetime.combine(day, time(0), ZoneInfo(self.zone))
        end = start + timedelta(days=1)
        found = self.client.ok("search", calendar=self.calendar, start=start.isoformat(), end=end.isoformat())
        return {name for name, url in self.urls.items() if url in {t["url"] for t in found["todos"]}}

    def queried(self, day: date) -> set[str]:
        """What the server's own calendar-query answers for the local day (python-caldav's search
        also filters by itself)."""
        start, end = local_day(self.zone, day)
        body = (
            '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>'
            '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO">'
            f'<C:time-range start="{start:%Y%m%dT%H%M%SZ}" end="{end:%Y%m%dT%H%M%SZ}"/>'
            "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
        )
        sent = {"Authorization": basic(self.username, self.token), "Depth": "1", "Content-Type": "application/xml"}
        answer = httpx.request("REPORT", self.calendar, content=body, timeout=30, headers=sent)
        assert answer.status_code == 207, answer.text
        paths = set(hrefs(ET.fromstring(answer.content)))
        return {name for name, url in self.urls.items() if url.removeprefix(self.mesq.base_url) in paths}


@pytest.fixture(scope="module")
def phones(mesq: LiveServer) -> Iterator[dict[str, Phone]]:
    made: dict[str, Phone] = {}
    for index, (zone, (floating, utc)) in enumerate(CASES.items()):
        phone = made[zone] = Phone(mesq, f"user{index}", zone)
        phone.add("dated", "DUE;VALUE=DATE:20261207")
        phone.add("floating", f"DUE:{floating}")
        phone.add("utc", f"DUE:{utc}")
        phone.add("started", "DTSTART;VALUE=DATE:20261207")
        phone.add("daily", "DUE;VALUE=DATE:20261201", "RRULE:FREQ=DAILY;UNTIL=20261210", "EXDATE;VALUE=DATE:20261207")
        phone.add("floating-daily", f"DUE:{floating[:6]}01T{floating[9:]}", "RRULE:FREQ=DAILY", f"EXDATE:{floating}")
    yield made
    for phone in made.values():
        phone.client.close()


@pytest.mark.parametrize("zone", list(CASES))
def test_the_users_local_day_holds_its_dated_floating_and_utc_tasks(phones: dict[str, Phone], zone: str) -> None:
    phone = phones[zone]
    seventh = {"dated", "floating", "utc", "started"}
    assert phone.queried(date(2026, 12, 7)) == seventh  # the series' 7th is excluded, floating or dated
    assert phone.searched(date(2026, 12, 7)) == seventh
    assert phone.queried(date(2026, 12, 6)) == {"daily", "floating-daily"}
    assert phone.queried(date(2026, 12, 8)) == {"daily", "floating-daily"}
    assert phone.searched(date(2026, 12, 8)) == {"daily", "floating-daily"}
    assert phone.queried(date(2026, 12, 11)) == {"floating-daily"}  # the dated series ended on the 10th


def _query_in(zone_text: str, start: str, end: str) -> str:
    return (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>'
        '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO">'
        f'<C:time-range start="{start}" end="{end}"/></C:comp-filter></C:comp-filter></C:filter>'
        f"{zone_text}</C:calendar-query>"
    )


def _vtimezone(zone: str) -> str:
    from icalendar import Timezone

    calendar = Calendar()
    calendar.add("prodid", "-//Test//EN")
    calendar.add("version", "2.0")
    calendar.add_component(Timezone.from_tzid(zone))
    text = calendar.to_ical().decode("utf-8")
    return f"<C:timezone>{text.replace('&', '&amp;').replace('<', '&lt;')}</C:timezone>"


def test_the_querys_own_timezone_wins_over_the_users(make_dav: Callable[..., Dav]) -> None:
    """A phone in Los Angeles of a user whose zone is Shanghai sends its zone with the query."""
    dav = make_dav()
    assert dav.rest("PUT", "/api/toolkit/todo/context", timeZone="Asia/Shanghai")["timeZone"] == "Asia/Shanghai"
    dav.put("dated.ics", vtodo("dated", "DUE;VALUE=DATE:20261207"))
    # due on the 7th: by its end, 7 Dec 16:00Z in Shanghai, 8 Dec 08:00Z in Los Angeles
    la_seventh = ("20261207T170000Z", "20261208T080000Z")  # from 09:00 there to the day's end
    shanghai_seventh = ("20261206T160000Z", "20261207T160000Z")
    assert hrefs(dav.report(dav.calendar, _query_in("", *shanghai_seventh))) == [dav.calendar + "dated.ics"]
    assert hrefs(dav.report(dav.calendar, _query_in("", *la_seventh))) == []  # Shanghai's 8th
    in_la = _vtimezone("America/Los_Angeles")
    assert hrefs(dav.report(dav.calendar, _query_in(in_la, *la_seventh))) == [dav.calendar + "dated.ics"]
    assert hrefs(dav.report(dav.calendar, _query_in(in_la, *shanghai_seventh))) == []
    # a zone the tz database lacks, defined by the query alone (Outlook-style name), is read as defined
    own = _vtimezone("America/Los_Angeles").replace("America/Los_Angeles", "Pacific Standard Time (mine)")
    assert hrefs(dav.report(dav.calendar, _query_in(own, *la_seventh))) == [dav.calendar + "dated.ics"]
    for bad in ("<C:timezone>not a calendar</C:timezone>", "<C:timezone>BEGIN:VCALENDAR\r\nEND:VCALENDAR</C:timezone>"):
        refused = dav.request("REPORT", dav.calendar, _query_in(bad, *la_seventh), Depth="1")
        assert refused.status_code == 400 and "valid-calendar-data" in refused.text and "timezone" in refused.text


def test_a_zone_of_the_querys_own_that_would_cost_minutes_to_read_is_refused(dav: Dav) -> None:
    """dateutil reads a VTIMEZONE of the client's own by walking each rule from its DTSTART: two
    hourly rules from 1601 took 20 s of CPU for one time of the query (and held millions of
    datetimes), for each time it read. A real zone's rules are yearly, on one month and weekday."""
    dav.put("dated.ics", vtodo("dated", "DUE;VALUE=DATE:20261207"))
    window = ("20261206T000000Z", "20261208T000000Z")

    def zone(*rules: str) -> str:
        parts = "".join(
            f"BEGIN:{kind}\r\nDTSTART:{start}\r\nRRULE:{rule}\r\nTZOFFSETFROM:{offsets[0]}\r\n"
            f"TZOFFSETTO:{offsets[1]}\r\nEND:{kind}\r\n"
            for kind, start, rule, offsets in zip(
                ("STANDARD", "DAYLIGHT"),
                ("16010101T000000", "16010101T003000"),
                rules,
                (("+0100", "+0000"), ("+0000", "+0100")),
                strict=True,
            )
        )
        vtimezone = f"BEGIN:VTIMEZONE\r\nTZID:Mine\r\n{parts}END:VTIMEZONE\r\n"
        text = f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n{vtimezone}END:VCALENDAR\r\n"
        return f"<C:timezone>{text}</C:timezone>"

    for rules in (("FREQ=HOURLY", "FREQ=HOURLY"), ("FREQ=YEARLY;BYHOUR=0,1,2,3", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU")):
        started = clock.monotonic()
        refused = dav.request("REPORT", dav.calendar, _query_in(zone(*rules), *window), Depth="1")
        assert refused.status_code == 400 and "valid-calendar-data" in refused.text and "RRULE" in refused.text
        assert clock.monotonic() - started < 5
    outlook = zone("FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU")  # as Outlook writes one
    assert hrefs(dav.report(dav.calendar, _query_in(outlook, *window))) == [dav.calendar + "dated.ics"]


def test_the_collection_advertises_the_users_zone(make_dav: Callable[..., Dav]) -> None:
    dav = make_dav()
    asked = (
        '<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
        "<D:prop><C:calendar-timezone/></D:prop></D:propfind>"
    )

    def advertised() -> str:
        found = prop(dav.propfind(dav.calendar, asked), dav.calendar, "C:calendar-timezone")
        assert found is not None and found.text
        zones = [c for c in Calendar.from_ical(found.text).subcomponents if c.name == "VTIMEZONE"]
        assert len(zones) == 1
        return str(zones[0]["TZID"])

    assert advertised() == "UTC"  # none set: dates and floating times are read as UTC
    dav.rest("PUT", "/api/toolkit/todo/context", timeZone="Pacific/Kiritimati")
    assert advertised() == "Pacific/Kiritimati"
    allprop = '<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>'
    everything = dav.request("PROPFIND", dav.calendar, allprop, Depth="0")
    assert everything.status_code == 207 and "calendar-timezone" not in everything.text  # RFC 4791 §5.2.2
    assert NS["C"] in everything.text


def test_a_query_may_name_its_zone_by_timezone_id(make_dav: Callable[..., Dav]) -> None:
    """RFC 7809 §5.3: `CALDAV:timezone-id` names the zone instead of sending its VTIMEZONE; a
    name the server does not know is 400 `CALDAV:valid-timezone`, never read as the user's zone."""
    dav = make_dav()
    assert dav.rest("PUT", "/api/toolkit/todo/context", timeZone="Asia/Shanghai")["timeZone"] == "Asia/Shanghai"
    dav.put("dated.ics", vtodo("dated", "DUE;VALUE=DATE:20261207"))
    la_seventh = ("20261207T170000Z", "20261208T080000Z")
    shanghai_seventh = ("20261206T160000Z", "20261207T160000Z")
    in_la = "<C:timezone-id> America/Los_Angeles </C:timezone-id>"
    assert hrefs(dav.report(dav.calendar, _query_in(in_la, *la_seventh))) == [dav.calendar + "dated.ics"]
    assert hrefs(dav.report(dav.calendar, _query_in(in_la, *shanghai_seventh))) == []
    for bad in ("Mars/Olympus_Mons", "localtime", "", "../../etc/passwd"):
        query = _query_in(f"<C:timezone-id>{bad}</C:timezone-id>", *shanghai_seventh)
        refused = dav.request("REPORT", dav.calendar, query, Depth="1")
        assert refused.status_code == 400, (bad, refused.text)
        assert "valid-timezone" in refused.text and "timezone-id" in refused.text
    both = _query_in(_vtimezone("America/Los_Angeles") + in_la, *la_seventh)
    refused = dav.request("REPORT", dav.calendar, both, Depth="1")
    assert refused.status_code == 400 and "not both" in refused.text
