"""The CalDAV protocol in process (the local app, TestClient on https): discovery, PROPFIND at
depth 0 and 1, the three REPORTs with their filters, ETags and the conditional headers, the
inbox and subtasks as calendar objects, auth, scopes and throttling."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from icalendar import Calendar

from mesq.application.ratelimit import WINDOW_SECONDS
from mesq.auth.tokens import authenticate_token
from mesq.history import change_op
from mesq.kernel.ports.storage import Update
from mesq.todos.sync import reads
from mesq.wiring.services import Services
from tests.dav.conftest import NS, Dav, basic, hrefs, prop, vtodo

CURRENT_PRINCIPAL = '<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-principal/></D:prop></D:propfind>'
HOME_SET = '<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-home-set/></D:prop></D:propfind>'  # noqa: E501
LISTING = (
    '<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/">'
    "<D:prop><D:resourcetype/><D:displayname/><C:supported-calendar-component-set/><CS:getctag/><D:sync-token/>"
    "<D:getetag/></D:prop></D:propfind>"
)


def _query(filter_xml: str, data: bool = False) -> str:
    wanted = "<D:getetag/>" + ("<C:calendar-data/>" if data else "")
    return (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
        f'<D:prop>{wanted}</D:prop><C:filter><C:comp-filter name="VCALENDAR">{filter_xml}</C:comp-filter>'
        "</C:filter></C:calendar-query>"
    )


def _sync(token: str = "") -> str:
    return (
        '<D:sync-collection xmlns:D="DAV:"><D:sync-token>'
        f"{token}</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
    )


def _token(root: object) -> str:
    return str(root.findtext("D:sync-token", namespaces=NS))  # type: ignore[attr-defined]


def test_discovery_from_the_well_known_url_to_one_calendar_per_space_and_the_inbox(dav: Dav) -> None:
    moved = dav.client.request("PROPFIND", "/.well-known/caldav", follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == "/dav/"
    options = dav.request("OPTIONS", "/dav/")
    assert "calendar-access" in options.headers["dav"] and "REPORT" in options.headers["allow"]
    root = dav.propfind("/dav/", CURRENT_PRINCIPAL)
    home = f"/dav/{dav.username}/"
    assert prop(root, "/dav/", "D:current-user-principal").findtext("D:href", namespaces=NS) == home  # type: ignore[union-attr]
    assert prop(dav.propfind(home, HOME_SET), home, "C:calendar-home-set").findtext("D:href", namespaces=NS) == home  # type: ignore[union-attr]
    work = dav.rest("POST", "/api/toolkit/todo/spaces", name="Work")["space"]
    listed = dav.propfind(home, LISTING, depth="1")
    assert hrefs(listed) == [home, dav.calendar, f"{home}{work['id']}/", f"{home}inbox/"]
    names = [str(prop(listed, href, "D:displayname").text) for href in hrefs(listed)[1:]]  # type: ignore[union-attr]
    assert names == ["Default", "Work", "Inbox"]
    components = prop(listed, dav.calendar, "C:supported-calendar-component-set")
    assert [c.get("name") for c in components] == ["VTODO"]  # type: ignore[union-attr]
    assert prop(listed, dav.calendar, "D:getetag") is None  # asked, not offered: a 404 propstat


def test_put_get_and_etags_follow_the_revision(dav: Dav) -> None:
    made = dav.put("first.ics", vtodo("first", summary="Buy milk"), If_None_Match="*")
    assert made.status_code == 201 and "etag" in made.headers  # MeSQ answers the client's own bytes
    got = dav.get("first.ics")
    assert got.headers["etag"] == made.headers["etag"] and got.text == vtodo("first", summary="Buy milk")
    again = dav.put("first.ics", vtodo("first", summary="Buy milk"), If_None_Match="*")
    assert again.status_code == 412
    task = dav.rest("GET", "/api/toolkit/todo/query?query=milk")["items"][0]
    dav.rest("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", title="Buy oat milk", expectedRevision=task["revision"])
    changed = dav.get("first.ics")
    assert changed.headers["etag"] != got.headers["etag"] and "SUMMARY:Buy oat milk" in changed.text
    stale = dav.put("first.ics", vtodo("first", summary="Stale"), If_Match=got.headers["etag"])
    assert stale.status_code == 412
    assert "SUMMARY:Buy oat milk" in dav.get("first.ics").text
    weak = dav.put("first.ics", vtodo("first", summary="Weak"), If_Match="W/" + changed.headers["etag"])
    assert weak.status_code == 412  # If-Match compares strongly (RFC 7232 3.1)
    fresh = dav.put("first.ics", vtodo("first", summary="Fresh"), If_Match=changed.headers["etag"])
    assert fresh.status_code == 204 and "SUMMARY:Fresh" in dav.get("first.ics").text
    assert dav.put("first.ics", vtodo("other-uid", summary="x")).status_code == 400  # a UID never changes


def test_if_none_match_with_etags_refuses_a_put_over_one_of_them(dav: Dav) -> None:
    """RFC 7232 3.2: `If-None-Match` with ETags (not `*`) fails when one of them (weakly compared)
    is the task's now: a PUT meant only for a task that changed since the client's copy must not
    write over that copy. It was ignored and the PUT written. Another ETag, or none of the task's,
    lets the write through; a PUT naming a task that is not there creates it."""
    made = dav.put("cond.ics", vtodo("cond", summary="Call mum"), If_None_Match="*")
    current = made.headers["etag"]
    for header in (current, f'"nope", {current}', "W/" + current):
        refused = dav.put("cond.ics", vtodo("cond", summary="Overwritten"), If_None_Match=header)
        assert refused.status_code == 412, (header, refused.text)
        assert "SUMMARY:Call mum" in dav.get("cond.ics").text
    passed = dav.put("cond.ics", vtodo("cond", summary="Call mum at 8"), If_None_Match='"an-older-copy"')
    assert passed.status_code == 204 and "SUMMARY:Call mum at 8" in dav.get("cond.ics").text
    both = dav.put("cond.ics", vtodo("cond", summary="Both"), If_Match=current, If_None_Match='"x"')
    assert both.status_code == 412  # If-Match first: the copy it names is stale
    created = dav.put("new-cond.ics", vtodo("new-cond", summary="New"), If_None_Match='"an-etag"')
    assert created.status_code == 201


def test_calendar_query_filters_completed_and_time_range(dav: Dav) -> None:
    dav.put("open.ics", vtodo("open", "DUE:20371215T020000Z", summary="Open"))
    dav.put("done.ics", vtodo("done", "STATUS:COMPLETED", "COMPLETED:20371201T100000Z", summary="Done"))
    dav.put("later.ics", vtodo("later", "DUE;VALUE=DATE:20380301", summary="Later"))
    not_completed = _query(
        '<C:comp-filter name="VTODO"><C:prop-filter name="COMPLETED"><C:is-not-defined/></C:prop-filter>'
        '<C:prop-filter name="STATUS"><C:text-match negate-condition="yes">CANCELLED</C:text-match></C:prop-filter>'
        "</C:comp-filter>"
    )
    open_ones = hrefs(dav.report(dav.calendar, not_completed))
    assert sorted(open_ones) == [dav.calendar + "later.ics", dav.calendar + "open.ics"]
    december = _query(
        '<C:comp-filter name="VTODO"><C:time-range start="20371215T000000Z" end="20371216T000000Z"/></C:comp-filter>'
    )
    assert hrefs(dav.report(dav.calendar, december)) == [dav.calendar + "open.ics"]
    everything = _query('<C:comp-filter name="VTODO"/>', data=True)
    found = dav.report(dav.calendar, everything)
    assert len(hrefs(found)) == 3 and found.find(".//C:calendar-data", NS) is not None
    events = _query('<C:comp-filter name="VEVENT"/>')
    assert hrefs(dav.report(dav.calendar, events)) == []


def test_multiget_answers_the_named_tasks_and_404_for_the_rest(dav: Dav) -> None:
    dav.put("a.ics", vtodo("a"))
    body = (
        '<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/>'
        f"<C:calendar-data/></D:prop><D:href>{dav.calendar}a.ics</D:href><D:href>{dav.calendar}gone.ics</D:href>"
        "</C:calendar-multiget>"
    )
    root = dav.report(dav.calendar, body)
    statuses = {
        r.findtext("D:href", namespaces=NS): r.findtext("D:status", namespaces=NS)
        for r in root.findall("D:response", NS)
    }
    assert statuses[dav.calendar + "gone.ics"] == "HTTP/1.1 404 Not Found"
    assert prop(root, dav.calendar + "a.ics", "C:calendar-data") is not None


def test_sync_collection_reports_new_changed_and_deleted_tasks(dav: Dav) -> None:
    dav.put("a.ics", vtodo("a"))
    initial = dav.report(dav.calendar, _sync())
    assert hrefs(initial) == [dav.calendar + "a.ics"]
    token = _token(initial)
    assert hrefs(dav.report(dav.calendar, _sync(token))) == []  # nothing since: nothing twice
    made = dav.rest("POST", "/api/toolkit/todo/tasks", title="From REST", spaceId=dav.space)["task"]
    dav.request("DELETE", dav.calendar + "a.ics")
    later = dav.report(dav.calendar, _sync(token))
    statuses = {
        r.findtext("D:href", namespaces=NS): r.findtext("D:status", namespaces=NS)
        for r in later.findall("D:response", NS)
    }
    assert statuses == {dav.calendar + "a.ics": "HTTP/1.1 404 Not Found", f"{dav.calendar}{made['id']}.ics": None}
    assert _token(later) != token
    bad = dav.request("REPORT", dav.calendar, _sync("urn:x-mesq:sync:12"), Depth="1")
    assert bad.status_code == 403 and "valid-sync-token" in bad.text


def _listed_token(dav: Dav) -> str:
    return str(prop(dav.propfind(dav.calendar, LISTING), dav.calendar, "D:sync-token").text)  # type: ignore[union-attr]


class Clock:
    """The one clock change ids and sync points read, driven by the test."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def test_an_unchanged_account_keeps_its_sync_token_until_a_change(dav: Dav, monkeypatch: pytest.MonkeyPatch) -> None:
    # 20 past the next hour: every step below stays inside one hour until the test moves on a
    # whole hour (and the change records are not yet past their expiry, which reads real time)
    clock = Clock((datetime.now(UTC) + timedelta(hours=1)).replace(minute=20, second=0, microsecond=0))
    monkeypatch.setattr(change_op, "utc_now", clock)
    monkeypatch.setattr(reads, "utc_now", clock)
    dav.put("a.ics", vtodo("a"))
    clock.now += timedelta(seconds=10)  # within the margin a committing write may still join
    young = _token(dav.report(dav.calendar, _sync()))
    clock.now += timedelta(minutes=5)
    listed = _listed_token(dav)
    assert listed != young
    clock.now += timedelta(minutes=20)  # polled again, nothing changed: the same token
    assert _listed_token(dav) == listed
    answer = dav.report(dav.calendar, _sync(young))
    assert hrefs(answer) == [] and _token(answer) == listed
    assert _token(dav.report(dav.calendar, _sync(listed))) == listed
    dav.put("b.ics", vtodo("b"))
    clock.now += timedelta(minutes=1)
    changed = dav.report(dav.calendar, _sync(listed))
    assert hrefs(changed) == [dav.calendar + "b.ics"] and _token(changed) != listed
    clock.now += timedelta(hours=1)  # the next hour: the point steps forward, nothing is lost
    hourly = dav.report(dav.calendar, _sync(_token(changed)))
    assert hrefs(hourly) == [] and _token(hourly) != _token(changed)


