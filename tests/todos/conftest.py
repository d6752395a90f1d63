"""Shared fixtures of the todo tests (board: spaces and tasks; inbox; read views).

- `todo_account`: a user with a PAT holding todo:read + todo:write (`make_account(scopes=...)`
  gives other scope sets; TODO_SCOPES is the string).
- `rest(account)`: a `TodoRest` that calls any operation by operationId over the real REST app,
  building the request from the spec (path / query / header parameters, JSON body), so tests
  never hard-code a route: `rest(acct).ok("create_todo_task", title="x")` -> data;
  `.fails(op, **args)` -> (status, envelope); `.call(op, **args)` -> the httpx response.
- `todo_mcp(account)`: the wire MCP client of tests/mcp/conftest.py (`Mcp`: `.ok`, `.fails`,
  `.tools()`) with the account's token, against the same app.
- `todo_call(account)`: the operation functions called directly with a `Call` (no adapter),
  for unit-level tests that need the raw MesqError.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from mesq.kernel.spec import load_spec
from mesq.wiring.services import Services
from tests.conftest import Account
from tests.mcp.conftest import Mcp
from tests.support.operations import call_of, run_operation

TODO_SCOPES = "todo:read,todo:write"
SPEC = load_spec()


@dataclass
class TodoRest:
    client: TestClient
    account: Account

    def call(self, operation_id: str, **arguments: Any) -> httpx.Response:
        operation = SPEC.operation(operation_id)
        path = operation.path
        query: dict[str, Any] = {}
        headers = dict(self.account.headers)
        for parameter in operation.parameters:
            if parameter.argument not in arguments:
                continue
            value = arguments.pop(parameter.argument)
            if parameter.location == "path":
                path = path.replace("{" + parameter.name + "}", str(value))
            elif parameter.location == "header":
                headers[parameter.name] = str(value)
            else:
                query[parameter.name] = ",".join(map(str, value)) if isinstance(value, list) else _text(value)
        body = arguments if operation.has_body else None
        assert operation.has_body or not arguments, f"{operation_id}: unknown arguments {sorted(arguments)}"
        return self.client.request(operation.method, path, params=query, headers=headers, json=body)

    def ok(self, operation_id: str, **arguments: Any) -> dict[str, Any]:
        response = self.call(operation_id, **arguments)
        status = SPEC.operation(operation_id).success_status
        assert response.status_code == status, response.text
        data: dict[str, Any] = response.json()["data"]
        return data

    def fails(self, operation_id: str, **arguments: Any) -> tuple[int, dict[str, Any]]:
        response = self.call(operation_id, **arguments)
        assert response.status_code >= 400, response.text
        envelope: dict[str, Any] = response.json()
        return response.status_code, envelope


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@pytest.fixture
def todo_account(make_account: Callable[..., Account]) -> Account:
    return make_account(scopes=TODO_SCOPES)


@pytest.fixture
def rest(client: TestClient) -> Callable[[Account], TodoRest]:
    return lambda account: TodoRest(client, account)


@pytest.fixture
def todo_mcp(client: TestClient) -> Callable[[Account], Mcp]:
    return lambda account: Mcp(client=client, token=account.token)


@pytest.fixture
def todo_call(services: Services) -> Callable[..., Any]:
    """`todo_call(account_or_user_id, operation_id, **arguments)` -> data (raises MesqError)."""

    def run(owner: Account | str, operation_id: str, **arguments: Any) -> dict[str, Any]:
        user_id = owner if isinstance(owner, str) else owner.user_id
        call = call_of(services, user_id, TODO_SCOPES.split(","), trace_id=uuid.uuid4().hex)
        return dict(run_operation(call, operation_id, arguments))

    return run
