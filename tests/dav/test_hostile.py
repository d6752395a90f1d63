"""Hostile CalDAV input: each request gets a 4xx with a one-line reason, and the user's partition
is byte-for-byte what it was (nothing half-written)."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest

from mesq.dav.ical_in import MAX_OBJECT_BYTES
from mesq.wiring.services import Services
from tests.dav.conftest import Dav, snapshot, vtodo

BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
    '<D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&lol3;</D:displayname></D:prop></D:propfind>'
)
EXTERNAL_ENTITY = (
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    '<D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&x;</D:displayname></D:prop></D:propfind>'
)
ALARM = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM"
VEVENT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//T//T//EN\r\nBEGIN:VEVENT\r\nUID:e\r\nDTSTAMP:20261201T000000Z\r\n"
    "DTSTART:20261201T090000Z\r\nSUMMARY:An event\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def _alarms(count: int) -> str:
    return vtodo("alarms", "DUE:20261215T020000Z", *([ALARM] * count))


def _two_uids() -> str:
    return vtodo("a").replace("END:VCALENDAR", "BEGIN:VTODO\r\nUID:b\r\nSUMMARY:b\r\nEND:VTODO\r\nEND:VCALENDAR")


PUTS: dict[str, tuple[Callable[[], bytes | str], int]] = {
    "malformed iCalendar": (lambda: "BEGIN:VCALENDAR\r\nthis is : not ; iCalendar\r\n", 400),
    "not iCalendar at all": (lambda: '{"title": "json"}', 400),
    "a huge body": (lambda: vtodo("big", "X-PAD:" + "x" * MAX_OBJECT_BYTES), 413),
    "ten thousand VALARMs": (lambda: _alarms(10_000), 413),
    "six VALARMs": (lambda: _alarms(6), 400),
    "a thousand components": (lambda: vtodo("many", *(["BEGIN:X-THING\r\nEND:X-THING"] * 1000)), 400),
    "a VEVENT": (lambda: VEVENT, 403),
    "not UTF-8": (lambda: vtodo("latin", summary="caf\xe9").encode("latin-1"), 400),
    "two UIDs in one object": (_two_uids, 400),
    "no UID": (lambda: vtodo("x").replace("UID:x\r\n", ""), 400),
    "no VTODO": (lambda: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//T//T//EN\r\nEND:VCALENDAR\r\n", 400),
    "PRIORITY 99": (lambda: vtodo("p", "PRIORITY:99"), 400),
    "an hourly RRULE": (lambda: vtodo("h", "DUE:20261215T020000Z", "RRULE:FREQ=HOURLY"), 400),
    "an RRULE without a due": (lambda: vtodo("r", "RRULE:FREQ=DAILY"), 400),
    "two RRULEs": (lambda: vtodo("rr", "DUE:20261215T020000Z", "RRULE:FREQ=DAILY", "RRULE:FREQ=WEEKLY"), 400),
    "BYMONTHDAY=0": (lambda: vtodo("md0", "DUE:20261215T020000Z", "RRULE:FREQ=MONTHLY;BYMONTHDAY=0"), 400),
    "BYMONTHDAY=32": (lambda: vtodo("md32", "DUE:20261215T020000Z", "RRULE:FREQ=MONTHLY;BYMONTHDAY=1,32"), 400),
    "BYMONTHDAY=-32": (lambda: vtodo("md-32", "DUE:20261215T020000Z", "RRULE:FREQ=MONTHLY;BYMONTHDAY=-32"), 400),
    "a DESCRIPTION over 50,000 characters": (lambda: vtodo("d", "DESCRIPTION:" + "y" * 50_001), 400),
    "40 KB of X- properties": (lambda: vtodo("x", *(f"X-PAD-{i}:" + "z" * 1000 for i in range(40))), 400),
    "an alarm without a trigger": (lambda: vtodo("t", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM"), 400),
    "a bad DUE": (lambda: vtodo("due", "DUE:2026-13-45"), 400),
    "two SUMMARY lines": (lambda: vtodo("s", "SUMMARY:two"), 400),
    "two DUE lines": (lambda: vtodo("d", "DUE:20261201T100000Z", "DUE:20261202T100000Z"), 400),
    "a TZID without a VTIMEZONE": (lambda: vtodo("tz", "DUE;TZID=Mars/Olympus:20261210T100000"), 400),
    "a JSON content type": (lambda: vtodo("json"), 415),
}


def _one_line(answer: httpx.Response) -> None:
    text = answer.text.strip()
    if answer.headers["content-type"].startswith("text/plain"):
        assert "\n" not in text and 0 < len(text) <= 300, text
    else:  # a CalDAV precondition: the element and the one-line reason
        reason = text.split("<M:reason>")[1].split("</M:reason>")[0]
        assert "\n" not in reason and 0 < len(reason) <= 300, text
    assert "Traceback" not in text and 'File "' not in text


@pytest.mark.parametrize("case", sorted(PUTS))
def test_a_hostile_put_is_refused_and_nothing_is_written(case: str, dav: Dav, services: Services) -> None:
    dav.put("seed.ics", vtodo("seed"))
    before = snapshot(services, dav.user_id)
    make, status = PUTS[case]
    content_type = "application/json" if case == "a JSON content type" else "text/calendar"
    answer = dav.request("PUT", dav.calendar + "hostile.ics", make(), content_type=content_type)
    assert answer.status_code == status, answer.text[:500]
    _one_line(answer)
    replaced = dav.request("PUT", dav.calendar + "seed.ics", make(), content_type=content_type)
    assert replaced.status_code == status
    assert snapshot(services, dav.user_id) == before


XML: dict[str, tuple[str, str, int]] = {
    "billion laughs": ("PROPFIND", BILLION_LAUGHS, 400),
    "an external entity": ("REPORT", EXTERNAL_ENTITY, 400),
    "not XML": ("PROPFIND", "<D:propfind xmlns:D='DAV:'><D:prop>", 400),
    "twenty thousand elements": ("PROPFIND", "<D:propfind xmlns:D='DAV:'>" + "<x/>" * 20_001 + "</D:propfind>", 400),
    "an unknown report": ("REPORT", "<D:expand-property xmlns:D='DAV:'/>", 403),
    "a filter with a bad time": (
        "REPORT",
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><C:filter>'
        '<C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"><C:time-range start="yesterday"/>'
        "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>",
        400,
    ),
    "a made-up sync token": (
        "REPORT",
        '<D:sync-collection xmlns:D="DAV:"><D:sync-token>http://elsewhere/1</D:sync-token></D:sync-collection>',
        403,
    ),
    "a sync token from the future": (
        "REPORT",
        '<D:sync-collection xmlns:D="DAV:"><D:sync-token>urn:x-mesq:sync:99999999999999999</D:sync-token>'
        "</D:sync-collection>",
        403,
    ),
    "a body over 512 KiB": ("PROPFIND", "<D:propfind xmlns:D='DAV:'>" + " " * (600 * 1024) + "</D:propfind>", 413),
}


@pytest.mark.parametrize("case", sorted(XML))
def test_hostile_xml_is_refused_and_nothing_is_written(case: str, dav: Dav, services: Services) -> None:
    dav.put("seed.ics", vtodo("seed"))
    before = snapshot(services, dav.user_id)
    method, body, status = XML[case]
    answer = dav.request(method, dav.calendar, body, Depth="1", content_type="application/xml")
    assert answer.status_code == status, answer.text[:500]
    _one_line(answer)
    if "sync token" in case:
        assert "valid-sync-token" in answer.text  # RFC 6578 3.2: the client syncs afresh
    assert snapshot(services, dav.user_id) == before


def test_hostile_paths_and_headers(dav: Dav, services: Services) -> None:
    before = snapshot(services, dav.user_id)
    cases = [
        ("PUT", dav.calendar + "bad%00name.ics", 400),  # a control character in the name
        ("PUT", f"/dav/{dav.username}/no-such-space/x.ics", 404),
        ("PUT", dav.calendar, 405),
        ("DELETE", dav.calendar, 403),
        ("DELETE", dav.calendar + "missing.ics", 404),
        ("MKCALENDAR", f"/dav/{dav.username}/new/", 403),
        ("PROPPATCH", dav.calendar, 400),  # no propertyupdate body
        ("GET", f"/dav/{dav.username}/a/b/c/d", 404),
        ("PROPFIND", "/dav/somebody-else/", 403),
    ]
    for method, path, status in cases:
        answer = dav.request(method, path, vtodo("p") if method == "PUT" else None, content_type="text/calendar")
        assert answer.status_code == status, (method, path, answer.status_code, answer.text)
        _one_line(answer)
    garbage = dav.put("x.ics", vtodo("x"), If_Match='"not-an-etag"')
    assert garbage.status_code == 412
    depth = dav.request("PROPFIND", dav.calendar, Depth="7")
    assert depth.status_code == 400
    infinite = dav.request("PROPFIND", f"/dav/{dav.username}/", Depth="infinity")
    assert infinite.status_code == 403 and "propfind-finite-depth" in infinite.text
    assert snapshot(services, dav.user_id) == before


def test_a_month_day_rfc_5545_has_not_is_invalid_calendar_data(dav: Dav) -> None:
    """RFC 5545 3.3.10: BYMONTHDAY is 1 to 31 or -31 to -1. dateutil drops a 0, so
    `BYMONTHDAY=0` was taken as a rule on the due's own day; it is the CalDAV precondition every
    other invalid task gets, naming the part. -31 and 31 stay valid."""
    answer = dav.request(
        "PUT", dav.calendar + "md0.ics", vtodo("md0", "DUE:20261215T020000Z", "RRULE:FREQ=MONTHLY;BYMONTHDAY=0")
    )
    assert answer.status_code == 400 and "valid-calendar-data" in answer.text, answer.text
    assert "BYMONTHDAY" in answer.text and "-31" in answer.text, answer.text
    kept = dav.request(
        "PUT", dav.calendar + "md31.ics", vtodo("md31", "DUE:20261231T020000Z", "RRULE:FREQ=MONTHLY;BYMONTHDAY=-31,31")
    )
    assert kept.status_code == 201, kept.text


def test_a_resource_name_that_is_not_utf8_is_refused(dav: Dav, services: Services) -> None:
    """`caf%E9.ics` (Latin-1 bytes) was decoded to `caf\ufffd.ics` and stored under it, so the task
    came back under another href (`caf%EF%BF%BD.ics`) and the client's own was never found: it is
    refused with one line, nothing written. Its UTF-8 spelling round-trips exactly."""
    dav.put("seed.ics", vtodo("seed"))
    before = snapshot(services, dav.user_id)
    for name in ("caf%E9.ics", "%FF%FE.ics", "caf%EF%BF%BD.ics"):
        answer = dav.request("PUT", dav.calendar + name, vtodo("latin"), content_type="text/calendar")
        assert answer.status_code == 400, (name, answer.text)
        assert "UTF-8" in answer.text, answer.text
        _one_line(answer)
        assert dav.request("GET", dav.calendar + name).status_code == 400
    assert snapshot(services, dav.user_id) == before
    made = dav.request("PUT", dav.calendar + "caf%C3%A9.ics", vtodo("utf8"), content_type="text/calendar")
    assert made.status_code == 201, made.text
    listed = dav.request("PROPFIND", dav.calendar, Depth="1", content_type="application/xml")
    assert f"{dav.calendar}caf%C3%A9.ics</" in listed.text, listed.text


def _zoned_task(rules: tuple[str, str], start: str = "16010101") -> str:
    parts = "".join(
        f"BEGIN:{kind}\r\nDTSTART:{start}T0{hour}0000\r\nRRULE:{rule}\r\nTZOFFSETFROM:{offsets[0]}\r\n"
        f"TZOFFSETTO:{offsets[1]}\r\nEND:{kind}\r\n"
        for kind, hour, rule, offsets in zip(
            ("STANDARD", "DAYLIGHT"), (3, 2), rules, (("+0200", "+0100"), ("+0100", "+0200")), strict=True
        )
    )
    zone = f"BEGIN:VTIMEZONE\r\nTZID:My Office\r\n{parts}END:VTIMEZONE\r\n"
    task = vtodo("zoned", "DUE;TZID=My Office:20261207T090000")
    return task.replace("BEGIN:VTODO", zone + "BEGIN:VTODO", 1)


def test_a_vtimezone_whose_rules_cost_minutes_to_read_is_refused_unwritten(dav: Dav, services: Services) -> None:
    """A zone the tz database lacks is read by walking its rules from their DTSTART for each time
    read: two hourly rules from 1601 held a PUT for 20 s of CPU. Real zones' rules are yearly."""
    before = snapshot(services, dav.user_id)
    for rules, start in (
        (("FREQ=HOURLY", "FREQ=HOURLY"), "16010101"),
        (("FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;BYHOUR=1,2,3", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"), "16010101"),
    ):
        started = time.monotonic()
        refused = dav.put("zoned.ics", _zoned_task(rules, start))
        assert refused.status_code == 400 and "valid-calendar-data" in refused.text and "My Office" in refused.text
        assert time.monotonic() - started < 5
    # sixteen yearly rules from year 1: eight times what a zone of two costs to read
    many = "".join(
        f"BEGIN:STANDARD\r\nDTSTART:00010101T0{hour % 10}0000\r\n"
        f"RRULE:FREQ=YEARLY;BYMONTH={hour % 12 + 1};BYDAY=-1SU\r\n"
        "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\n"
        for hour in range(16)
    )
    task = vtodo("zoned", "DUE;TZID=My Office:20261207T090000")
    refused = dav.put(
        "zoned.ics",
        task.replace("BEGIN:VTODO", f"BEGIN:VTIMEZONE\r\nTZID:My Office\r\n{many}END:VTIMEZONE\r\nBEGIN:VTODO", 1),
    )
    assert refused.status_code == 400 and "years" in refused.text
    assert snapshot(services, dav.user_id) == before
    # as eM Client writes its zones (yearly, from year 1), then Outlook (from 1601)
    yearly = ("FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU")
    assert dav.put("zoned.ics", _zoned_task(yearly, "00010101")).status_code == 201
    assert dav.put("zoned.ics", _zoned_task(yearly, "16010101")).status_code == 204
    assert "TZID:My Office" in dav.get("zoned.ics").text