def test_a_task_moved_to_another_space_leaves_one_calendar_and_joins_the_other(dav: Dav) -> None:
    dav.put("a.ics", vtodo("a"))
    token = _token(dav.report(dav.calendar, _sync()))
    other = dav.rest("POST", "/api/toolkit/todo/spaces", name="Other")["space"]
    other_token = _token(dav.report(f"/dav/{dav.username}/{other['id']}/", _sync()))
    task = dav.rest("GET", "/api/toolkit/todo/query?query=task")["items"][0]
    dav.rest(
        "POST", f"/api/toolkit/todo/tasks/{task['id']}/move", spaceId=other["id"], expectedRevision=task["revision"]
    )
    left = dav.report(dav.calendar, _sync(token))
    assert [r.findtext("D:status", namespaces=NS) for r in left.findall("D:response", NS)] == ["HTTP/1.1 404 Not Found"]
    joined = dav.report(f"/dav/{dav.username}/{other['id']}/", _sync(other_token))
    assert hrefs(joined) == [f"/dav/{dav.username}/{other['id']}/a.ics"]


def test_related_to_makes_a_subtask_and_the_inbox_holds_inbox_items(dav: Dav) -> None:
    dav.put("parent.ics", vtodo("parent", summary="Trip"))
    dav.put("child.ics", vtodo("child", "RELATED-TO;RELTYPE=PARENT:parent", summary="Pack"))
    parent = dav.rest("GET", "/api/toolkit/todo/query?query=Trip")["items"][0]
    detail = dav.rest("GET", f"/api/toolkit/todo/tasks/{parent['id']}")
    assert [s["title"] for s in detail["subtasks"]] == ["Pack"]
    assert "RELATED-TO;RELTYPE=PARENT:parent" in dav.get("child.ics").text
    inbox = f"/dav/{dav.username}/inbox/"
    assert dav.request("PUT", inbox + "idea.ics", vtodo("idea", "X-KEEP:me", summary="An idea")).status_code == 201
    items = dav.rest("GET", "/api/toolkit/todo/inbox")["items"]
    assert [i["title"] for i in items] == ["An idea"]
    assert "X-KEEP:me" in dav.request("GET", inbox + "idea.ics").text
    assert hrefs(dav.report(inbox, _sync())) == [inbox + "idea.ics"]


