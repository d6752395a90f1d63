"""An undo larger than one call (`more: true`, call again) undoes the rest and never its own
earlier reverts: the second call's newest matches are the first call's undo entries, whose
cancelled changes lie on a later page of the same set."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from mesq.history.undo import RECOVER_JSON_BYTES

from .test_atomicity import caller
from .test_tags_and_moves import caller_as

COUNT = 120


def test_undoing_everything_i_did_since_in_two_calls_leaves_all_of_it_undone(store):
    call = caller(store)
    since = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    ids = [call("create_memo", content=f"memo {n}")["memo"]["id"] for n in range(COUNT)]
    first = call("undo_changes", actor="me", since=since)
    assert len(first["undone"]) == 100 and first["more"] is True
    second = call("undo_changes", actor="me", since=since)
    assert len(second["undone"]) == COUNT - 100 and second["notUndone"] == [] and "more" not in second
    statuses = [call("get_memo", id=memo_id)["memo"]["status"] for memo_id in ids]
    assert set(statuses) == {"DELETED"}, statuses  # in the trash


def test_a_session_whose_newest_hundred_records_changed_since_still_undoes_its_older_ones(store):
    """The person edited the newest 100 memos of an agent's session afterwards: every call used to
    answer the same 100 refusals with `more: true`, and the 10 older memos were never undone."""
    agent, person = caller(store), caller_as(store, "pat:person", "person")
    memos = [agent("create_memo", content=f"memo {n}")["memo"] for n in range(110)]
    session = agent("list_changes", recordId=memos[0]["id"])["changes"][0]["sessionId"]
    for memo in memos[10:]:
        person("update_memo", id=memo["id"], expectedRevision=1, content="mine now")
    forecast = agent("undo_changes", sessionId=session, dryRun=True)
    answer = agent("undo_changes", sessionId=session)
    for said in (forecast, answer):
        assert len(said["undone"]) == 10 and "more" not in said, {k: v for k, v in said.items() if k != "notUndone"}
        assert {entry["code"] for entry in said["notUndone"]} == {"REVISION_CONFLICT"}
        assert len(said["notUndone"]) == 100
    statuses = [agent("get_memo", id=memo["id"])["memo"]["status"] for memo in memos]
    assert statuses == ["DELETED"] * 10 + ["NORMAL"] * 100
    assert {agent("get_memo", id=memo["id"])["memo"]["content"] for memo in memos[10:]} == {"mine now"}


def test_the_records_an_undo_leaves_are_sent_back_within_an_answers_size(sqlite):
    """Each change left as it is carries the current record (`recoverData`); 100 memos at the
    content limit made an answer of 15-30 MB, past what a Lambda may answer (6 MB: API Gateway's
    500 instead). Past RECOVER_JSON_BYTES the entries say `recoverDataOmitted` instead."""
    agent, person = caller(sqlite), caller_as(sqlite, "pat:person", "person")
    memos = [agent("create_memo", content=f"{n} " + "长" * 49_990)["memo"] for n in range(14)]
    session = agent("list_changes", recordId=memos[0]["id"])["changes"][0]["sessionId"]
    for n, memo in enumerate(memos):
        person("update_memo", id=memo["id"], expectedRevision=1, content=f"{n} " + "改" * 49_990)
    answer = agent("undo_changes", sessionId=session)
    left = answer["notUndone"]
    assert len(left) == 14 and answer["undone"] == []
    size = len(json.dumps(answer, ensure_ascii=False).encode())
    assert size < RECOVER_JSON_BYTES + 100_000, size
    kept = [entry for entry in left if "recoverData" in entry]
    omitted = [entry for entry in left if entry.get("recoverDataOmitted") is True]
    assert kept and omitted and len(kept) + len(omitted) == 14
    assert all("recoverData" not in entry for entry in omitted)
    assert kept[0]["recoverData"]["memo"]["content"].startswith("13 改")  # newest first, whole
