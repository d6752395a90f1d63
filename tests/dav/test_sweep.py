"""What an outside sweep of the CalDAV edge found, each against the local app as the apps send
it: a line folded inside a UTF-8 character, a floating DTSTART once MeSQ moved the due (the
whole calendar answered 500), an app's DTSTART dropped when MeSQ set or cleared the due, an
UNTIL of another kind than the due, a VTIMEZONE of one account read into another's tasks, and
the inbox and an untitled task named in English for a Chinese user; the ICS feed's name and
control characters."""

from __future__ import annotations

from collections.abc import Callable

from icalendar import Calendar

from mesq.auth.user_zone import set_zone
from mesq.auth.users import set_setting
from mesq.calendar_feed.ics import feed
from mesq.calendar_feed.source import dated_records
from mesq.web.activity.times import local
from tests.dav.conftest import Dav, basic, vtodo


def _task(dav: Dav, name: str) -> dict:
    etag = dav.get(name).headers["etag"].strip('"')
    return dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]


def _change(dav: Dav, name: str, **fields: object) -> None:
    task = _task(dav, name)
    dav.rest("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", expectedRevision=task["revision"], **fields)


def _vtodo_lines(dav: Dav, name: str) -> list[str]:
    answer = dav.get(name)
    assert answer.status_code == 200, answer.text
    text = answer.text.replace("\r\n ", "")
    return text.split("BEGIN:VTODO")[1].split("END:VTODO")[0].split("\r\n")


def test_a_line_folded_inside_a_utf8_character_is_read_whole(dav: Dav) -> None:
    title = "买牛奶和面包，记得去超市看看有没有新鲜的草莓，还有给妈妈打电话问问周末的安排"
    line = f"SUMMARY:{title}".encode()
    folded = b"\r\n ".join(line[i : i + 75] for i in range(0, len(line), 75))
    body = vtodo("fold", "X-MARK:1", summary="@@").encode().replace(b"SUMMARY:@@", folded)
    try:
        body.decode("utf-8")
        raise AssertionError("the fold should cut a character")
    except UnicodeDecodeError:
        pass
    answer = dav.put("fold.ics", body)  # type: ignore[arg-type]
    assert answer.status_code == 201, answer.text
    assert _task(dav, "fold.ics")["title"] == title


def test_a_floating_dtstart_survives_a_due_changed_in_mesq(dav: Dav) -> None:
    set_zone(dav.services.items, dav.user_id, "Asia/Shanghai")
    assert dav.put("f.ics", vtodo("f", "DTSTART:20261214T090000", "DUE:20261215T090000")).status_code == 201
    _change(dav, "f.ics", due={"type": "datetime", "at": "2026-12-20T10:00:00+08:00"})
    lines = _vtodo_lines(dav, "f.ics")
    assert "DTSTART:20261219T100000" in lines  # floating, one day before the due as the app had it
    listing = dav.request("PROPFIND", dav.calendar, None, Depth="1")
    assert listing.status_code == 207
    query = (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/>'
        '</D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>'
    )
    assert dav.request("REPORT", dav.calendar, query, Depth="1").status_code == 207


def test_a_recurring_task_with_a_floating_start_completes(dav: Dav) -> None:
    lines = ("DTSTART:20371214T090000", "DUE:20371214T100000", "RRULE:FREQ=WEEKLY")
    assert dav.put("r.ics", vtodo("r", *lines)).status_code == 201
    task = _task(dav, "r.ics")
    dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])
    assert "DTSTART:20371221T090000" in _vtodo_lines(dav, "r.ics")


def test_the_apps_start_date_stays_when_mesq_sets_or_clears_the_due(dav: Dav) -> None:
    assert dav.put("s.ics", vtodo("s", "DTSTART;VALUE=DATE:20261214")).status_code == 201
    _change(dav, "s.ics", due={"type": "date", "date": "2026-12-20"})
    lines = _vtodo_lines(dav, "s.ics")
    assert "DTSTART;VALUE=DATE:20261214" in lines and "DUE;VALUE=DATE:20261220" in lines
    _change(dav, "s.ics", due=None)
    lines = _vtodo_lines(dav, "s.ics")
    assert "DTSTART;VALUE=DATE:20261214" in lines and not any(line.startswith("DUE") for line in lines)


