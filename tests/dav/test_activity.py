"""A CalDAV edit is an edit like any other: in /activity under the client's token name, and
undone from there (the page's Undo), after which the client reads the task as it was."""

from __future__ import annotations

import re

from tests.dav.conftest import PASSWORD, Dav, vtodo


def test_a_caldav_edit_shows_under_the_token_name_and_undo_restores_it(dav: Dav) -> None:
    dav.put("errand.ics", vtodo("errand", "X-APPLE-SORT-ORDER:7", summary="Post the letter"))
    assert dav.put("errand.ics", vtodo("errand", "X-APPLE-SORT-ORDER:8", summary="Post the parcel")).status_code == 204
    newest = dav.rest("GET", "/api/toolkit/changes?limit=1")["changes"][0]
    assert newest["actor"]["name"] == "Phone" and newest["actor"]["kind"] == "pat"
    assert newest["operation"] == "save_synced_todo" and newest["action"] == "update"
    assert newest["before"]["title"] == "Post the letter" and newest["after"]["title"] == "Post the parcel"

    browser = dav.client
    page = browser.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf
    signed = browser.post("/login", data={"csrf": csrf.group(1), "username": dav.username, "password": PASSWORD},
                          follow_redirects=False)  # fmt: skip
    assert signed.status_code == 303, signed.text
    activity = browser.get("/activity")
    group = activity.text.split('class="card activity-group"', 2)[1]
    assert "Phone" in group.split("</h2>")[0] and "access token" in group.split("</h2>")[0]
    assert 'renamed the task “<span class="title">Post the letter</span>” to “Post the parcel”' in group
    edit = re.search(rf'name="changeId" value="({re.escape(newest["id"])})"', group)
    token = re.search(r'name="csrf" value="([^"]+)"', activity.text)
    assert edit and token, group[:1500]
    undone = browser.post(
        "/activity/undo", data={"csrf": token.group(1), "changeId": edit.group(1), "back": "/activity"},
        follow_redirects=False,
    )  # fmt: skip
    assert undone.status_code == 303 and undone.headers["location"] == "/activity"
    assert "Undid 1 change." in browser.get("/activity").text  # the flash the redirect carries
    back = dav.get("errand.ics").text
    # The task's fields go back; the client's own properties stay as it last wrote them (they are
    # its bookkeeping, not a field the history keeps).
    assert "SUMMARY:Post the letter" in back and "X-APPLE-SORT-ORDER:8" in back
