"""Random todo boards for the listing property tests: public-shaped records (as the tools return them),
built without storage so hypothesis can try many of them quickly."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from mesq.todos import model
from mesq.todos.views.traversal import Board

TIME = "2026-11-{day:02d}T{hour:02d}:00:00.000000Z"


def _time(draw: st.DrawFn) -> str:
    return TIME.format(day=draw(st.integers(1, 28)), hour=draw(st.integers(0, 23)))


def _notes(draw: st.DrawFn, big: int) -> str:
    # Mostly short notes, sometimes long ones (and non-ASCII: the budget counts characters).
    size = draw(st.sampled_from([0, 5, 40, 300, big]))
    return ("笔记x" * (size // 3 + 1))[:size]


@st.composite
def boards(draw: st.DrawFn, big_notes: int = 3000, max_tasks_per_column: int = 6) -> Board:
    counter = iter(range(1_000_000))

    def ident(prefix: str) -> str:
        return f"{prefix}{next(counter):05d}"

    def task_like(**fields: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": ident("t"),
            "spaceId": None,
            "columnId": None,
            "parentId": None,
            "title": draw(st.text(min_size=1, max_size=20)),
            "notes": _notes(draw, big_notes),
            "priority": draw(st.sampled_from(model.PRIORITIES)),
            "tags": draw(st.lists(st.sampled_from(["a", "b", "work/x"]), unique=True, max_size=2)),
            "due": None,
            "timezone": None,
            "recurrence": None,
            "reminders": [],
            "attachments": [],
            "done": draw(st.booleans()),
            "completedAt": None,
            "position": draw(st.sampled_from(["a0", "a1", "a2", "a3"])),  # ties on purpose
            "revision": draw(st.integers(1, 5)),
            "createdAt": "2026-11-01T00:00:00.000000Z",
            "updatedAt": _time(draw),
            "deletedAt": "2026-11-20T00:00:00.000000Z" if draw(st.integers(0, 9)) == 0 else None,
        }
        record.update(fields)
        return record

    spaces, columns, tasks, inbox = [], [], [], []
    for _ in range(draw(st.integers(0, 3))):
        space = {
            "id": ident("s"),
            "name": "S",
            "slug": ident("slug"),
            "isDefault": False,
            "position": draw(st.sampled_from(["a0", "a1"])),
            "revision": 1,
            "createdAt": "2026-11-01T00:00:00.000000Z",
            "updatedAt": "2026-11-01T00:00:00.000000Z",
        }
        spaces.append(space)
        for _ in range(draw(st.integers(0, 3))):
            column = {
                "id": ident("c"),
                "spaceId": space["id"],
                "name": "C",
                "position": draw(st.sampled_from(["a0", "a1", "a2"])),
                "archived": draw(st.integers(0, 4)) == 0,
                "revision": 1,
                "createdAt": "2026-11-01T00:00:00.000000Z",
                "updatedAt": "2026-11-01T00:00:00.000000Z",
            }
            columns.append(column)
            for _ in range(draw(st.integers(0, max_tasks_per_column))):
                root = task_like(spaceId=space["id"], columnId=column["id"])
                tasks.append(root)
                for _ in range(draw(st.integers(0, 4))):
                    tasks.append(task_like(spaceId=space["id"], parentId=root["id"]))
    for _ in range(draw(st.integers(0, 6))):
        item = task_like()
        for key in ("spaceId", "columnId", "parentId"):
            del item[key]
        item["subtasks"] = [
            {
                "id": ident("is"),
                "title": "sub",
                "notes": _notes(draw, big_notes),
                "isDone": draw(st.booleans()),
                "position": draw(st.sampled_from(["a0", "a1"])),
                "attachments": [],
            }
            for _ in range(draw(st.integers(0, 3)))
        ]
        inbox.append(item)
    return Board(spaces=spaces, columns=columns, tasks=tasks, inbox_items=inbox)
