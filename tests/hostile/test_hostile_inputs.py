"""Every operation of the spec, over REST and over MCP `tools/call`, against the hostile-value
catalogue of `cases.py` (one value in one field per call).

Each answer: never a 5xx or INTERNAL; an error is a small (< 4 KB) error envelope and leaves
the store exactly as it was (every row of the SQLite table); a value that can never be valid
fails and its VALIDATION_ERROR names the field. Where the schema accepts a value (NUL inside a
title, `limit: 1.0`), a normal success is fine.

The whole matrix (every operation, ~4,900 cases a channel) runs in `make test`; the fast lane runs
a representative cut (FAST_CUT: one operation per request shape, see docs/testing.md) and marks the
other operations `slow`.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from starlette.testclient import TestClient

from mesq.auth.scopes import ALL_SCOPES
from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.messages import QUOTE_CHARS
from mesq.kernel.spec import Operation, load_spec
from mesq.runtime.server import create_local_app
from mesq.wiring.services import build_services
from tests.hostile.cases import Case, baseline, cases
from tests.mcp.conftest import Mcp
from tests.settings import inprocess_settings

SPEC = load_spec()
OPERATIONS = sorted(SPEC.operations)


def _request_shape(operation: Operation) -> tuple[str, bool, tuple[str, ...]]:
    """What the REST adapter does differently per operation: the method, whether a JSON body is
    read, and where parameters come from (path, query, header). Values are validated by the
    operation's own schema either way, on both channels."""
    return operation.method, operation.has_body, tuple(sorted({param.location for param in operation.parameters}))


def _fast_cut() -> frozenset[str]:
    """Per request shape, the operation with the most arguments (the widest mix of field types;
    ties to the last name): 13 of the 79 operations, about a quarter of the cases."""
    richest: dict[tuple[str, bool, tuple[str, ...]], tuple[int, str]] = {}
    for operation_id in OPERATIONS:
        operation = SPEC.operation(operation_id)
        candidate = (len(operation.input_schema.get("properties", {})), operation_id)
        shape = _request_shape(operation)
        richest[shape] = max(richest.get(shape, candidate), candidate)
    return frozenset(operation_id for _, operation_id in richest.values())


FAST_CUT = _fast_cut()
MAX_ERROR_BYTES = 4096
#: httpx refuses longer URLs (so do HTTP servers, at about 8 KB): a 2 MB value in a path or a
#: query string is sent as its first 32 KB.
MAX_URL_VALUE = 32 * 1024
PLACEHOLDER = "\x00hostile\x00"


class World:
    """One app over one store for the module, seeded with a few records, and a row snapshot."""

    def __init__(self, data_dir: Path) -> None:
        # Rate limits off: thousands of calls in a minute are the point here, not a flood.
        self.services = build_services(inprocess_settings(data_dir=data_dir, rate_limit_profile="off"))
        user = create_user(self.services.items, "hostile", "correct horse battery")
        self.token, _ = create_token(self.services.items, user["id"], name="hostile", scopes=",".join(ALL_SCOPES))
        self.client = TestClient(create_local_app(self.services), raise_server_exceptions=False)
        self.mcp = Mcp(client=self.client, token=self.token)
        self._rows = sqlite3.connect(f"file:{self.services.settings.sqlite_path}?mode=ro", uri=True)
        self.last = self.snapshot()

    def snapshot(self) -> list[tuple[Any, ...]]:
        """Every row; a token's `lastUsedAt` (stamped once a minute by any authenticated call,
        failed or not) is bookkeeping of the credential, not an effect of the call."""
        sql = "SELECT pk, sk, json_remove(data, '$.lastUsedAt'), ttl FROM items ORDER BY pk, sk"
        return self._rows.execute(sql).fetchall()

    def close(self) -> None:
        self._rows.close()
        self.client.close()
        self.services.items.close()


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with tempfile.TemporaryDirectory() as data_dir:
        built = World(Path(data_dir))
        for name, arguments in (
            ("create_memo", {"content": "seed #tag"}),
            ("create_todo_task", {"title": "seed task", "tags": ["seed"]}),
            ("create_todo_inbox_item", {"title": "seed inbox", "subtasks": [{"title": "seed sub"}]}),
        ):
            built.mcp.ok(name, arguments)
        built.last = built.snapshot()
        yield built
        built.close()


