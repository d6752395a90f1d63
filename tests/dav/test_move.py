"""Moving a task to another list in Apple's apps: iOS (dataaccessd) sends MOVE with a Destination
in the other calendar, under the same name (RFC 4918 §9.9). MeSQ answered 405 (in English JSON);
the apps then PUT the copy into the other list first, which one UID naming one task refuses (409
`no-uid-conflict`), so the move failed. Now a MOVE moves the task to that space as the board's
move does (its subtasks with it, the same name and UID, recorded under the token's name), and an
inbox item goes to the board as "move to board" does; what MeSQ cannot do is refused in one line."""

from __future__ import annotations

import httpx

from mesq.auth.tokens import create_token
from tests.dav.conftest import Dav, snapshot, vtodo


def _space(dav: Dav, name: str) -> str:
    return str(dav.rest("POST", "/api/toolkit/todo/spaces", name=name)["space"]["id"])


def _move(dav: Dav, source: str, destination: str, **headers: str) -> httpx.Response:
    return dav.request("MOVE", source, Destination=f"https://testserver{destination}", **headers)


def test_a_move_to_another_list_moves_the_task_with_its_subtasks(dav: Dav) -> None:
    work = _space(dav, "工作")
    assert dav.put("p.ics", vtodo("p", "DUE;VALUE=DATE:20261220", summary="搬家准备")).status_code == 201
    assert dav.put("c.ics", vtodo("c", "RELATED-TO;RELTYPE=PARENT:p", summary="打包书籍")).status_code == 201
    etag = dav.get("p.ics").headers["etag"]

    answer = _move(dav, dav.calendar + "p.ics", f"/dav/{dav.username}/{work}/p.ics", If_Match=etag)
    assert answer.status_code == 201, answer.text
    moved = f"/dav/{dav.username}/{work}/"
    assert "SUMMARY:搬家准备" in dav.request("GET", moved + "p.ics").text
    assert dav.request("GET", moved + "c.ics").status_code == 200  # the subtask went with it
    assert dav.get("p.ics").status_code == 404 and dav.get("c.ics").status_code == 404
    tasks = dav.rest("GET", "/api/toolkit/todo")["tasks"]
    assert [(t["title"], t["spaceId"]) for t in tasks] == [("搬家准备", work)]

    # the app moves the subtask too, after its task: it is there already
    assert _move(dav, dav.calendar + "c.ics", moved + "c.ics").status_code == 204


def test_an_inbox_item_moved_to_a_list_is_on_the_board(dav: Dav) -> None:
    inbox = f"/dav/{dav.username}/inbox/"
    put = dav.request("PUT", inbox + "i.ics", vtodo("i", summary="想法"), content_type="text/calendar")
    assert put.status_code == 201
    assert _move(dav, inbox + "i.ics", dav.calendar + "i.ics").status_code == 201
    assert "SUMMARY:想法" in dav.get("i.ics").text
    assert [t["title"] for t in dav.rest("GET", "/api/toolkit/todo")["tasks"]] == ["想法"]


def test_what_a_move_cannot_do_is_refused_and_changes_nothing(dav: Dav) -> None:
    work = _space(dav, "工作")
    assert dav.put("p.ics", vtodo("p", summary="任务")).status_code == 201
    assert dav.put("c.ics", vtodo("c", "RELATED-TO:p", summary="子任务")).status_code == 201
    reader, _ = create_token(dav.services.items, dav.user_id, name="Mac", scopes="todo:read")
    read_only = Dav(dav.client, dav.services, dav.user_id, dav.username, reader, dav.space)
    assert read_only.get("p.ics").status_code == 200
    before = snapshot(dav.services, dav.user_id)
    elsewhere = f"/dav/{dav.username}/{work}/"
    refusals = [
        (dav.calendar + "p.ics", elsewhere + "other-name.ics", {}, 403),  # a task keeps its name
        (dav.calendar + "p.ics", f"/dav/{dav.username}/inbox/p.ics", {}, 403),  # never back to the inbox
        (dav.calendar + "c.ics", elsewhere + "c.ics", {}, 403),  # a subtask moves with its task
        (dav.calendar + "p.ics", dav.calendar + "p.ics", {}, 403),  # onto itself
        (dav.calendar + "p.ics", f"/dav/{dav.username}/nope/p.ics", {}, 409),  # no such list
        (dav.calendar + "p.ics", elsewhere + "p.ics", {"If_Match": '"stale-1"'}, 412),
        (dav.calendar + "gone.ics", elsewhere + "gone.ics", {}, 404),
        (dav.calendar + "p.ics", "/dav/someone/x/p.ics", {}, 403),
    ]
    for source, destination, headers, status in refusals:
        answer = _move(dav, source, destination, Accept_Language="zh-CN", **headers)
        assert answer.status_code == status, (destination, answer.text)
        if status != 412:  # a stale ETag is for sync software: English, as for a PUT (test_error_language)
            assert answer.headers["content-language"] == "zh-Hans", answer.text  # the person's language
    assert dav.request("MOVE", dav.calendar + "p.ics").status_code == 400  # no Destination
    assert _move(read_only, dav.calendar + "p.ics", elsewhere + "p.ics").status_code == 403
    assert snapshot(dav.services, dav.user_id) == before
