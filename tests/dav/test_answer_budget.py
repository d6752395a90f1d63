"""No CalDAV answer grows past what the CalDAV function can return (dav/budget.py): a
calendar-query or a PROPFIND at depth 1 that would is cut with a 507 for the collection, a
multiget answers each href past the budget with 507, and a sync-collection is cut with the 507 and
a token that continues where it stopped (RFC 6578 3.6), `DAV:limit` included (3.7).

- on a real `mesq serve` at the real budget: 60 tasks with 50,000-character notes (Chinese,
  quotes, backslashes, line breaks: what JSON escapes) are past the 6 MB Lambda returns; every
  answer stays within the budget and the cut sync reaches every task;
- in this process with the budget lowered (monkeypatch of the module constant, the same code
  path): the continuation of a cut initial or delta sync, with changes made between its answers,
  reaches the client whole; python-caldav follows it to the end over HTTP.
"""

from __future__ import annotations

import copy
import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any
from xml.etree import ElementTree as ET

import httpx
import pytest

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.dav import budget, report, xml
from mesq.runtime.app_factories import create_local_app
from mesq.wiring.services import Services
from tests.conftest import LiveServer
from tests.dav.conftest import NS, PASSWORD, Dav, basic, hrefs, vtodo
from tests.dav.driver import CaldavClient
from tests.support.threaded_server import serving

WANTED_DATA = "<D:prop><D:getetag/><C:calendar-data/></D:prop>"
XMLNS = 'xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"'
QUERY = (
    f"<C:calendar-query {XMLNS}>{WANTED_DATA}"
    '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"/></C:comp-filter></C:filter>'
    "</C:calendar-query>"
)
PROPFIND = f"<D:propfind {XMLNS}>{WANTED_DATA}</D:propfind>"


def sync_body(token: str = "", nresults: int | str | None = None, wanted: str = "<D:prop><D:getetag/></D:prop>") -> str:
    limit = "" if nresults is None else f"<D:limit><D:nresults>{nresults}</D:nresults></D:limit>"
    return (
        f"<D:sync-collection {XMLNS}><D:sync-token>{token}</D:sync-token><D:sync-level>1</D:sync-level>"
        f"{limit}{wanted}</D:sync-collection>"
    )


def statuses(root: ET.Element) -> dict[str, str]:
    """href -> the response's own status (a member's properties have none: '')."""
    return {
        str(r.findtext("D:href", namespaces=NS)): str(r.findtext("D:status", namespaces=NS) or "")
        for r in root.findall("D:response", NS)
    }


def cut_at(root: ET.Element) -> str | None:
    """The href a 507 `number-of-matches-within-limits` response names, or None: not cut."""
    for response in root.findall("D:response", NS):
        if "507" in str(response.findtext("D:status", namespaces=NS)):
            assert response.find("D:error/D:number-of-matches-within-limits", NS) is not None
            return str(response.findtext("D:href", namespaces=NS))
    return None


Send = Callable[[str, str, str], httpx.Response]


def follow(send: Send, calendar: str, token: str = "", **options: Any) -> tuple[dict[str, str], str, int]:
    """A sync-collection followed through its cut answers: (href -> '' present / '404', the
    last token, how many answers it took)."""
    seen: dict[str, str] = {}
    for count in range(1, 200):
        answer = send("REPORT", calendar, sync_body(token, **options))
        assert answer.status_code == 207, answer.text
        assert budget.sent_bytes(answer.content) <= budget.ANSWER_BUDGET
        root = ET.fromstring(answer.content)
        token = str(root.findtext("D:sync-token", namespaces=NS))
        for href, status in statuses(root).items():
            if href != calendar:
                seen[href] = "404" if "404" in status else ""
        if cut_at(root) is None:
            return seen, token, count
        assert cut_at(root) == calendar
    raise AssertionError("the sync never ended")


# -- a real `mesq serve` at the real budget ------------------------------------------------------

NOTES = "".join(f'第{line}行："长笔记" \\ 反斜杠，{line}\n' for line in range(3000))[:50_000]


@pytest.fixture(scope="module")
def heavy(mesq: LiveServer) -> dict[str, Any]:
    token = mesq.account("heavy", "todo:read,todo:write", "Phone").token
    rest = httpx.Client(base_url=mesq.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=60)
    space = rest.get("/api/toolkit/todo/spaces").json()["data"]["spaces"][0]["id"]
    ids = []
    for number in range(60):
        answer = rest.post(
            "/api/toolkit/todo/tasks", json={"title": f"长任务 {number}", "spaceId": space, "notes": NOTES}
        )
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["data"]["task"]["id"])
    return {"calendar": f"/dav/heavy/{space}/", "auth": basic("heavy", token), "ids": ids, "rest": rest}


