"""A cut sync-collection (dav/sync.py) followed through its continuation tokens while tasks move
between spaces, and a continuation token sent where it was not given out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree as ET

from tests.dav.conftest import NS, Dav, hrefs, vtodo
from tests.dav.test_answer_budget import cut_at, follow, sync_body, tasks


def _token(root: ET.Element) -> str:
    return str(root.findtext("D:sync-token", namespaces=NS))


def _id_of(dav: Dav, title: str) -> dict[str, Any]:
    found = [t for t in dav.rest("GET", f"/api/toolkit/todo/query?query={title}")["items"] if t["title"] == title]
    assert len(found) == 1, found
    return dict(found[0])


def _move(dav: Dav, title: str, space: str) -> None:
    task = _id_of(dav, title)
    dav.rest("POST", f"/api/toolkit/todo/tasks/{task['id']}/move", spaceId=space, expectedRevision=task["revision"])


def test_tasks_moved_between_spaces_between_cut_answers(dav: Dav) -> None:
    made = tasks(dav, 10)
    other = dav.rest("POST", "/api/toolkit/todo/spaces", name="Other")["space"]["id"]
    other_calendar = f"/dav/{dav.username}/{other}/"
    assert dav.request("PUT", other_calendar + "a-first.ics", vtodo("a-first", summary="mover")).status_code == 201
    first = dav.report(dav.calendar, sync_body(nresults=4))
    assert cut_at(first) == dav.calendar and [h for h in hrefs(first) if h != dav.calendar] == made[:4]
    _move(dav, "task 1", other)  # sent already: it must come as removed
    _move(dav, "task 7", other)  # not sent yet: it must not come as present
    _move(dav, "mover", dav.space)  # a name before the cut: it must come
    seen, token, _ = follow(dav.request, dav.calendar, _token(first), nresults=4)
    assert seen[made[1]] == "404"
    assert seen.get(made[7], "404") == "404"
    assert seen[f"{dav.calendar}a-first.ics"] == ""
    assert {h for h, s in seen.items() if s == ""} == {*made[4:7], *made[8:], f"{dav.calendar}a-first.ics"}
    assert hrefs(dav.report(dav.calendar, sync_body(token))) == []


def test_a_continuation_token_of_another_calendar_is_refused(dav: Dav) -> None:
    tasks(dav, 3)
    other = dav.rest("POST", "/api/toolkit/todo/spaces", name="Other")["space"]["id"]
    other_calendar = f"/dav/{dav.username}/{other}/"
    for number in range(3):
        assert dav.request("PUT", f"{other_calendar}other-{number}.ics", vtodo(f"o{number}")).status_code == 201
    first = dav.report(other_calendar, sync_body(nresults=1))
    assert cut_at(first) == other_calendar
    refused = dav.request("REPORT", dav.calendar, sync_body(_token(first)), Depth="1")
    assert refused.status_code == 403 and "valid-sync-token" in refused.text


def test_a_continuation_token_of_another_account_is_refused(dav: Dav, make_dav: Callable[..., Dav]) -> None:
    tasks(dav, 3)
    first = dav.report(dav.calendar, sync_body(nresults=1))
    stranger = make_dav()
    tasks(stranger, 3)
    refused = stranger.request("REPORT", stranger.calendar, sync_body(_token(first)), Depth="1")
    assert refused.status_code == 403 and "valid-sync-token" in refused.text
