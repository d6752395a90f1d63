"""A child process for the kill -9 test: 300 mixed memo and todo writes through the operation
registry against one store, printing `ack <recordId> <revision>` (flushed) after each write the
store acknowledged.

    python -m tests.history.writer sqlite <db path> <user id>
    python -m tests.history.writer dynamodb <endpoint> <table> <user id>
"""

from __future__ import annotations

import sys
from typing import Any

from mesq.application.invocation import invoke_sync
from mesq.kernel.context import Principal
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.spec import load_spec
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

WRITES = 300
SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})


def store_of(argv: list[str]) -> tuple[ItemStore, str]:
    if argv[0] == "sqlite":
        from mesq.adapters.store.sqlite import SQLiteItemStore

        return SQLiteItemStore(argv[1]), argv[2]
    import boto3

    from mesq.adapters.store.dynamodb import DynamoDBItemStore, _default_config

    client = boto3.session.Session().client("dynamodb", endpoint_url=argv[1], config=_default_config())
    return DynamoDBItemStore(argv[2], client=client), argv[3]


def main(argv: list[str]) -> None:
    items, user_id = store_of(argv)
    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    principal = Principal(user_id=user_id, scopes=SCOPES, credential_id="pat:writer", kind="pat", name="writer")
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        return invoke_sync(
            spec.operations[operation_id],
            arguments,
            principal=principal,
            services=services,
            trace_id="t",
            channel="api",
        )

    def ack(record: dict[str, Any]) -> None:
        print(f"ack {record['id']} {record['revision']}", flush=True)

    memo = task = None
    for number in range(WRITES):
        step = number % 5
        if step == 0 or memo is None:
            memo = call("create_memo", content=f"memo {number}")["memo"]
            ack(memo)
        elif step == 1:
            memo = call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"edit {number}")[
                "memo"
            ]
            ack(memo)
        elif step == 2 or task is None:
            task = call("create_todo_task", title=f"task {number}")["task"]
            ack(task)
        elif step == 3:
            task = call("complete_todo_task", id=task["id"], expectedRevision=task["revision"])["task"]
            ack(task)
        else:
            task = call("update_todo_task", id=task["id"], expectedRevision=task["revision"], title=f"t{number}")[
                "task"
            ]
            ack(task)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