def test_an_until_of_another_kind_than_the_due_is_read_as_the_due(dav: Dav) -> None:
    zoned = vtodo("u1", "DUE;TZID=Asia/Shanghai:20261215T090000", "RRULE:FREQ=DAILY;UNTIL=20261220")
    assert dav.put("u1.ics", zoned).status_code == 201, dav.put("u1.ics", zoned).text
    assert _task(dav, "u1.ics")["recurrence"] == "FREQ=DAILY;UNTIL=20261220T155959Z"
    assert "RRULE:FREQ=DAILY;UNTIL=20261220" in _vtodo_lines(dav, "u1.ics")  # the app's own line
    floating = vtodo("u2", "DUE;TZID=Asia/Shanghai:20261215T090000", "RRULE:FREQ=DAILY;UNTIL=20261220T090000")
    assert dav.put("u2.ics", floating).status_code == 201
    assert _task(dav, "u2.ics")["recurrence"] == "FREQ=DAILY;UNTIL=20261220T010000Z"
    on_date = vtodo("u3", "DUE;VALUE=DATE:20261215", "RRULE:FREQ=DAILY;UNTIL=20261220T000000Z")
    assert dav.put("u3.ics", on_date).status_code == 201
    assert _task(dav, "u3.ics")["recurrence"] == "FREQ=DAILY;UNTIL=20261220"


def _zone(offset: str) -> str:
    return (
        "BEGIN:VTIMEZONE\r\nTZID:Work\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
        f"TZOFFSETFROM:{offset}\r\nTZOFFSETTO:{offset}\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
    )


def test_a_vtimezone_of_one_account_never_reads_anothers_times(make_dav: Callable[..., Dav]) -> None:
    bob, alice = make_dav(), make_dav()
    due = "DUE;TZID=Work:20261215T090000"
    bob_body = vtodo("w", due).replace("BEGIN:VTODO", _zone("-0800") + "BEGIN:VTODO")
    alice_body = vtodo("w", due).replace("BEGIN:VTODO", _zone("+0530") + "BEGIN:VTODO")
    assert bob.put("w.ics", bob_body).status_code == 201
    assert alice.put("w.ics", alice_body).status_code == 201
    assert _task(bob, "w.ics")["due"]["at"] == "2026-12-15T09:00:00-08:00"
    assert _task(alice, "w.ics")["due"]["at"] == "2026-12-15T09:00:00+05:30"
    _change(alice, "w.ics", title="changed in MeSQ")  # rendered from the record now, not the bytes
    calendar = Calendar.from_ical(alice.get("w.ics").text)
    zones = [c for c in calendar.walk("VTIMEZONE") if str(c["TZID"]) == "Work"]
    assert len(zones) == 1 and "+0530" in zones[0].to_ical().decode()


def test_a_chinese_users_inbox_and_untitled_task_are_named_in_chinese(dav: Dav) -> None:
    set_setting(dav.services.items, dav.user_id, "language", "zh")
    root = dav.propfind(
        f"/dav/{dav.username}/", '<D:propfind xmlns:D="DAV:"><D:prop><D:displayname/></D:prop></D:propfind>', "1"
    )
    names = [str(e.text) for e in root.iter("{DAV:}displayname")]
    assert "收件箱" in names and "Inbox" not in names
    assert dav.put("t.ics", vtodo("t", summary="")).status_code == 201
    assert _task(dav, "t.ics")["title"] == "（无标题）"
    assert "SUMMARY:" in _vtodo_lines(dav, "t.ics")  # the app keeps its own empty title


def test_the_feed_is_named_in_the_persons_language_and_carries_no_control_characters() -> None:
    record = {
        "id": "x", "title": "t", "notes": "a\x00b\x1bc\x7f", "due": {"type": "date", "date": "2026-12-15"},
        "updatedAt": "2026-12-01T00:00:00Z", "reminders": [], "tags": [],
    }  # fmt: skip
    zh = feed([("task", record)], "Asia/Shanghai", "zh").decode()
    assert "X-WR-CALNAME:MeSQ 待办" in zh and "DESCRIPTION:abc" in zh
    assert "X-WR-CALNAME:MeSQ todos" in feed([("task", record)], None).decode()


def test_an_alarm_time_range_over_a_huge_trigger_is_no_fault(dav: Dav) -> None:
    alarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-P99999999W\r\nEND:VALARM"
    assert dav.put("huge.ics", vtodo("huge", "DUE;VALUE=DATE:20261215", alarm)).status_code == 201
    query = (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>'
        '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"><C:comp-filter name="VALARM">'
        '<C:time-range start="20261201T000000Z" end="20261231T000000Z"/></C:comp-filter></C:comp-filter>'
        "</C:comp-filter></C:filter></C:calendar-query>"
    )
    answer = dav.request("REPORT", dav.calendar, query, Depth="1")
    assert answer.status_code == 207 and "huge.ics" not in answer.text


def test_a_byte_order_mark_is_no_content_line(dav: Dav) -> None:
    answer = dav.put("bom.ics", "\ufeff" + vtodo("bom", summary="带 BOM"))
    assert answer.status_code == 201, answer.text
    assert _task(dav, "bom.ics")["title"] == "带 BOM"


