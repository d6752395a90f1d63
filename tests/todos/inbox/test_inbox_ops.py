"""The inbox operations on a real (SQLite) store, called as the adapters call them: every
operation's success and failure paths, revision conflicts with their recoverData, the
move-to-board destination rules and atomicity, the response budget, and tenant isolation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from mesq.application.invocation import REGISTRY
from mesq.kernel.context import Call, Principal
from mesq.kernel.errors import (
    IdempotencyConflict,
    MesqError,
    NotFound,
    ResponseTooLarge,
    RevisionConflict,
    ValidationError,
)
from mesq.todos import state as todo_state
from mesq.todos.views.budget import RESPONSE_BUDGET_CHARACTERS, json_size
from mesq.wiring.services import Services
from tests.racing import Racing

SCOPES = frozenset({"todo:read", "todo:write"})


class Caller:
    """One user calling operations by name, the way REST and MCP dispatch them."""

    def __init__(self, services: Services, user_id: str) -> None:
        self.services = services
        self.user_id = user_id
        self.call = Call(
            principal=Principal(user_id=user_id, scopes=SCOPES, credential_id="c-" + user_id, kind="pat"),
            services=services,
            trace_id="trace",
            channel="api",
        )

    def __call__(self, operation: str, /, **args: Any) -> dict[str, Any]:
        return REGISTRY[operation](self.call, args)

    def fails(self, error: type[MesqError], operation: str, /, **args: Any) -> MesqError:
        with pytest.raises(error) as caught:
            self(operation, **args)
        return caught.value

    def state(self) -> todo_state.TodoState:
        return todo_state.load_state(self.services.items, self.user_id)

    def capture(self, title: str = "buy milk", **fields: Any) -> dict[str, Any]:
        item: dict[str, Any] = self("create_todo_inbox_item", title=title, **fields)["item"]
        return item


@pytest.fixture
def alice(services: Services) -> Caller:
    return Caller(services, "alice0000001")


@pytest.fixture
def bob(services: Services) -> Caller:
    return Caller(services, "bob000000001")


# -- capture -----------------------------------------------------------------------------------


def test_capture_works_for_a_brand_new_user_and_appends(alice: Caller):
    first = alice.capture("first", notes="n", priority="high", tags=["home"], timezone="Asia/Shanghai",
                          due={"type": "date", "date": "2026-12-24"},
                          subtasks=[{"title": "a"}, {"title": "b", "isDone": True, "notes": "bn"}])  # fmt: skip
    second = alice.capture("second")
    assert first["revision"] == 1 and first["done"] is False and first["deletedAt"] is None
    assert first["due"] == {"type": "date", "date": "2026-12-24"} and first["timezone"] == "Asia/Shanghai"
    assert [(s["title"], s["isDone"]) for s in first["subtasks"]] == [("a", False), ("b", True)]
    assert all(s["parentItemId"] == first["id"] and s["parentRevision"] == 1 for s in first["subtasks"])
    assert second["position"] > first["position"]
    state = alice.state()
    assert [i["id"] for i in state.live_inbox()] == [first["id"], second["id"]]
    assert "home" in state.tags  # every tag used on a record is in the tag registry
    assert state.default_space() is not None  # first use gave the user the default space


def test_capture_idempotency_replays_and_refuses_other_arguments(alice: Caller):
    one = alice("create_todo_inbox_item", title="once", idempotencyKey="k-1")
    again = alice("create_todo_inbox_item", title="once", idempotencyKey="k-1")
    assert again == one and len(alice.state().live_inbox()) == 1
    alice.fails(IdempotencyConflict, "create_todo_inbox_item", title="other", idempotencyKey="k-1")


def test_capture_rejects_bad_fields_and_writes_nothing(alice: Caller):
    alice.fails(ValidationError, "create_todo_inbox_item", title="   ")
    alice.fails(ValidationError, "create_todo_inbox_item", title="x", timezone="Nowhere/City")
    alice.fails(ValidationError, "create_todo_inbox_item", title="x", subtasks=[{"title": ""}])
    assert alice.state().inbox == {}


# -- list --------------------------------------------------------------------------------------


def test_list_omits_notes_by_default_and_filters_by_status(alice: Caller):
    a = alice.capture("a", notes="secret", subtasks=[{"title": "s", "notes": "sub-secret"}])
    b = alice.capture("b")
    alice("complete_todo_inbox_item", id=b["id"], expectedRevision=1)
    listed = alice("list_todo_inbox_items")
    assert [i["id"] for i in listed["items"]] == [a["id"], b["id"]]
    assert "notes" not in listed["items"][0] and "notes" not in listed["items"][0]["subtasks"][0]
    with_notes = alice("list_todo_inbox_items", includeNotes=True)
    assert with_notes["items"][0]["notes"] == "secret"
    assert with_notes["items"][0]["subtasks"][0]["notes"] == "sub-secret"
    assert [i["id"] for i in alice("list_todo_inbox_items", status="open")["items"]] == [a["id"]]
    assert [i["id"] for i in alice("list_todo_inbox_items", status="done")["items"]] == [b["id"]]


def test_list_pages_visit_every_item_once_and_out_of_range_keeps_the_total(alice: Caller):
    ids = [alice.capture(f"item {n}")["id"] for n in range(7)]
    seen: list[str] = []
    offset = 0
    while True:
        page = alice("list_todo_inbox_items", offset=offset, limit=3)
        seen += [i["id"] for i in page["items"]]
        assert page["page"]["totalCount"] == 7
        if not page["page"]["hasMore"]:
            break
        offset = page["page"]["nextOffset"]
    assert seen == ids
    beyond = alice("list_todo_inbox_items", offset=50, limit=3)
    assert beyond["items"] == [] and beyond["page"]["totalCount"] == 7 and beyond["page"]["hasMore"] is False


def test_list_shrinks_pages_to_the_budget_and_refuses_one_oversized_item(alice: Caller):
    ids = [alice.capture(f"long {n}", notes="x" * 9_000)["id"] for n in range(5)]
    seen: list[str] = []
    offset, pages = 0, 0
    while True:
        data = alice("list_todo_inbox_items", offset=offset, limit=50, includeNotes=True)
        assert json_size(data) <= RESPONSE_BUDGET_CHARACTERS
        assert all(len(i["notes"]) == 9_000 for i in data["items"])  # whole items, never cut
        seen += [i["id"] for i in data["items"]]
        pages += 1
        if not data["page"]["hasMore"]:
            break
        offset = data["page"]["nextOffset"]
    assert seen == ids and pages >= 3

    big = alice.capture("huge", notes="y" * 30_000)
    error = alice.fails(ResponseTooLarge, "list_todo_inbox_items", offset=5, includeNotes=True)
    assert error.details["hints"] == {"includeNotes": False} and error.details["recordId"] == big["id"]
    plain = alice("list_todo_inbox_items", offset=5)  # includeNotes=false: it lists fine
    assert [i["id"] for i in plain["items"]] == [big["id"]]


# -- get ---------------------------------------------------------------------------------------


def test_get_has_full_notes_all_subtasks_and_timezone_but_no_context_by_default(alice: Caller):
    item = alice.capture("x", notes="full notes", subtasks=[{"title": "done one", "isDone": True}])
    data = alice("get_todo_inbox_item", id=item["id"])
    assert set(data) == {"item", "timezone"} and data["timezone"] == "UTC"
    assert data["item"]["notes"] == "full notes" and data["item"]["subtasks"][0]["isDone"] is True
    zoned = alice.capture("y", timezone="Europe/Berlin")
    assert alice("get_todo_inbox_item", id=zoned["id"])["timezone"] == "Europe/Berlin"


def test_get_with_context_adds_board_inbox_and_tag_suggestions(alice: Caller):
    item = alice.capture("x", tags=["errand"])
    data = alice("get_todo_inbox_item", id=item["id"], includeContext=True)
    default = alice.state().default_space()
    assert data["board"]["space"]["id"] == default["id"] and data["board"]["space"]["isDefault"] is True
    assert [c["name"] for c in data["board"]["columns"]] == ["To do", "Doing", "Done"]
    assert data["inbox"]["totalCount"] == 1 and "notes" not in data["inbox"]["items"][0]
    assert [t["name"] for t in data["tagSuggestions"]] == ["errand"]


def test_get_fails_for_missing_and_trashed_items(alice: Caller):
    alice.fails(NotFound, "get_todo_inbox_item", id="nope")
    item = alice.capture()
    alice("delete_todo_inbox_item", id=item["id"], expectedRevision=1)
    alice.fails(NotFound, "get_todo_inbox_item", id=item["id"])


def test_a_50000_character_note_reads_back_in_pages_while_lists_still_work(alice: Caller):
    notes = ("z" * 9 + "\n") * 5_000
    item = alice.capture("long read", notes=notes)
    for context in (False, True):
        pages, offset = [], 0
        while True:
            data = alice("get_todo_inbox_item", id=item["id"], includeContext=context, notesOffset=offset)
            assert json_size(data) <= 25_000
            pages.append(data["item"]["notes"])
            if not data.get("notesTruncated"):
                break
            offset = data["notesNextOffset"]
        assert "".join(pages) == notes and len(pages) >= 3
    limited = alice("get_todo_inbox_item", id=item["id"], notesOffset=10, notesLimit=5)
    assert limited["item"]["notes"] == notes[10:15] and limited["notesNextOffset"] == 15
    listed = alice("list_todo_inbox_items", includeNotes=False)
    assert [i["id"] for i in listed["items"]] == [item["id"]]


# -- update / complete / delete ----------------------------------------------------------------


def test_update_changes_fields_and_bumps_the_revision(alice: Caller):
    item = alice.capture("old", due={"type": "date", "date": "2026-01-01"})
    updated = alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="new", due=None,
                    tags=["fresh"], priority="low")["item"]  # fmt: skip
    assert (updated["title"], updated["due"], updated["tags"], updated["priority"]) == ("new", None, ["fresh"], "low")
    assert updated["revision"] == 2 and updated["updatedAt"] >= item["updatedAt"]
    assert "fresh" in alice.state().tags
    same = alice("update_todo_inbox_item", id=item["id"], expectedRevision=2, title="new")["item"]
    assert same["revision"] == 2  # nothing changed: no new revision


def test_update_conflict_carries_the_current_item(alice: Caller):
    item = alice.capture("v1")
    alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="v2")
    error = alice.fails(RevisionConflict, "update_todo_inbox_item", id=item["id"], expectedRevision=1, title="v3")
    assert error.recover_data["item"]["title"] == "v2" and error.recover_data["item"]["revision"] == 2
    assert alice("get_todo_inbox_item", id=item["id"])["item"]["title"] == "v2"


def test_update_failures(alice: Caller):
    item = alice.capture()
    alice.fails(ValidationError, "update_todo_inbox_item", id=item["id"], expectedRevision=1, title=" ")
    alice.fails(NotFound, "update_todo_inbox_item", id="missing", expectedRevision=1, title="x")
    nothing = alice.fails(ValidationError, "update_todo_inbox_item", id=item["id"], expectedRevision=1)
    assert "give at least one of title" in nothing.message
    alice("delete_todo_inbox_item", id=item["id"], expectedRevision=1)
    alice.fails(NotFound, "update_todo_inbox_item", id=item["id"], expectedRevision=2, title="x")


def test_complete_and_reopen(alice: Caller):
    item = alice.capture()
    done = alice("complete_todo_inbox_item", id=item["id"], expectedRevision=1)["item"]
    assert done["done"] is True and done["completedAt"] and done["revision"] == 2
    assert alice("complete_todo_inbox_item", id=item["id"], expectedRevision=2)["item"]["revision"] == 2
    reopened = alice("complete_todo_inbox_item", id=item["id"], expectedRevision=2, done=False)["item"]
    assert reopened["done"] is False and reopened["completedAt"] is None and reopened["revision"] == 3
    error = alice.fails(RevisionConflict, "complete_todo_inbox_item", id=item["id"], expectedRevision=1)
    assert error.recover_data["item"]["revision"] == 3
    alice.fails(NotFound, "complete_todo_inbox_item", id="missing", expectedRevision=1)


def test_delete_moves_to_the_trash_where_the_board_trash_lists_and_restores_it(alice: Caller):
    item = alice.capture("to trash", subtasks=[{"title": "kept"}])
    trashed = alice("delete_todo_inbox_item", id=item["id"], expectedRevision=1)["item"]
    assert trashed["deletedAt"] and trashed["revision"] == 2
    assert alice("list_todo_inbox_items")["items"] == []
    again = alice("delete_todo_inbox_item", id=item["id"], expectedRevision=2)["item"]
    assert again == trashed  # already in the trash: unchanged
    entries = alice("list_todo_trash")["items"]
    assert [(e["kind"], e["id"]) for e in entries] == [("inboxItem", item["id"])]
    restored = alice("restore_todo_item", id=item["id"], expectedRevision=2)["inboxItem"]
    assert restored["deletedAt"] is None and restored["subtasks"][0]["title"] == "kept"
    assert [i["id"] for i in alice("list_todo_inbox_items")["items"]] == [item["id"]]


def test_delete_conflict_and_missing(alice: Caller):
    item = alice.capture()
    alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="changed")
    error = alice.fails(RevisionConflict, "delete_todo_inbox_item", id=item["id"], expectedRevision=1)
    assert error.recover_data["item"]["title"] == "changed"
    alice.fails(NotFound, "delete_todo_inbox_item", id="missing", expectedRevision=1)
    assert alice.state().inbox[item["id"]]["deletedAt"] is None


# -- move to board -----------------------------------------------------------------------------


def _columns(caller: Caller, space_id: str) -> list[dict[str, Any]]:
    return caller.state().columns_of(space_id)


def test_move_without_destination_goes_to_the_default_spaces_first_column(alice: Caller):
    item = alice.capture("plan", notes="n", priority="urgent", tags=["t"], due={"type": "date", "date": "2027-01-01"},
                         subtasks=[{"title": "one", "isDone": True}, {"title": "two", "notes": "2"}])  # fmt: skip
    data = alice("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=1)
    state = alice.state()
    default = state.default_space()
    first = state.first_open_column(default["id"])
    task = data["task"]
    assert (task["spaceId"], task["columnId"], task["parentId"]) == (default["id"], first["id"], None)
    assert (task["id"], task["title"], task["notes"], task["priority"], task["tags"], task["due"]) == (
        item["id"], "plan", "n", "urgent", ["t"], {"type": "date", "date": "2027-01-01"})  # fmt: skip
    assert [(s["title"], s["done"], s["parentId"]) for s in data["subtasks"]] == [
        ("one", True, task["id"]), ("two", False, task["id"])]  # fmt: skip
    assert data["movedItemId"] == item["id"]
    assert item["id"] not in state.inbox  # left the inbox, not trashed
    assert [t["id"] for t in state.subtasks_of(task["id"])] == [s["id"] for s in data["subtasks"]]
    assert alice("get_todo_task", id=task["id"])["task"]["title"] == "plan"


def test_move_to_an_explicit_space_and_column(alice: Caller):
    space = alice("create_todo_space", name="Work", slug="work", columns=["Backlog", "Now"])
    backlog, now = space["columns"]
    space_id = space["space"]["id"]
    one = alice.capture("one")
    two = alice.capture("two")
    three = alice.capture("three")
    moved = alice("move_todo_inbox_item_to_board", id=one["id"], expectedRevision=1, spaceSlug="work")["task"]
    assert (moved["spaceId"], moved["columnId"]) == (space_id, backlog["id"])
    moved = alice("move_todo_inbox_item_to_board", id=two["id"], expectedRevision=1, columnId=now["id"])["task"]
    assert (moved["spaceId"], moved["columnId"]) == (space_id, now["id"])
    moved = alice("move_todo_inbox_item_to_board", id=three["id"], expectedRevision=1, spaceId=space_id,
                  spaceSlug="work", columnId=backlog["id"])["task"]  # fmt: skip
    assert moved["columnId"] == backlog["id"]
    roots = alice.state().root_tasks(backlog["id"])
    assert [t["title"] for t in roots] == ["one", "three"]  # appended at the end of the column


def test_move_default_alias_and_first_open_column(alice: Caller):
    alice.capture("warm-up")  # makes the default space
    default = alice.state().default_space()
    columns = _columns(alice, default["id"])
    alice("update_todo_column", columnId=columns[0]["id"], expectedRevision=1, archived=True)
    item = alice.capture("x")
    moved = alice("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=1, spaceSlug="default")["task"]
    assert (moved["spaceId"], moved["columnId"]) == (default["id"], columns[1]["id"])


@pytest.mark.parametrize(
    ("destination", "error", "message"),
    [
        ({"spaceId": "nospace"}, NotFound, "not found"),
        ({"spaceSlug": "nothing-here"}, NotFound, "no todo space has slug"),
        ({"columnId": "nocolumn"}, NotFound, "column"),
        ({"spaceSlug": "work", "columnId": "DEFAULT_COLUMN"}, ValidationError, "another space"),
        ({"spaceId": "WORK", "spaceSlug": "default"}, ValidationError, "different spaces"),
        ({"columnId": "ARCHIVED"}, ValidationError, "archived"),
    ],
)
def test_move_destination_rules(alice: Caller, destination: dict[str, str], error: type[MesqError], message: str):
    work = alice("create_todo_space", name="Work", slug="work", columns=["A", "B"])
    default = alice.state().default_space()
    default_columns = _columns(alice, default["id"])
    archived = alice("update_todo_column", columnId=work["columns"][1]["id"], expectedRevision=1, archived=True)
    names = {"DEFAULT_COLUMN": default_columns[0]["id"], "WORK": work["space"]["id"],
             "ARCHIVED": archived["column"]["id"]}  # fmt: skip
    item = alice.capture()
    args = {key: names.get(value, value) for key, value in destination.items()}
    failure = alice.fails(error, "move_todo_inbox_item_to_board", id=item["id"], expectedRevision=1, **args)
    assert message in failure.message
    state = alice.state()
    assert state.inbox[item["id"]]["revision"] == 1 and not [t for t in state.tasks.values()]  # nothing written


def test_move_conflicts_and_missing_items(alice: Caller):
    item = alice.capture()
    alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="edited")
    error = alice.fails(RevisionConflict, "move_todo_inbox_item_to_board", id=item["id"], expectedRevision=1)
    assert error.recover_data == {"item": alice("get_todo_inbox_item", id=item["id"])["item"]}
    alice("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=2)
    alice.fails(NotFound, "move_todo_inbox_item_to_board", id=item["id"], expectedRevision=2)  # already moved
    trashed = alice.capture()
    alice("delete_todo_inbox_item", id=trashed["id"], expectedRevision=1)
    alice.fails(NotFound, "move_todo_inbox_item_to_board", id=trashed["id"], expectedRevision=2)


def racing_caller(caller: Caller, race: Callable[[], None]) -> Caller:
    store = Racing(caller.services.items)
    store.race = race
    return Caller(replace(caller.services, items=store), caller.user_id)


def test_move_is_all_or_nothing_when_the_column_is_archived_meanwhile(alice: Caller):
    item = alice.capture("x", subtasks=[{"title": "s1"}, {"title": "s2"}])
    default = alice.state().default_space()
    first = _columns(alice, default["id"])[0]

    def archive() -> None:
        alice("update_todo_column", columnId=first["id"], expectedRevision=1, archived=True)

    racing = racing_caller(alice, archive)
    failure = racing.fails(ValidationError, "move_todo_inbox_item_to_board", id=item["id"], expectedRevision=1)
    assert "archived or deleted while moving" in failure.message
    state = alice.state()
    assert state.tasks == {} and state.inbox[item["id"]]["revision"] == 1


def test_move_is_all_or_nothing_when_the_item_is_edited_meanwhile(alice: Caller):
    item = alice.capture("x", subtasks=[{"title": "s1"}])

    def edit() -> None:
        alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="edited meanwhile")

    error = racing_caller(alice, edit).fails(RevisionConflict, "move_todo_inbox_item_to_board", id=item["id"],
                                       expectedRevision=1)  # fmt: skip
    assert error.recover_data["item"]["title"] == "edited meanwhile"
    assert alice.state().tasks == {}


# -- inbox subtasks ----------------------------------------------------------------------------


def test_subtask_list_and_get(alice: Caller):
    item = alice.capture("p", timezone="Asia/Tokyo", subtasks=[{"title": "a", "notes": "an"}, {"title": "b"}])
    listed = alice("list_todo_inbox_subtasks", parentItemId=item["id"])
    assert listed["parentItemId"] == item["id"] and listed["parentRevision"] == 1
    first = listed["subtasks"][0]
    assert set(first) == {"id", "parentItemId", "title", "notes", "isDone", "position", "attachments", "parentRevision"}
    assert (first["title"], first["notes"], first["isDone"], first["attachments"]) == ("a", "an", False, [])
    plain = alice("list_todo_inbox_subtasks", parentItemId=item["id"], includeNotes=False)
    assert all("notes" not in s for s in plain["subtasks"])
    got = alice("get_todo_inbox_subtask", parentItemId=item["id"], subtaskId=first["id"])
    assert got == {"subtask": first, "timezone": "Asia/Tokyo"}
    with_context = alice("get_todo_inbox_subtask", parentItemId=item["id"], subtaskId=first["id"], includeContext=True)
    assert {"board", "inbox", "tagSuggestions"} <= set(with_context)
    alice.fails(NotFound, "get_todo_inbox_subtask", parentItemId=item["id"], subtaskId="nope")
    alice.fails(NotFound, "list_todo_inbox_subtasks", parentItemId="nope")


def test_subtask_create_update_done_delete_bump_the_parent(alice: Caller):
    item = alice.capture("p", subtasks=[{"title": "a"}])
    created = alice("create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=1, title="first", index=0)
    assert created["item"]["revision"] == 2 and created["subtask"]["parentRevision"] == 2
    assert [s["title"] for s in created["item"]["subtasks"]] == ["first", "a"]
    sub_id = created["subtask"]["id"]
    updated = alice("update_todo_inbox_subtask", parentItemId=item["id"], subtaskId=sub_id, parentRevision=2,
                    title="renamed", notes="nn", index=5)  # fmt: skip
    assert updated["subtask"]["title"] == "renamed" and updated["subtask"]["notes"] == "nn"
    assert [s["title"] for s in updated["item"]["subtasks"]] == ["a", "renamed"] and updated["item"]["revision"] == 3
    done = alice("set_todo_inbox_subtask_done", parentItemId=item["id"], subtaskId=sub_id, parentRevision=3,
                 isDone=True)  # fmt: skip
    assert done["subtask"]["isDone"] is True and done["item"]["revision"] == 4
    same = alice("set_todo_inbox_subtask_done", parentItemId=item["id"], subtaskId=sub_id, parentRevision=4,
                 isDone=True)  # fmt: skip
    assert same["item"]["revision"] == 4  # no change, no new revision
    removed = alice("delete_todo_inbox_subtask", parentItemId=item["id"], subtaskId=sub_id, parentRevision=4)
    assert removed["subtask"]["title"] == "renamed" and removed["item"]["revision"] == 5
    assert [s["title"] for s in removed["item"]["subtasks"]] == ["a"]


def test_subtask_create_idempotency(alice: Caller):
    item = alice.capture("p")
    one = alice("create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=1, title="s", idempotencyKey="k")
    again = alice("create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=1, title="s", idempotencyKey="k")
    assert again == one and len(alice.state().inbox[item["id"]]["subtasks"]) == 1
    alice.fails(IdempotencyConflict, "create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=2,
                title="other", idempotencyKey="k")  # fmt: skip


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("create_todo_inbox_subtask", {"title": "late"}),
        ("update_todo_inbox_subtask", {"subtaskId": "SUB", "title": "late"}),
        ("set_todo_inbox_subtask_done", {"subtaskId": "SUB", "isDone": True}),
        ("delete_todo_inbox_subtask", {"subtaskId": "SUB"}),
    ],
)
def test_subtask_writes_with_a_stale_parent_revision_conflict(alice: Caller, name: str, extra: dict[str, Any]):
    item = alice.capture("p", subtasks=[{"title": "a"}])
    sub_id = item["subtasks"][0]["id"]
    alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, notes="changed")
    args = {key: (sub_id if value == "SUB" else value) for key, value in extra.items()}
    error = alice.fails(RevisionConflict, name, parentItemId=item["id"], parentRevision=1, **args)
    current = alice("get_todo_inbox_item", id=item["id"])["item"]
    assert error.recover_data["item"] == current
    if "subtaskId" in args:
        assert error.recover_data["subtask"] == current["subtasks"][0]
    assert alice.state().inbox[item["id"]]["revision"] == 2  # nothing written


def test_subtask_write_conflicts_when_the_parent_changes_meanwhile(alice: Caller):
    item = alice.capture("p", subtasks=[{"title": "a"}])
    sub_id = item["subtasks"][0]["id"]

    def edit() -> None:
        alice("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="meanwhile")

    racing = racing_caller(alice, edit)
    error = racing.fails(RevisionConflict, "set_todo_inbox_subtask_done", parentItemId=item["id"], subtaskId=sub_id,
                         parentRevision=1, isDone=True)  # fmt: skip
    assert error.recover_data["item"]["title"] == "meanwhile" and error.recover_data["subtask"]["isDone"] is False


def test_subtask_failures(alice: Caller):
    item = alice.capture("p", subtasks=[{"title": f"s{n}"} for n in range(50)])
    alice.fails(ValidationError, "create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=1, title="51")
    alice.fails(NotFound, "update_todo_inbox_subtask", parentItemId=item["id"], subtaskId="nope", parentRevision=1,
                title="x")  # fmt: skip
    alice.fails(NotFound, "delete_todo_inbox_subtask", parentItemId=item["id"], subtaskId="nope", parentRevision=1)
    alice.fails(ValidationError, "update_todo_inbox_subtask", parentItemId=item["id"],
                subtaskId=item["subtasks"][0]["id"], parentRevision=1)  # fmt: skip
    alice.fails(NotFound, "create_todo_inbox_subtask", parentItemId="nope", parentRevision=1, title="x")
    alice.fails(ValidationError, "update_todo_inbox_subtask", parentItemId=item["id"],
                subtaskId=item["subtasks"][0]["id"], parentRevision=1, title="  ")  # fmt: skip
    assert alice.state().inbox[item["id"]]["revision"] == 1


# -- tenant isolation --------------------------------------------------------------------------


def test_every_inbox_operation_is_isolated_between_users(alice: Caller, bob: Caller):
    item = alice.capture("alice's", notes="private", subtasks=[{"title": "hers"}])
    sub_id = item["subtasks"][0]["id"]
    before = alice.state().inbox[item["id"]]
    by_id = {"id": item["id"], "expectedRevision": 1}
    by_sub = {"parentItemId": item["id"], "subtaskId": sub_id, "parentRevision": 1}
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("get_todo_inbox_item", {"id": item["id"]}),
        ("update_todo_inbox_item", {**by_id, "title": "bob was here"}),
        ("complete_todo_inbox_item", by_id),
        ("delete_todo_inbox_item", by_id),
        ("move_todo_inbox_item_to_board", by_id),
        ("list_todo_inbox_subtasks", {"parentItemId": item["id"]}),
        ("get_todo_inbox_subtask", {"parentItemId": item["id"], "subtaskId": sub_id}),
        ("create_todo_inbox_subtask", {"parentItemId": item["id"], "parentRevision": 1, "title": "x"}),
        ("update_todo_inbox_subtask", {**by_sub, "title": "x"}),
        ("set_todo_inbox_subtask_done", {**by_sub, "isDone": True}),
        ("delete_todo_inbox_subtask", by_sub),
    ]
    for name, args in attempts:
        bob.fails(NotFound, name, **args)
    assert bob("list_todo_inbox_items")["items"] == []
    bob.capture("bob's own")
    assert [i["title"] for i in alice("list_todo_inbox_items")["items"]] == ["alice's"]
    assert alice.state().inbox[item["id"]] == before
    assert set(REGISTRY) >= {name for name, _ in attempts} | {"list_todo_inbox_items", "create_todo_inbox_item"}
