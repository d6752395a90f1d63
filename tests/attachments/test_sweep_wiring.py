"""Where the expiry sweep runs: `mesq serve`'s background loop, the scheduler Lambda function
(Powertools handler, EventBridge schedule in template.yaml) and the bucket's lifecycle rule."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from mesq.attachments.paths import STAGING_ROOT
from mesq.jobs import sweeper
from tests.conftest import REPO
from tests.infra.template_tools import load_template


def test_serve_loop_sweeps_every_interval_and_survives_failures(monkeypatch, make_services):
    services = make_services(upload_sweep_interval_seconds=0)
    calls: list[int] = []

    def fake_sweep(items: Any, blobs: Any) -> int:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("storage hiccup")
        return 1

    monkeypatch.setattr(sweeper, "sweep_expired_sessions", fake_sweep)

    async def run() -> None:
        task = asyncio.create_task(sweeper.sweep_forever(services))
        while len(calls) < 4:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(asyncio.wait_for(run(), 10))
    assert len(calls) >= 4  # the failing second sweep did not stop the loop


def test_serve_starts_the_sweeper():
    source = (REPO / "layers/core/mesq/runtime/server.py").read_text()
    assert "sweep_forever(services)" in source


@dataclass
class _Context:
    function_name: str = "mesq-scheduler"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:mesq-scheduler"
    aws_request_id: str = "req-1"


def test_scheduler_handler_sweeps(monkeypatch, tmp_path):
    monkeypatch.setenv("MESQ_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "MeSQ")
    spec = importlib.util.spec_from_file_location("mesq_scheduler_app", REPO / "functions/scheduler/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mesq_scheduler_app"] = module
    spec.loader.exec_module(module)
    swept: list[Any] = []
    monkeypatch.setattr(module, "sweep_expired_sessions", lambda items, blobs: swept.append(blobs) or 3)
    assert module.handler({"source": "aws.scheduler"}, _Context()) == {"sweptUploadSessions": 3}
    assert swept == [module.services.blobs]
    module.services.items.close()


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def test_template_schedules_the_sweep(template):
    function = template["Resources"]["SchedulerFunction"]
    assert function["Properties"]["CodeUri"] == "functions/scheduler/"
    events = function["Properties"]["Events"]
    assert [e["Type"] for e in events.values()] == ["ScheduleV2", "ScheduleV2"]
    sweep, tick = events["SweepUploadSessions"]["Properties"], events["ReminderTick"]["Properties"]
    assert sweep["ScheduleExpression"] == "rate(15 minutes)" and "sweep-upload-sessions" in sweep["Input"]
    assert tick["ScheduleExpression"] == "rate(1 minute)" and '"reminder-tick"' in tick["Input"]


def test_scheduler_routes_the_reminder_schedule_to_the_tick(monkeypatch, tmp_path):
    monkeypatch.setenv("MESQ_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "MeSQ")
    spec = importlib.util.spec_from_file_location("mesq_scheduler_app_tick", REPO / "functions/scheduler/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ticks: list[Any] = []

    def fake_tick(items: Any, sealer: Any, now: Any, reach: Any = None) -> Any:
        ticks.append(now)
        from mesq.jobs.reminder_tick import TickReport

        return TickReport(buckets=1)

    monkeypatch.setattr(module, "run_due_reminder_tick", fake_tick)
    answer = module.handler({"source": "aws.scheduler", "job": "reminder-tick"}, _Context())
    assert answer["reminders"]["buckets"] == 1 and len(ticks) == 1 and ticks[0].tzinfo is not None
    module.services.items.close()


def test_serve_starts_the_reminder_loop():
    source = (REPO / "layers/core/mesq/runtime/server.py").read_text()
    assert "remind_forever(services)" in source


def test_bucket_lifecycle_expires_the_staging_prefix(template):
    rules = template["Resources"]["AttachmentBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]
    staging = [rule for rule in rules if rule.get("Prefix") == f"{STAGING_ROOT}/"]
    assert staging and staging[0]["Status"] == "Enabled" and staging[0]["ExpirationInDays"] == 1


def _run_reminder_loop(monkeypatch: Any, services: Any, tick: Any, seen: list[Any], ticks: int) -> None:
    """`remind_forever` with `tick` as the reminder tick, until `seen` holds `ticks` entries."""
    monkeypatch.setattr(sweeper, "run_due_reminder_tick", tick)

    async def run() -> None:
        task = asyncio.create_task(sweeper.remind_forever(services))
        while len(seen) < ticks:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(asyncio.wait_for(run(), 10))


def test_serve_reminder_loop_ticks_and_survives_failures(monkeypatch, make_services):
    from mesq.jobs.reminder_tick import TickReport

    calls: list[Any] = []

    def fake_tick(items: Any, sealer: Any, now: Any, reach: Any = None) -> Any:
        calls.append(now)
        if len(calls) == 2:
            raise RuntimeError("storage hiccup")
        return TickReport()

    _run_reminder_loop(monkeypatch, make_services(reminder_tick_seconds=0), fake_tick, calls, 4)
    assert len(calls) >= 4


def test_serve_reminder_ticks_start_an_interval_apart_however_long_one_takes(monkeypatch, make_services):
    """A tick slowed by a channel (here 0.5 s of a 0.6 s interval) is followed by the next one at
    the interval from its start, not a whole interval after it ended."""
    import itertools
    import time

    from mesq.jobs.reminder_tick import TickReport

    starts: list[float] = []

    def slow_tick(items: Any, sealer: Any, now: Any, reach: Any = None) -> Any:
        starts.append(time.monotonic())
        time.sleep(0.5)
        return TickReport()

    _run_reminder_loop(monkeypatch, make_services(reminder_tick_seconds=0.6), slow_tick, starts, 3)
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert all(0.55 <= gap < 0.9 for gap in gaps), gaps  # 1.1 s apart before
