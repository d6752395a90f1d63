"""An undo larger than one call (`more: true`, call again) undoes the rest and never its own
earlier reverts: the second call's newest matches are the first call's undo entries, whose
cancelled changes lie on a later page of the same set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .test_atomicity import caller

COUNT = 120


def test_undoing_everything_i_did_since_in_two_calls_leaves_all_of_it_undone(sqlite):
    call = caller(sqlite)
    since = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    ids = [call("create_memo", content=f"memo {n}")["memo"]["id"] for n in range(COUNT)]
    first = call("undo_changes", actor="me", since=since)
    assert len(first["undone"]) == 100 and first["more"] is True
    second = call("undo_changes", actor="me", since=since)
    assert len(second["undone"]) == COUNT - 100 and second["notUndone"] == [] and "more" not in second
    statuses = [call("get_memo", id=memo_id)["memo"]["status"] for memo_id in ids]
    assert set(statuses) == {"DELETED"}, statuses  # in the trash