def test_a_live_server_cuts_every_answer_within_the_budget(mesq: LiveServer, heavy: dict[str, Any]) -> None:
    calendar = heavy["calendar"]
    with httpx.Client(base_url=mesq.base_url, headers={"Authorization": heavy["auth"]}, timeout=120) as client:

        def send(method: str, path: str, body: str, depth: str = "1") -> httpx.Response:
            return client.request(method, path, content=body, headers={"Depth": depth})

        for method, body in (("REPORT", QUERY), ("PROPFIND", PROPFIND)):
            answer = send(method, calendar, body)
            assert answer.status_code == 207, answer.text[:500]
            # The whole answer is past 6 MB; this one is within the budget and says it was cut.
            assert 3 * 1024 * 1024 < budget.sent_bytes(answer.content) <= budget.ANSWER_BUDGET
            root = ET.fromstring(answer.content)
            assert cut_at(root) == calendar
            members = [href for href in hrefs(root) if href != calendar]
            assert 10 < len(members) < len(heavy["ids"])
        seen, _, answers = follow(send, calendar, wanted=WANTED_DATA)
        assert answers >= 2
        assert sorted(seen) == sorted(f"{calendar}{task_id}.ics" for task_id in heavy["ids"])


# -- in this process, the budget lowered -----------------------------------------------------------


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> int:
    """Room for about seven getetag responses, or one or two with their calendar data."""
    monkeypatch.setattr(budget, "ANSWER_BUDGET", budget.CLOSING_RESERVE + 1200)
    return budget.ANSWER_BUDGET


def tasks(dav: Dav, count: int, prefix: str = "task") -> list[str]:
    for number in range(count):
        assert (
            dav.put(f"{prefix}-{number:02}.ics", vtodo(f"{prefix}-{number}", summary=f"{prefix} {number}")).status_code
            == 201
        )
    return [f"{dav.calendar}{prefix}-{number:02}.ics" for number in range(count)]


def test_an_initial_sync_is_cut_and_continued_with_the_changes_made_between(dav: Dav, small_budget: int) -> None:
    made = tasks(dav, 24)
    first = dav.report(dav.calendar, sync_body(nresults=5))
    assert cut_at(first) == dav.calendar
    assert [h for h in hrefs(first) if h != dav.calendar] == made[:5]
    token = str(first.findtext("D:sync-token", namespaces=NS))
    # Between two answers: a task already answered is changed, one is deleted, a new one made.
    assert dav.put("task-01.ics", vtodo("task-1", summary="changed")).status_code == 204
    assert dav.request("DELETE", made[2]).status_code == 204
    assert dav.put("task-99.ics", vtodo("task-99")).status_code == 201
    seen, token, answers = follow(dav.request, dav.calendar, token)
    assert answers > 2  # the byte budget cuts too
    assert seen[made[1]] == "" and seen[made[2]] == "404" and seen[f"{dav.calendar}task-99.ics"] == ""
    assert {h for h, s in seen.items() if s == ""} >= set(made[5:])
    # Once followed to the end the token is a plain one, and nothing is left behind it.
    assert "/" not in token.removeprefix("urn:x-mesq:sync:")
    after = dav.report(dav.calendar, sync_body(token))
    assert [h for h in hrefs(after)] == []


def test_a_delta_sync_is_cut_and_continued(dav: Dav, small_budget: int) -> None:
    made = tasks(dav, 20)
    _, token, _ = follow(dav.request, dav.calendar)
    for number in range(0, 20, 2):
        assert dav.put(f"task-{number:02}.ics", vtodo(f"task-{number}", summary="edited")).status_code == 204
    for href in made[1:20:4]:
        assert dav.request("DELETE", href).status_code == 204
    first = dav.report(dav.calendar, sync_body(token, nresults=3))
    assert cut_at(first) == dav.calendar and hrefs(first) == [*made[0:3], dav.calendar]
    # Between two answers, a task the first answer carried changes again: a later answer has it.
    assert dav.put("task-00.ics", vtodo("task-0", summary="edited twice")).status_code == 204
    seen, token, _ = follow(dav.request, dav.calendar, str(first.findtext("D:sync-token", namespaces=NS)), nresults=3)
    assert made[0] in seen and made[2] not in seen
    seen.update({h: ("404" if "404" in s else "") for h, s in statuses(first).items() if h != dav.calendar})
    assert {h for h, s in seen.items() if s == ""} == set(made[0:20:2])
    assert {h for h, s in seen.items() if s == "404"} == set(made[1:20:4])
    assert hrefs(dav.report(dav.calendar, sync_body(token))) == []


