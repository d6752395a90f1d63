"""Tenant isolation of CalDAV and of the sync write: another user's calendars, collections,
tasks, names and UIDs are never reached, over CalDAV paths or REST's save_synced_todo, and the
other user's records stay byte-for-byte as they were."""

from __future__ import annotations

from collections.abc import Callable

from mesq.wiring.services import Services
from tests.dav.conftest import Dav, basic, snapshot, vtodo


def test_another_users_calendars_and_tasks_are_out_of_reach(make_dav: Callable[..., Dav], services: Services) -> None:
    alice, bob = make_dav(), make_dav()
    alice.put("secret.ics", vtodo("secret-uid", summary="Alice's secret"))
    task = alice.rest("GET", "/api/toolkit/todo/query?query=secret")["items"][0]
    before = snapshot(services, alice.user_id)

    assert bob.request("PROPFIND", f"/dav/{alice.username}/", Depth="1").status_code == 403
    assert bob.request("GET", alice.calendar + "secret.ics").status_code == 403
    theirs = f"/dav/{bob.username}/{alice.space}/"
    assert bob.request("PROPFIND", theirs, Depth="1").status_code == 404
    assert bob.request("GET", theirs + "secret.ics").status_code == 404
    assert bob.request("PUT", theirs + "x.ics", vtodo("x"), content_type="text/calendar").status_code == 404
    assert bob.request("DELETE", theirs + "secret.ics").status_code == 404
    as_alice = bob.client.request(
        "PROPFIND", alice.calendar, headers={"Authorization": basic(alice.username, bob.token)}
    )
    assert as_alice.status_code == 401

    # Alice's names and UIDs mean nothing in Bob's account: his own new task, nothing of hers.
    for name, uid in (("secret.ics", "secret-uid"), (f"{task['id']}.ics", task["id"])):
        answer = bob.put(name, vtodo(uid, summary="Bob's"), If_None_Match="*")
        assert answer.status_code == 201, answer.text
    refused = bob.client.put(
        "/api/toolkit/todo/synced", headers={"Authorization": f"Bearer {bob.token}"},
        json={"collection": alice.space, "name": "fresh.ics", "uid": "fresh-uid", "title": "hijacked"},
    )  # fmt: skip
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "NOT_FOUND"
    assert snapshot(services, alice.user_id) == before
    assert "Alice's secret" in alice.get("secret.ics").text


def test_the_account_url_written_with_capitals_is_the_users_own(make_dav: Callable[..., Dav]) -> None:
    """docs/caldav.md has people type the Account URL `/dav/<username>/` into iOS, and says
    capitals in the username do not matter (as at sign-in): `/dav/Alice/` was 403 "belongs to
    another account" for alice herself. Another user's name in any case stays refused."""
    alice, bob = make_dav(), make_dav()
    shouted = alice.username.upper()
    home = alice.request("PROPFIND", f"/dav/{shouted}/", Depth="1")
    assert home.status_code == 207, home.text
    assert f"/dav/{alice.username}/{alice.space}/" in home.text  # the answer names the canonical paths
    made = alice.request("PUT", f"/dav/{shouted}/{alice.space}/a.ics", vtodo("a"), content_type="text/calendar")
    assert made.status_code == 201, made.text
    assert alice.get("a.ics").status_code == 200
    assert bob.request("PROPFIND", f"/dav/{shouted}/", Depth="1").status_code == 403
    assert bob.request("GET", f"/dav/{shouted}/{alice.space}/a.ics").status_code == 403
