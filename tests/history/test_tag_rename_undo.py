"""A todo tag rename undone after another writer edited one of the records it rewrote: the answer
and the store agree. The rename's undo renames back only the records the rename rewrote that are
still as it left them; a record changed since keeps the new tag (its change is REVISION_CONFLICT,
"undo leaves it as it is"), and that tag stays registered beside the renamed-back one. The dry run
forecasts the real run. Also: undo by an actor with no changes is NOT_FOUND, as list_changes."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.kernel.errors import NotFound

from .test_atomicity import SCOPES, caller, changes
from .test_tags_and_moves import caller_as

OLD, NEW = "家务", "家庭/家务"


def _renamed_with_a_later_edit(store: Any) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """The agent renames OLD -> NEW over three tasks; the web then edits the second one's notes."""
    agent, web = caller(store), caller_as(store, "web", "Web app")
    tasks = [agent("create_todo_task", title=f"t{n}", tags=[OLD, "keep"])["task"] for n in range(3)]
    tag = {t["name"]: t for t in agent("list_todo_tags")["tags"]}[OLD]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=tag["revision"])
    edited = agent("get_todo_task", id=tasks[1]["id"])["task"]
    edited = web("update_todo_task", id=edited["id"], expectedRevision=edited["revision"], notes="买洗衣液")["task"]
    return agent, tasks, edited


def _rename(store: Any) -> dict[str, Any]:
    [rename] = [c for c in changes(store) if c["operation"] == "update_todo_tag" and c["record"]["kind"] == "tag"]
    return rename


@pytest.mark.parametrize("dry_first", [False, True])
def test_undoing_a_tag_rename_leaves_a_record_changed_since_as_the_answer_says(store, dry_first):
    agent, tasks, edited = _renamed_with_a_later_edit(store)
    rename = _rename(store)
    if dry_first:
        dry = agent("undo_changes", runId=rename["runId"], dryRun=True)
    undone = agent("undo_changes", runId=rename["runId"])
    [conflict] = undone["notUndone"]
    assert conflict["record"]["id"] == edited["id"] and conflict["code"] == "REVISION_CONFLICT"
    assert f"revision {edited['revision']}" in conflict["message"]
    assert rename["id"] in {e["changeId"] for e in undone["undone"]} and len(undone["undone"]) == 3
    # what the answer says is what happened: the edited task is left as it is, notes and tags
    now = agent("get_todo_task", id=edited["id"])["task"]
    assert now["revision"] == edited["revision"] and now["notes"] == "买洗衣液" and now["tags"] == [NEW, "keep"]
    for task in (tasks[0], tasks[2]):
        assert agent("get_todo_task", id=task["id"])["task"]["tags"] == [OLD, "keep"]
    # both tags are listed: the renamed-back one, and the new one the edited task still carries
    counts = {t["name"]: t["count"] for t in agent("list_todo_tags")["tags"]}
    assert counts == {OLD: 2, NEW: 1, "keep": 3}
    if dry_first:
        assert [(e["changeId"], e["code"]) for e in dry["notUndone"]] == [(conflict["changeId"], "REVISION_CONFLICT")]
        assert dry["notUndone"][0]["message"] == conflict["message"]
        assert {e["changeId"] for e in dry["undone"]} == {e["changeId"] for e in undone["undone"]}