def test_calendar_query_and_propfind_are_cut_with_a_507(dav: Dav, small_budget: int) -> None:
    made = tasks(dav, 12)
    for method, body in (("REPORT", QUERY), ("PROPFIND", PROPFIND)):
        answer = dav.request(method, dav.calendar, body, Depth="1")
        assert answer.status_code == 207 and budget.sent_bytes(answer.content) <= small_budget
        root = ET.fromstring(answer.content)
        assert cut_at(root) == dav.calendar
        members = [h for h in hrefs(root) if h != dav.calendar]
        assert 1 <= len(members) < len(made) and len(set(members)) == len(members) and set(members) < set(made)
        # A PROPFIND answers the collection's own properties first, whatever follows.
        assert method == "REPORT" or hrefs(root)[0] == dav.calendar


def test_a_multiget_past_the_budget_answers_each_href_left_with_507(dav: Dav, small_budget: int) -> None:
    made = tasks(dav, 10)
    asked = [*made, f"{dav.calendar}missing.ics"]
    body = f"<C:calendar-multiget {XMLNS}>{WANTED_DATA}" + "".join(f"<D:href>{h}</D:href>" for h in asked)
    answer = dav.request("REPORT", dav.calendar, body + "</C:calendar-multiget>", Depth="1")
    assert answer.status_code == 207 and budget.sent_bytes(answer.content) <= small_budget
    found = statuses(ET.fromstring(answer.content))
    assert list(found) == asked  # each href answered once, in the client's order
    with_data = [h for h, s in found.items() if s == ""]
    refused = [h for h, s in found.items() if "507" in s]
    assert with_data == made[: len(with_data)] and 1 <= len(with_data) < len(made)
    assert refused == asked[len(with_data) :]


def test_the_room_kept_for_each_507_is_what_it_takes() -> None:
    """A multiget keeps room for a 507 per href left; the room is counted, not written, so it
    must be exactly what writing it takes (awkward hrefs too)."""
    for href in ("/dav/a/b/x.ics", '/dav/a/b/a&b"<\\>.ics', "/dav/a/b/长任务.ics"):
        holder = ET.Element("{DAV:}multistatus")
        budget.insufficient(holder, href)
        assert budget.insufficient_bytes(href) == sum(budget.sent_bytes(budget.fragment(c)) for c in holder)


def test_bad_limits_and_forged_continuations_are_refused(dav: Dav) -> None:
    tasks(dav, 2)
    zero = dav.request("REPORT", dav.calendar, sync_body(nresults=0))
    assert zero.status_code == 507 and "number-of-matches-within-limits" in zero.text
    assert dav.request("REPORT", dav.calendar, sync_body(nresults="many")).status_code == 400
    first = dav.report(dav.calendar, sync_body(nresults=1))
    token = str(first.findtext("D:sync-token", namespaces=NS))
    start, resume, scope, after = token.removeprefix("urn:x-mesq:sync:").split("/")
    for forged in (
        f"{start}/{resume}/{scope}/%%%",
        f"{start}/99999999999999999/{scope}/{after}",
        f"{start}/{resume}/{after}",
        f"new/{resume}",
        "x/y/z/w",
    ):
        refused = dav.request("REPORT", dav.calendar, sync_body("urn:x-mesq:sync:" + forged))
        assert refused.status_code == 403 and "valid-sync-token" in refused.text, forged


@pytest.fixture
def served(services: Services, small_budget: int) -> Iterator[tuple[str, str, str]]:
    """The local app on a loopback port (uvicorn in a thread, so the lowered budget holds):
    (base URL, username, token)."""
    user = create_user(services.items, "syncer", PASSWORD)
    token, _ = create_token(services.items, user["id"], name="Phone", scopes="todo:read,todo:write")
    with serving(create_local_app(services)) as base_url:
        yield base_url, "syncer", token


