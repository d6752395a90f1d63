"""A switch of the user's zone reaches CalDAV clients (docs/decisions.md, docs/caldav.md).

A timed recurring task without a zone of its own is written in the user's zone
(ical_out.shown_zone). Setting the zone writes no change record, so the ETag of such a task names
the zone (a GET after a switch answers a new one, an If-Match naming the old one is 412), the
CTag and the sync token carry it, and a sync-collection from a token given before the switch
reports those tasks, and no other, as changed (a cut sync's continuation too). Raw PROPFIND,
GET, PUT and REPORT on the local app; python-caldav against a real `mesq serve`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from xml.etree import ElementTree as ET

import httpx
import pytest

from mesq.auth.user_zone import zone_names
from mesq.dav.ical_out import zone_mark
from mesq.history import change_op
from mesq.todos.sync import reads
from tests.conftest import LiveServer
from tests.dav.conftest import NS, PASSWORD, Dav, hrefs, prop, snapshot, vtodo
from tests.dav.driver import CaldavClient
from tests.dav.test_answer_budget import cut_at, follow, sync_body

LISTING = (
    '<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/">'
    "<D:prop><D:getetag/><D:sync-token/><CS:getctag/></D:prop></D:propfind>"
)
DUE = {"type": "datetime", "at": "2026-12-07T09:00:00+01:00"}


class Clock:
    """The clock change ids and sync points read, a minute past the last write: a sync token
    that only the zone can move stays put (reads.py: steady once the newest change is older than
    the margin)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    # 20 past the next hour: the steps below stay inside one hour (the point is steady there)
    at = Clock((datetime.now(UTC) + timedelta(hours=1)).replace(minute=20, second=0, microsecond=0))
    monkeypatch.setattr(change_op, "utc_now", at)
    monkeypatch.setattr(reads, "utc_now", at)
    return at


def _set_zone(dav: Dav, zone: str) -> None:
    assert dav.rest("PUT", "/api/toolkit/todo/context", timeZone=zone)["timeZone"] == zone


def _task(dav: Dav, title: str, **fields: Any) -> str:
    """A task made over REST; its href in the calendar."""
    task = dav.rest("POST", "/api/toolkit/todo/tasks", title=title, spaceId=dav.space, due=DUE, **fields)["task"]
    return f"{dav.calendar}{task['id']}.ics"


@pytest.fixture
def board(dav: Dav) -> dict[str, str]:
    """Berlin, and one task of each kind: written in the user's zone (a timed recurring task
    without its own), in its own zone, a timed one-off (UTC), a date, and an app's own floating
    recurring task (its own lines come back as it wrote them)."""
    _set_zone(dav, "Europe/Berlin")
    made = {
        "standup": _task(dav, "Stand-up", recurrence="FREQ=DAILY"),
        "pinned": _task(dav, "Pinned", recurrence="FREQ=DAILY", timezone="Asia/Shanghai"),
        "once": _task(dav, "Once"),
        "dated": dav.rest(
            "POST", "/api/toolkit/todo/tasks", title="Dated", spaceId=dav.space, recurrence="FREQ=WEEKLY",
            due={"type": "date", "date": "2026-12-07"},
        )["task"]["id"],
    }  # fmt: skip
    made["dated"] = f"{dav.calendar}{made['dated']}.ics"
    floating = vtodo("app", "DUE:20261207T090000", "RRULE:FREQ=DAILY", summary="App's own")
    assert dav.put("app.ics", floating).status_code == 201
    made["app"] = f"{dav.calendar}app.ics"
    return made


def _etags(dav: Dav) -> dict[str, str]:
    root = dav.propfind(dav.calendar, LISTING, depth="1")
    return {href: str(prop(root, href, "D:getetag").text) for href in hrefs(root) if href != dav.calendar}  # type: ignore[union-attr]


def _collection(dav: Dav) -> tuple[str, str]:
    root = dav.propfind(dav.calendar, LISTING)
    ctag, token = prop(root, dav.calendar, "CS:getctag"), prop(root, dav.calendar, "D:sync-token")
    assert ctag is not None and token is not None
    return str(ctag.text), str(token.text)


def _due_line(body: str) -> str:
    return next(line for line in body.splitlines() if line.startswith("DUE"))


def test_only_the_etags_of_tasks_written_in_the_users_zone_change_with_it(dav: Dav, board: dict[str, str]) -> None:
    before = _etags(dav)
    assert set(before) == set(board.values())
    standup = dav.request("GET", board["standup"])
    assert standup.headers["etag"] == before[board["standup"]]
    assert _due_line(standup.text) == "DUE;TZID=Europe/Berlin:20261207T090000"
    _set_zone(dav, "America/New_York")
    after = _etags(dav)
    changed = {name for name, href in board.items() if after[href] != before[href]}
    assert changed == {"standup"}
    now = dav.request("GET", board["standup"])
    assert now.headers["etag"] == after[board["standup"]] != before[board["standup"]]
    assert _due_line(now.text) == "DUE;TZID=America/New_York:20261207T030000"
    _set_zone(dav, "Europe/Berlin")  # back: the same body as first, the same ETag
    assert _etags(dav) == before