def test_undoing_the_rename_alone_leaves_the_record_changed_since_and_names_it(sqlite):
    """Undoing the tag's change alone renames back the records it rewrote; the one changed since
    is left, and the answer (dry run and real run alike) lists that record's change of the rename
    as REVISION_CONFLICT, so a person sees which record still carries the new tag."""
    agent, tasks, edited = _renamed_with_a_later_edit(sqlite)
    rename = _rename(sqlite)
    [left] = [c for c in changes(sqlite) if c["operation"] == "update_todo_tag" and c["record"]["id"] == edited["id"]]
    dry = agent("undo_changes", changeIds=[rename["id"]], dryRun=True)
    undone = agent("undo_changes", changeIds=[rename["id"]])
    for answer in (dry, undone):
        assert [e["changeId"] for e in answer["undone"]] == [rename["id"]]
        assert [(e["changeId"], e["record"]["id"], e["code"]) for e in answer["notUndone"]] == [
            (left["id"], edited["id"], "REVISION_CONFLICT")
        ]
        assert f"revision {edited['revision']}" in answer["notUndone"][0]["message"]
    assert dry["notUndone"][0]["message"] == undone["notUndone"][0]["message"]
    now = agent("get_todo_task", id=edited["id"])["task"]
    assert now["revision"] == edited["revision"] and now["tags"] == [NEW, "keep"]
    for task in (tasks[0], tasks[2]):
        assert agent("get_todo_task", id=task["id"])["task"]["tags"] == [OLD, "keep"]
    assert {t["name"] for t in agent("list_todo_tags")["tags"]} == {OLD, NEW, "keep"}


def test_undoing_a_rename_leaves_a_record_tagged_with_the_new_name_later(sqlite):
    agent = caller(sqlite)
    renamed = agent("create_todo_task", title="renamed", tags=[OLD])["task"]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=1)
    later = caller_as(sqlite, "web", "Web app")("create_todo_task", title="later", tags=[NEW])["task"]
    undone = agent("undo_changes", runId=_rename(sqlite)["runId"])
    assert undone["notUndone"] == [] and len(undone["undone"]) == 2
    assert agent("get_todo_task", id=renamed["id"])["task"]["tags"] == [OLD]
    assert agent("get_todo_task", id=later["id"])["task"] == later  # not part of the rename: untouched
    assert {t["name"] for t in agent("list_todo_tags")["tags"]} == {OLD, NEW}


def test_undoing_a_merge_leaves_the_records_that_carried_the_kept_tag_before(sqlite):
    agent = caller(sqlite)
    merged = agent("create_todo_task", title="merged", tags=[OLD])["task"]
    already = agent("create_todo_task", title="already", tags=[NEW])["task"]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=1)
    run = next(c for c in changes(sqlite) if c["operation"] == "update_todo_tag")["runId"]
    agent("undo_changes", runId=run)
    assert agent("get_todo_task", id=merged["id"])["task"]["tags"] == [OLD]
    assert agent("get_todo_task", id=already["id"])["task"] == already


def test_undo_by_an_actor_with_no_changes_is_not_found_naming_it(sqlite):
    """`undo_changes {actor: "pat:typo", since}` answered an empty success. It is NOT_FOUND naming
    the actor, the same for another account's actor (nothing of it is read); list_changes, a list,
    answers that actor's (no) changes, matched the same way."""
    agent, other = caller(sqlite), caller_as(sqlite, "pat:other", "other")
    agent("create_todo_task", title="t")
    elsewhere = _another_account(sqlite)
    elsewhere("create_todo_task", title="not theirs")
    for actor in ("pat:typo", "typo", "pat:elsewhere"):
        with pytest.raises(NotFound) as undone:
            agent("undo_changes", actor=actor, since="2020-01-01T00:00:00+00:00")
        assert undone.value.code == "NOT_FOUND" and repr(actor) in str(undone.value.message)
        assert agent("list_changes", actor=actor)["changes"] == []
    # an actor of this account is found with or without its kind, and "me" with nothing is no error
    assert agent("undo_changes", actor="t", since="2020-01-01T00:00:00+00:00", dryRun=True)["undone"]
    assert other("undo_changes", actor="me", since="2020-01-01T00:00:00+00:00") == {"undone": [], "notUndone": []}


def _another_account(items: Any) -> Any:
    from mesq.application.invocation import invoke_sync
    from mesq.kernel.context import Principal
    from mesq.kernel.spec import load_spec
    from mesq.wiring.services import Services
    from tests.settings import inprocess_settings

    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    principal = Principal(
        user_id="elsewhere", scopes=SCOPES, credential_id="pat:elsewhere", kind="pat", name="elsewhere"
    )

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        found: dict[str, Any] = invoke_sync(
            load_spec().operations[operation_id], arguments, principal=principal, services=services,
            trace_id="t", channel="api",
        )  # fmt: skip
        return found

    return call


