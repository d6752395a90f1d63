"""Undo around the trash and around later edits: a record changed after a change is left as it is
with the same plain words in a dry run and a real one (nothing to "retry with its revision": an
undo takes none); undoing a trash or a restore keeps working now that edits of a trashed memo are
refused, and so does undoing an edit that an older server wrote into the trash."""

from __future__ import annotations

from typing import Any

from mesq.kernel.context import Call, Principal
from mesq.memos import store
from mesq.memos.changes import write_recorded
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from .test_atomicity import SCOPES, USER, caller, changes


def _change_of(items: Any, operation: str, record_id: str) -> str:
    found = [c for c in changes(items) if c["operation"] == operation and c["record"]["id"] == record_id]
    return str(max(found, key=lambda c: c["id"])["id"])


def test_a_record_changed_since_reads_the_same_in_a_dry_run_and_for_real(sqlite):
    call = caller(sqlite)
    memo = call("create_memo", content="第一版")["memo"]
    call("update_memo", id=memo["id"], expectedRevision=1, content="第二版")
    first = _change_of(sqlite, "update_memo", memo["id"])
    call("update_memo", id=memo["id"], expectedRevision=2, content="第三版")
    task = call("create_todo_task", title="买牛奶")["task"]
    call("update_todo_task", id=task["id"], expectedRevision=1, title="买酸奶")
    renamed = _change_of(sqlite, "update_todo_task", task["id"])
    call("update_todo_task", id=task["id"], expectedRevision=2, title="买豆浆")
    for change_id, kind, record_id in ((first, "memo", memo["id"]), (renamed, "task", task["id"])):
        [dry] = call("undo_changes", changeIds=[change_id], dryRun=True)["notUndone"]
        [real] = call("undo_changes", changeIds=[change_id])["notUndone"]
        assert dry["code"] == real["code"] == "REVISION_CONFLICT"
        assert dry["message"] == real["message"], (dry["message"], real["message"])
        assert real["message"] == (
            f"{kind} '{record_id}' was changed after this change (it is now at revision 3); undo leaves it as it is"
        )
        assert real["recoverData"][kind]["revision"] == 3  # the record as it is now, as before
    assert call("get_memo", id=memo["id"])["memo"]["content"] == "第三版"


def test_undoing_a_trash_and_a_restore_still_works(sqlite):
    call = caller(sqlite)
    memo = call("create_memo", content="笔记")["memo"]
    call("delete_memo", id=memo["id"], expectedRevision=1)
    trash = _change_of(sqlite, "delete_memo", memo["id"])
    assert call("undo_changes", changeIds=[trash])["notUndone"] == []
    assert call("get_memo", id=memo["id"])["memo"]["status"] == "NORMAL"
    call("delete_memo", id=memo["id"], expectedRevision=3)
    call("restore_memo", id=memo["id"], expectedRevision=4)
    restore = _change_of(sqlite, "restore_memo", memo["id"])
    assert call("undo_changes", changeIds=[restore])["notUndone"] == []
    assert call("get_memo", id=memo["id"])["memo"]["status"] == "DELETED"


def test_an_edit_an_older_server_wrote_into_the_trash_is_still_undone(sqlite):
    """Before edits of a trashed memo were refused, the history page's "restore this version" wrote
    one; its undo puts the text back and leaves the memo in the trash."""
    call = caller(sqlite)
    memo = call("create_memo", content="第一版 #版本")["memo"]
    call("delete_memo", id=memo["id"], expectedRevision=1)
    services = Services(settings=inprocess_settings(), items=sqlite, blobs=None)  # type: ignore[arg-type]
    principal = Principal(user_id=USER, scopes=SCOPES, credential_id="web:s", kind="session")
    older = Call(principal=principal, services=services, trace_id="t", channel="web", operation_id="update_memo")
    before = store.read_memo(sqlite, USER, memo["id"])
    assert before is not None and before["status"] == "DELETED"
    write_recorded(older, before, {**before, "content": "第二版 #版本", "revision": 3})
    edit = _change_of(sqlite, "update_memo", memo["id"])
    answer = call("undo_changes", changeIds=[edit])
    assert answer["notUndone"] == [] and len(answer["undone"]) == 1
    now = call("get_memo", id=memo["id"])["memo"]
    assert (now["content"], now["status"], now["revision"]) == ("第一版 #版本", "DELETED", 4)
