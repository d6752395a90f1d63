"""A change stays undoable once every later change of its record was undone (pin, trash, undo
the trash, then undo the pin: the toasts of the web app, clicked in any order), and is refused
while one of them is still in effect (redone, or never undone). A change keeps its record's
title, as a history names it."""

from __future__ import annotations

from typing import Any

from .test_atomicity import caller, changes


def _change_of(store: Any, operation: str, record_id: str) -> str:
    found = [c for c in changes(store) if c["operation"] == operation and c["record"]["id"] == record_id]
    return str(max(found, key=lambda c: c["id"])["id"])


def test_an_older_change_undoes_once_the_later_ones_are_undone(sqlite):
    call = caller(sqlite)
    memo = call("create_memo", content="# 周报\n本周完成")["memo"]
    call("update_memo", id=memo["id"], expectedRevision=1, pinned=True)
    pin = _change_of(sqlite, "update_memo", memo["id"])
    call("delete_memo", id=memo["id"], expectedRevision=2)
    trash = _change_of(sqlite, "delete_memo", memo["id"])
    assert call("undo_changes", changeIds=[trash])["notUndone"] == []
    preview = call("undo_changes", changeIds=[pin], dryRun=True)
    assert preview["notUndone"] == [] and len(preview["undone"]) == 1  # the dry run agrees
    answer = call("undo_changes", changeIds=[pin])
    assert answer["notUndone"] == [] and len(answer["undone"]) == 1
    now = call("get_memo", id=memo["id"])["memo"]
    assert now["status"] == "NORMAL" and now["pinned"] is False and now["revision"] == 5
    assert {c["record"].get("title") for c in changes(sqlite)} == {"周报"}


def test_an_older_change_is_refused_while_a_later_one_is_in_effect(sqlite):
    call = caller(sqlite)
    memo = call("create_memo", content="one")["memo"]
    call("update_memo", id=memo["id"], expectedRevision=1, pinned=True)
    pin = _change_of(sqlite, "update_memo", memo["id"])
    call("delete_memo", id=memo["id"], expectedRevision=2)
    trash = _change_of(sqlite, "delete_memo", memo["id"])
    undo = call("undo_changes", changeIds=[trash])["undone"][0]["undoChangeId"]
    call("undo_changes", changeIds=[undo])  # redone: in the trash again
    assert call("undo_changes", changeIds=[pin], dryRun=True)["notUndone"][0]["code"] == "REVISION_CONFLICT"
    [refused] = call("undo_changes", changeIds=[pin])["notUndone"]
    assert refused["code"] == "REVISION_CONFLICT"
    call("restore_memo", id=memo["id"], expectedRevision=5)  # out of the trash by hand, then
    call("update_memo", id=memo["id"], expectedRevision=6, content="two")  # an edit never undone
    assert call("undo_changes", changeIds=[pin])["notUndone"][0]["code"] == "REVISION_CONFLICT"