def test_the_username_is_read_as_the_sign_in_page_reads_it(dav: Dav) -> None:
    for typed in (dav.username.upper(), f" {dav.username} ", dav.username.capitalize() + " "):
        answer = dav.client.request(
            "PROPFIND", f"/dav/{dav.username}/", headers={"Authorization": basic(typed, dav.token), "Depth": "0"}
        )
        assert answer.status_code == 207, (typed, answer.text)


def test_a_due_at_the_ends_of_the_calendar_in_a_zone_is_no_fault(dav: Dav) -> None:
    """REST and MCP accept 0001-01-01T00:00:00Z with America/New_York: said in that zone it is
    year 0. The calendar (every listing) and the feed answered 500 for it."""
    for at, zone in (("0001-01-01T00:00:00Z", "America/New_York"), ("9999-12-31T23:00:00Z", "Asia/Tokyo")):
        dav.rest(
            "POST",
            "/api/toolkit/todo/tasks",
            title=at,
            spaceId=dav.space,
            due={"type": "datetime", "at": at},
            timezone=zone,
        )
    listing = dav.request("PROPFIND", dav.calendar, "", Depth="1")
    assert listing.status_code == 207 and "DUE:00010101T000000Z" not in listing.text
    query = (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/>'
        '</D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>'
    )
    answer = dav.request("REPORT", dav.calendar, query, Depth="1")
    assert answer.status_code == 207 and "DUE:00010101T000000Z" in answer.text and "DUE:99991231T230000Z" in answer.text
    text = feed(dated_records(dav.services.items, dav.user_id), "America/New_York").decode()
    assert "DTSTART:00010101T000000Z" in text


def test_the_feed_leaves_out_the_subtasks_of_a_trashed_task(dav: Dav) -> None:
    due = {"type": "date", "date": "2026-12-20"}
    task = dav.rest("POST", "/api/toolkit/todo/tasks", title="parent", spaceId=dav.space, due=due)["task"]
    dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/subtasks", title="child", due=due)
    assert {r["title"] for _, r in dated_records(dav.services.items, dav.user_id)} == {"parent", "child"}
    dav.rest("DELETE", f"/api/toolkit/todo/tasks/{task['id']}", expectedRevision=task["revision"])
    assert "child" not in {r["title"] for _, r in dated_records(dav.services.items, dav.user_id)}
    assert "BEGIN:VEVENT" not in feed(dated_records(dav.services.items, dav.user_id)).decode()


def test_a_recurring_task_without_a_zone_is_written_in_the_users_as_mesq_steps_it(dav: Dav) -> None:
    """MeSQ steps a zone-less recurring 09:00 in the user's zone (09:00 across DST), as the feed
    shows it; CalDAV wrote it in UTC, so the app's RRULE drifted an hour at the change."""
    set_zone(dav.services.items, dav.user_id, "America/New_York")
    due = {"type": "datetime", "at": "2037-03-07T09:00:00-05:00"}
    task = dav.rest(
        "POST", "/api/toolkit/todo/tasks", title="daily", spaceId=dav.space, due=due, recurrence="FREQ=DAILY"
    )
    name = f"{task['task']['id']}.ics"
    lines = _vtodo_lines(dav, name)
    assert "DUE;TZID=America/New_York:20370307T090000" in lines and "RRULE:FREQ=DAILY" in lines
    got = dav.get(name)  # the app writes it back as it got it: the task keeps having no zone of its own
    assert dav.put(name, got.text, If_Match=got.headers["etag"]).status_code == 204
    assert _task(dav, name)["timezone"] is None
    # the app's own UTC lines come back while the due is unchanged; once MeSQ moves it, in the zone
    assert dav.put("u.ics", vtodo("u", "DUE:20370307T140000Z", "RRULE:FREQ=DAILY")).status_code == 201
    assert "DUE:20370307T140000Z" in _vtodo_lines(dav, "u.ics")
    task = _task(dav, "u.ics")
    dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/complete", expectedRevision=task["revision"])
    assert "DUE;TZID=America/New_York:20370308T090000" in _vtodo_lines(dav, "u.ics")  # after the DST change


def test_a_change_at_the_calendars_end_is_shown_in_utc_on_the_activity_page() -> None:
    assert local("9999-12-31T23:00:00Z", "Asia/Shanghai").isoformat() == "9999-12-31T23:00:00+00:00"
    assert local("2026-12-01T00:00:00Z", "Asia/Shanghai").hour == 8


def test_a_tzid_too_long_for_a_file_name_is_refused_without_the_servers_paths(dav: Dav) -> None:
    answer = dav.put("long.ics", vtodo("long", f"DUE;TZID={'x' * 5000}:20261215T090000"))
    reason = answer.text.split("<M:reason>")[1].split("</M:reason>")[0]
    assert answer.status_code == 400 and "/" not in reason and "site-packages" not in answer.text, reason
