"""A listing holds what it lists, not the collection's records: PROPFIND depth 1, calendar-query
and sync-collection (a cut initial sync and its continuation) on a large space keep the names,
ETag inputs and parent links of its tasks, and read the whole records by key a batch at a time as
the answer fills. Read into one list, 1,500 tasks of 12 KB of notes each held some 20 MB for
every answer, however small (a DAV:limit of 10): 17 MiB here, 62 MB at 20,000 tasks."""

from __future__ import annotations

import re
import tracemalloc
from typing import Any

import pytest

from mesq.dav import budget
from mesq.kernel.timestamps import now_timestamp
from mesq.store import paging
from mesq.todos import keys as todo_keys
from mesq.todos import list_sizes, model
from mesq.todos import state as todo_state
from mesq.todos import writes as todo_writes
from mesq.todos.sync import reads
from tests.dav.conftest import NS, Dav, hrefs, prop

TASKS = 1_500
NOTES = "長" * 4_000  # 12 KB of UTF-8: a record is KiB, its listing entry some hundred bytes
#: The old code's peak was 17 MiB for each answer below, this one's under 4: a listing of 1,650 tasks, one query
#: page of records and one batch of them stay well under this.
PEAK_BOUND = 6 * 1024 * 1024

PROPFIND = '<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>'
FOUND_NONE = (
    '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
    "<D:prop><D:getetag/><C:calendar-data/></D:prop>"
    '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO">'
    '<C:prop-filter name="SUMMARY"><C:text-match>no task is called this</C:text-match></C:prop-filter>'
    "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
)
EVERY_TODO = (
    '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
    "<D:prop><D:getetag/><C:calendar-data/></D:prop>"
    '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"/></C:comp-filter></C:filter>'
    "</C:calendar-query>"
)
CALENDAR_DATA = '<C:calendar-data xmlns:C="urn:ietf:params:xml:ns:caldav"/>'


def sync(token: str = "", nresults: int = 10) -> str:
    return (
        f'<D:sync-collection xmlns:D="DAV:"><D:sync-token>{token}</D:sync-token><D:sync-level>1</D:sync-level>'
        f"<D:limit><D:nresults>{nresults}</D:nresults></D:limit>"
        "<D:prop><D:getetag/></D:prop></D:sync-collection>"
    )


def seed(dav: Dav, count: int) -> list[str]:
    """`count` root tasks with long notes in the default space, a tenth of them with a subtask,
    written straight to the store (as bench/todo_views.py does) so the test stays fast."""
    state = todo_state.load_partial(dav.services.items, dav.user_id)
    space = state.default_space()
    assert space is not None
    column = state.columns_of(space["id"])[0]["id"]
    now = now_timestamp()
    positions = model.positions_between(None, None, count)
    ops: list[Any] = []
    names = []
    for index in range(count):
        fields = model.new_task_fields({"title": f"task {index}", "notes": NOTES}, now)
        root = {**fields, "id": f"t{index:05d}", "spaceId": space["id"], "columnId": column, "parentId": None}
        ops.append(todo_writes.put_new(dav.user_id, "task", {**root, "position": positions[index]}))
        names.append(f"t{index:05d}.ics")
        if index % 10 == 0:
            sub = {**root, "id": f"t{index:05d}s", "columnId": None, "parentId": root["id"], "position": positions[0]}
            ops.append(todo_writes.put_new(dav.user_id, "task", sub))
            names.append(f"t{index:05d}s.ics")
        if len(ops) >= 40 or index == count - 1:
            sizes = list_sizes.size_ops(dav.user_id, lambda _kind, _ident: None, ops, {})
            dav.services.items.transact([*ops, *sizes])
            ops.clear()
    return sorted(names)


