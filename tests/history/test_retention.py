"""Retention, on SQLite and on DynamoDB Local: a memo deleted for good takes its whole history
with it (more than one transaction's worth), and a record whose history would pass 1 MiB keeps
its newest versions, drops the oldest in the write's own transaction and says so."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest

from mesq.application.invocation import invoke_sync
from mesq.history.forget import history_keys
from mesq.history.records import HISTORY_CAP, TRIM_TO
from mesq.kernel.context import Principal
from mesq.kernel.errors import MesqError
from mesq.kernel.i18n import Translator
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.spec import load_spec
from mesq.memos.keys import memo_key
from mesq.memos.purge import purge_memo
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from .test_atomicity import SCOPES, USER, caller, changes


def test_a_purged_memo_takes_its_history_with_it(store: ItemStore) -> None:
    call = caller(store)
    doomed = call("create_memo", content="secret v0")["memo"]
    for number in range(1, 105):  # 105 change records: more than one transaction of deletes
        doomed = call("update_memo", id=doomed["id"], expectedRevision=doomed["revision"], content=f"secret v{number}")[
            "memo"
        ]
    kept = call("create_memo", content="kept")["memo"]
    call("update_memo", id=kept["id"], expectedRevision=1, content="kept, edited")
    trashed = call("delete_memo", id=doomed["id"], expectedRevision=doomed["revision"])["memo"]
    recent = (store.get(memo_key(USER, doomed["id"])) or {})["recentChanges"]  # the newest changes: its chain's start
    assert len(history_keys(store, USER, doomed["id"], recent)) == 106

    purge_memo(store, USER, doomed["id"], trashed["revision"])
    assert history_keys(store, USER, doomed["id"], recent) == []
    left = changes(store)
    assert {c["record"]["id"] for c in left} == {kept["id"]} and len(left) == 2
    assert "secret" not in str(left)
    listed = call("list_changes", recordId=doomed["id"])["changes"]
    assert listed == []


def _text(seed: int, size: int) -> str:
    """Text that compresses little (a change record packs its before and after)."""
    rng = random.Random(seed)
    return "".join(rng.choices(string.ascii_lowercase, k=size))


def test_a_history_past_1_mib_keeps_its_newest_versions_and_says_so(store: ItemStore) -> None:
    call = caller(store)
    big = 50_000  # each edit records ~80 KB packed (the content before and after: random letters compress little)
    memo = call("create_memo", content=_text(0, big))["memo"]
    for number in range(1, 16):
        memo = call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=_text(number, big))["memo"]
    recorded = sorted((c for c in changes(store) if c["record"]["id"] == memo["id"]), key=lambda c: c["id"])
    total = sum(int(c["size"]) for c in recorded)
    assert total <= HISTORY_CAP, total
    assert len(recorded) < 16  # the oldest were dropped
    newest = call("list_changes", recordId=memo["id"])["changes"]
    assert newest[0]["after"] == {"content": _text(15, big)} and newest[0]["revisions"]["after"] == 16
    assert [c["revisions"]["after"] for c in newest] == sorted((c["revisions"]["after"] for c in newest), reverse=True)
    assert newest[-1]["revisions"]["after"] > 1  # the create is gone
    assert any(c.get("olderDropped") for c in newest)
    stored = store.get((f"U#{USER}", f"MEMO#{memo['id']}"))
    assert stored is not None and stored["historyBytes"] == total <= HISTORY_CAP
    assert "historyBytes" not in call("get_memo", id=memo["id"])["memo"]
    # The kept versions still undo: the newest edit goes back to the one before it.
    undo = call("undo_changes", changeIds=[newest[0]["id"]])
    assert undo["notUndone"] == [] and call("get_memo", id=memo["id"])["memo"]["content"] == _text(14, big)
    assert TRIM_TO < HISTORY_CAP


@pytest.mark.parametrize("days", [1, 90])
def test_the_errors_say_how_long_changes_are_kept_with_the_count_s_plural(sqlite: ItemStore, days: int) -> None:
    """The three errors that say why a change may be missing (an unknown runId, an actor with no
    change, an unknown changeId) said "changes are kept %(days)s days": with MESQ_HISTORY_DAYS=1
    that read "kept 1 days". The count now picks the words, in English and in Chinese."""
    services = Services(settings=inprocess_settings(history_days=days), items=sqlite, blobs=None)  # type: ignore[arg-type]
    principal = Principal(user_id=USER, scopes=SCOPES, credential_id="pat:t", kind="pat", name="tester")
    spec = load_spec()

    def refusal(operation_id: str, **arguments: Any) -> MesqError:
        with pytest.raises(MesqError) as refused:
            invoke_sync(spec.operations[operation_id], arguments, principal=principal, services=services,
                        trace_id="t", channel="api")  # fmt: skip
        return refused.value

    errors = [
        refusal("list_changes", runId="no-such-run"),
        refusal("undo_changes", actor="pat:nobody", since="2026-01-01T00:00:00Z"),
        refusal("undo_changes", changeIds=["00000000000000000-nothing"]),
    ]
    english = "changes are kept 1 day)" if days == 1 else f"changes are kept {days} days)"
    english_too = english.replace(")", ",")
    for error in errors:
        said = str(error)
        assert english in said or english_too in said, said
        assert "1 days" not in said, said
        chinese = Translator("zh").text(error.text)
        assert f"改动只保留 {days} 天" in chinese and "kept" not in chinese, chinese