def test_undoing_the_rename_alone_reads_every_record_it_rewrote(sqlite):
    agent = caller(sqlite)
    tasks = [agent("create_todo_task", title=f"t{n}", tags=[OLD])["task"] for n in range(105)]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=1)
    undone = agent("undo_changes", changeIds=[_rename(sqlite)["id"]])
    assert undone["notUndone"] == []
    assert all(agent("get_todo_task", id=t["id"])["task"]["tags"] == [OLD] for t in tasks)
    assert {t["name"] for t in agent("list_todo_tags")["tags"]} == {OLD}


def test_undoing_a_memo_tag_rename_leaves_a_memo_changed_since(sqlite):
    """Memo tags live in the memos' content, so a rename is one change per memo and nothing else:
    its undo puts back only memos still as the rename left them, as the answer says."""
    agent, web = caller(sqlite), caller_as(sqlite, "web", "Web app")
    memos = [agent("create_memo", content=f"洗碗 #{OLD} {n}")["memo"] for n in range(2)]
    renamed = agent("rename_memo_tag", **{"from": OLD, "to": NEW})
    edited = agent("get_memo", id=memos[1]["id"])["memo"]
    edited = web("update_memo", id=edited["id"], expectedRevision=edited["revision"], content=f"{edited['content']} 改")
    run = next(c for c in changes(sqlite) if c["operation"] == "rename_memo_tag")["runId"]
    dry = agent("undo_changes", runId=run, dryRun=True)
    undone = agent("undo_changes", runId=run)
    assert renamed and [e["record"]["id"] for e in undone["notUndone"]] == [memos[1]["id"]]
    assert [e["message"] for e in dry["notUndone"]] == [e["message"] for e in undone["notUndone"]]
    assert agent("get_memo", id=memos[1]["id"])["memo"] == edited["memo"]
    assert f"#{OLD} " in agent("get_memo", id=memos[0]["id"])["memo"]["content"]


def test_a_rename_undone_alone_under_a_clock_that_stands_still_finds_every_record(sqlite, monkeypatch):
    """The rename's rewrites are found by their time (after the tag's own change), never by the
    random tail of their ids: under a driven clock every id shares one time."""
    from datetime import UTC, datetime

    from mesq.history import change_op, sessions
    from mesq.kernel import timestamps

    frozen = datetime(2037, 12, 6, 9, 0, tzinfo=UTC)  # far ahead: a change's 90-day ttl is judged by the real clock
    monkeypatch.setattr(change_op, "utc_now", lambda: frozen)
    monkeypatch.setattr(sessions, "utc_now", lambda: frozen)
    monkeypatch.setattr(timestamps, "utc_now", lambda: frozen)  # the clock run ids start with
    agent = caller(sqlite)
    tasks = [agent("create_todo_task", title=f"t{n}", tags=[OLD])["task"] for n in range(8)]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=1)
    assert agent("undo_changes", changeIds=[_rename(sqlite)["id"]])["notUndone"] == []
    assert [agent("get_todo_task", id=t["id"])["task"]["tags"] for t in tasks] == [[OLD]] * 8
    assert {t["name"] for t in agent("list_todo_tags")["tags"]} == {OLD}


