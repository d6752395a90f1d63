"""An app's own spelling of a category stays when MeSQ changes another tag of the task: only
the tags MeSQ changed are written its way. Before, renaming or adding one tag on the board
rewrote every category (Thunderbird's "Keep Me" came back as "Keep-Me", a new category in
its list, and `a\\,b` as `a-b`)."""

from __future__ import annotations

from icalendar import Calendar

from tests.dav.conftest import Dav, vtodo


def _categories(dav: Dav, name: str) -> list[str]:
    todo = next(iter(Calendar.from_ical(dav.get(name).content).walk("VTODO")))
    found = todo.get("categories")
    groups = found if isinstance(found, list) else [found]
    return [str(category) for group in groups for category in group.cats]


def test_the_apps_categories_stay_when_mesq_adds_a_tag(dav: Dav) -> None:
    lines = ("CATEGORIES:读书,Keep Me,a\\,b", "CATEGORIES:Work Stuff")
    assert dav.put("t.ics", vtodo("t", *lines)).status_code == 201
    etag = dav.get("t.ics").headers["etag"].strip('"')
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]
    assert task["tags"] == ["读书", "Keep-Me", "a-b", "Work-Stuff"]
    tags = [*task["tags"][1:], "新"]  # one dropped, one added on the board
    dav.rest("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", expectedRevision=task["revision"], tags=tags)
    assert _categories(dav, "t.ics") == ["Keep Me", "a,b", "Work Stuff", "新"]
