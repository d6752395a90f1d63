"""A subtask trashed with its parent: its name and UID are free again for a new task, as a
trashed task's are."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from tests.dav.conftest import Dav, hrefs, vtodo


def _title(dav: Dav, name: str) -> str:
    etag = dav.get(name).headers["etag"].strip('"')
    return str(dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]["title"])


def test_a_subtask_trashed_with_its_parent_gives_up_its_name(dav: Dav) -> None:
    """A subtask goes to the trash with its deleted parent; its name and UID are then free, as
    a trashed task's are (docs/caldav.md: apps that delete first make a new task). Before, a PUT
    of that name was 409 "belongs to a task in another collection; delete it there first" on
    every sync, naming a collection that does not exist."""
    assert dav.put("p.ics", vtodo("p", summary="parent")).status_code == 201
    assert dav.put("c.ics", vtodo("c", "RELATED-TO;RELTYPE=PARENT:p", summary="child")).status_code == 201
    assert dav.request("DELETE", dav.calendar + "p.ics").status_code == 204
    assert dav.get("c.ics").status_code == 404
    again = dav.put("c.ics", vtodo("c", summary="child, again"))
    assert again.status_code == 201, again.text
    assert _title(dav, "c.ics") == "child, again"
    parent = dav.rest("GET", "/api/toolkit/todo/trash")["items"][0]
    assert parent["title"] == "parent"
    dav.rest("POST", f"/api/toolkit/todo/tasks/{parent['id']}/restore", expectedRevision=parent["revision"])
    listing = dav.request("PROPFIND", dav.calendar, None, Depth="1")
    names = {href.rsplit("/", 1)[-1] for href in hrefs(ET.fromstring(listing.content))}
    old_child = next(n for n in names if n not in ("", "p.ics", "c.ics"))  # the restored child, as <id>.ics
    assert {"p.ics", "c.ics"} <= names
    assert "SUMMARY:child\r\n" in dav.get(old_child).text and "RELATED-TO" in dav.get(old_child).text
    assert _title(dav, "c.ics") == "child, again"
