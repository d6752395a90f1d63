"""An agent's session as the issue describes it: 30 memo edits and a task moved to another
column, by a token named "Claude Desktop", through the operations every channel runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mesq.application.invocation import invoke_sync
from mesq.kernel.context import Principal
from mesq.kernel.spec import load_spec
from mesq.wiring.services import Services

SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})
EDITS = 30
COLUMN_NAMES = ("待办", "进行中", "已完成")


@dataclass(frozen=True)
class Seeded:
    memo_ids: list[str]
    task_id: str
    titles: list[str]


def caller(services: Services, user_id: str, credential: str, name: str, kind: str = "pat") -> Any:
    principal = Principal(user_id=user_id, scopes=SCOPES, credential_id=credential, kind=kind, name=name)
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        found: dict[str, Any] = invoke_sync(
            spec.operations[operation_id], arguments, principal=principal, services=services, trace_id="t",
            channel="mcp",
        )  # fmt: skip
        return found

    return call


def agent_session(services: Services, user_id: str) -> Seeded:
    """The person's memos and task (their own session), then the agent's: 30 edits, 1 move."""
    person = caller(services, user_id, "pat:mine", "我的脚本")
    memos = [person("create_memo", content=f"周报 {n}\n本周完成了第 {n} 项")["memo"] for n in range(EDITS)]
    task = person("create_todo_task", title="买牛奶")["task"]
    board = [c for c in person("list_todo_spaces")["columns"] if c["spaceId"] == task["spaceId"]]
    for column, name in zip(board, COLUMN_NAMES, strict=False):  # the person's own names for the columns
        person("update_todo_column", columnId=column["id"], expectedRevision=column["revision"], name=name)
    agent = caller(services, user_id, "pat:claude", "Claude Desktop")
    for memo in memos:
        agent("update_memo", id=memo["id"], expectedRevision=memo["revision"],
              content=memo["content"].replace("完成了", "认真完成了"))  # fmt: skip
    target = next(column for column in board if column["id"] != task["columnId"])
    agent("move_todo_task", id=task["id"], expectedRevision=task["revision"], columnId=target["id"])
    return Seeded([memo["id"] for memo in memos], task["id"], [f"周报 {n}" for n in range(EDITS)])
