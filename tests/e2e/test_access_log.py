"""`mesq serve` writes one access-log line per request (method, path, status, duration, trace id),
as plain text or as JSON with `--log-format json`, and never the query string."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from ..conftest import LiveServer, start_server, stop_server

PLAIN = re.compile(
    r"^(?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) (?P<ms>\d+\.\d)ms trace=(?P<trace>[0-9a-f]{32})$"
)


def _lines_for(server: LiveServer, trace_id: str) -> list[str]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = [line for line in server.output if trace_id in line]
        if found:
            time.sleep(0.2)  # a second line for the same request would show up by now
            return [line for line in server.output if trace_id in line]
        time.sleep(0.05)
    raise AssertionError(f"no log line for {trace_id}: {server.output[-5:]}")


@contextmanager
def serving(tmp_path: Path, *options: str) -> Iterator[LiveServer]:
    server = start_server(tmp_path / "live", None, *options)
    try:
        yield server
    finally:
        stop_server(server)


def test_plain_access_log(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        answer = httpx.get(server.base_url + "/api/toolkit/memo?token=sekrit&q=x", timeout=10)
        assert answer.status_code == 401
        trace_id = answer.headers["x-trace-id"]
        [line] = _lines_for(server, trace_id)
        match = PLAIN.match(line)
        assert match, line
        assert match["method"] == "GET" and match["path"] == "/api/toolkit/memo" and match["status"] == "401"
        assert match["trace"] == trace_id
        assert "sekrit" not in "\n".join(server.output)
        health = httpx.get(server.base_url + "/healthz", timeout=10)
        [line] = _lines_for(server, health.headers["x-trace-id"])
        assert line.startswith("GET /healthz 200 ")
        # uvicorn's own access log is off: no second line in its format for either request.
        assert not [line for line in server.output if '"GET /healthz HTTP/1.1"' in line]


def test_json_access_log(tmp_path: Path) -> None:
    with serving(tmp_path, "--log-format", "json") as server:
        answer = httpx.post(server.base_url + "/nope?code=abc", timeout=10)
        assert answer.status_code == 404
        trace_id = answer.headers["x-trace-id"]
        [line] = _lines_for(server, trace_id)
        record = json.loads(line)
        assert set(record) == {"time", "method", "path", "status", "durationMs", "traceId"}
        assert (record["method"], record["path"], record["status"], record["traceId"]) == (
            "POST",
            "/nope",
            404,
            trace_id,
        )
        assert isinstance(record["durationMs"], float | int) and record["durationMs"] >= 0
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["time"])


def test_the_calendar_feed_secret_is_not_logged(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        secret = "cal_" + "s3cr3tfeedvalue" * 2
        answer = httpx.get(f"{server.base_url}/calendar/{secret}.ics", timeout=10)
        assert answer.status_code == 404
        [line] = _lines_for(server, answer.headers["x-trace-id"])
        assert line.startswith("GET /calendar/<redacted>.ics 404 "), line
        bare = httpx.get(f"{server.base_url}/calendar/{secret}", timeout=10)
        [line] = _lines_for(server, bare.headers["x-trace-id"])
        assert line.startswith("GET /calendar/<redacted> "), line
        assert secret not in "\n".join(server.output)
