"""The cost of recording history (issue 26): the same 60 mixed writes (memo create / edit, task
create / edit / complete) through the operation registry against the official DynamoDB Local,
once as they run and once with the change records switched off (the capture functions patched
to add nothing, in this process only), interleaved in rounds so load on the machine hits both
alike. Per write: median wall time, DynamoDB calls, and the write units DynamoDB Local reports
for them (`ReturnConsumedCapacity: INDEXES` added to each counted write call at botocore: the
table's and every index's units; with TOTAL, DynamoDB Local reports some transactions without
their index writes, e.g. a task update with its change record as 8 units where INDEXES counts
table 4 + GSI1 6 + GSI2 4 + GSI3 2 = 16). The same mix again with notes of about a kilobyte (what a
written memo is; the short mix is a worst case for a change record's fixed cost).

Run alone (`python bench/history_cost.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import contextlib
import importlib.util
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "layers" / "core"))

from tests.history_off import history_off  # noqa: E402  (the writes without their change records)

WRITES = 60
ROUNDS = 3
_WRITE_CALLS = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


def _runner() -> Any:
    spec = importlib.util.spec_from_file_location("mesq_bench_dynamodb_local", REPO / "infra" / "dynamodb_local.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Meter:
    """DynamoDB calls and consumed write units, counted at botocore."""

    def __init__(self) -> None:
        import botocore.client

        self.calls = 0
        self.units = 0.0
        self._client = botocore.client.BaseClient
        self._real = botocore.client.BaseClient._make_api_call

    @contextmanager
    def counting(self) -> Iterator[None]:
        real = self._real

        def counted(client: Any, operation: str, params: Any) -> Any:
            if client.meta.service_model.service_name != "dynamodb":
                return real(client, operation, params)
            self.calls += 1
            if operation in _WRITE_CALLS:
                params = {**params, "ReturnConsumedCapacity": "INDEXES"}
            answer = real(client, operation, params)
            consumed = answer.get("ConsumedCapacity") if isinstance(answer, dict) else None
            for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
                if operation in _WRITE_CALLS:
                    self.units += float(entry.get("WriteCapacityUnits", entry.get("CapacityUnits", 0)))
            return answer

        self._client._make_api_call = counted  # type: ignore[method-assign]
        try:
            yield
        finally:
            self._client._make_api_call = real  # type: ignore[method-assign]


def _caller(items: Any, user_id: str) -> Callable[..., dict[str, Any]]:
    from tests.settings import inprocess_settings

    from mesq.application.invocation import invoke_sync
    from mesq.kernel.context import Principal
    from mesq.kernel.spec import load_spec
    from mesq.wiring.services import Services

    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    scopes = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})
    principal = Principal(user_id=user_id, scopes=scopes, credential_id="pat:bench", kind="pat", name="bench")
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        return invoke_sync(
            spec.operations[operation_id], arguments, principal=principal, services=services, trace_id="b",
            channel="api",
        )  # fmt: skip

    return call


#: About a kilobyte of a note's prose (the realistic mix): a sentence of a diary repeated with its number.
NOTE = (
    "Met the team about the spring release; we moved the import work to next week and agreed that the "
    "search page needs the filters first. Notes from the reading group follow, with the quotes I want to keep. "
)


def _writes(
    call: Callable[..., dict[str, Any]], meter: Meter, count: int, long: bool = False
) -> tuple[list[float], int, float]:
    """`count` mixed writes; (seconds of each, DynamoDB calls, write units) of the writes alone."""
    seconds: list[float] = []
    calls = units = 0.0

    def text(label: str, number: int) -> str:
        return f"{label} {number} #bench " + (NOTE * 5 + str(number) if long else "")

    memo = call("create_memo", content=text("seed memo", 0))["memo"]
    task = call("create_todo_task", title="seed task")["task"]
    for number in range(count):
        step = number % 5
        before_calls, before_units = meter.calls, meter.units
        start = time.perf_counter()
        with meter.counting():
            if step == 0:
                call("create_memo", content=text("memo", number))
            elif step == 1:
                memo = call("update_memo", id=memo["id"], expectedRevision=memo["revision"],
                            content=text("edit", number))["memo"]  # fmt: skip
            elif step == 2:
                call("create_todo_task", title=f"task {number}")
            elif step == 3:
                task = call("update_todo_task", id=task["id"], expectedRevision=task["revision"], title=f"t{number}")[
                    "task"
                ]
            else:
                task = call("complete_todo_task" if not task.get("completedAt") else "reopen_todo_task",
                            id=task["id"], expectedRevision=task["revision"])["task"]  # fmt: skip
        seconds.append(time.perf_counter() - start)
        calls += meter.calls - before_calls
        units += meter.units - before_units
    return seconds, int(calls), units


#: Versions of the memo whose History panel is read, and how many times it is read.
PANEL_VERSIONS = 100
PANEL_READS = 5


def _panel(client: Any, meter: Meter) -> tuple[float, float]:
    """(median ms, DynamoDB calls) of the History panel's read of a memo edited PANEL_VERSIONS
    times (`list_changes {recordId, limit: 100}`, what web/activity/pages.py reads): the record's
    chain, 8 changes a read (`records.LINKS`), since change records have no index entry."""
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    items = DynamoDBItemStore(f"bench-panel-{uuid.uuid4().hex[:8]}", client=client)
    items.create_table_if_missing()
    call = _caller(items, "bench")
    memo = call("create_memo", content="v0")["memo"]
    for number in range(1, PANEL_VERSIONS):
        memo = call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"v{number}")["memo"]
    seconds: list[float] = []
    calls_before = meter.calls
    for _ in range(PANEL_READS):
        start = time.perf_counter()
        with meter.counting():
            found = call("list_changes", recordId=memo["id"], limit=PANEL_VERSIONS)["changes"]
        seconds.append(time.perf_counter() - start)
        assert len(found) == PANEL_VERSIONS, len(found)
    return statistics.median(seconds) * 1000, (meter.calls - calls_before) / PANEL_READS


def rows_history_cost() -> list[tuple[str, str, str]]:
    import boto3

    from mesq.adapters.store.dynamodb import DynamoDBItemStore, _default_config

    runner = _runner()
    try:
        server = runner.start_dynamodb_local()
    except runner.DynamoDBLocalUnavailable as exc:
        return [("history: write cost", "n/a", f"DynamoDB Local unavailable: {exc}")]
    with server:
        client = boto3.session.Session(**server.client_kwargs()).client(
            "dynamodb", endpoint_url=server.endpoint, config=_default_config()
        )
        modes = ("with", "without", "with, 1 KB notes", "without, 1 KB notes")
        results: dict[str, tuple[list[float], int, float]] = {mode: ([], 0, 0.0) for mode in modes}
        meter = Meter()
        for round_number in range(ROUNDS):
            for mode in modes if round_number % 2 == 0 else modes[::-1]:
                items = DynamoDBItemStore(f"bench-history-{uuid.uuid4().hex[:8]}", client=client)
                items.create_table_if_missing()
                call = _caller(items, "bench")
                with history_off() if mode.startswith("without") else contextlib.nullcontext():
                    seconds, calls, units = _writes(call, meter, WRITES, long=mode.endswith("notes"))
                kept = results[mode]
                results[mode] = (kept[0] + seconds, kept[1] + calls, kept[2] + units)
        panel_ms, panel_calls = _panel(client, meter)
    count = WRITES * ROUNDS
    ms = {mode: statistics.median(found[0]) * 1000 for mode, found in results.items()}
    wcu = {mode: found[2] / count for mode, found in results.items()}
    calls = {mode: found[1] / count for mode, found in results.items()}
    from goals import record  # the closing goals table (bench/goals.py): <= 1.5x

    record("history wcu", 1, wcu["with"], wcu["without"], "WCU per write without history", "WCU")
    long_with, long_without = wcu["with, 1 KB notes"], wcu["without, 1 KB notes"]
    return [
        ("history: ms per write (DynamoDB Local), with", f"{ms['with']:.1f}",
         f"{ms['with'] / ms['without']:.2f}x the {ms['without']:.1f} ms without history"),
        ("history: write units per write, with", f"{wcu['with']:.2f}",
         f"{wcu['with'] / wcu['without']:.2f}x the {wcu['without']:.2f} WCU without history"),
        (f"history: a memo's History panel, {PANEL_VERSIONS} versions (DynamoDB Local)", f"{panel_ms:.1f} ms",
         f"{panel_calls:.0f} DynamoDB calls: 8 changes a read along the record's chain"),
        ("history: write units per write with 1 KB notes, with", f"{long_with:.2f}",
         f"{long_with / long_without:.2f}x the {long_without:.2f} WCU without history"),
        ("history: DynamoDB calls per write, with", f"{calls['with']:.2f}",
         f"vs {calls['without']:.2f} without (the record joins the write's own transaction)"),
    ]  # fmt: skip


if __name__ == "__main__":
    for name, value, note in rows_history_cost():
        print(f"{name:48}  {value:>8}  {note}")