@pytest.mark.parametrize("alone", [False, True])
def test_a_rename_undone_beside_a_record_changed_since_can_be_redone(store, alone):
    """The undo of a rename that left a record changed since registers the old name again beside
    the new one (a creation of the old name, which `undoes` the rename). That creation was
    NOT_UNDOABLE ('creating a tag cannot be undone'), so the undo's Redo, of the whole undo or of
    the tag's change alone, left the old name registered (empty, or on the records it had taken
    back) and said it could not be redone. A redo now names the records the undo took back with
    the new name again (those still as the undo left them) and the old name goes, as the first
    rename did; the dry run says the same."""
    agent, tasks, _edited = _renamed_with_a_later_edit(store)
    rename = _rename(store)
    agent("undo_changes", **({"changeIds": [rename["id"]]} if alone else {"runId": rename["runId"]}))
    # the undo's changes, as /activity's "Redo these changes" posts them: all of them, or the tag's
    undo = [c for c in changes(store) if c["operation"] == "undo_changes"]
    redo_ids = [c["id"] for c in undo if not alone or (c["record"]["kind"] == "tag" and c.get("undoes"))]
    dry = agent("undo_changes", changeIds=redo_ids, dryRun=True)
    redone = agent("undo_changes", changeIds=redo_ids)
    for answer in (dry, redone):
        assert answer["notUndone"] == [] and len(answer["undone"]) == len(redo_ids), answer
    assert [agent("get_todo_task", id=t["id"])["task"]["tags"] for t in tasks] == [[NEW, "keep"]] * 3
    assert {t["name"]: t["count"] for t in agent("list_todo_tags")["tags"]} == {NEW: 3, "keep": 3}


def test_a_redo_leaves_the_old_name_listed_while_a_record_changed_since_carries_it(sqlite):
    """The redo of a whole rename's undo takes back the records still as the undo left them; one
    edited since keeps the old name, so the old name stays listed, and the answer says why (its
    registration's entry a CONFLICT naming how many records carry it), never stripped from it."""
    agent = caller(sqlite)
    tasks = [agent("create_todo_task", title=f"t{n}", tags=[OLD])["task"] for n in range(2)]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=1)
    agent("undo_changes", runId=_rename(sqlite)["runId"])
    edited = agent("get_todo_task", id=tasks[0]["id"])["task"]
    edited = caller_as(sqlite, "web", "Web app")(
        "update_todo_task", id=edited["id"], expectedRevision=edited["revision"], notes="改过"
    )["task"]
    undo = [c["id"] for c in changes(sqlite) if c["operation"] == "undo_changes"]
    redone = agent("undo_changes", changeIds=undo)
    assert agent("get_todo_task", id=edited["id"])["task"]["tags"] == [OLD]
    assert agent("get_todo_task", id=tasks[1]["id"])["task"]["tags"] == [NEW]
    assert {t["name"]: t["count"] for t in agent("list_todo_tags")["tags"]} == {OLD: 1, NEW: 1}
    codes = {(e["record"]["kind"], e["record"]["id"], e["code"]) for e in redone["notUndone"]}
    assert {("tag", OLD, "CONFLICT"), ("task", edited["id"], "REVISION_CONFLICT")} <= codes, redone["notUndone"]
    [kept] = [e for e in redone["notUndone"] if e["code"] == "CONFLICT"]
    assert "records still carry it (1, the trash included)" in kept["message"], kept


def test_the_redo_of_a_whole_rename_undo_says_it_redid_all_of_it(store):
    """A whole run's undo of a rename merges the new name into the old one its records registered
    again: the new name's record is deleted by the undo. Its redo brought every record and the new
    name back, yet answered 'a permanent delete of a tag cannot be undone' for that deletion (and,
    before, left the old name listed with no record): a person read that the redo failed. The
    deletion's redo now counts the tag back (made again if nothing brought it back)."""
    agent = caller(store)
    tasks = [agent("create_todo_task", title=f"t{n}", tags=[OLD])["task"] for n in range(2)]
    agent("update_todo_tag", name=OLD, newName=NEW, expectedRevision=1)
    agent("undo_changes", runId=_rename(store)["runId"])
    undo = [c["id"] for c in changes(store) if c["operation"] == "undo_changes"]
    dry = agent("undo_changes", changeIds=undo, dryRun=True)
    redone = agent("undo_changes", changeIds=undo)
    assert dry["notUndone"] == [] and redone["notUndone"] == [], (dry["notUndone"], redone["notUndone"])
    assert [agent("get_todo_task", id=t["id"])["task"]["tags"] for t in tasks] == [[NEW], [NEW]]
    assert {t["name"]: t["count"] for t in agent("list_todo_tags")["tags"]} == {NEW: 2}
