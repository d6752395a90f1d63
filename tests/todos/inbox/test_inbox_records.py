"""The pure inbox record rules (mesq/todos/inbox_records.py): building an item, editing it and
its embedded subtasks, and the storage-size cap."""

from __future__ import annotations

import pytest

from mesq.kernel.errors import NotFound, ValidationError
from mesq.todos import model
from mesq.todos.inbox import records
from mesq.todos.inbox.move import board_records

NOW = "2026-11-29T08:00:00.000000Z"


def item_with(*titles: str, **fields: object) -> dict[str, object]:
    return records.new_item({"title": "inbox item", "subtasks": [{"title": t} for t in titles], **fields}, "a0", NOW)


def titles(item: dict[str, object]) -> list[str]:
    return [s["title"] for s in records.ordered_subtasks(item)]


def test_new_item_normalizes_and_keeps_the_record_fields():
    item = records.new_item(
        {
            "title": "  call mum  ",
            "priority": "high",
            "tags": ["home", "home", "calls"],
            "due": {"type": "datetime", "at": "2026-12-01T09:30:00+08:00"},
            "timezone": "Asia/Shanghai",
            "subtasks": [{"title": "find number", "isDone": True}, {"title": "dial", "notes": "x"}],
        },
        "a5",
        NOW,
    )
    assert item["title"] == "call mum" and item["notes"] == "" and item["priority"] == "high"
    assert item["tags"] == ["home", "calls"]  # distinct, in order
    assert item["due"] == {"type": "datetime", "at": "2026-12-01T09:30:00+08:00"}  # kept as given
    assert (item["revision"], item["done"], item["completedAt"], item["deletedAt"]) == (1, False, None, None)
    assert item["attachments"] == [] and item["reminders"] == [] and item["recurrence"] is None
    assert item["position"] == "a5"
    assert titles(item) == ["find number", "dial"]
    assert [s["isDone"] for s in records.ordered_subtasks(item)] == [True, False]
    assert all(set(s) == {"id", "title", "notes", "isDone", "position", "attachments"} for s in item["subtasks"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"title": "   "}, "title: must not be empty"),
        ({"title": "x", "notes": "n" * (model.NOTES_MAX + 1)}, "notes: at most"),
        ({"title": "x", "tags": ["no space"]}, "tags[0]"),
        ({"title": "x", "due": {"type": "date", "date": "2026-02-30"}}, "due.date"),
        ({"title": "x", "due": {"type": "datetime", "at": "2026-02-01T10:00"}}, "due.at"),
        ({"title": "x", "timezone": "Mars/Olympus"}, "timezone"),
        ({"title": "x", "subtasks": [{"title": " "}]}, "subtasks[0].title"),
        ({"title": "x", "subtasks": [{"title": "s"}] * (records.MAX_INBOX_SUBTASKS + 1)}, "at most 50"),
    ],
)
def test_new_item_rejects_bad_fields_with_the_field_named(args: dict[str, object], message: str):
    with pytest.raises(ValidationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        records.new_item(args, "a0", NOW)


def test_stored_size_is_capped_below_dynamodbs_item_limit():
    # 7 subtasks of 50,000 three-byte characters: each field is valid, the whole item is not.
    subtasks = [{"title": f"s{i}", "notes": "字" * model.NOTES_MAX} for i in range(3)]
    with pytest.raises(ValidationError, match="bytes of storage"):
        records.new_item({"title": "big", "notes": "字" * model.NOTES_MAX, "subtasks": subtasks}, "a0", NOW)
    item = records.new_item({"title": "ok", "notes": "字" * model.NOTES_MAX}, "a0", NOW)
    with pytest.raises(ValidationError, match="bytes of storage"):
        for _ in range(3):
            item, _sub = records.added_subtask(item, {"title": "more", "notes": "字" * model.NOTES_MAX})


def test_edited_changes_only_the_given_fields_and_clears_with_null():
    item = item_with(due={"type": "date", "date": "2026-12-24"}, timezone="Europe/Berlin", tags=["a"])
    after = records.edited(item, {"title": "new", "due": None, "timezone": None})
    assert (after["title"], after["due"], after["timezone"], after["tags"]) == ("new", None, None, ["a"])
    assert item["title"] == "inbox item"  # the input is not mutated
    with pytest.raises(ValidationError, match="title"):
        records.edited(item, {"title": ""})


def test_with_done_sets_and_clears_completed_at():
    item = item_with()
    done = records.with_done(item, True, NOW)
    assert done["done"] is True and done["completedAt"] == NOW
    assert records.with_done(done, True, "2027-01-01T00:00:00.000000Z") == done  # already done: unchanged
    reopened = records.with_done(done, False, NOW)
    assert reopened["done"] is False and reopened["completedAt"] is None


def test_added_subtask_goes_to_the_end_or_to_the_given_index():
    item = item_with("a", "b")
    item, _ = records.added_subtask(item, {"title": "c"})
    item, _ = records.added_subtask(item, {"title": "first", "index": 0})
    item, added = records.added_subtask(item, {"title": "middle", "index": 2, "isDone": True, "notes": "n"})
    assert titles(item) == ["first", "a", "middle", "b", "c"]
    assert added["isDone"] is True and added["notes"] == "n" and added["attachments"] == []
    assert item["subtasks"] == records.ordered_subtasks(item)  # stored in order


def test_added_subtask_refuses_more_than_the_cap():
    item = item_with(*[f"s{i}" for i in range(records.MAX_INBOX_SUBTASKS)])
    with pytest.raises(ValidationError, match="already has 50 subtasks"):
        records.added_subtask(item, {"title": "one too many"})


def test_changed_subtask_edits_and_moves_one_subtask():
    item = item_with("a", "b", "c")
    b = records.ordered_subtasks(item)[1]
    after, changed = records.changed_subtask(item, b["id"], {"title": "B", "isDone": True, "index": 0})
    assert titles(after) == ["B", "a", "c"] and changed["isDone"] is True and changed["id"] == b["id"]
    after, _ = records.changed_subtask(after, b["id"], {"index": 99})
    assert titles(after) == ["a", "c", "B"]
    with pytest.raises(NotFound, match="no subtask"):
        records.changed_subtask(item, "missing", {"title": "x"})


def test_removed_subtask_returns_it():
    item = item_with("a", "b")
    a = records.ordered_subtasks(item)[0]
    after, removed = records.removed_subtask(item, a["id"])
    assert titles(after) == ["b"] and removed == a
    with pytest.raises(NotFound):
        records.removed_subtask(after, a["id"])


def test_board_records_keep_ids_content_order_and_done_state():
    item = records.new_item(
        {"title": "plan trip", "notes": "long", "priority": "urgent", "tags": ["travel"],
         "due": {"type": "date", "date": "2027-01-02"}, "timezone": "Asia/Tokyo",
         "subtasks": [{"title": "book", "isDone": True}, {"title": "pack", "notes": "socks"}]},
        "a0", NOW,
    )  # fmt: skip
    item = records.with_done(item, True, NOW)
    task, subtasks = board_records(item, "space1", "col1", "b3", "2026-11-30T00:00:00.000000Z")
    assert task["id"] == item["id"] and task["parentId"] is None
    assert (task["spaceId"], task["columnId"], task["position"]) == ("space1", "col1", "b3")
    for name in ("title", "notes", "priority", "tags", "due", "timezone", "done", "completedAt", "createdAt"):
        assert task[name] == item[name], name
    assert task["revision"] == 1 and task["deletedAt"] is None
    assert [s["title"] for s in subtasks] == ["book", "pack"]
    assert [s["id"] for s in subtasks] == [s["id"] for s in records.ordered_subtasks(item)]
    assert all(s["parentId"] == item["id"] and s["columnId"] is None and s["spaceId"] == "space1" for s in subtasks)
    assert subtasks[0]["done"] is True and subtasks[0]["completedAt"] == "2026-11-30T00:00:00.000000Z"
    assert subtasks[1]["done"] is False and subtasks[1]["completedAt"] is None and subtasks[1]["notes"] == "socks"
    assert set(task) == set(model.TASK_FIELDS) and all(set(s) == set(model.TASK_FIELDS) for s in subtasks)
