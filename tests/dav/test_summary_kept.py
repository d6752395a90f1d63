"""An app's SUMMARY parameters (`LANGUAGE=zh-CN`, an `ALTREP`) stay while MeSQ leaves the title
as it is: an edit of another field on the board rewrote the whole task and wrote a bare SUMMARY,
so the app lost what it had said of its own title. A new title is MeSQ's, written its way."""

from __future__ import annotations

from icalendar import Calendar

from tests.dav.conftest import Dav, vtodo


def _summary(dav: Dav, name: str) -> tuple[str, dict[str, str]]:
    todo = next(iter(Calendar.from_ical(dav.get(name).content).walk("VTODO")))
    summary = todo["summary"]
    return str(summary), dict(summary.params)


def test_the_apps_summary_parameters_stay_when_mesq_changes_another_field(dav: Dav) -> None:
    body = vtodo("s", "PRIORITY:9").replace("SUMMARY:A task", "SUMMARY;LANGUAGE=zh-CN:买菜")
    assert dav.put("s.ics", body).status_code == 201
    etag = dav.get("s.ics").headers["etag"].strip('"')
    task = dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]
    assert task["title"] == "买菜"
    changed = dav.rest(
        "PATCH", f"/api/toolkit/todo/tasks/{task['id']}", expectedRevision=task["revision"], priority="urgent"
    )
    assert _summary(dav, "s.ics") == ("买菜", {"LANGUAGE": "zh-CN"})
    revision = changed["task"]["revision"]
    dav.rest("PATCH", f"/api/toolkit/todo/tasks/{task['id']}", expectedRevision=revision, title="买水果")
    assert _summary(dav, "s.ics") == ("买水果", {})
