"""memos/purge.py: the permanent-delete domain function (transaction, counters, orphans, conditions)."""

from __future__ import annotations

import base64

import pytest

from mesq.attachments.operations import upload_memo_resource
from mesq.kernel.errors import Conflict, NotFound, RevisionConflict
from mesq.memos import store
from mesq.memos.purge import purge_memo
from mesq.memos.writes import create_memo, delete_memo
from mesq.wiring.services import Services

from ..conftest import memo_call


def _trashed_with_attachment(services: Services, user_id: str) -> dict:
    call = memo_call(services, user_id)
    upload = upload_memo_resource(
        call, {"content": base64.b64encode(b"hello").decode(), "displayName": "a.txt", "mimeType": "text/plain"}
    )
    resource = {name: upload[name] for name in ("path", "displayName", "fileSize", "mimeType", "type")}
    memo = create_memo(call, {"content": "with file #x/y", "pinned": True, "resources": [resource]})["memo"]
    return delete_memo(call, {"id": memo["id"], "expectedRevision": memo["revision"]})["memo"]


def test_purge_removes_the_memo_fixes_counters_and_records_orphans(services: Services, make_account) -> None:
    account = make_account()
    memo = _trashed_with_attachment(services, account.user_id)
    create_memo(memo_call(services, account.user_id), {"content": "other #x"})
    result = purge_memo(services.items, account.user_id, memo["id"], memo["revision"])
    assert result == {"id": memo["id"], "revision": memo["revision"], "orphanedAttachments": 1}
    assert store.read_memo(services.items, account.user_id, memo["id"]) is None
    assert store.read_stats(services.items, account.user_id) == {
        "normal": 1, "archived": 0, "deleted": 0, "pinned": 0, "untagged": 0,
    }  # fmt: skip
    assert store.read_tag_counts(services.items, account.user_id) == {"x": 1}
    orphans = services.items.get((f"U#{account.user_id}", f"ORPHANS#{memo['id']}"))
    assert orphans is not None and orphans["paths"] == [memo["resources"][0]["path"]]
    assert services.blobs.head(memo["resources"][0]["path"]) is not None  # left for the sweep


def test_purge_rules(services: Services, make_account) -> None:
    account, other = make_account(), make_account()
    call = memo_call(services, account.user_id)
    live = create_memo(call, {"content": "alive"})["memo"]
    with pytest.raises(Conflict):
        purge_memo(services.items, account.user_id, live["id"], live["revision"])
    gone = delete_memo(call, {"id": live["id"], "expectedRevision": live["revision"]})["memo"]
    with pytest.raises(RevisionConflict):
        purge_memo(services.items, account.user_id, gone["id"], gone["revision"] - 1)
    with pytest.raises(NotFound):
        purge_memo(services.items, other.user_id, gone["id"], gone["revision"])  # keys come from the user
    assert store.read_memo(services.items, account.user_id, gone["id"]) is not None


def test_purge_is_all_or_nothing(services: Services, make_account, monkeypatch) -> None:
    account = make_account()
    memo = _trashed_with_attachment(services, account.user_id)
    real = services.items.transact

    def racing(ops):  # the memo is restored between the read and the write
        services.items.update(store.Update(key=store.memo_key(account.user_id, memo["id"]), set={"revision": 99}))
        return real(ops)

    monkeypatch.setattr(services.items, "transact", racing)
    with pytest.raises(RevisionConflict):
        purge_memo(services.items, account.user_id, memo["id"], memo["revision"])
    monkeypatch.undo()
    assert store.read_memo(services.items, account.user_id, memo["id"]) is not None
    assert store.read_stats(services.items, account.user_id)["deleted"] == 1
    assert services.items.get((f"U#{account.user_id}", f"ORPHANS#{memo['id']}")) is None
