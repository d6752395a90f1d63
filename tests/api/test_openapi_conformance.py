"""Property-based, the one schemathesis harness: it drives REST operations from the served OpenAPI
document (/api/openapi.json) and checks each answer: never a 5xx, status codes, content types,
headers and bodies as the document declares (success envelopes and the error envelope alike).

Each lane is a token and the routes it is pointed at: every operation with a memo-only token (so
the todo routes answer their declared 403), and the board and inbox routes again with a todo token
(which reaches their handlers)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from schemathesis import openapi
from schemathesis.specs.openapi.checks import positive_data_acceptance

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.spec import load_spec
from mesq.runtime.server import create_local_app
from mesq.todos.board.operation_table import OPERATIONS as BOARD
from mesq.wiring.services import build_services
from tests.hypothesis_lanes import examples
from tests.settings import inprocess_settings

MEMO_SCOPES = "memo:read,memo:write"
TODO_SCOPES = "todo:read,todo:write"

SPEC = load_spec()
OPERATIONS = sorted(
    [(op.method, op.path) for op in SPEC.operations.values()]
    # The byte-carrying attachment routes are documented (and fuzzed) too.
    + [(op.method, op.path) for op in SPEC.raw_operations.values()]
)
BOARD_ROUTES = sorted((SPEC.operation(name).method, SPEC.operation(name).path) for name in BOARD)
INBOX_ROUTES = sorted(
    (op.method, op.path) for op in SPEC.operations.values() if op.path.startswith("/api/toolkit/todo/inbox")
)


@dataclass(frozen=True)
class Lane:
    name: str
    scopes: str
    routes: list[tuple[str, str]]
    max_examples: int


LANES = [
    Lane("memo-token", MEMO_SCOPES, OPERATIONS, 40),
    Lane("todo-token-board", TODO_SCOPES, BOARD_ROUTES, 15),
    Lane("todo-token-inbox", TODO_SCOPES, INBOX_ROUTES, 30),
]
CASES = [(lane, method, path) for lane in LANES for method, path in lane.routes]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[openapi.OpenApiSchema, dict[str, str]]]:  # type: ignore[name-defined]
    with tempfile.TemporaryDirectory() as data_dir:
        # Limits off: the fuzzer's unauthenticated probes would spend the per-IP budget within a
        # minute and then see 429 instead of the 401 it checks for (limits: test_anonymous_limits).
        services = build_services(inprocess_settings(data_dir=Path(data_dir), rate_limit_profile="off"))
        user = create_user(services.items, "fuzzer", "correct horse battery")
        tokens = {
            scopes: create_token(services.items, user["id"], name=f"fuzz {scopes}", scopes=scopes)[0]
            for scopes in {lane.scopes for lane in LANES}
        }
        yield openapi.from_asgi("/api/openapi.json", create_local_app(services)), tokens
        services.items.close()


def test_every_operation_is_fuzzed(served):
    schema, _ = served
    found = sorted((op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations())
    assert found == OPERATIONS


def test_the_todo_lanes_cover_the_board_and_every_inbox_route():
    assert len(INBOX_ROUTES) == 13
    assert BOARD_ROUTES and set(BOARD_ROUTES) <= set(OPERATIONS)


@pytest.mark.parametrize(
    ("lane", "method", "path"), CASES, ids=[f"{lane.name} {method} {path}" for lane, method, path in CASES]
)
def test_rest_operation_conforms_to_its_document(served, lane, method, path):
    schema, tokens = served
    operation = schema[path][method]
    token = tokens[lane.scopes]

    @given(case=operation.as_strategy())
    @settings(
        max_examples=examples(lane.max_examples), deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    def check(case):
        # Every check but "schema-valid data must be accepted": a schema cannot say that
        # 2026-02-30 is not a date, that createdFrom must not be after createdTo, or that a title
        # is blank; those are answered with 400 VALIDATION_ERROR, which the document declares.
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, excluded_checks=[positive_data_acceptance])

    check()
