"""When `mesq serve` counts as quiet for its warm-up (asgi/activity.py): a request in flight or
just ended is activity; a health probe is served but never activity, so a client polling
`/healthz` while it waits for `ready` does not hold the warm-up back."""

from __future__ import annotations

import time

import anyio
from starlette.types import Receive, Scope, Send

from mesq.asgi.activity import Activity


async def _answer(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _request(activity: Activity, path: str) -> None:
    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b""}

    async def send(_message: object) -> None:
        return None

    anyio.run(activity, {"type": "http", "path": path, "method": "GET"}, receive, send)


def test_a_request_is_activity_and_a_health_probe_is_not() -> None:
    activity = Activity(_answer)
    time.sleep(0.06)
    assert activity.quiet(0.05) and not activity.settled(10)  # nothing served yet, quiet since the start
    _request(activity, "/healthz")
    assert activity.settled(10), "a probe was served: the warm-up may start"
    assert activity.quiet(0.05), "a probe is no activity to give way to"
    _request(activity, "/api/toolkit/memo")
    assert not activity.quiet(0.05), "a request just ended: the warm-up waits"
    time.sleep(0.06)
    assert activity.quiet(0.05)