def _raw_json(arguments: dict[str, Any], hostile_json: str) -> str:
    return json.dumps(arguments).replace(json.dumps(PLACEHOLDER), hostile_json)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _encoded(text: str) -> str:
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def rest_call(world: World, operation: Operation, arguments: dict[str, Any], case: Case) -> httpx.Response:
    path = operation.path
    query: list[str] = []
    headers = {"Authorization": f"Bearer {world.token}", "Content-Type": "application/json"}
    for param in operation.parameters:
        if param.argument == case.field:
            text = case.value.text[:MAX_URL_VALUE]
        elif param.argument in arguments:
            value = arguments[param.argument]
            text = ",".join(map(_as_text, value)) if isinstance(value, list) else _as_text(value)
        else:
            continue
        if param.location == "path":
            path = path.replace("{" + param.name + "}", _encoded(text))
        elif param.location == "query":
            query.append(f"{param.name}={_encoded(text)}")
        else:
            headers[param.name] = text
    body = None
    if operation.has_body:
        fields = {name: value for name, value in arguments.items() if name in operation.body_fields}
        body = _raw_json(fields, case.value.json).encode("utf-8")
    url = path + ("?" + "&".join(query) if query else "")
    return world.client.request(operation.method, url, content=body, headers=headers)


def mcp_call(world: World, operation: Operation, arguments: dict[str, Any], case: Case) -> httpx.Response:
    params = {"name": operation.operation_id, "arguments": arguments}
    raw = _raw_json(world.mcp.body("tools/call", params), case.value.json)
    headers = world.mcp.http_headers("tools/call", params)
    return world.client.post(world.mcp.path, content=raw.encode("utf-8"), headers=headers)


def rest_outcome(response: httpx.Response) -> tuple[bool, str, str]:
    """(failed, code, message) of a REST answer, after checking an error's envelope."""
    assert response.status_code < 500, response.text[:500]
    if response.status_code < 400:
        return False, "", ""
    envelope = response.json()
    assert set(envelope) >= {"error", "traceId"}, envelope
    return True, envelope["error"]["code"], envelope["error"]["message"]


def mcp_outcome(response: httpx.Response) -> tuple[bool, str, str]:
    """A JSON-RPC error (a message the SDK cannot parse, ...) or an isError tool result."""
    assert response.status_code < 500, response.text[:500]
    payload = response.json()
    if "error" in payload:
        assert payload["error"]["code"] != -32603, payload  # JSON-RPC "internal error"
        return True, f"jsonrpc {payload['error']['code']}", payload["error"]["message"]
    result = payload["result"]
    if result.get("isError") is not True:
        return False, "", ""
    envelope = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == envelope
    assert set(envelope) >= {"error", "traceId"}, envelope
    return True, envelope["error"]["code"], envelope["error"]["message"]


CHANNELS = {"rest": (rest_call, rest_outcome), "mcp": (mcp_call, mcp_outcome)}


def _skipped_on_rest(operation: Operation, case: Case) -> bool:
    # A header carries text a client cannot put in a header (NUL, 2 MB, raw non-Latin-1):
    # the HTTP server refuses it before MeSQ. MCP sends the same argument in JSON.
    return any(p.argument == case.field and p.location == "header" for p in operation.parameters)


def judge(world: World, channel: str, operation: Operation, case: Case, response: httpx.Response) -> list[str]:
    where = f"{channel} {operation.operation_id}.{case.field} = {case.value.name}"
    failed, code, message = CHANNELS[channel][1](response)
    before, world.last = world.last, world.snapshot()
    # A path segment or query string is text: `"1"` is a fine integer there, `[[]]` a fine
    # search. The JSON rules (schema, never-valid values) hold for bodies and MCP arguments.
    as_json = channel == "mcp" or case.field in operation.body_fields
    if not failed:
        return [f"{where}: accepted a value that must fail"] if as_json and case.must_fail else []
    problems = []
    if code == "INTERNAL" or len(response.content) >= MAX_ERROR_BYTES:
        problems.append(f"{where}: {code}, {len(response.content)} bytes")
    if "x" * (QUOTE_CHARS + 1) in message:  # a 2 MB string quoted at more than an excerpt's length
        problems.append(f"{where}: the message repeats more than {QUOTE_CHARS} characters of the value")
    if world.last != before:
        changed = sorted(set(world.last) ^ set(before))
        problems.append(f"{where}: failed ({code}) but changed the store: {changed[:3]}")
    names_field = code == "VALIDATION_ERROR" and case.field in message
    if as_json and case.value.never_valid and not code.startswith("jsonrpc") and not names_field:
        problems.append(f"{where}: {code} {message[:200]!r} does not name the field")
    return problems


@pytest.mark.parametrize("channel", sorted(CHANNELS))
@pytest.mark.parametrize(
    "operation_id", [pytest.param(op, marks=() if op in FAST_CUT else pytest.mark.slow) for op in OPERATIONS]
)
def test_hostile_values_fail_small_and_change_nothing(world: World, channel: str, operation_id: str) -> None:
    operation = SPEC.operation(operation_id)
    send = CHANNELS[channel][0]
    base = baseline(operation)
    problems: list[str] = []
    for case in cases(operation):
        if channel == "rest" and _skipped_on_rest(operation, case):
            continue
        response = send(world, operation, {**base, case.field: PLACEHOLDER}, case)
        problems += judge(world, channel, operation, case, response)
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"