@pytest.fixture
def large(dav: Dav, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """1,650 tasks; query pages of 100 records (a page is held while it is read) and an answer of
    64 KiB (a 4 MiB answer is itself 4 MiB), so what is measured is what a listing holds."""
    monkeypatch.setattr(paging, "QUERY_PAGE", 100)
    monkeypatch.setattr(budget, "ANSWER_BUDGET", budget.CLOSING_RESERVE + 64 * 1024)
    return seed(dav, TASKS)


def peak_of(dav: Dav, method: str, body: str) -> tuple[int, Any]:
    tracemalloc.start()
    try:
        answer = dav.request(method, dav.calendar, body, Depth="1")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code == 207, answer.text[:500]
    return peak, answer


def members(answer: Any, dav: Dav) -> list[str]:
    return [href.removeprefix(dav.calendar) for href in hrefs(_root(answer)) if href != dav.calendar]


def _root(answer: Any) -> Any:
    from xml.etree import ElementTree as ET

    return ET.fromstring(answer.content)


@pytest.mark.parametrize(
    "method, body",
    [("PROPFIND", PROPFIND), ("REPORT", FOUND_NONE), ("REPORT", sync())],
    ids=["propfind depth 1", "calendar-query testing every VTODO", "sync-collection DAV:limit 10"],
)
def test_an_answer_on_a_large_space_holds_its_listing_not_its_records(
    dav: Dav, large: list[str], method: str, body: str
) -> None:
    peak, answer = peak_of(dav, method, body)
    assert peak < PEAK_BOUND, f"{peak / 2**20:.1f} MiB"
    listed = members(answer, dav)
    if body == FOUND_NONE:
        assert listed == []  # every VTODO was rendered and tested, and dropped
    elif method == "PROPFIND":
        assert 100 < len(listed) < len(large)  # cut by the budget, in the store's order
        assert listed == sorted(listed)
    else:
        assert listed == large[:10]


def test_a_cut_initial_sync_continues_from_where_it_stopped_within_the_bound(dav: Dav, large: list[str]) -> None:
    _, first = peak_of(dav, "REPORT", sync(nresults=12))
    assert members(first, dav)[-1] == "t00010.ics"
    token = str(_root(first).findtext("D:sync-token", namespaces=NS))
    assert "/" in token.removeprefix("urn:x-mesq:sync:")  # a continuation token
    peak, second = peak_of(dav, "REPORT", sync(token, nresults=25))
    assert peak < PEAK_BOUND, f"{peak / 2**20:.1f} MiB"
    assert members(second, dav) == large[12:37]
    # The subtask right after the resume point still names its task, listed before that point.
    with_data = sync(token, nresults=1).replace("<D:getetag/>", f"<D:getetag/>{CALENDAR_DATA}")
    _, subtask = peak_of(dav, "REPORT", with_data)
    assert members(subtask, dav) == ["t00010s.ics"]
    assert re.search(rb"RELATED-TO[^:\r\n]*:t00010\b", subtask.content)


def test_calendar_data_is_read_a_batch_at_a_time_as_the_answer_fills(
    dav: Dav, large: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync asking calendar-data reads by key only the records the answer can still take
    (its DAV:limit: the 3 written and the one its cut stops at), never the collection's."""
    read: list[int] = []
    real = reads.whole
    monkeypatch.setattr(reads, "whole", lambda *args: read.append(len(args[3])) or real(*args))
    body = sync(nresults=3).replace("<D:getetag/>", f"<D:getetag/>{CALENDAR_DATA}")
    peak, answer = peak_of(dav, "REPORT", body)
    assert members(answer, dav) == large[:3]
    assert sum(read) == 4  # not a whole batch (members.LOAD_BATCH) for 3
    body = sync(nresults=250).replace("<D:getetag/>", f"<D:getetag/>{CALENDAR_DATA}")
    read.clear()
    budgeted = dav.request("REPORT", dav.calendar, body, Depth="1")
    written = len(members(budgeted, dav))
    assert 3 < written < 250  # cut by the 64 KiB budget first
    assert written < sum(read) <= written + 100 and max(read) <= 100  # batches as the answer fills
    assert peak < PEAK_BOUND
    assert answer.content.count(b"BEGIN:VTODO") == 3


def test_a_member_trashed_between_its_listing_and_its_read_is_left_out(dav: Dav) -> None:
    for name in ("a", "b", "c"):
        created = dav.rest("POST", "/api/toolkit/todo/tasks", title=name, spaceId=dav.space)
        assert created["task"]["id"]
    listed = reads.listing(dav.services.items, dav.user_id, dav.space).members
    assert len(listed) == 3 and all("notes" not in record and "title" not in record for _, record in listed)
    gone = str(listed[1][1]["id"])
    assert dav.request("DELETE", f"{dav.calendar}{gone}.ics").status_code == 204  # trashed
    records = reads.whole(dav.services.items, dav.user_id, dav.space, listed)
    assert [record is None for record in records] == [False, True, False]
    assert [record["id"] for record in records if record] == [listed[0][1]["id"], listed[2][1]["id"]]


def test_a_listed_etag_names_the_zone_as_the_get_does_a_recurring_subtask_too(dav: Dav) -> None:
    """A listing decides from each whole record whether its body is written in the user's zone
    (its ETag then carries the zone's mark). A subtask that recurs, which the board never makes
    but a store may hold, needs its task's UID for that: its record is read once the listing
    knows it."""
    assert dav.rest("PUT", "/api/toolkit/todo/context", timeZone="Europe/Berlin")["timeZone"] == "Europe/Berlin"
    due = {"type": "datetime", "at": "2026-12-07T09:00:00+01:00"}
    made = dav.rest(
        "POST", "/api/toolkit/todo/tasks", title="Stand-up", spaceId=dav.space, due=due, recurrence="FREQ=DAILY"
    )
    task = made["task"]
    once = dav.rest("POST", "/api/toolkit/todo/tasks", title="Once", spaceId=dav.space, due=due)["task"]
    child = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/subtasks", title="child", due=due)["subtask"]
    key = todo_keys.task_key(dav.user_id, child["id"])
    stored = todo_keys.record_of(dav.services.items.get(key) or {})
    dav.services.items.put(todo_keys.stored(dav.user_id, "task", {**stored, "recurrence": task["recurrence"]}))
    root = dav.propfind(dav.calendar, PROPFIND, depth="1")
    listed = {href: str(prop(root, href, "D:getetag").text) for href in hrefs(root) if href != dav.calendar}  # type: ignore[union-attr]
    assert len(listed) == 3
    for href, etag in listed.items():
        assert dav.request("GET", href).headers["ETag"] == etag
    assert "-z" in listed[f"{dav.calendar}{task['id']}.ics"]
    assert "-z" in listed[f"{dav.calendar}{child['id']}.ics"]  # decided with its task's UID, as a GET does
    assert "-z" not in listed[f"{dav.calendar}{once['id']}.ics"]


def test_a_multiget_of_every_task_reads_them_a_batch_at_a_time(dav: Dav, large: list[str]) -> None:
    """vdirsyncer asks for every changed task in one calendar-multiget: its hrefs are listed, and
    the records read as the answer takes them; those past the budget get their 507 unread."""
    named = "".join(f"<D:href>{dav.calendar}{name}</D:href>" for name in [*large, "missing.ics"])
    body = (
        '<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
        f"<D:prop><D:getetag/>{CALENDAR_DATA}</D:prop>{named}</C:calendar-multiget>"
    )
    peak, answer = peak_of(dav, "REPORT", body)
    assert peak < PEAK_BOUND, f"{peak / 2**20:.1f} MiB"
    root = _root(answer)
    status = {}
    for response in root.findall("D:response", NS):
        href = str(response.findtext("D:href", namespaces=NS)).removeprefix(dav.calendar)
        status[href] = str(response.findtext(".//D:status", namespaces=NS))
    assert list(status) == [*large, "missing.ics"]  # each href answered, in the client's order
    sent = [name for name, line in status.items() if "200" in line]
    assert 0 < len(sent) < 10 and sent == large[: len(sent)]
    assert all("507" in status[name] for name in [*large[len(sent) :], "missing.ics"])


def test_a_task_trashed_while_an_answer_lists_it_is_gone_where_a_client_named_it(
    dav: Dav, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trashed between the listing and the read of its record: a sync-collection answers its name
    404 (gone from there), a calendar-query leaves it out; neither gives out its old data."""
    ids = [dav.rest("POST", "/api/toolkit/todo/tasks", title=t, spaceId=dav.space)["task"]["id"] for t in "abc"]
    victims = [ids[1], ids[0]]  # one trashed right after each listing
    real = reads.listing

    def trashing_after_listing(*args: Any, **kwargs: Any) -> reads.Listing:
        found = real(*args, **kwargs)
        record = todo_keys.record_of(dav.services.items.get(todo_keys.task_key(dav.user_id, victims.pop(0))) or {})
        dav.services.items.put(todo_keys.stored(dav.user_id, "task", {**record, "deletedAt": record["updatedAt"]}))
        return found

    monkeypatch.setattr(reads, "listing", trashing_after_listing)
    with_data = sync(nresults=50).replace("<D:getetag/>", f"<D:getetag/>{CALENDAR_DATA}")
    root = _root(dav.request("REPORT", dav.calendar, with_data, Depth="1"))
    status = {}
    for response in root.findall("D:response", NS):
        status[str(response.findtext("D:href", namespaces=NS))] = str(response.findtext(".//D:status", namespaces=NS))
    assert "404" in status[f"{dav.calendar}{ids[1]}.ics"]
    assert "200" in status[f"{dav.calendar}{ids[0]}.ics"] and "200" in status[f"{dav.calendar}{ids[2]}.ics"]
    query = dav.request("REPORT", dav.calendar, EVERY_TODO, Depth="1")
    assert query.status_code == 207 and members(query, dav) == [f"{ids[2]}.ics"]
    assert b"BEGIN:VTODO" in query.content and not victims


def test_a_getetag_listing_reads_no_record_by_key_recurring_subtasks_too(
    dav: Dav, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PROPFIND asking only getetag is answered from the listing's one pass: no record is read
    by key, not even a recurring subtask's (whose ETag needs its task's UID, known once the pass
    is done), and each listed ETag is still the one a GET answers."""
    assert dav.rest("PUT", "/api/toolkit/todo/context", timeZone="Europe/Berlin")["timeZone"] == "Europe/Berlin"
    due = {"type": "datetime", "at": "2026-12-07T09:00:00+01:00"}
    task = dav.rest(
        "POST", "/api/toolkit/todo/tasks", title="Stand-up", spaceId=dav.space, due=due, recurrence="FREQ=DAILY"
    )["task"]
    for title in ("one", "two", "three"):
        child = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/subtasks", title=title, due=due)["subtask"]
        stored = todo_keys.record_of(dav.services.items.get(todo_keys.task_key(dav.user_id, child["id"])) or {})
        dav.services.items.put(todo_keys.stored(dav.user_id, "task", {**stored, "recurrence": "FREQ=DAILY"}))
    # an app's own recurring subtask, floating: its body is the app's while nothing changed it
    app = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Test//EN\r\nBEGIN:VTODO\r\nUID:app-parent\r\n"
        "DTSTAMP:20261201T000000Z\r\nSUMMARY:Parent\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    )
    assert dav.put("app-parent.ics", app).status_code == 201
    child_ical = app.replace("UID:app-parent", "UID:app-child").replace(
        "SUMMARY:Parent",
        "SUMMARY:Child\r\nDUE:20261207T090000\r\nRRULE:FREQ=DAILY\r\nRELATED-TO;RELTYPE=PARENT:app-parent",
    )
    assert dav.put("app-child.ics", child_ical).status_code == 201
    by_key: list[Any] = []
    items = dav.services.items
    real_get, real_batch = items.get, items.batch_get
    monkeypatch.setattr(items, "get", lambda key, *a, **k: by_key.append(key) or real_get(key, *a, **k))
    monkeypatch.setattr(items, "batch_get", lambda keys, *a, **k: by_key.extend(keys) or real_batch(keys, *a, **k))
    root = dav.propfind(dav.calendar, PROPFIND, depth="1")
    record_reads = [key for key in by_key if str(key[1]).startswith(todo_keys.KIND_PREFIX["task"])]
    assert record_reads == []
    monkeypatch.undo()
    listed = {href: str(prop(root, href, "D:getetag").text) for href in hrefs(root) if href != dav.calendar}  # type: ignore[union-attr]
    assert len(listed) == 6
    for href, etag in listed.items():
        assert dav.request("GET", href).headers["ETag"] == etag
    assert sum("-z" in etag for etag in listed.values()) == 4  # the task and its three; the app's own is not
    assert "-z" not in listed[f"{dav.calendar}app-child.ics"]


def test_a_subtask_whose_task_is_trashed_while_an_answer_lists_it_is_gone_with_it(
    dav: Dav, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trashing a task hides its subtasks without writing them: a subtask listed before its task
    was trashed is no member by the time its record is read (a GET says 404), so an answer that
    reads it then leaves it out or answers its name 404, as for a task trashed itself."""
    task = dav.rest("POST", "/api/toolkit/todo/tasks", title="parent", spaceId=dav.space)["task"]
    child = dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/subtasks", title="child")["subtask"]
    other = dav.rest("POST", "/api/toolkit/todo/tasks", title="other", spaceId=dav.space)["task"]
    real = reads.listing

    def trashing_the_task_after_listing(*args: Any, **kwargs: Any) -> reads.Listing:
        found = real(*args, **kwargs)
        record = todo_keys.record_of(dav.services.items.get(todo_keys.task_key(dav.user_id, task["id"])) or {})
        dav.services.items.put(todo_keys.stored(dav.user_id, "task", {**record, "deletedAt": record["updatedAt"]}))
        return found

    monkeypatch.setattr(reads, "listing", trashing_the_task_after_listing)
    with_data = sync(nresults=50).replace("<D:getetag/>", f"<D:getetag/>{CALENDAR_DATA}")
    root = _root(dav.request("REPORT", dav.calendar, with_data, Depth="1"))
    status = {
        str(response.findtext("D:href", namespaces=NS)): str(response.findtext(".//D:status", namespaces=NS))
        for response in root.findall("D:response", NS)
    }
    assert "404" in status[f"{dav.calendar}{task['id']}.ics"]
    assert "404" in status[f"{dav.calendar}{child['id']}.ics"]
    assert "200" in status[f"{dav.calendar}{other['id']}.ics"]
    monkeypatch.setattr(reads, "listing", real)
    record = todo_keys.record_of(dav.services.items.get(todo_keys.task_key(dav.user_id, task["id"])) or {})
    dav.services.items.put(todo_keys.stored(dav.user_id, "task", {**record, "deletedAt": None}))
    monkeypatch.setattr(reads, "listing", trashing_the_task_after_listing)
    query = dav.request("REPORT", dav.calendar, EVERY_TODO, Depth="1")
    assert query.status_code == 207 and members(query, dav) == [f"{other['id']}.ics"]
    assert dav.request("GET", f"{dav.calendar}{child['id']}.ics").status_code == 404


def test_an_incremental_sync_of_many_changes_holds_their_listing_not_their_records(
    dav: Dav, large: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync from a token reads what the changes since it touched: every task here (an import,
    an undo of one). It keeps of each what a listing does and reads the whole records a batch at
    a time as the answer fills, so its peak stays the listing's, whatever the records hold; the
    answer is the same: the changed names in order, each ETag the one a GET gives."""
    _, first = peak_of(dav, "REPORT", sync(nresults=100_000))
    token = str(_root(first).findtext("D:sync-token", namespaces=NS))
    real = reads.changed_since

    def everything_touched(*args: Any, **kwargs: Any) -> reads.Changes | None:
        found = real(*args, **kwargs)
        assert found is not None
        task_ids = [name.removesuffix(".ics") for name in large]
        return reads.Changes(found.point, {("task", task_id): {dav.space} for task_id in task_ids})

    monkeypatch.setattr(reads, "changed_since", everything_touched)
    peak, answer = peak_of(dav, "REPORT", sync(token, nresults=10))
    assert peak < PEAK_BOUND, f"{peak / 2**20:.1f} MiB"
    assert members(answer, dav) == large[:10]
    root = _root(answer)
    for name in large[:10]:
        etag = prop(root, f"{dav.calendar}{name}", "D:getetag")
        assert etag is not None and etag.text == dav.request("GET", f"{dav.calendar}{name}").headers["ETag"]
    with_data = sync(token, nresults=3).replace("<D:getetag/>", f"<D:getetag/>{CALENDAR_DATA}")
    peak, answer = peak_of(dav, "REPORT", with_data)
    assert peak < PEAK_BOUND, f"{peak / 2**20:.1f} MiB"
    assert members(answer, dav) == large[:3] and answer.content.count(b"BEGIN:VTODO") == 3
    assert re.search(rb"RELATED-TO[^:\r\n]*:t00000\b", answer.content)  # t00000s names its task