def test_an_if_match_with_the_etag_from_before_the_switch_is_412_and_writes_nothing(
    dav: Dav, board: dict[str, str]
) -> None:
    old = dav.request("GET", board["standup"])
    _set_zone(dav, "America/New_York")
    kept = snapshot(dav.services, dav.user_id)
    edited = old.text.replace("SUMMARY:Stand-up", "SUMMARY:Stand-up (edited)")
    refused = dav.request("PUT", board["standup"], edited, content_type="text/calendar", if_match=old.headers["etag"])
    assert refused.status_code == 412, refused.text
    assert snapshot(dav.services, dav.user_id) == kept
    gone = dav.request("DELETE", board["standup"], if_match=old.headers["etag"])
    assert gone.status_code == 412 and snapshot(dav.services, dav.user_id) == kept
    # the ETag a GET gives now is the one to name
    fresh = dav.request("GET", board["standup"])
    edited = fresh.text.replace("SUMMARY:Stand-up", "SUMMARY:Stand-up (edited)")
    saved = dav.request("PUT", board["standup"], edited, content_type="text/calendar", if_match=fresh.headers["etag"])
    assert saved.status_code == 204, saved.text
    # a task whose body does not name the user's zone kept its ETag, which still writes
    pinned = dav.request("GET", board["pinned"])
    assert dav.request(
        "PUT", board["pinned"], pinned.text.replace("Pinned", "Pinned!"), content_type="text/calendar",
        if_match=pinned.headers["etag"],
    ).status_code == 204  # fmt: skip


def test_the_ctag_and_sync_token_move_with_the_zone(dav: Dav, board: dict[str, str], clock: Clock) -> None:
    clock.now += timedelta(minutes=1)
    ctag, token = _collection(dav)
    assert _collection(dav) == (ctag, token)  # nothing changed: steady
    _set_zone(dav, "America/New_York")
    moved_ctag, moved_token = _collection(dav)
    assert moved_ctag != ctag and moved_token != token
    _set_zone(dav, "Asia/Tokyo")
    assert len({ctag, moved_ctag, _collection(dav)[0]}) == 3


def test_a_sync_from_before_the_switch_reports_the_tasks_written_in_the_zone(
    dav: Dav, board: dict[str, str], clock: Clock
) -> None:
    clock.now += timedelta(minutes=1)
    first = dav.report(dav.calendar, sync_body())
    token = str(first.findtext("D:sync-token", namespaces=NS))
    assert set(hrefs(first)) == set(board.values())
    assert hrefs(dav.report(dav.calendar, sync_body(token))) == []  # nothing changed
    _set_zone(dav, "America/New_York")
    changed = dav.report(dav.calendar, sync_body(token, wanted="<D:prop><D:getetag/><C:calendar-data/></D:prop>"))
    assert hrefs(changed) == [board["standup"]]
    data = prop(changed, board["standup"], "C:calendar-data")
    assert data is not None and _due_line(str(data.text)) == "DUE;TZID=America/New_York:20261207T030000"
    assert str(prop(changed, board["standup"], "D:getetag").text) == _etags(dav)[board["standup"]]  # type: ignore[union-attr]
    new_token = str(changed.findtext("D:sync-token", namespaces=NS))
    assert new_token != token and hrefs(dav.report(dav.calendar, sync_body(new_token))) == []
    # a change made meanwhile comes with them
    task = next(t for t in dav.rest("GET", "/api/toolkit/todo/query?query=Once")["items"] if t["title"] == "Once")
    dav.rest("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", title="Once more", expectedRevision=task["revision"])
    _set_zone(dav, "Asia/Tokyo")
    clock.now += timedelta(minutes=1)
    assert set(hrefs(dav.report(dav.calendar, sync_body(new_token)))) == {board["standup"], board["once"]}


def test_a_cut_sync_continued_after_a_switch_sends_again_what_it_sent_in_the_old_zone(dav: Dav) -> None:
    _set_zone(dav, "Europe/Berlin")
    made = sorted(_task(dav, f"Daily {number}", recurrence="FREQ=DAILY") for number in range(3))
    first = dav.report(dav.calendar, sync_body(nresults=1))
    assert cut_at(first) == dav.calendar and [h for h in hrefs(first) if h != dav.calendar] == made[:1]
    token = str(first.findtext("D:sync-token", namespaces=NS))
    _set_zone(dav, "America/New_York")
    seen, last, _ = follow(dav.request, dav.calendar, token, nresults=1)
    assert seen == dict.fromkeys(made, "")  # the first one too: its body sent before is stale
    assert hrefs(dav.report(dav.calendar, sync_body(last))) == []
    # a delta sync cut before the switch: the names it answered and those after come again
    second = dav.report(dav.calendar, sync_body(last, nresults=1))
    assert cut_at(second) is None
    _set_zone(dav, "Asia/Tokyo")
    cut = dav.report(dav.calendar, sync_body(last, nresults=1))
    assert cut_at(cut) == dav.calendar and [h for h in hrefs(cut) if h != dav.calendar] == made[:1]
    cut_token = str(cut.findtext("D:sync-token", namespaces=NS))
    _set_zone(dav, "Europe/Paris")
    seen, last, _ = follow(dav.request, dav.calendar, cut_token, nresults=1)
    assert seen == dict.fromkeys(made, "")
    assert hrefs(dav.report(dav.calendar, sync_body(last))) == []