def test_a_uid_already_used_elsewhere_is_409_no_uid_conflict(dav: Dav) -> None:
    dav.put("a.ics", vtodo("same"))
    twice = dav.put("b.ics", vtodo("same"))
    assert twice.status_code == 409 and "no-uid-conflict" in twice.text


def test_completing_a_recurring_task_moves_its_due_on(dav: Dav) -> None:
    weekly = vtodo("weekly", "DUE;TZID=Europe/Berlin:20371207T090000", "RRULE:FREQ=WEEKLY", summary="Review")
    dav.put("weekly.ics", weekly)
    done = weekly.replace("SUMMARY:Review", "SUMMARY:Review\r\nSTATUS:COMPLETED\r\nCOMPLETED:20371207T100000Z")
    answer = dav.put("weekly.ics", done)
    assert answer.status_code == 204 and "etag" not in answer.headers  # MeSQ changed it: the client must read
    todo = next(iter(Calendar.from_ical(dav.get("weekly.ics").text).walk("VTODO")))
    assert todo.decoded("DUE").isoformat() == "2037-12-14T09:00:00+01:00" and str(todo["STATUS"]) == "NEEDS-ACTION"


def test_basic_auth_scopes_and_the_transport_rule(make_dav: Callable[..., Dav], services: Services) -> None:
    reader = make_dav(scopes="todo:read", name="Read only")
    writer = make_dav()
    calendar = reader.calendar
    assert reader.request("PROPFIND", calendar, Depth="0").status_code == 207
    refused = reader.put("x.ics", vtodo("x"))
    assert refused.status_code == 403 and "todo:write" in refused.text
    nobody = reader.client.request("PROPFIND", calendar)
    assert nobody.status_code == 401 and nobody.headers["www-authenticate"].startswith("Basic")
    wrong_user = reader.client.request(
        "PROPFIND", calendar, headers={"Authorization": basic(writer.username, reader.token)}
    )
    assert wrong_user.status_code == 401
    others = writer.request("PROPFIND", calendar, Depth="0")
    assert others.status_code == 403  # writer's token, reader's calendars
    memo_only = make_dav(scopes="memo:read", name="Memos")
    assert memo_only.request("PROPFIND", f"/dav/{memo_only.username}/").status_code == 403
    plain = reader.client.request(
        "PROPFIND", f"http://testserver{calendar}", headers={"Authorization": basic(reader.username, reader.token)}
    )
    assert plain.status_code == 403 and "https" in plain.text


