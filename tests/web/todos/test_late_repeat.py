"""The Overdue page's complete button on a repeating task missed for days (docs/decisions.md, "a
late completion"): the task leaves Overdue with its next due tomorrow, not four days ago."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from mesq.wiring.services import Services

from ..conftest import Browser, FakeClock
from .test_todos_pages import board, new_task, person  # noqa: F401  (person: a signed-in browser)

ZONE = ZoneInfo("Asia/Shanghai")


def test_a_daily_task_ticked_late_leaves_overdue(services: Services, person: Browser, clock: FakeClock) -> None:  # noqa: F811
    clock.now = time.time()
    today = datetime.fromtimestamp(clock(), UTC).astimezone(ZONE).date()
    person.client.cookies.set("mesq_tz", "Asia/Shanghai")
    missed = {"type": "date", "date": (today - timedelta(days=5)).isoformat()}
    task = new_task(services, person.user_id, "吃维生素", due=missed, timezone="Asia/Shanghai", recurrence="FREQ=DAILY")
    assert "吃维生素" in person.get("/todos/overdue").text
    fields = {"kind": "task", "id": task["id"], "revision": task["revision"]}
    done = person.post("/todos/overdue/complete", fields, headers={"HX-Request": "true"})
    assert done.status_code == 200 and "吃维生素" not in done.text
    after = next(t for t in board(services, person.user_id)["tasks"] if t["id"] == task["id"])
    assert after["due"] == {"type": "date", "date": (today + timedelta(days=1)).isoformat()} and not after["done"]