def test_a_token_with_a_mark_not_ours_is_refused(dav: Dav, board: dict[str, str]) -> None:
    token = str(dav.report(dav.calendar, sync_body()).findtext("D:sync-token", namespaces=NS))
    assert token.endswith("~" + zone_mark("Europe/Berlin"))
    point = token.rpartition("~")[0]
    for forged in (point + "~", point + "~XYZ", point + "~" + "g" * 8, token + "0", point + "~ab/cdef0"):
        refused = dav.request("REPORT", dav.calendar, sync_body(forged), Depth="1")
        assert refused.status_code == 403 and "valid-sync-token" in refused.text, forged


def test_each_zone_has_its_own_mark() -> None:
    marks = {zone_mark(name) for name in zone_names()}
    assert len(marks) == len(zone_names()) and "" not in marks and zone_mark(None) == ""


# -- python-caldav against a real `mesq serve` ---------------------------------------------------


@pytest.fixture(scope="module")
def account(mesq: LiveServer) -> dict[str, str]:
    return {"username": "zoe", "token": mesq.account("zoe", "todo:read,todo:write", "Zoe's phone").token}


@pytest.fixture(scope="module")
def phone(mesq: LiveServer, account: dict[str, str]) -> Iterator[CaldavClient]:
    client = CaldavClient(f"{mesq.base_url}/dav/", account["username"], account["token"])
    yield client
    client.close()


def _set_zone_in_settings(base_url: str, zone: str) -> None:
    """The zone changed as a person does: signed in, the Settings page's time-zone form."""
    with httpx.Client(base_url=base_url, timeout=30, follow_redirects=False) as browser:
        login = re.search(r'name="csrf" value="([^"]+)"', browser.get("/login").text)
        assert login
        signed = browser.post("/login", data={"csrf": login.group(1), "username": "zoe", "password": PASSWORD})
        assert signed.status_code == 303, signed.text
        page = browser.get("/settings")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf, page.text[:2000]
        saved = browser.post("/settings/time-zone", data={"csrf": csrf.group(1), "timeZone": zone})
        assert saved.status_code == 303, saved.text


def _ctag(calendar: str, token: str) -> str:
    answer = httpx.request("PROPFIND", calendar, content=LISTING, headers={"Depth": "0"}, auth=("zoe", token))
    assert answer.status_code == 207, answer.text
    return str(ET.fromstring(answer.content).findtext(".//CS:getctag", namespaces=NS))


def test_python_caldav_follows_a_switch_made_in_settings(
    mesq: LiveServer, account: dict[str, str], phone: CaldavClient
) -> None:
    rest = httpx.Client(base_url=mesq.base_url, headers={"Authorization": f"Bearer {account['token']}"}, timeout=30)
    assert rest.put("/api/toolkit/todo/context", json={"timeZone": "Europe/Berlin"}).status_code == 200
    space = rest.get("/api/toolkit/todo/spaces").json()["data"]["spaces"][0]["id"]
    for title, extra in (("Stand-up", {"recurrence": "FREQ=DAILY"}), ("Once", {})):
        made = rest.post("/api/toolkit/todo/tasks", json={"title": title, "spaceId": space, "due": DUE, **extra})
        assert made.status_code == 201, made.text
    calendar = f"{mesq.base_url}/dav/zoe/{space}/"
    first = phone.ok("sync", calendar=calendar, token=None)
    standup = next(o for o in first["objects"] if "SUMMARY:Stand-up" in o["data"])
    assert _due_line(standup["data"]) == "DUE;TZID=Europe/Berlin:20261207T090000"
    phone.ok("load", url=standup["url"], slot="standup")
    ctag = _ctag(calendar, account["token"])

    _set_zone_in_settings(mesq.base_url, "America/New_York")

    second = phone.ok("sync", calendar=calendar, token=first["token"])
    assert second["token"] != first["token"] and second["deleted"] == []
    assert [o["url"] for o in second["objects"]] == [standup["url"]]
    assert _due_line(second["objects"][0]["data"]) == "DUE;TZID=America/New_York:20261207T030000"
    got = phone.ok("get", url=standup["url"])
    assert got["etag"] != standup["etag"] and got["etag"] == second["objects"][0]["etag"]
    assert phone.fails("edit", slot="standup", summary="Stand-up (stale)")["error"] == "ETagMismatchError"
    found = rest.get("/api/toolkit/todo/query", params={"query": "Stand-up"}).json()["data"]["items"]
    task = next(t for t in found if t["title"].startswith("Stand-up"))
    assert task["title"] == "Stand-up" and task.get("timezone") is None  # the stale copy wrote nothing
    assert _ctag(calendar, account["token"]) != ctag
    third = phone.ok("sync", calendar=calendar, token=second["token"])
    assert third["objects"] == [] and third["deleted"] == []