def test_requests_are_throttled_as_on_the_token_routes(dav: Dav, services: Services) -> None:
    """One `tool_call` per authenticated request (240 a minute), per client IP for bad
    credentials (30 a minute): 429 with Retry-After."""
    principal = authenticate_token(services.items, dav.token)
    window = int(time.time() // WINDOW_SECONDS) * WINDOW_SECONDS
    services.items.update(Update(key=(f"RL#{principal.credential_id}", f"tool_call#{window}"), add={"count": 240}))
    limited = dav.request("PROPFIND", dav.calendar, Depth="0")
    if int(time.time() // WINDOW_SECONDS) * WINDOW_SECONDS == window:  # (the minute did not turn meanwhile)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1, limited.text
    guesses = [
        dav.client.request("PROPFIND", dav.calendar, headers={"Authorization": basic(dav.username, "mesq_pat_wrong")})
        for _ in range(31)
    ]
    assert guesses[0].status_code == 401 and guesses[-1].status_code == 429


def test_an_inbox_item_moved_to_the_board_changes_calendars_under_its_name(dav: Dav) -> None:
    inbox = f"/dav/{dav.username}/inbox/"
    dav.request("PUT", inbox + "phone-idea.ics", vtodo("phone-idea", summary="Idea"), content_type="text/calendar")
    inbox_token = _token(dav.report(inbox, _sync()))
    board_token = _token(dav.report(dav.calendar, _sync()))
    item = dav.rest("GET", "/api/toolkit/todo/inbox")["items"][0]
    dav.rest("POST", f"/api/toolkit/todo/inbox/{item['id']}/move-to-board", expectedRevision=item["revision"])
    left = dav.report(inbox, _sync(inbox_token))
    assert hrefs(left) == [inbox + "phone-idea.ics"]
    assert left.findtext("D:response/D:status", namespaces=NS) == "HTTP/1.1 404 Not Found"
    assert hrefs(dav.report(dav.calendar, _sync(board_token))) == [dav.calendar + "phone-idea.ics"]
    moved = dav.get("phone-idea.ics")
    assert moved.status_code == 200 and "UID:phone-idea" in moved.text


def test_a_duplicate_is_a_task_of_its_own_not_the_clients(dav: Dav) -> None:
    dav.put("mine.ics", vtodo("mine", summary="Mine"))
    task = dav.rest("GET", "/api/toolkit/todo/query?query=Mine")["items"][0]
    copy = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/duplicate", title="Copy")["task"]
    listed = hrefs(dav.propfind(dav.calendar, depth="1"))
    assert sorted(listed[1:]) == sorted([dav.calendar + "mine.ics", f"{dav.calendar}{copy['id']}.ics"])
    assert f"UID:{copy['id']}" in dav.get(f"{copy['id']}.ics").text


def test_proppatch_refuses_each_property_in_a_multistatus(dav: Dav) -> None:
    body = (
        '<D:propertyupdate xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/"><D:set><D:prop>'
        "<A:calendar-color>#FF0000</A:calendar-color><D:displayname>Mine</D:displayname></D:prop></D:set>"
        "</D:propertyupdate>"
    )
    answer = dav.request("PROPPATCH", dav.calendar, body)
    assert answer.status_code == 207 and "HTTP/1.1 403 Forbidden" in answer.text and "calendar-color" in answer.text
    assert prop(dav.propfind(dav.calendar, depth="0"), dav.calendar, "D:displayname").text == "Default"  # type: ignore[union-attr]


def test_rules_that_would_spin_are_refused_and_far_time_ranges_answer_fast(dav: Dav) -> None:
    for rule in ("FREQ=DAILY;INTERVAL=0", "FREQ=WEEKLY;INTERVAL=0", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"):
        refused = dav.put("spin.ics", vtodo("spin", "DUE:20261201T100000Z", f"RRULE:{rule}"))
        assert refused.status_code == 400 and "valid-calendar-data" in refused.text, rule
    dav.put("weekly.ics", vtodo("weekly", "DUE:20261201T100000Z", "RRULE:FREQ=WEEKLY"))
    dav.put("counted.ics", vtodo("counted", "DUE:20261201T100000Z", "RRULE:FREQ=DAILY;COUNT=500000"))
    started = time.process_time()  # CPU time: a loaded test machine does not inflate it
    windows = {
        ("00010101T000000Z", "00010102T000000Z"): [],
        ("99991230T000000Z", "99991231T000000Z"): [],
        ("99991228T000000Z", "99991231T000000Z"): ["weekly.ics"],  # Tuesday 9999-12-28, a week on
        ("30261205T000000Z", "30261206T000000Z"): ["weekly.ics"],  # a thousand years of Tuesdays on
        ("20261215T000000Z", "20261216T000000Z"): ["counted.ics", "weekly.ics"],
    }
    for (start, end), names in windows.items():
        query = _query(f'<C:comp-filter name="VTODO"><C:time-range start="{start}" end="{end}"/></C:comp-filter>')
        assert sorted(hrefs(dav.report(dav.calendar, query))) == [dav.calendar + n for n in names], (start, end)
    assert time.process_time() - started < 3  # it took about 6 s for the first two alone


def test_control_characters_never_reach_calendar_data_or_the_xml(dav: Dav) -> None:
    pasted = "page 1\x0cpage 2 \x1b[1mbold\x1b[0m\x00\x07\ttab"
    made = dav.rest("POST", "/api/toolkit/todo/tasks", title="From a PDF\x0c", notes=pasted, spaceId=dav.space)
    assert made["task"]["notes"] == pasted  # REST stores what it was given
    sent = dav.put("bell.ics", vtodo("bell", "DESCRIPTION:ring\x07 ring", summary="Bell\x1b[0m"))
    assert sent.status_code == 201 and "etag" not in sent.headers  # MeSQ stores other bytes than sent
    everything = _query('<C:comp-filter name="VTODO"/>', data=True)
    found = dav.report(dav.calendar, everything)  # ET.fromstring: a control character fails here
    bodies = [str(data.text) for data in found.findall(".//C:calendar-data", NS)]
    bodies += [dav.request("GET", href).text for href in hrefs(found)]
    assert len(bodies) == 4
    texts = set()
    for text in bodies:
        assert not any(ord(c) < 32 and c not in "\t\r\n" for c in text), text
        todo = next(c for c in Calendar.from_ical(text).walk("VTODO"))
        texts |= {str(todo["SUMMARY"]), str(todo["DESCRIPTION"])}
    assert texts == {"From a PDF", "page 1page 2 [1mbold[0m\ttab", "Bell[0m", "ring ring"}
    bell_id = dav.get("bell.ics").headers["etag"].strip('"').rsplit("-", 1)[0]
    stored = [dav.rest("GET", f"/api/toolkit/todo/tasks/{i}") for i in (bell_id, made["task"]["id"])]
    assert [dict(t.get("task", t))["title"] for t in stored] == ["Bell[0m", made["task"]["title"]]
    assert dict(stored[1].get("task", stored[1]))["notes"] == pasted  # REST storage is unchanged


def test_a_repeated_property_or_an_unknown_zone_is_refused_by_name(dav: Dav) -> None:
    cases = {
        "SUMMARY occurs more than once": vtodo("s", "SUMMARY:two"),
        "DUE occurs more than once": vtodo("d", "DUE:20261201T100000Z", "DUE:20261202T100000Z"),
        "TZID 'Mars/Olympus' is not a known time zone": vtodo("tz", "DUE;TZID=Mars/Olympus:20261210T100000"),
    }
    for reason, body in cases.items():
        refused = dav.put("x.ics", body)
        assert refused.status_code == 400 and "valid-calendar-data" in refused.text, refused.text
        assert reason in refused.text and "isoformat" not in refused.text, refused.text
    zone = (
        "BEGIN:VTIMEZONE\r\nTZID:Olympus Mons\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
        "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0200\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
    )
    own = vtodo("own", "DUE;TZID=Olympus Mons:20261210T100000").replace("BEGIN:VTODO", zone + "BEGIN:VTODO")
    assert dav.put("own.ics", own).status_code == 201  # a TZID its VTIMEZONE defines is read by it


def test_a_listing_reads_the_newest_change_once_for_every_ctag_and_sync_token(
    dav: Dav, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesq.dav import properties

    dav.rest("POST", "/api/toolkit/todo/spaces", name="Work")
    dav.put("a.ics", vtodo("a"))
    reads_of_newest: list[str] = []
    real = reads.newest_change

    def counted(items: object, user_id: str) -> str:
        reads_of_newest.append(user_id)
        return real(items, user_id)  # type: ignore[arg-type]

    monkeypatch.setattr(properties, "newest_change", counted)
    monkeypatch.setattr(reads, "newest_change", counted)  # what `sync_point` reads by itself
    home = f"/dav/{dav.username}/"
    root = dav.propfind(home, LISTING, depth="1")
    ctags = {prop(root, href, "CS:getctag").text for href in hrefs(root) if href != home}  # type: ignore[union-attr]
    assert len(ctags) == 1 and len(hrefs(root)) >= 3  # the home, the board's spaces, the inbox
    assert len(reads_of_newest) == 1