def test_python_caldav_follows_a_cut_sync_to_the_end(served: tuple[str, str, str]) -> None:
    base, username, token = served
    rest = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    space = rest.get("/api/toolkit/todo/spaces").json()["data"]["spaces"][0]["id"]
    calendar = f"{base}/dav/{username}/{space}/"
    made = [
        rest.post("/api/toolkit/todo/tasks", json={"title": f"t{n}", "spaceId": space}).json()["data"]["task"]
        for n in range(30)
    ]
    ids = [task["id"] for task in made]
    cut = httpx.request("REPORT", calendar, content=sync_body(), headers={"Authorization": basic(username, token)})
    assert cut_at(ET.fromstring(cut.content)) == calendar.removeprefix(base)  # what the client is to follow
    client = CaldavClient(f"{base}/dav/", username, token)
    try:
        first = client.ok("sync", calendar=calendar)
        assert sorted(o["url"] for o in first["objects"]) == sorted(f"{calendar}{i}.ics" for i in ids)
        for task in made[:20]:
            retitle = {"title": f"renamed {task['id']}", "expectedRevision": task["revision"]}
            changed = rest.patch(f"/api/toolkit/todo/tasks/{task['id']}", json=retitle)
            assert changed.status_code == 200, changed.text
        trash = {"expectedRevision": made[25]["revision"]}
        trashed = rest.request("DELETE", f"/api/toolkit/todo/tasks/{ids[25]}", json=trash)
        assert trashed.status_code == 200, trashed.text
        later = client.ok("sync", calendar=calendar, token=first["token"])
        assert sorted(o["url"] for o in later["objects"]) == sorted(f"{calendar}{i}.ics" for i in ids[:20])
        assert all(f"SUMMARY:renamed {o['url'].rsplit('/', 1)[-1][:-4]}" in o["data"] for o in later["objects"])
        assert later["deleted"] == [f"{calendar}{ids[25]}.ics"]
        assert client.ok("sync", calendar=calendar, token=later["token"])["objects"] == []
    finally:
        client.close()
        rest.close()


def test_a_query_keeps_no_members_calendar_once_its_filter_read_it(dav: Dav, monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter renders each member's VTODO; kept for each of a large calendar's tasks (some KiB
    each) they held the whole calendar in memory while the answer stayed small."""
    tasks(dav, 12)
    alive: list[weakref.ref[Any]] = []
    most = 0

    def counting(calendar: Any, filter_element: ET.Element, floating: Any) -> bool:
        nonlocal most
        alive.append(weakref.ref(calendar))
        most = max(most, sum(1 for ref in alive if ref() is not None))
        return bool(real(calendar, filter_element, floating))

    real = report.matches
    monkeypatch.setattr(report, "matches", counting)
    answer = dav.request("REPORT", dav.calendar, QUERY, Depth="1")
    assert answer.status_code == 207 and len(alive) == 12
    assert most == 1


def test_a_property_of_the_clients_own_namespace_stays_declared_in_each_response(dav: Dav) -> None:
    """Responses are written one at a time, the answer's root declaring MeSQ's prefixes: a
    namespace only the client knows is declared on each response that names it."""
    tasks(dav, 2)
    body = f'<D:propfind {XMLNS} xmlns:X="http://example.com/ns"><D:prop><D:getetag/><X:colour/></D:prop></D:propfind>'
    root = dav.propfind(dav.calendar, body, depth="1")
    assert len(root.findall("D:response", NS)) == 3
    assert len(root.findall("D:response/D:propstat/D:prop/{http://example.com/ns}colour", NS)) == 3


def test_a_response_is_written_as_elementtree_writes_it_without_its_per_call_namespace_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Writing each response with ElementTree.tostring (its namespace walk and writer set up per
    call) made PROPFIND depth 1 on 2,000 tasks a third slower than writing the answer whole;
    xml.fragment writes MeSQ's own namespaces itself, to the same bytes, awkward text included."""
    response = ET.Element("{DAV:}response")
    xml.element(response, "{DAV:}href", "/dav/a/b/x&y<z>\"q'\\长.ics")
    prop = xml.element(xml.element(response, "{DAV:}propstat"), "{DAV:}prop")
    xml.element(prop, "{DAV:}getetag", '"abc-1"')
    xml.element(prop, "{urn:ietf:params:xml:ns:caldav}calendar-data", "A\r\nB:\x0c\x1b & <b>\r\n\tc \ud800")
    comp = xml.element(prop, "{urn:ietf:params:xml:ns:caldav}comp")
    comp.set("name", 'V"T\n\r\t<&>\x07')
    comp.tail = "t&\x01"
    xml.element(prop, "{DAV:}displayname")

    def refused(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("a response of MeSQ's own namespaces is written without ElementTree.tostring")

    reference = ET.tostring(copy.deepcopy(response), encoding="unicode")
    monkeypatch.setattr(ET, "tostring", refused)
    written = budget.fragment(response)
    expected = reference.split(">", 1)[1]  # ElementTree's own text, the namespace declarations left out
    expected = "<D:response>" + re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "", expected)
    assert written == expected.encode("utf-8", "xmlcharrefreplace")
