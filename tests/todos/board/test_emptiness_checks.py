"""The emptiness checks of delete_todo_column and delete_todo_space read the columns' list sizes
(table items, so never behind a write), not the board; a board from before list sizes is counted
from the table; and the inbox reads with context read the structure and the inbox list only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mesq.kernel.errors import Conflict
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import Delete
from mesq.store.paging import walk
from mesq.todos import keys as todo_keys
from mesq.wiring.services import Services
from tests.todos.board.test_board_write_reads import Reads, caller


def test_deleting_a_column_or_space_checks_emptiness_through_the_sizes(services: Services) -> None:
    reads = Reads(services.items)
    run = caller(replace(services, items=reads), "e1")  # type: ignore[arg-type]
    space = run("create_todo_space", name="Work", columns=["a", "b"])
    column_a, column_b = space["columns"]
    for n in range(3):
        run("create_todo_task", title=f"t{n}", columnId=column_b["id"])
    reads.reset()
    with pytest.raises(Conflict, match="column 'b' still has 3 live tasks"):
        run("delete_todo_column", columnId=column_b["id"], expectedRevision=column_b["revision"])
    with pytest.raises(Conflict, match="still has 3 live tasks"):
        run("delete_todo_space", spaceId=space["space"]["id"], expectedRevision=space["space"]["revision"])
    assert not reads.read_a_bulk_range()  # neither the task nor the inbox range
    run("delete_todo_column", columnId=column_a["id"], expectedRevision=column_a["revision"])  # an empty one goes


def test_a_board_from_before_sizes_is_counted_from_the_table(services: Services) -> None:
    run = caller(services, "e2")
    space = run("create_todo_space", name="Old", columns=["a", "b"])
    task = run("create_todo_task", title="t", columnId=space["columns"][1]["id"])["task"]
    for item in list(walk(services.items, user_partition("e2"), prefix=todo_keys.SIZE_PREFIX)):
        services.items.transact([Delete((str(item["pk"]), str(item["sk"])))])
    with pytest.raises(Conflict, match="still has 1 live task;"):
        run("delete_todo_space", spaceId=space["space"]["id"], expectedRevision=space["space"]["revision"])
    run("delete_todo_task", id=task["id"], expectedRevision=task["revision"])
    column = run("list_todo_spaces")["columns"]
    emptied = next(c for c in column if c["id"] == space["columns"][1]["id"])
    run("delete_todo_column", columnId=emptied["id"], expectedRevision=emptied["revision"])


def test_inbox_reads_with_context_read_no_board(services: Services) -> None:
    reads = Reads(services.items)
    run = caller(replace(services, items=reads), "e3")  # type: ignore[arg-type]
    for n in range(3):
        run("create_todo_task", title=f"t{n}")
    item = run("create_todo_inbox_item", title="i", subtasks=[{"title": "s"}])["item"]
    reads.reset()
    listed = run("list_todo_inbox_items")
    detail = run("get_todo_inbox_item", id=item["id"], includeContext=True)
    sub = run("get_todo_inbox_subtask", parentItemId=item["id"], subtaskId=item["subtasks"][0]["id"],
              includeContext=True)  # fmt: skip
    assert [i["id"] for i in listed["items"]] == [item["id"]] and listed["page"]["totalCount"] == 1
    assert detail["inbox"]["totalCount"] == 1 and sub["inbox"]["totalCount"] == 1
    assert not reads.read_a_bulk_range()
